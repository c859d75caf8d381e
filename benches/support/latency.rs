//! Single-name latency through the service, shared by `benches/engine.rs` and
//! `examples/preview_latency.rs` (included by path: a bench and an example share no crate).

use std::time::{Duration, Instant};

use sanctions_api::screening::ScreenRequest;
use sanctions_service::{LocalService, Service};

/// Median, mean, 99th percentile and maximum of previewing each of `requests` alone through
/// `svc`, one at a time, `passes` times over, and the share of the time the slowest tenth
/// takes. An error when nothing was previewed or any preview failed: a refusal is answered
/// faster than a screening, and its time is not a figure.
pub fn previews(
    rt: &tokio::runtime::Runtime,
    svc: &LocalService,
    requests: &[ScreenRequest],
    passes: usize,
) -> Result<String, String> {
    let mut times: Vec<Duration> = Vec::with_capacity(requests.len() * passes);
    let mut failed = Vec::new();
    for _ in 0..passes {
        for request in requests {
            let started = Instant::now();
            let answer = rt.block_on(svc.preview(request.clone()));
            times.push(started.elapsed());
            if let Err(e) = std::hint::black_box(answer) {
                failed.push(format!("{:?}: {e}", request.name));
            }
        }
    }
    if let Some(first) = failed.first() {
        return Err(format!(
            "{} of {} previews failed, the first {first}",
            failed.len(),
            times.len()
        ));
    }
    if times.is_empty() {
        return Err("nothing previewed: no query, or no pass".to_owned());
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    // How much of the time the slowest tenth takes: a long tail would be the place to look.
    let total: Duration = times.iter().sum();
    let slowest: Duration = times[times.len() - times.len() / 10..].iter().sum();
    Ok(format!(
        "{} screenings: median {:.0?}, mean {:.0?}, p99 {:.0?}, max {:.0?}; \
         the slowest tenth {:.0} % of the time",
        times.len(),
        at(0.5),
        total / times.len() as u32,
        at(0.99),
        at(1.0),
        100.0 * slowest.as_secs_f64() / total.as_secs_f64()
    ))
}
