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
    // 3: the service layer: entity history, stored screenings, append-only review decisions,
    // the watchlist, alerts, the webhook outbox and the migrations log. `screenings.results`
    // holds JSON text in rows written before the results were packed and a BLOB of compressed
    // JSON since (`codec::to_packed_json`); SQLite keeps a BLOB as it is in a TEXT column, and
    // the reader takes either.
    r#"
    CREATE TABLE IF NOT EXISTS schema_migrations (
        version     INTEGER PRIMARY KEY,
        applied_at  TEXT NOT NULL
    );

    -- Earlier versions of listed entries. An import that changes or removes an entry deletes
    -- its row from `entities`; this trigger keeps the old record first, and the update record
    -- written in the same transaction claims it (`replaced_by`).
    CREATE TABLE entity_versions (
        entity_id     TEXT NOT NULL,
        list_code     TEXT NOT NULL,
        replaced_by   INTEGER REFERENCES list_updates(id),
        content_hash  BLOB NOT NULL,
        data          TEXT NOT NULL
    );
    CREATE INDEX entity_versions_by_entity ON entity_versions(entity_id, replaced_by);
    CREATE INDEX entity_versions_unclaimed ON entity_versions(list_code) WHERE replaced_by IS NULL;
    CREATE TRIGGER entities_keep_version BEFORE DELETE ON entities BEGIN
        INSERT INTO entity_versions (entity_id, list_code, replaced_by, content_hash, data)
        VALUES (OLD.entity_id, OLD.list_code, NULL, OLD.content_hash, OLD.data);
    END;
    CREATE TRIGGER list_updates_claim_versions AFTER INSERT ON list_updates BEGIN
        UPDATE entity_versions SET replaced_by = NEW.id
        WHERE replaced_by IS NULL AND list_code = NEW.list_code;
    END;

    -- Events for the webhook worker, written in the transaction of the change that caused them.
    CREATE TABLE outbox (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id    TEXT NOT NULL UNIQUE,
        kind        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        payload     TEXT NOT NULL
    );
    CREATE TRIGGER list_updates_event AFTER INSERT ON list_updates
    WHEN NEW.failed IS NULL AND NEW.added + NEW.removed + NEW.changed > 0 BEGIN
        INSERT INTO outbox (event_id, kind, created_at, payload)
        VALUES ('evt_' || lower(hex(randomblob(16))), 'list.updated', NEW.at,
                json_object('list', NEW.list_code, 'update_id', NEW.id, 'added', NEW.added,
                            'removed', NEW.removed, 'changed', NEW.changed, 'total', NEW.total));
    END;

    -- Every screening, as it was reported. Only its review status (derived from `decisions`)
    -- may change; nothing deletes one.
    CREATE TABLE screenings (
        id              TEXT PRIMARY KEY,
        query           TEXT NOT NULL,
        kind            TEXT,
        threshold       INTEGER NOT NULL,
        created_at      TEXT NOT NULL,
        total_matches   INTEGER NOT NULL,
        results         TEXT NOT NULL,
        list_versions   TEXT NOT NULL,
        engine_version  TEXT NOT NULL,
        actor           TEXT NOT NULL,
        origin          TEXT NOT NULL,
        favorite_id     TEXT,
        status          TEXT NOT NULL
    );
    CREATE INDEX screenings_by_time ON screenings(created_at);
    CREATE INDEX screenings_by_status ON screenings(status, created_at);
    CREATE TRIGGER screenings_no_delete BEFORE DELETE ON screenings BEGIN
        SELECT RAISE(ABORT, 'screenings are kept for audit and cannot be deleted');
    END;
    CREATE TRIGGER screenings_frozen BEFORE UPDATE OF id, query, kind, threshold, created_at,
        total_matches, results, list_versions, engine_version, actor, origin, favorite_id
        ON screenings BEGIN
        SELECT RAISE(ABORT, 'a stored screening cannot be changed');
    END;

    CREATE TABLE screening_matches (
        screening_id  TEXT NOT NULL REFERENCES screenings(id),
        entity_id     TEXT NOT NULL,
        score         INTEGER NOT NULL,
        PRIMARY KEY (screening_id, entity_id)
    ) WITHOUT ROWID;

    -- The review audit log: appended to, never updated or deleted.
    CREATE TABLE decisions (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        screening_id  TEXT NOT NULL REFERENCES screenings(id),
        entity_id     TEXT,
        from_status   TEXT NOT NULL,
        to_status     TEXT NOT NULL,
        note          TEXT NOT NULL,
        actor         TEXT NOT NULL,
        at            TEXT NOT NULL
    );
    CREATE INDEX decisions_by_screening ON decisions(screening_id, id);
    CREATE INDEX decisions_by_time ON decisions(at);
    CREATE TRIGGER decisions_no_update BEFORE UPDATE ON decisions BEGIN
        SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be changed');
    END;
    CREATE TRIGGER decisions_no_delete BEFORE DELETE ON decisions BEGIN
        SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be deleted');
    END;

    -- The watchlist. `norm` is the normalised name with the type, unique.
    CREATE TABLE favorites (
        id                 TEXT PRIMARY KEY,
        name               TEXT NOT NULL,
        norm               TEXT NOT NULL UNIQUE,
        kind               TEXT,
        note               TEXT,
        created_at         TEXT NOT NULL,
        last_screened_at   TEXT,
        last_match_count   INTEGER NOT NULL DEFAULT 0,
        last_screening_id  TEXT,
        last_run_id        INTEGER
    );
    CREATE TABLE favorite_matches (
        favorite_id  TEXT NOT NULL,
        entity_id    TEXT NOT NULL,
        score        INTEGER NOT NULL,
        PRIMARY KEY (favorite_id, entity_id)
    ) WITHOUT ROWID;
    CREATE INDEX favorite_matches_by_entity ON favorite_matches(entity_id);
    -- Matches a favorite gained or lost, appended by every re-screen that changed its set.
    CREATE TABLE favorite_changes (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        favorite_id   TEXT NOT NULL,
        entity_id     TEXT NOT NULL,
        change        TEXT NOT NULL CHECK (change IN ('gained', 'lost')),
        at            TEXT NOT NULL,
        run_id        INTEGER,
        screening_id  TEXT
    );
    CREATE INDEX favorite_changes_by_favorite ON favorite_changes(favorite_id, id);
    -- One row per watchlist re-screen: the compact audit record of every no-match screening.
    CREATE TABLE rescreen_runs (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        at              TEXT NOT NULL,
        reason          TEXT NOT NULL,
        mode            TEXT NOT NULL,
        list_versions   TEXT NOT NULL,
        engine_version  TEXT NOT NULL,
        actor           TEXT NOT NULL,
        screened        INTEGER NOT NULL,
        changed         INTEGER NOT NULL,
        alerts          INTEGER NOT NULL
    );

    CREATE TABLE alerts (
        id            TEXT PRIMARY KEY,
        kind          TEXT NOT NULL,
        severity      TEXT NOT NULL,
        title         TEXT NOT NULL,
        message       TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        status        TEXT NOT NULL,
        screening_id  TEXT,
        favorite_id   TEXT,
        list_code     TEXT,
        entity_ids    TEXT NOT NULL
    );
    CREATE INDEX alerts_by_time ON alerts(created_at, id);
    CREATE TRIGGER alerts_no_delete BEFORE DELETE ON alerts BEGIN
        SELECT RAISE(ABORT, 'alerts are kept for audit and cannot be deleted');
    END;
    CREATE TABLE alert_changes (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        alert_id     TEXT NOT NULL REFERENCES alerts(id),
        from_status  TEXT NOT NULL,
        to_status    TEXT NOT NULL,
        note         TEXT NOT NULL,
        actor        TEXT NOT NULL,
        at           TEXT NOT NULL
    );
    CREATE TRIGGER alert_changes_no_update BEFORE UPDATE ON alert_changes BEGIN
        SELECT RAISE(ABORT, 'the alert log is append-only');
    END;
    CREATE TRIGGER alert_changes_no_delete BEFORE DELETE ON alert_changes BEGIN
        SELECT RAISE(ABORT, 'the alert log is append-only');
    END;

    -- Progress markers of background work (e.g. the last list update monitored).
    CREATE TABLE service_state (
        key    TEXT PRIMARY KEY,
        value  INTEGER NOT NULL
    );
    "#,
    // 4: webhooks (subscriptions, per-event deliveries, the attempt log) and risk briefs.
    r#"
    CREATE TABLE webhooks (
        id               TEXT PRIMARY KEY,
        url              TEXT NOT NULL,
        events           TEXT NOT NULL,
        description      TEXT,
        secret           TEXT NOT NULL,
        active           INTEGER NOT NULL,
        disabled_reason  TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        cursor           INTEGER NOT NULL  -- the last outbox seq handed to this webhook
    );
    -- One row per (webhook, event): pending until delivered, failed or given up.
    CREATE TABLE webhook_deliveries (
        webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_seq        INTEGER NOT NULL REFERENCES outbox(seq),
        status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  TEXT NOT NULL,
        PRIMARY KEY (webhook_id, event_seq)
    ) WITHOUT ROWID;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
    CREATE TABLE webhook_attempts (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id   TEXT NOT NULL,
        event_id     TEXT NOT NULL,
        kind         TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        at           TEXT NOT NULL,
        status_code  INTEGER,
        latency_ms   INTEGER NOT NULL,
        error        TEXT,
        response     TEXT
    );
    CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts(webhook_id, id);

    CREATE TABLE briefs (
        id            TEXT PRIMARY KEY,
        source        TEXT NOT NULL,
        guid          TEXT NOT NULL,
        title         TEXT NOT NULL,
        summary       TEXT NOT NULL,
        body          TEXT NOT NULL,
        url           TEXT,
        published_at  TEXT NOT NULL,
        lists         TEXT NOT NULL,
        countries     TEXT NOT NULL,
        entity_ids    TEXT NOT NULL,
        severity      TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        UNIQUE (source, guid)
    );
    CREATE INDEX briefs_by_time ON briefs(published_at, id);
    "#,
    // 5: API keys of `sanctions serve` (only a SHA-256 of each secret) and their usage
    // counters: screening credits used per key per calendar month (UTC, `YYYY-MM`).
    r#"
    CREATE TABLE api_keys (
        id          TEXT PRIMARY KEY,
        prefix      TEXT NOT NULL,
        hash        TEXT NOT NULL UNIQUE,
        label       TEXT,
        plan        TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
    );
    CREATE INDEX api_keys_by_prefix ON api_keys(prefix);
    CREATE TABLE api_usage (
        key_id  TEXT NOT NULL REFERENCES api_keys(id),
        month   TEXT NOT NULL,
        used    INTEGER NOT NULL,
        PRIMARY KEY (key_id, month)
    ) WITHOUT ROWID;
    "#,
    // 6: accounts. Every API key belongs to an account, which holds the plan and the monthly
    // credits; screenings, alerts, favorites, webhooks and outbox events belong to an account
    // (decisions and alert changes through their screening or alert). Existing data and keys
    // move to the default account (the local user's), on the best plan a key had. Labels
    // are unique among an account's active keys (duplicates renamed with their key id), and
    // keys carry scopes (what their plan allows, `admin` aside). An outbox event without an
    // account (`list.updated`) is shared reference news, delivered to every account.
    r#"
    CREATE TABLE accounts (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        plan        TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
        created_at  TEXT NOT NULL,
        plan_changes INTEGER NOT NULL DEFAULT 0  -- part of the key fingerprint
    );
    INSERT INTO accounts (id, name, plan, created_at)
    VALUES ('acct_default', 'default',
            coalesce((SELECT plan FROM api_keys
                      ORDER BY CASE plan WHEN 'business' THEN 0 WHEN 'pro' THEN 1 ELSE 2 END
                      LIMIT 1), 'free'),
            strftime('%Y-%m-%dT%H:%M:%S.000000Z', 'now'));

    ALTER TABLE api_keys ADD COLUMN account_id TEXT NOT NULL DEFAULT 'acct_default';
    ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
    UPDATE api_keys SET scopes = CASE plan
        WHEN 'business' THEN 'screen review watchlist webhooks audit'
        ELSE 'screen review watchlist audit' END;
    UPDATE api_keys SET label = label || ' (' || id || ')'
    WHERE label IS NOT NULL AND revoked_at IS NULL AND EXISTS (
        SELECT 1 FROM api_keys k WHERE k.label = api_keys.label AND k.revoked_at IS NULL
          AND k.account_id = api_keys.account_id AND k.rowid < api_keys.rowid);
    CREATE UNIQUE INDEX api_keys_label_in_account ON api_keys(account_id, label)
        WHERE label IS NOT NULL AND revoked_at IS NULL;
    CREATE INDEX api_keys_by_account ON api_keys(account_id);

    CREATE TABLE account_usage (
        account_id  TEXT NOT NULL REFERENCES accounts(id),
        month       TEXT NOT NULL,
        used        INTEGER NOT NULL,
        PRIMARY KEY (account_id, month)
    ) WITHOUT ROWID;
    INSERT INTO account_usage (account_id, month, used)
    SELECT k.account_id, u.month, sum(u.used) FROM api_usage u JOIN api_keys k ON k.id = u.key_id
    GROUP BY k.account_id, u.month;
    DROP TABLE api_usage;

    ALTER TABLE screenings ADD COLUMN account_id TEXT NOT NULL DEFAULT 'acct_default';
    CREATE INDEX screenings_by_account ON screenings(account_id, id);
    ALTER TABLE alerts ADD COLUMN account_id TEXT NOT NULL DEFAULT 'acct_default';
    CREATE INDEX alerts_by_account ON alerts(account_id, id);
    ALTER TABLE webhooks ADD COLUMN account_id TEXT NOT NULL DEFAULT 'acct_default';
    ALTER TABLE outbox ADD COLUMN account_id TEXT;
    UPDATE outbox SET account_id = 'acct_default' WHERE kind <> 'list.updated';

    -- The watchlist: a name is unique within an account (the table is rebuilt for the key).
    CREATE TABLE favorites_by_account (
        id                 TEXT PRIMARY KEY,
        name               TEXT NOT NULL,
        norm               TEXT NOT NULL,
        kind               TEXT,
        note               TEXT,
        created_at         TEXT NOT NULL,
        last_screened_at   TEXT,
        last_match_count   INTEGER NOT NULL DEFAULT 0,
        last_screening_id  TEXT,
        last_run_id        INTEGER,
        account_id         TEXT NOT NULL DEFAULT 'acct_default',
        UNIQUE (account_id, norm)
    );
    INSERT INTO favorites_by_account (id, name, norm, kind, note, created_at, last_screened_at,
        last_match_count, last_screening_id, last_run_id)
    SELECT id, name, norm, kind, note, created_at, last_screened_at, last_match_count,
        last_screening_id, last_run_id FROM favorites;
    DROP TABLE favorites;
    ALTER TABLE favorites_by_account RENAME TO favorites;
    "#,
    // 7: per list, the count and a SHA-256 of the names an import
    // stored, compared with the names read back when the screening index is built.
    r#"
    CREATE TABLE name_digests (
        list_code  TEXT PRIMARY KEY,
        update_id  INTEGER NOT NULL REFERENCES list_updates(id),
        names      INTEGER NOT NULL,
        checksum   TEXT NOT NULL
    );
    "#,
    // 8: claimed work. The identity of a `favorite.match` alert: one per (favorite, newly
    // matched entity, watchlist version the re-screen diffed from), so two processes that
    // re-screen the same state record its alerts once (`record_rescreen`). Webhook
    // deliveries claimed by a worker (`claimed_by`) until its lease expires (`lease_until`).
    r#"
    ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
    ALTER TABLE webhook_deliveries ADD COLUMN lease_until TEXT;
    CREATE TABLE favorite_alert_keys (
        favorite_id  TEXT NOT NULL,
        entity_id    TEXT NOT NULL,
        base         INTEGER NOT NULL,
        alert_id     TEXT NOT NULL,
        account_id   TEXT NOT NULL,
        PRIMARY KEY (favorite_id, entity_id, base)
    ) WITHOUT ROWID;
    "#,
    // 9: the pending deliveries of each webhook by due time, so that a worker claims for
    // one webhook without scanning the others' (a backlog of one endpoint that is being
    // served, or failing, no longer slows the claims for the rest). The `list.updated` event
    // is written by the store's code in the transaction of the update (`outbox::list_updated`),
    // as every other event, so its trigger goes: no behaviour depends on a trigger.
    r#"
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_at)
        WHERE status = 'pending';
    DROP TRIGGER list_updates_event;
    "#,
    // 10: the entity history is written by the import's code (`lists::retire_entity`, and
    // the update claiming the versions it replaced), so its two triggers go; and claimed
    // jobs: one row per job (a list update's brief, a scheduled feed read or re-screen) held
    // by `owner` until `lease_until` (fixed-width RFC 3339 text, which sorts as time).
    r#"
    DROP TRIGGER entities_keep_version;
    DROP TRIGGER list_updates_claim_versions;
    CREATE TABLE job_claims (
        job          TEXT PRIMARY KEY,
        owner        TEXT NOT NULL,
        lease_until  TEXT NOT NULL
    ) WITHOUT ROWID;
    "#,
    // 11: four-eyes review. A proposal is a decision entry whose `to_status` is `proposed`,
    // naming the decision proposed; a second reviewer's confirmation or rejection moves the
    // match from `proposed` and names the proposal it settles. Both stay append-only.
    r#"
    ALTER TABLE decisions ADD COLUMN proposed TEXT;
    ALTER TABLE decisions ADD COLUMN proposal_id INTEGER REFERENCES decisions(id);
    "#,
    // 12: the watchlist keeps a customer's date of birth (`YYYY-MM-DD` or `YYYY`) and country
    // (ISO code), the evidence its re-screens pass to the engine as `screen --dob --country`.
    r#"
    ALTER TABLE favorites ADD COLUMN dob TEXT;
    ALTER TABLE favorites ADD COLUMN country TEXT;
    "#,
    // 13: full re-screens in claimed chunks (`rescreen_chunks`): a run per scope (an account,
    // or `*` for every account) open until its last chunk is done, and its chunks, each a
    // key range of the favorites (`after_id` exclusive, `last_id` inclusive, NULL unbounded)
    // held by `holder` until `lease_until`, done once (`done_at`) with its counts.
    r#"
    CREATE TABLE rescreen_chunk_runs (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        scope            TEXT NOT NULL,
        reason           TEXT NOT NULL,
        started_at       TEXT NOT NULL,
        finished_at      TEXT,
        chunks           INTEGER NOT NULL,
        rescreen_run_id  INTEGER
    );
    CREATE UNIQUE INDEX rescreen_chunk_runs_open ON rescreen_chunk_runs(scope)
        WHERE finished_at IS NULL;
    CREATE TABLE rescreen_chunks (
        run_id       INTEGER NOT NULL REFERENCES rescreen_chunk_runs(id),
        seq          INTEGER NOT NULL,
        after_id     TEXT,
        last_id      TEXT,
        holder       TEXT,
        lease_until  TEXT,
        claims       INTEGER NOT NULL DEFAULT 0,
        done_at      TEXT,
        screened     INTEGER NOT NULL DEFAULT 0,
        changed      INTEGER NOT NULL DEFAULT 0,
        alerts       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    "#,
    // 14: how near each favorite's last screening came to the threshold, for the incremental
    // re-screen (`Nearness`): the highest unrounded score below it and the lowest at or above
    // it, each shifted by the weight drift of the index it was screened on. NULL: unknown (a
    // favorite of an earlier version), which the next incremental run re-screens.
    r#"
    ALTER TABLE favorites ADD COLUMN near_score REAL;
    ALTER TABLE favorites ADD COLUMN low_score REAL;
    "#,
    // 15: an account's favorites in id order, so that a re-screen run's chunk bounds are
    // read from the index alone (each `LIMIT 1 OFFSET size-1` otherwise looked up every
    // favorite it skipped in the table).
    r#"
    CREATE INDEX IF NOT EXISTS favorites_by_account ON favorites(account_id, id);
    "#,
    // 16: an entry's changes by entry, as PostgreSQL has them: the record as it stood after
    // an update (`Store::entity_at`, read for every entry an update changed to work out the
    // weights' drift) and an entry's history had walked every change of every earlier update.
    r#"
    CREATE INDEX IF NOT EXISTS entity_changes_by_entity ON entity_changes(entity_id, update_id);
    "#,
    // 17: every entry's list by its id from an index alone, for the name verification every
    // process runs before its first screening (`integrity::read_all_names`): by the table's
    // own id index, each entry's list was a look-up of its row (about 16 ms of a cold
    // `screen`'s 100 with the eight lists).
    r#"
    CREATE INDEX IF NOT EXISTS entities_by_id_list ON entities(entity_id, list_code);
    "#,
];
