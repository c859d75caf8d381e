//! `sanctions screenings [show|decide]`, `sanctions review [pending|confirm|reject]` and
//! `sanctions audit export`, through the service.

use std::io::Write;

use color_eyre::eyre::Result;

use super::Context;
use super::exit::Exit;
use super::output::print_json;
use super::workflow::{
    AuditArgs, AuditCommand, DecisionArg, FormatArg, ReviewArgs, ReviewCommand, ScreeningsArgs,
    ScreeningsCommand, StatusArg, VerdictArgs, opt_since, runtime, safe, ts,
};
use crate::api::audit_csv;
use crate::api::screenings::{
    AuditQuery, Decision, DecisionRecord, DecisionRequest, Page, ScreeningQuery, ScreeningSummary,
    StoredScreening, Verdict, VerdictRequest,
};
use crate::model::ReviewStatus;

/// `sanctions screenings ...`.
pub fn run_screenings(ctx: &Context, args: ScreeningsArgs, json: bool) -> Result<Exit> {
    let svc = super::connect::service(ctx)?.service;
    let rt = runtime()?;
    match args.command {
        None => {
            let page = rt.block_on(svc.screenings(ScreeningQuery {
                since: opt_since(args.since.as_deref())?,
                status: args.status.map(status_of),
                limit: Some(args.limit),
                cursor: None,
            }))?;
            print_summaries(
                &page,
                json,
                "narrow with --since or --status, or raise --limit",
            )?;
        }
        Some(ScreeningsCommand::Show { id }) => {
            let s = rt.block_on(svc.screening(&id))?;
            if json {
                print_json(&s)?;
                return Ok(Exit::Success);
            }
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}  {:?}", s.id, safe(&s.query))?;
            writeln!(
                out,
                "created {} by {}, {} (threshold {}, {})",
                ts(s.created_at),
                safe(&s.created_by),
                s.origin.as_str(),
                s.threshold,
                safe(&s.engine_version)
            )?;
            let versions: Vec<String> = s
                .list_versions
                .iter()
                .map(|(l, u)| format!("{l}@{u}"))
                .collect();
            writeln!(out, "lists: {}", versions.join(" "))?;
            writeln!(out, "status: {}\n", s.status)?;
            for (i, m) in s.results.iter().enumerate() {
                writeln!(
                    out,
                    "{:>2}. {:>3}  {}  [{}]  {}",
                    i + 1,
                    m.score,
                    safe(&m.name),
                    safe(&m.list_name),
                    safe(&m.entity_id)
                )?;
            }
            if !s.decisions.is_empty() {
                writeln!(out, "\ndecisions:")?;
                for d in &s.decisions {
                    writeln!(out, "  {}", decision_line(d))?;
                }
            }
        }
        Some(ScreeningsCommand::Decide {
            id,
            entity,
            decision,
            note,
        }) => {
            let response = rt.block_on(svc.decide(
                &id,
                DecisionRequest {
                    entity_id: entity,
                    decision: match decision {
                        DecisionArg::FalsePositive => Decision::FalsePositive,
                        DecisionArg::TrueMatch => Decision::TrueMatch,
                        DecisionArg::Escalated => Decision::Escalated,
                    },
                    note,
                },
            ))?;
            let decided = response.decision.entity_id.as_deref();
            let on = safe(decided.unwrap_or("the whole screening"));
            if json {
                print_json(&response)?;
            } else if let Some(proposed) = response.decision.proposed {
                println!(
                    "Proposed {proposed} on {} (four-eyes review): screening {id} is {} until a \
                     second reviewer runs `sanctions review confirm {id}` or `review reject {id}`.",
                    on, response.status
                );
            } else {
                println!(
                    "Recorded {} -> {} on {}; screening {} is now {}.",
                    response.decision.from, response.decision.to, on, id, response.status
                );
            }
        }
    }
    Ok(Exit::Success)
}

fn status_of(arg: StatusArg) -> ReviewStatus {
    match arg {
        StatusArg::NoMatch => ReviewStatus::NoMatch,
        StatusArg::PendingReview => ReviewStatus::PendingReview,
        StatusArg::FalsePositive => ReviewStatus::FalsePositive,
        StatusArg::TrueMatch => ReviewStatus::TrueMatch,
        StatusArg::Escalated => ReviewStatus::Escalated,
        StatusArg::Proposed => ReviewStatus::Proposed,
    }
}

/// A page of stored screenings as a table (or JSON); `more` says how to see the rest.
fn print_summaries(page: &Page<ScreeningSummary>, json: bool, more: &str) -> Result<()> {
    if json {
        return print_json(page);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<30}  {:<19}  {:>7}  {:>5}  {:<14}  {:<10}  query",
        "id", "created (UTC)", "matches", "best", "status", "by"
    )?;
    for s in &page.items {
        writeln!(
            out,
            "{:<30}  {:<19}  {:>7}  {:>5}  {:<14}  {:<10}  {}",
            s.id,
            ts(s.created_at),
            s.total_matches,
            s.best_score.map(|b| b.to_string()).unwrap_or_default(),
            s.status.as_str(),
            safe(&s.created_by),
            safe(&s.query)
        )?;
    }
    if page.next_cursor.is_some() {
        writeln!(out, "(more: {more})")?;
    }
    Ok(())
}

