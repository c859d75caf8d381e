//! The record of one import of one list: which files, what changed.

use serde::{Deserialize, Serialize};

use super::ListCode;

/// One file that went into an import, identified by its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SourceFile {
    pub name: String,
    pub sha256: String,
    pub bytes: u64,
}

/// One import of one list. Importing identical files again records an update with zero
/// changes, so the record also says when a list was last checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateRecord {
    pub id: i64,
    pub list: ListCode,
    /// When the import committed, RFC 3339 UTC.
    pub at: String,
    /// Where the files came from: `import <folder>` or `update <url>`.
    pub origin: String,
    pub files: Vec<SourceFile>,
    /// The publication date the files state, `YYYY-MM-DD`.
    pub published: Option<String>,
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    /// Entities on the list after the import.
    pub total: u64,
    /// What the parser skipped and why.
    pub notes: Vec<String>,
    /// Why the import failed, for a failed one: the list kept its previous version, `total`
    /// is its size then, and `files` are the files that were refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// How one entity changed in an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

impl ChangeKind {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        }
    }

    /// Parses [`ChangeKind::as_str`].
    pub fn parse(text: &str) -> Option<ChangeKind> {
        match text {
            "added" => Some(ChangeKind::Added),
            "removed" => Some(ChangeKind::Removed),
            "changed" => Some(ChangeKind::Changed),
            _ => None,
        }
    }
}
