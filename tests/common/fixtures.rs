//! Fixture lists imported into temporary data folders, and small helpers on outputs, for the
//! tests of the command line.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Output;

use super::{sanctions, stdout};

/// A hand-made fixture folder: `tests/fixtures/<list>/<variant>`.
pub fn fixture(list: &str, variant: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{list}/{variant}"))
}

/// A data folder with `lists` (code, fixture variant) imported.
pub fn data_with(lists: &[(&str, &str)]) -> tempfile::TempDir {
    let layout = tempfile::tempdir().unwrap();
    for (code, variant) in lists {
        std::os::unix::fs::symlink(fixture(code, variant), layout.path().join(code)).unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    let out = sanctions(
        data.path(),
        &["lists", "import", layout.path().to_str().unwrap()],
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    data
}

/// A data folder with only the UN fixture (3 entries) imported.
pub fn un_only() -> tempfile::TempDir {
    data_with(&[("un", "good")])
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}
