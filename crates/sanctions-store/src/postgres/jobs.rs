//! Claimed jobs on PostgreSQL (see [`crate::JobClaim`]): one conditional upsert takes a job
//! nobody holds, whose lease ended, or that the owner already holds; the row lock of
//! `ON CONFLICT` makes two instances asking at once see one winner.

use postgres::Transaction;

use super::db;
use crate::codec::ts_text;
use crate::{JobClaim, StoreError};

pub(super) fn claim(tx: &mut Transaction<'_>, claim: &JobClaim<'_>) -> Result<bool, StoreError> {
    let changed = tx
        .execute(
            "INSERT INTO job_claims (job, owner, lease_until) VALUES ($1, $2, $4)
             ON CONFLICT (job) DO UPDATE SET owner = EXCLUDED.owner,
                 lease_until = EXCLUDED.lease_until
             WHERE job_claims.owner = EXCLUDED.owner OR job_claims.lease_until <= $3",
            &[
                &claim.job,
                &claim.owner,
                &ts_text(claim.now),
                &ts_text(claim.until),
            ],
        )
        .map_err(db)?;
    Ok(changed == 1)
}

pub(super) fn release(
    tx: &mut Transaction<'_>,
    job: &str,
    owner: &str,
) -> Result<bool, StoreError> {
    let deleted = tx
        .execute(
            "DELETE FROM job_claims WHERE job = $1 AND owner = $2",
            &[&job, &owner],
        )
        .map_err(db)?;
    Ok(deleted == 1)
}

/// Whether a brief from `source` with `guid` is stored.
pub(super) fn brief_stored(
    c: &mut postgres::Client,
    source: &str,
    guid: &str,
) -> Result<bool, StoreError> {
    let row = c
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM briefs WHERE source = $1 AND guid = $2)",
            &[&source, &guid],
        )
        .map_err(db)?;
    super::col(&row, 0)
}
