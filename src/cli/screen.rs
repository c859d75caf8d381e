//! `sanctions screen`, and what `screen` and `batch` share: the coverage check before
//! screening (refusing partial coverage unless `--allow-partial`), made from the service's
//! list metadata so that it reads the same locally and against a server.

use std::io::Write;

use color_eyre::eyre::Result;

use super::connect;
use super::exit::{self, Exit};
use super::lists::NO_DATA_HINT;
use super::matches;
use super::output::{print_json, safe, warn};
use super::workflow::runtime;
use super::{Context, ScreenArgs, ScreenOptions};
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, ScreenRequest};
use crate::batch::{check_name, merged};
use crate::model::ListCode;
use crate::service::ListSummary;
use crate::service::{Service, ServiceError};

/// What the requested lists hold, from the service: refuses an empty store (exit 3) and
/// partial coverage (exit 4) unless `--allow-partial`, and warns of stale lists.
pub async fn check_coverage(
    svc: &dyn Service,
    options: &ScreenOptions,
    json: bool,
) -> Result<Coverage> {
    let infos = svc.lists().await.map_err(service_error)?;
    if infos.iter().all(|s| s.count == 0) {
        return Err(exit::data(NO_DATA_HINT));
    }
    let summaries: Vec<ListSummary> = infos
        .into_iter()
        .map(|i| ListSummary {
            list: i.list_code,
            count: i.count,
            updated_at: i.updated_at,
            published: i.published,
            last_update: i.update_id,
        })
        .collect();
    let coverage = crate::coverage::build(
        &summaries,
        &options.lists,
        options.max_age,
        jiff::Timestamp::now(),
    );
    let searchable = crate::coverage::searchable(&coverage);
    if !coverage.missing.is_empty() {
        let names = list_names(&coverage.missing);
        if searchable.is_empty() {
            return Err(exit::partial(format!(
                "none of the requested lists has data ({names}); import them with `sanctions lists import DIR` or `sanctions lists update`"
            )));
        }
        if !options.allow_partial {
            let one = coverage.missing.len() == 1;
            let (has, it) = if one { ("has", "it") } else { ("have", "them") };
            return Err(exit::partial(format!(
                "not screened: {names} {has} no data (never imported, or unavailable because the stored names failed verification: `sanctions store check`), so a \"no match\" would not be true of {it}. Import {it} (`sanctions lists import DIR` or `lists update`) or restore the database, name the lists to check with --lists, or pass --allow-partial to screen against the others"
            )));
        }
        warn(
            &format!("partial coverage: not checked against {names} (no data)"),
            json,
        );
    }
    if !coverage.stale.is_empty() {
        warn(
            &format!(
                "stale: {} not updated for more than {} days (`sanctions lists update`)",
                list_names(&coverage.stale),
                coverage.max_age_days
            ),
            json,
        );
    }
    Ok(coverage)
}

/// The request for `options` (name empty), limited to the lists of `coverage` that hold data.
pub fn template(options: &ScreenOptions, coverage: &Coverage) -> ScreenRequest {
    ScreenRequest {
        kind: options.kind.map(Into::into),
        threshold: Some(options.threshold),
        limit: Some(usize::from(options.limit)),
        lists: Some(crate::coverage::searchable(coverage)),
        include_ended: options.include_ended,
        ..ScreenRequest::new("")
    }
}

/// A service refusal as the CLI's exit codes: the empty store as the hint (3), a bad value
/// as a usage error (2), anything else as a data error (3).
pub fn service_error(error: ServiceError) -> color_eyre::Report {
    match error {
        ServiceError::Unavailable(message) if message.starts_with("no list has been imported") => {
            exit::data(NO_DATA_HINT)
        }
        ServiceError::Validation { .. } | ServiceError::Invalid(_) => {
            exit::usage(format!("cannot screen: {error}"))
        }
        other => exit::data(other.to_string()),
    }
}

/// `OFAC SDN (ofac_sdn), EU Consolidated (eu)`.
pub fn list_names(lists: &[ListCode]) -> String {
    lists
        .iter()
        .map(|l| format!("{} ({l})", l.display_name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Screens one name, stores the screening (a read-only local store: not stored, said so)
/// and prints the matches and the screening's id.
pub fn run(ctx: &Context, args: ScreenArgs, json: bool) -> Result<Exit> {
    let name = args.name.join(" ");
    let kind: Option<KindFilter> = args.options.kind.map(Into::into);
    check_name(&name, kind).map_err(|e| exit::usage(format!("cannot screen: {e}")))?;
    connect::read_ahead(ctx);
    let connected = connect::service(ctx)?;
    let svc = connected.service;
    svc.warm_up();
    let rt = runtime()?;
    let coverage = rt.block_on(check_coverage(svc.as_ref(), &args.options, json))?;
    let request = ScreenRequest {
        name,
        date_of_birth: args.dob,
        country: args.country,
        ..template(&args.options, &coverage)
    };
    let response = if connected.read_only {
        warn(
            "the data folder is read-only: this screening is not stored (no id)",
            json,
        );
        rt.block_on(svc.preview(request))
    } else {
        rt.block_on(svc.screen(request))
    }
    .map_err(service_error)?;
    // The process ends after printing: its index is left for the system to take back.
    svc.keep_index_until_exit();
    let mut response = response;
    response.result.coverage = Some(merged(&coverage, response.result.coverage.as_ref()));
    let result = &response.result;
    let code = if args.options.fail_on_match && result.total_matches > 0 {
        Exit::MatchFound
    } else {
        Exit::Success
    };
    if json {
        print_json(&response)?;
        return Ok(code);
    }
    let mut out = std::io::stdout().lock();
    matches::print_result(&mut out, result, args.options.threshold)?;
    if !response.id.is_empty() {
        writeln!(
            out,
            "\nscreening {} stored (`sanctions screenings show {}`)",
            safe(&response.id),
            safe(&response.id)
        )?;
    }
    out.flush()?;
    Ok(code)
}
