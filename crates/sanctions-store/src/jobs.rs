//! Claimed jobs: work that any of several processes may do but only one should, held with a
//! lease (a list update's brief, a scheduled feed read, the scheduled full re-screen). A
//! process takes a job that nobody holds, or whose lease has run out (its holder died or
//! hung); it renews by claiming again, and releases when done, or keeps the claim until the
//! job is next due (a schedule).

use jiff::Timestamp;
use rusqlite::params;

use super::codec::ts_text;
use super::{Store, StoreError};

/// `owner` asking for `job` at `now`, to hold it until `until`.
#[derive(Debug, Clone, Copy)]
pub struct JobClaim<'a> {
    pub job: &'a str,
    pub owner: &'a str,
    pub now: Timestamp,
    pub until: Timestamp,
}

impl Store {
    /// Takes `claim.job` for `claim.owner` until `claim.until` when nobody holds it, its
    /// lease ended at or before `claim.now`, or the owner already holds it (a renewal).
    /// Returns whether the owner holds it now.
    pub fn claim_job(&mut self, claim: &JobClaim<'_>) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let changed = tx.execute(
            "INSERT INTO job_claims (job, owner, lease_until) VALUES (?1, ?2, ?4)
             ON CONFLICT(job) DO UPDATE SET owner = excluded.owner,
                 lease_until = excluded.lease_until
             WHERE job_claims.owner = excluded.owner OR job_claims.lease_until <= ?3",
            params![
                claim.job,
                claim.owner,
                ts_text(claim.now),
                ts_text(claim.until)
            ],
        )?;
        tx.commit()?;
        Ok(changed == 1)
    }

    /// Gives `job` up if `owner` holds it; returns whether it did.
    pub fn release_job(&mut self, job: &str, owner: &str) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let deleted = tx.execute(
            "DELETE FROM job_claims WHERE job = ?1 AND owner = ?2",
            params![job, owner],
        )?;
        tx.commit()?;
        Ok(deleted == 1)
    }
}
