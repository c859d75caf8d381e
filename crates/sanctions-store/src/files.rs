//! Private files: the data folder is created 0700 and the database, the log, the lock and the
//! configuration 0600, whatever the umask (they hold every screened name, the key hashes and
//! the webhook secrets). SQLite creates its `-wal`, `-shm` and `-journal` files with the mode
//! of the database file, so creating that file 0600 first makes them 0600 too.
//!
//! Elsewhere than on Unix these are plain creations.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Creates `dir` (and missing parents) with mode 0700 when it does not exist.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Options that create a missing file with mode 0600.
pub fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Creates `path` empty with mode 0600 when it does not exist (an existing file is left as
/// it is).
pub fn create_private_file(path: &Path) -> io::Result<()> {
    match private_options().write(true).create_new(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens `path` for appending, creating it with mode 0600.
pub fn append_private(path: &Path) -> io::Result<File> {
    private_options().create(true).append(true).open(path)
}

/// Writes `bytes` to `path` in one step: to a private (0600) temporary file named from
/// `prefix` in the same folder, synced, then renamed over any file there.
pub fn replace_private(path: &Path, prefix: &str, bytes: &[u8]) -> io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // `tempfile` creates the file readable and writable by its owner only (0600).
    let mut temp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(folder)?;
    io::Write::write_all(&mut temp, bytes)?;
    temp.as_file().sync_data()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The permission bits of `dir` when other users (its group or everyone) may read or enter
/// it; `None` when it is private or cannot be read.
pub fn readable_by_others(dir: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir).ok()?.permissions().mode() & 0o777;
        (mode & 0o055 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn created_private_and_open_folders_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        create_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(readable_by_others(&dir), None);
        let file = dir.join("x.db");
        create_private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        drop(append_private(&dir.join("x.log")).unwrap());
        assert_eq!(mode(&dir.join("x.log")), 0o600);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(readable_by_others(&dir), Some(0o755));
    }
}
