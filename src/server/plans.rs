//! What each plan may do and how much: the spec's Limits table as built-in defaults, with
//! the `[server.plans.*]` overrides of the configuration applied.
//!
//! Features by plan (defaults): Free screens single names (stored or preview), reads
//! screenings, lists, entries, briefs, favorites and alerts, and keeps a watchlist; Pro adds
//! batch screening (and the bulk import of favorites, which screens every name); Business
//! adds webhooks.

use crate::config::{PlanOverride, PlansConfig, Quota};
use crate::model::Plan;

/// One plan's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanLimits {
    pub plan: Plan,
    /// Requests per minute (fixed one-minute windows, UTC).
    pub requests_per_minute: u64,
    /// Names screened per calendar month (UTC); `None` is unlimited.
    pub screenings_per_month: Option<u64>,
    pub batch: bool,
    pub webhooks: bool,
}

/// A feature some plans lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Batch,
    Webhooks,
}

impl Feature {
    fn name(self) -> &'static str {
        match self {
            Feature::Batch => "batch screening",
            Feature::Webhooks => "webhooks",
        }
    }
}

/// The three plans' limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plans {
    free: PlanLimits,
    pro: PlanLimits,
    business: PlanLimits,
}

impl Plans {
    /// The defaults with `config`'s overrides.
    pub fn new(config: &PlansConfig) -> Plans {
        Plans {
            free: apply(default_limits(Plan::Free), &config.free),
            pro: apply(default_limits(Plan::Pro), &config.pro),
            business: apply(default_limits(Plan::Business), &config.business),
        }
    }

    /// The limits of `plan`.
    pub fn get(&self, plan: Plan) -> PlanLimits {
        match plan {
            Plan::Free => self.free,
            Plan::Pro => self.pro,
            Plan::Business => self.business,
        }
    }

    /// `Ok` when `plan` has `feature`, else the message of a 403 naming the cheapest plan
    /// that has it.
    pub fn allows(&self, plan: Plan, feature: Feature) -> Result<(), String> {
        let has = |limits: PlanLimits| match feature {
            Feature::Batch => limits.batch,
            Feature::Webhooks => limits.webhooks,
        };
        if has(self.get(plan)) {
            return Ok(());
        }
        let needed = [Plan::Free, Plan::Pro, Plan::Business]
            .into_iter()
            .find(|p| has(self.get(*p)));
        Err(match needed {
            Some(needed) => format!(
                "{} needs the {} plan; this key is on the {} plan",
                feature.name(),
                needed.title(),
                plan.title()
            ),
            None => format!(
                "{} is not offered on any plan of this server",
                feature.name()
            ),
        })
    }
}

/// The spec's Limits table.
pub fn default_limits(plan: Plan) -> PlanLimits {
    match plan {
        Plan::Free => PlanLimits {
            plan,
            requests_per_minute: 10,
            screenings_per_month: Some(10),
            batch: false,
            webhooks: false,
        },
        Plan::Pro => PlanLimits {
            plan,
            requests_per_minute: 100,
            screenings_per_month: Some(100),
            batch: true,
            webhooks: false,
        },
        Plan::Business => PlanLimits {
            plan,
            requests_per_minute: 1000,
            screenings_per_month: None,
            batch: true,
            webhooks: true,
        },
    }
}

fn apply(mut limits: PlanLimits, o: &PlanOverride) -> PlanLimits {
    if let Some(rpm) = o.requests_per_minute {
        limits.requests_per_minute = rpm;
    }
    if let Some(quota) = o.screenings_per_month {
        limits.screenings_per_month = match quota {
            Quota::Limited(n) => Some(n),
            Quota::Unlimited => None,
        };
    }
    limits.batch = o.batch.unwrap_or(limits.batch);
    limits.webhooks = o.webhooks.unwrap_or(limits.webhooks);
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_spec_and_overrides_apply() {
        let plans = Plans::new(&PlansConfig::default());
        assert_eq!(plans.get(Plan::Free).requests_per_minute, 10);
        assert_eq!(plans.get(Plan::Pro).screenings_per_month, Some(100));
        assert_eq!(plans.get(Plan::Business).screenings_per_month, None);
        let refused = plans.allows(Plan::Free, Feature::Batch).unwrap_err();
        assert!(refused.contains("Pro plan"), "{refused}");
        let refused = plans.allows(Plan::Pro, Feature::Webhooks).unwrap_err();
        assert!(refused.contains("Business plan"), "{refused}");
        assert!(plans.allows(Plan::Business, Feature::Webhooks).is_ok());

        let config = PlansConfig {
            free: PlanOverride {
                requests_per_minute: Some(5),
                screenings_per_month: Some(Quota::Unlimited),
                batch: Some(true),
                webhooks: None,
            },
            ..PlansConfig::default()
        };
        let plans = Plans::new(&config);
        assert_eq!(plans.get(Plan::Free).requests_per_minute, 5);
        assert_eq!(plans.get(Plan::Free).screenings_per_month, None);
        assert!(plans.allows(Plan::Free, Feature::Batch).is_ok());
    }
}
