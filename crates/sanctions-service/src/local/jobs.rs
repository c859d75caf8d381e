//! Claimed jobs in the local service: work that several processes on one store may each
//! start (a list update's brief, the scheduled full re-screen, a scheduled feed read) is
//! claimed in the store with a lease first, so that one process does it. A process that dies
//! mid-job stops renewing; its lease runs out and another process takes the job over.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use super::LocalService;
use crate::ServiceError;
use crate::store::JobClaim;

/// How long the brief of one list update may take before another process may take it over.
pub(crate) const BRIEF_LEASE: Duration = Duration::from_secs(60);

/// How long a scheduled run may take before another process may take it over.
pub(crate) const RUN_LEASE: Duration = Duration::from_secs(15 * 60);

/// What claiming a job gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// This process holds the job.
    Won,
    /// Another process holds it (running, or done for the current period).
    Held,
}

impl LocalService {
    /// Claims `job` for this process (blocking) until `lease` from now, or renews it when
    /// this process holds it already.
    pub(crate) fn claim_job(&self, job: &str, lease: Duration) -> Result<Claim, ServiceError> {
        let now = Timestamp::now();
        let claim = JobClaim {
            job,
            owner: self.job_owner(),
            now,
            until: now + SignedDuration::try_from(lease).unwrap_or(SignedDuration::MAX),
        };
        Ok(match self.repo().claim_job(&claim)? {
            true => Claim::Won,
            false => Claim::Held,
        })
    }

    /// Gives `job` up (blocking), so another process may take it at once.
    pub(crate) fn release_job(&self, job: &str) -> Result<(), ServiceError> {
        self.repo().release_job(job, self.job_owner())?;
        Ok(())
    }

    /// Runs `work` when this process wins `job` (held for [`RUN_LEASE`] while it runs), then
    /// keeps the job until `period` from now when it succeeded (no process runs it again
    /// before), or releases it when it failed. `None`: another process holds it.
    pub(crate) async fn scheduled<T, F>(
        &self,
        job: &str,
        period: Duration,
        work: F,
    ) -> Result<Option<T>, ServiceError>
    where
        F: std::future::Future<Output = Result<T, ServiceError>>,
    {
        let key = job.to_owned();
        let claimed = self
            .blocking(move |this| this.claim_job(&key, RUN_LEASE))
            .await?;
        if claimed == Claim::Held {
            return Ok(None);
        }
        let result = work.await;
        let key = job.to_owned();
        let ok = result.is_ok();
        self.blocking(move |this| match ok {
            true => this.claim_job(&key, period).map(|_| ()),
            false => this.release_job(&key),
        })
        .await?;
        result.map(Some)
    }
}
