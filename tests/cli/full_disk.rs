//! The real binary on a data folder whose disk fills up: a small file system of its own (a
//! tmpfs mounted for the test, so the tests need root, as CI runs them), filled to the last
//! block. The analyst is told the disk is full (never that the folder is read-only, never
//! an "internal error"), reads still work, nothing stored is lost, and once space is freed
//! everything works again.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::fixtures::{code, stderr, un_only};
use common::{sanctions, stdout};

/// A tmpfs of `mib` MiB mounted on a temporary folder, unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(mib: u32) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={mib}m,mode=700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the full-disk tests mount a small tmpfs of their own, which needs root \
             (CAP_SYS_ADMIN), as CI runs them: {}",
            stderr(&out)
        );
        SmallDisk { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes zeros into `filler` until the file system refuses with "no space left".
    fn fill(&self) -> PathBuf {
        let filler = self.path().join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 * 1024];
        let error = loop {
            if let Err(e) = file.write_all(&block) {
                break e;
            }
        };
        assert_eq!(error.raw_os_error(), Some(28), "ENOSPC expected: {error}");
        let _ = file.sync_all();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .output();
    }
}

fn stored_screenings(data: &Path) -> usize {
    let out = sanctions(data, &["audit", "export", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let audit: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    audit["screenings"].as_array().unwrap().len()
}

#[test]
fn a_full_disk_is_named_as_such_and_loses_nothing() {
    let disk = SmallDisk::mount(16);
    let data = disk.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let source = un_only();
    std::fs::copy(
        source.path().join("sanctions.db"),
        data.join("sanctions.db"),
    )
    .unwrap();
    let screen = ["screen", "AL-QAIDA", "--lists", "un"];
    let first = sanctions(&data, &screen);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(stored_screenings(&data), 1);

    let filler = disk.fill();
    let refused = sanctions(&data, &screen);
    let err = stderr(&refused);
    assert_eq!(code(&refused), 3, "a data error: {err}");
    assert!(err.contains("disk holding the database is full"), "{err}");
    assert!(err.contains("free space"), "what to do: {err}");
    assert!(
        !err.contains("read-only") && !err.contains("internal error"),
        "{err}"
    );
    let json = sanctions(&data, &["screen", "AL-QAIDA", "--lists", "un", "--json"]);
    assert_eq!(code(&json), 3);
    let error: serde_json::Value = serde_json::from_str(stderr(&json).trim()).unwrap();
    assert!(
        error["error"].as_str().unwrap().contains("is full"),
        "{error}"
    );
    // Reading needs no room.
    let lists = sanctions(&data, &["lists"]);
    assert_eq!(code(&lists), 0, "{}", stderr(&lists));

    std::fs::remove_file(filler).unwrap();
    let again = sanctions(&data, &screen);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(stored_screenings(&data), 2, "the first screening kept");
    let check = sanctions(&data, &["store", "check"]);
    assert_eq!(code(&check), 0, "{}", stderr(&check));
}
