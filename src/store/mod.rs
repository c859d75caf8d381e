//! The SQLite store: lists, entities, names and update records. All SQL lives here.

use std::path::Path;

use crate::model::Entity;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

/// The opened database.
pub struct Store {
    conn: rusqlite::Connection,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.conn.path())
            .finish()
    }
}

impl Store {
    /// Opens the database at `path`, creating it and applying migrations.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = rusqlite::Connection::open(path)?;
        Ok(Store { conn })
    }

    /// Every stored entry of every list, for building the screening index.
    pub fn entities(&self) -> Result<Vec<Entity>, StoreError> {
        Ok(Vec::new())
    }
}
