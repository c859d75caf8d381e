//! What a parser returns: everything read from one list's files. It lives with the model so
//! that the store, which keeps it, does not import the parsers.

use crate::{Entity, ListCode, SourceFile};

/// Everything read from one list's files.
#[derive(Debug, Clone)]
pub struct ParsedList {
    pub list: ListCode,
    /// One record per list-specific identifier, in file order.
    pub entities: Vec<Entity>,
    /// The files read, in the order read.
    pub files: Vec<SourceFile>,
    /// The publication date the file states (`YYYY-MM-DD`), when it states one.
    pub published: Option<String>,
    /// What was skipped and why, e.g. "alt.csv: 1,204 rows name entries not in sdn.csv".
    pub notes: Vec<String>,
}

impl ParsedList {
    /// An empty result for `list`.
    pub fn new(list: ListCode) -> Self {
        ParsedList {
            list,
            entities: Vec::new(),
            files: Vec::new(),
            published: None,
            notes: Vec::new(),
        }
    }
}
