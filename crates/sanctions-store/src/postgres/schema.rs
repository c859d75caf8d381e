//! The PostgreSQL schema's versioned migrations, applied in order under an advisory lock
//! (two instances starting together migrate once) and recorded in `schema_migrations`.
//!
//! The tables are those of the SQLite schema at its version 8 (and the index of its version 9,
//! the job claims of its version 10 and the decision columns of its version 11), with
//! PostgreSQL types:
//! identities for sequence numbers, BIGINT counts, BYTEA digests and packed results, TEXT
//! timestamps in the fixed-width form that sorts as time, and
//! every text column in the "C" collation so that text compares and sorts by bytes, as in
//! SQLite (ids page by `<`, name digests follow entry-id order). No triggers: the rules they carry
//! in SQLite are in the code. Never edit a released migration: append a new one.

use postgres::Transaction;

use super::db;
use crate::StoreError;
use crate::codec::now_text;

/// The advisory lock key of migrations (any constant unique to this program).
const MIGRATION_LOCK: i64 = 0x5341_4e43_0001;

/// The migrations; index `i` moves the schema from version `i` to `i + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: everything the SQLite schema holds at its version 8.
    r#"
    CREATE TABLE list_updates (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        list_code  TEXT COLLATE "C" NOT NULL,
        at         TEXT COLLATE "C" NOT NULL,
        origin     TEXT COLLATE "C" NOT NULL,
        files      TEXT COLLATE "C" NOT NULL,
        published  TEXT COLLATE "C",
        added      BIGINT NOT NULL,
        removed    BIGINT NOT NULL,
        changed    BIGINT NOT NULL,
        total      BIGINT NOT NULL,
        notes      TEXT COLLATE "C" NOT NULL,
        failed     TEXT COLLATE "C"
    );
    CREATE INDEX list_updates_by_list ON list_updates(list_code, id);

    CREATE TABLE lists (
        code          TEXT COLLATE "C" PRIMARY KEY,
        entity_count  BIGINT NOT NULL DEFAULT 0,
        updated_at    TEXT COLLATE "C",
        published     TEXT COLLATE "C",
        last_update   BIGINT REFERENCES list_updates(id)
    );

    CREATE TABLE entities (
        entity_id     TEXT COLLATE "C" PRIMARY KEY,
        list_code     TEXT COLLATE "C" NOT NULL,
        source_id     TEXT COLLATE "C" NOT NULL,
        kind          TEXT COLLATE "C" NOT NULL,
        primary_name  TEXT COLLATE "C" NOT NULL,
        country       TEXT COLLATE "C",
        content_hash  BYTEA NOT NULL,
        data          TEXT COLLATE "C" NOT NULL,
        listing_ends  TEXT COLLATE "C"
    );
    CREATE INDEX entities_by_list ON entities(list_code);

    CREATE TABLE names (
        entity_id  TEXT COLLATE "C" NOT NULL REFERENCES entities(entity_id) ON DELETE CASCADE,
        position   BIGINT NOT NULL,
        name       TEXT COLLATE "C" NOT NULL,
        kind       TEXT COLLATE "C",
        quality    TEXT COLLATE "C" NOT NULL,
        script     TEXT COLLATE "C",
        lang       TEXT COLLATE "C",
        PRIMARY KEY (entity_id, position)
    );

    CREATE TABLE entity_changes (
        update_id  BIGINT NOT NULL REFERENCES list_updates(id),
        entity_id  TEXT COLLATE "C" NOT NULL,
        change     TEXT COLLATE "C" NOT NULL CHECK (change IN ('added', 'removed', 'changed')),
        PRIMARY KEY (update_id, entity_id)
    );
    CREATE INDEX entity_changes_by_entity ON entity_changes(entity_id, update_id);

    CREATE TABLE entity_versions (
        entity_id     TEXT COLLATE "C" NOT NULL,
        list_code     TEXT COLLATE "C" NOT NULL,
        replaced_by   BIGINT REFERENCES list_updates(id),
        content_hash  BYTEA NOT NULL,
        data          TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX entity_versions_by_entity ON entity_versions(entity_id, replaced_by);

    CREATE TABLE name_digests (
        list_code  TEXT COLLATE "C" PRIMARY KEY,
        update_id  BIGINT NOT NULL REFERENCES list_updates(id),
        names      BIGINT NOT NULL,
        checksum   TEXT COLLATE "C" NOT NULL
    );

    CREATE TABLE outbox (
        seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id    TEXT COLLATE "C" NOT NULL UNIQUE,
        kind        TEXT COLLATE "C" NOT NULL,
        created_at  TEXT COLLATE "C" NOT NULL,
        payload     TEXT COLLATE "C" NOT NULL,
        account_id  TEXT COLLATE "C"
    );

    CREATE TABLE accounts (
        id            TEXT COLLATE "C" PRIMARY KEY,
        name          TEXT COLLATE "C" NOT NULL UNIQUE,
        plan          TEXT COLLATE "C" NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
        created_at    TEXT COLLATE "C" NOT NULL,
        plan_changes  BIGINT NOT NULL DEFAULT 0
    );
    INSERT INTO accounts (id, name, plan, created_at)
    VALUES ('acct_default', 'default', 'free',
            to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'));

    CREATE TABLE screenings (
        id              TEXT COLLATE "C" PRIMARY KEY,
        query           TEXT COLLATE "C" NOT NULL,
        kind            TEXT COLLATE "C",
        threshold       BIGINT NOT NULL,
        created_at      TEXT COLLATE "C" NOT NULL,
        total_matches   BIGINT NOT NULL,
        results         BYTEA NOT NULL,
        list_versions   TEXT COLLATE "C" NOT NULL,
        engine_version  TEXT COLLATE "C" NOT NULL,
        actor           TEXT COLLATE "C" NOT NULL,
        origin          TEXT COLLATE "C" NOT NULL,
        favorite_id     TEXT COLLATE "C",
        status          TEXT COLLATE "C" NOT NULL,
        account_id      TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX screenings_by_time ON screenings(created_at);
    CREATE INDEX screenings_by_account ON screenings(account_id, id);

    CREATE TABLE screening_matches (
        screening_id  TEXT COLLATE "C" NOT NULL REFERENCES screenings(id),
        entity_id     TEXT COLLATE "C" NOT NULL,
        score         BIGINT NOT NULL,
        PRIMARY KEY (screening_id, entity_id)
    );

    CREATE TABLE decisions (
        id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        screening_id  TEXT COLLATE "C" NOT NULL REFERENCES screenings(id),
        entity_id     TEXT COLLATE "C",
        from_status   TEXT COLLATE "C" NOT NULL,
        to_status     TEXT COLLATE "C" NOT NULL,
        note          TEXT COLLATE "C" NOT NULL,
        actor         TEXT COLLATE "C" NOT NULL,
        at            TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX decisions_by_screening ON decisions(screening_id, id);
    CREATE INDEX decisions_by_time ON decisions(at);

    CREATE TABLE favorites (
        id                 TEXT COLLATE "C" PRIMARY KEY,
        name               TEXT COLLATE "C" NOT NULL,
        norm               TEXT COLLATE "C" NOT NULL,
        kind               TEXT COLLATE "C",
        note               TEXT COLLATE "C",
        created_at         TEXT COLLATE "C" NOT NULL,
        last_screened_at   TEXT COLLATE "C",
        last_match_count   BIGINT NOT NULL DEFAULT 0,
        last_screening_id  TEXT COLLATE "C",
        last_run_id        BIGINT,
        account_id         TEXT COLLATE "C" NOT NULL,
        UNIQUE (account_id, norm)
    );
    CREATE TABLE favorite_matches (
        favorite_id  TEXT COLLATE "C" NOT NULL,
        entity_id    TEXT COLLATE "C" NOT NULL,
        score        BIGINT NOT NULL,
        PRIMARY KEY (favorite_id, entity_id)
    );
    CREATE INDEX favorite_matches_by_entity ON favorite_matches(entity_id);
    CREATE TABLE favorite_changes (
        id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        favorite_id   TEXT COLLATE "C" NOT NULL,
        entity_id     TEXT COLLATE "C" NOT NULL,
        change        TEXT COLLATE "C" NOT NULL CHECK (change IN ('gained', 'lost')),
        at            TEXT COLLATE "C" NOT NULL,
        run_id        BIGINT,
        screening_id  TEXT COLLATE "C"
    );
    CREATE INDEX favorite_changes_by_favorite ON favorite_changes(favorite_id, id);
    CREATE TABLE favorite_alert_keys (
        favorite_id  TEXT COLLATE "C" NOT NULL,
        entity_id    TEXT COLLATE "C" NOT NULL,
        base         BIGINT NOT NULL,
        alert_id     TEXT COLLATE "C" NOT NULL,
        account_id   TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (favorite_id, entity_id, base)
    );
    CREATE TABLE rescreen_runs (
        id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at              TEXT COLLATE "C" NOT NULL,
        reason          TEXT COLLATE "C" NOT NULL,
        mode            TEXT COLLATE "C" NOT NULL,
        list_versions   TEXT COLLATE "C" NOT NULL,
        engine_version  TEXT COLLATE "C" NOT NULL,
        actor           TEXT COLLATE "C" NOT NULL,
        screened        BIGINT NOT NULL,
        changed         BIGINT NOT NULL,
        alerts          BIGINT NOT NULL
    );

    CREATE TABLE alerts (
        id            TEXT COLLATE "C" PRIMARY KEY,
        kind          TEXT COLLATE "C" NOT NULL,
        severity      TEXT COLLATE "C" NOT NULL,
        title         TEXT COLLATE "C" NOT NULL,
        message       TEXT COLLATE "C" NOT NULL,
        created_at    TEXT COLLATE "C" NOT NULL,
        status        TEXT COLLATE "C" NOT NULL,
        screening_id  TEXT COLLATE "C",
        favorite_id   TEXT COLLATE "C",
        list_code     TEXT COLLATE "C",
        entity_ids    TEXT COLLATE "C" NOT NULL,
        account_id    TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX alerts_by_account ON alerts(account_id, id);
    CREATE TABLE alert_changes (
        id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        alert_id     TEXT COLLATE "C" NOT NULL REFERENCES alerts(id),
        from_status  TEXT COLLATE "C" NOT NULL,
        to_status    TEXT COLLATE "C" NOT NULL,
        note         TEXT COLLATE "C" NOT NULL,
        actor        TEXT COLLATE "C" NOT NULL,
        at           TEXT COLLATE "C" NOT NULL
    );

    CREATE TABLE service_state (
        key    TEXT COLLATE "C" PRIMARY KEY,
        value  BIGINT NOT NULL
    );

    CREATE TABLE webhooks (
        id               TEXT COLLATE "C" PRIMARY KEY,
        url              TEXT COLLATE "C" NOT NULL,
        events           TEXT COLLATE "C" NOT NULL,
        description      TEXT COLLATE "C",
        secret           TEXT COLLATE "C" NOT NULL,
        active           BOOLEAN NOT NULL,
        disabled_reason  TEXT COLLATE "C",
        created_at       TEXT COLLATE "C" NOT NULL,
        updated_at       TEXT COLLATE "C" NOT NULL,
        cursor           BIGINT NOT NULL,
        account_id       TEXT COLLATE "C" NOT NULL
    );
    CREATE TABLE webhook_deliveries (
        webhook_id       TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_seq        BIGINT NOT NULL REFERENCES outbox(seq),
        status           TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         BIGINT NOT NULL DEFAULT 0,
        next_attempt_at  TEXT COLLATE "C" NOT NULL,
        claimed_by       TEXT COLLATE "C",
        lease_until      TEXT COLLATE "C",
        PRIMARY KEY (webhook_id, event_seq)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
    CREATE TABLE webhook_attempts (
        id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id   TEXT COLLATE "C" NOT NULL,
        event_id     TEXT COLLATE "C" NOT NULL,
        kind         TEXT COLLATE "C" NOT NULL,
        attempt      BIGINT NOT NULL,
        at           TEXT COLLATE "C" NOT NULL,
        status_code  BIGINT,
        latency_ms   BIGINT NOT NULL,
        error        TEXT COLLATE "C",
        response     TEXT COLLATE "C"
    );
    CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts(webhook_id, id);

    CREATE TABLE briefs (
        id            TEXT COLLATE "C" PRIMARY KEY,
        source        TEXT COLLATE "C" NOT NULL,
        guid          TEXT COLLATE "C" NOT NULL,
        title         TEXT COLLATE "C" NOT NULL,
        summary       TEXT COLLATE "C" NOT NULL,
        body          TEXT COLLATE "C" NOT NULL,
        url           TEXT COLLATE "C",
        published_at  TEXT COLLATE "C" NOT NULL,
        lists         TEXT COLLATE "C" NOT NULL,
        countries     TEXT COLLATE "C" NOT NULL,
        entity_ids    TEXT COLLATE "C" NOT NULL,
        severity      TEXT COLLATE "C" NOT NULL,
        created_at    TEXT COLLATE "C" NOT NULL,
        UNIQUE (source, guid)
    );
    CREATE INDEX briefs_by_time ON briefs(published_at, id);

    CREATE TABLE api_keys (
        id          TEXT COLLATE "C" PRIMARY KEY,
        prefix      TEXT COLLATE "C" NOT NULL,
        hash        TEXT COLLATE "C" NOT NULL UNIQUE,
        label       TEXT COLLATE "C",
        plan        TEXT COLLATE "C" NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
        created_at  TEXT COLLATE "C" NOT NULL,
        revoked_at  TEXT COLLATE "C",
        account_id  TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        scopes      TEXT COLLATE "C" NOT NULL DEFAULT ''
    );
    CREATE INDEX api_keys_by_prefix ON api_keys(prefix);
    CREATE UNIQUE INDEX api_keys_label_in_account ON api_keys(account_id, label)
        WHERE label IS NOT NULL AND revoked_at IS NULL;
    CREATE TABLE account_usage (
        account_id  TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        month       TEXT COLLATE "C" NOT NULL,
        used        BIGINT NOT NULL,
        PRIMARY KEY (account_id, month)
    );
    "#,
    // 2: request-rate windows shared by every instance (`KeyStore::hit_shared_window`).
    r#"
    CREATE TABLE rate_windows (
        key         TEXT COLLATE "C" NOT NULL,
        start       BIGINT NOT NULL,
        used        BIGINT NOT NULL,
        PRIMARY KEY (key, start)
    );
    CREATE INDEX rate_windows_by_start ON rate_windows(start);
    "#,
    // 3: the pending deliveries of each webhook by due time (SQLite's migration 9).
    r#"
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_at)
        WHERE status = 'pending';
    "#,
    // 4: claimed jobs (SQLite's migration 10; its dropped triggers never existed here).
    r#"
    CREATE TABLE job_claims (
        job          TEXT COLLATE "C" PRIMARY KEY,
        owner        TEXT COLLATE "C" NOT NULL,
        lease_until  TEXT COLLATE "C" NOT NULL
    );
    "#,
    // 5: four-eyes review (SQLite's migration 11): the decision a proposal proposes, and the
    // proposal a second reviewer's confirmation or rejection settles.
    r#"
    ALTER TABLE decisions ADD COLUMN proposed TEXT COLLATE "C";
    ALTER TABLE decisions ADD COLUMN proposal_id BIGINT REFERENCES decisions(id);
    "#,
    // 6: a favorite's date of birth and country (SQLite's migration 12).
    r#"
    ALTER TABLE favorites ADD COLUMN dob TEXT COLLATE "C";
    ALTER TABLE favorites ADD COLUMN country TEXT COLLATE "C";
    "#,
    // 7: full re-screens in claimed chunks (SQLite's migration 13).
    r#"
    CREATE TABLE rescreen_chunk_runs (
        id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        scope            TEXT COLLATE "C" NOT NULL,
        reason           TEXT COLLATE "C" NOT NULL,
        started_at       TEXT COLLATE "C" NOT NULL,
        finished_at      TEXT COLLATE "C",
        chunks           BIGINT NOT NULL,
        rescreen_run_id  BIGINT
    );
    CREATE UNIQUE INDEX rescreen_chunk_runs_open ON rescreen_chunk_runs(scope)
        WHERE finished_at IS NULL;
    CREATE TABLE rescreen_chunks (
        run_id       BIGINT NOT NULL REFERENCES rescreen_chunk_runs(id),
        seq          BIGINT NOT NULL,
        after_id     TEXT COLLATE "C",
        last_id      TEXT COLLATE "C",
        holder       TEXT COLLATE "C",
        lease_until  TEXT COLLATE "C",
        claims       BIGINT NOT NULL DEFAULT 0,
        done_at      TEXT COLLATE "C",
        screened     BIGINT NOT NULL DEFAULT 0,
        changed      BIGINT NOT NULL DEFAULT 0,
        alerts       BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, seq)
    );
    "#,
    // 8: how near each favorite's last screening came to the threshold (SQLite's migration
    // 14).
    r#"
    ALTER TABLE favorites ADD COLUMN near_score DOUBLE PRECISION;
    ALTER TABLE favorites ADD COLUMN low_score DOUBLE PRECISION;
    "#,
    // 9: an account's favorites in id order (SQLite's migration 15): a re-screen run's chunk
    // bounds read `size` index entries each. Without it, and without the table's statistics
    // (right after an import), each bound was planned as a scan of every favorite of the
    // account (some 80 ms a bound at 100,000 favorites, growing with the watchlist).
    r#"
    CREATE INDEX IF NOT EXISTS favorites_by_account ON favorites (account_id, id);
    "#,
];

/// The schema version of the database (0: none yet).
pub(super) fn version(client: &mut impl postgres::GenericClient) -> Result<i64, StoreError> {
    let exists: bool = client
        .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])
        .map_err(db)?
        .get(0);
    if !exists {
        return Ok(0);
    }
    Ok(client
        .query_one(
            "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
            &[],
        )
        .map_err(db)?
        .get(0))
}

/// Applies the migrations the database lacks, in the caller's transaction, under the
/// migration lock; refuses a database newer than this program. Returns the versions applied.
pub(super) fn migrate(tx: &mut Transaction<'_>) -> Result<Vec<i64>, StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(db)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version     BIGINT PRIMARY KEY,
             applied_at  TEXT NOT NULL
         )",
    )
    .map_err(db)?;
    let known = MIGRATIONS.len() as i64;
    let found = version(tx)?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    let mut applied = Vec::new();
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        tx.batch_execute(sql).map_err(db)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[&version, &now_text()],
        )
        .map_err(db)?;
        tracing::info!(version, "applied PostgreSQL schema migration");
        applied.push(version);
    }
    Ok(applied)
}