/// One entry of the audit log: when, who, on what, the move, the note; a proposal and a
/// verdict say so.
fn decision_line(d: &DecisionRecord) -> String {
    let stage = match (d.proposed, d.proposal_id) {
        (Some(p), None) => format!("  [proposes {p}]"),
        (Some(p), Some(id)) if d.to == p.status() => format!("  [confirms #{id}]"),
        (Some(_), Some(id)) => format!("  [rejects #{id}]"),
        (None, _) => String::new(),
    };
    format!(
        "#{} {}  {}  {}: {} -> {}  {:?}{stage}",
        d.id,
        ts(d.at),
        safe(&d.actor),
        safe(d.entity_id.as_deref().unwrap_or("(whole screening)")),
        d.from,
        d.to,
        safe(&d.note)
    )
}

/// `sanctions review ...`: the second reviewer's side of four-eyes review.
pub fn run_review(ctx: &Context, args: ReviewArgs, json: bool) -> Result<Exit> {
    let svc = super::connect::service(ctx)?.service;
    let rt = runtime()?;
    let (verdict, args): (Verdict, VerdictArgs) = match args.command {
        ReviewCommand::Pending { limit } => {
            let page = rt.block_on(svc.screenings(ScreeningQuery {
                since: None,
                status: Some(ReviewStatus::Proposed),
                limit: Some(limit),
                cursor: None,
            }))?;
            print_summaries(&page, json, "raise --limit")?;
            return Ok(Exit::Success);
        }
        ReviewCommand::Confirm(args) => (Verdict::Confirm, args),
        ReviewCommand::Reject(args) => (Verdict::Reject, args),
    };
    let response = rt.block_on(svc.verdict(
        &args.id,
        VerdictRequest {
            verdict,
            entity_id: args.entity,
            note: args.note,
        },
    ))?;
    if json {
        print_json(&response)?;
        return Ok(Exit::Success);
    }
    for d in &response.decisions {
        println!("{}", decision_line(d));
    }
    println!("Screening {} is now {}.", args.id, response.status);
    Ok(Exit::Success)
}

/// `sanctions audit export`.
pub fn run_audit(ctx: &Context, args: AuditArgs, json: bool) -> Result<Exit> {
    let AuditCommand::Export {
        since,
        until,
        format,
    } = args.command;
    let format = if json { FormatArg::Json } else { format };
    let svc = super::connect::service(ctx)?.service;
    let query = AuditQuery {
        since: opt_since(since.as_deref())?,
        until: opt_since(until.as_deref())?,
    };
    let rt = runtime()?;
    if format == FormatArg::Json {
        print_json(&rt.block_on(svc.audit(query))?)?;
        return Ok(Exit::Success);
    }
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut sink = match format {
        FormatArg::Csv => ExportSink::Csv(Box::new(csv::Writer::from_writer(out))),
        _ => ExportSink::Ndjson(out),
    };
    sink.start()?;
    let mut after = None;
    loop {
        let page = rt.block_on(svc.audit_page(query.clone(), after, EXPORT_PAGE))?;
        for screening in &page {
            sink.write(screening)?;
        }
        if page.len() < EXPORT_PAGE {
            break;
        }
        after = page.last().map(|s| s.id.clone());
    }
    sink.finish()?;
    Ok(Exit::Success)
}

/// Screenings read per page of a streamed export.
const EXPORT_PAGE: usize = 500;

/// Where a streamed export goes: CSV rows (a screening's row, then its decisions', in the
/// columns of the server's streamed CSV) or NDJSON lines (one stored screening with its
/// decisions per line), written a page at a time so that memory stays constant.
enum ExportSink<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Ndjson(W),
}

impl<W: Write> ExportSink<W> {
    fn start(&mut self) -> Result<()> {
        if let ExportSink::Csv(w) = self {
            w.write_record(audit_csv::HEADER)?;
        }
        Ok(())
    }

    fn write(&mut self, screening: &StoredScreening) -> Result<()> {
        match self {
            ExportSink::Csv(w) => {
                for row in audit_csv::rows(screening) {
                    w.write_record(&row)?;
                }
            }
            ExportSink::Ndjson(w) => {
                serde_json::to_writer(&mut *w, screening)?;
                w.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self {
            ExportSink::Csv(mut w) => w.flush()?,
            ExportSink::Ndjson(mut w) => w.flush()?,
        }
        Ok(())
    }
}
