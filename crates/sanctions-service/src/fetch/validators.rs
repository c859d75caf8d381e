//! The ETag / Last-Modified of each downloaded file, kept beside the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a server said identifies the version of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validator {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// The validators of one list's files, by URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    files: BTreeMap<String, Validator>,
}

const FILE_NAME: &str = ".validators.json";

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

impl Validators {
    /// The saved validators of `dir`; none when absent or unreadable (a full download follows).
    pub fn load(dir: &Path) -> Validators {
        std::fs::read(path(dir))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Saves the validators into `dir`, once the files they describe were imported.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let tmp = dir.join(format!("{FILE_NAME}.tmp"));
        std::fs::write(&tmp, json)?;
        std::fs::rename(tmp, path(dir))
    }

    /// The validator of one URL.
    pub fn get(&self, url: &str) -> Option<&Validator> {
        self.files
            .get(url)
            .filter(|v| v.etag.is_some() || v.last_modified.is_some())
    }

    pub(super) fn insert(&mut self, url: &str, validator: Validator) {
        self.files.insert(url.to_owned(), validator);
    }
}
