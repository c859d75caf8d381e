//! Versioned schema migrations, applied in order when the store opens.
//!
//! Each entry is applied once, in a transaction, and recorded in `PRAGMA user_version`.
//! Never edit a released migration: append a new one.

/// The migrations; index `i` moves the schema from version `i` to `i + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: lists, entities, names, update records and per-update entity changes.
    r#"
    CREATE TABLE lists (
        code          TEXT PRIMARY KEY,
        entity_count  INTEGER NOT NULL DEFAULT 0,
        updated_at    TEXT,
        published     TEXT,
        last_update   INTEGER REFERENCES list_updates(id)
    );

    CREATE TABLE entities (
        entity_id     TEXT PRIMARY KEY,
        list_code     TEXT NOT NULL,
        source_id     TEXT NOT NULL,
        kind          TEXT NOT NULL,
        primary_name  TEXT NOT NULL,
        country       TEXT,
        content_hash  BLOB NOT NULL,
        data          TEXT NOT NULL
    ); -- a rowid table: records of about 1 KB would waste pages in a WITHOUT ROWID B-tree
    CREATE INDEX entities_by_list ON entities(list_code);

    CREATE TABLE names (
        entity_id  TEXT NOT NULL REFERENCES entities(entity_id) ON DELETE CASCADE,
        position   INTEGER NOT NULL,
        name       TEXT NOT NULL,
        kind       TEXT,
        quality    TEXT NOT NULL,
        script     TEXT,
        lang       TEXT,
        PRIMARY KEY (entity_id, position)
    ) WITHOUT ROWID;

    CREATE TABLE list_updates (
        id          INTEGER PRIMARY KEY,
        list_code   TEXT NOT NULL,
        at          TEXT NOT NULL,
        origin      TEXT NOT NULL,
        files       TEXT NOT NULL,
        published   TEXT,
        added       INTEGER NOT NULL,
        removed     INTEGER NOT NULL,
        changed     INTEGER NOT NULL,
        total       INTEGER NOT NULL,
        notes       TEXT NOT NULL
    );
    CREATE INDEX list_updates_by_list ON list_updates(list_code, id);

    CREATE TABLE entity_changes (
        update_id  INTEGER NOT NULL REFERENCES list_updates(id),
        entity_id  TEXT NOT NULL,
        change     TEXT NOT NULL CHECK (change IN ('added', 'removed', 'changed')),
        PRIMARY KEY (update_id, entity_id)
    ) WITHOUT ROWID;
    "#,
    // 2: failed imports in the history (their reason), and when an entry's listing ends.
    r#"
    ALTER TABLE list_updates ADD COLUMN failed TEXT;
    ALTER TABLE entities ADD COLUMN listing_ends TEXT;
    "#,
];
