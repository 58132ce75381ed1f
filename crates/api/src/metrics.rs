//! Prometheus metrics, `GET /metrics`: HTTP requests by route, method and
//! status with latency histograms (recorded by the request middleware), and,
//! read at each scrape, the refresh queue's depth and lag and the creator
//! jobs by state (from the database, so the whole fleet's), and the calls,
//! failures and quota of this process's platform upstreams.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::State;
use axum::http::{Method, header};
use axum::response::IntoResponse;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::error::ApiError;
use crate::state::AppState;

/// Request counter: `method`, `route` (the matched path pattern) and `status`.
const REQUESTS: &str = "vidpulse_http_requests_total";
/// Request latency histogram: `method`, `route`.
const DURATION: &str = "vidpulse_http_request_duration_seconds";
/// Buckets of the latency histogram, in seconds.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How often recorded latencies are folded into the histogram's buckets.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The process's recorder, installed on first use; `None` when another
/// recorder was installed first.
///
/// The recorder keeps every latency sample until it folds them into the
/// buckets, which it does only when asked (`run_upkeep`, or a scrape): a
/// thread asks every few seconds, so a server nobody scrapes does not grow
/// by a sample per request.
fn handle() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(DURATION.into()), BUCKETS)
                .ok()?
                .install_recorder()
                .ok()?;
            let upkeep = handle.clone();
            let spawned = std::thread::Builder::new()
                .name("metrics-upkeep".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(UPKEEP_EVERY);
                        upkeep.run_upkeep();
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "metrics upkeep thread not started; latencies fold at scrapes only");
            }
            Some(handle)
        })
        .as_ref()
}

/// Installs the recorder (at start, so the first request is counted).
pub fn install() {
    let _ = handle();
}

/// The counter and histogram of one method, route and status.
type RequestMetrics = (metrics::Counter, metrics::Histogram);

/// Handles by route, then method and status.
type Handles = HashMap<String, HashMap<(Method, u16), RequestMetrics>>;

thread_local! {
    /// This thread's handles: the
    /// recorder finds a handle by hashing its name and labels, which the
    /// request path then does once per thread and kind of request, not per
    /// request.
    static HANDLES: RefCell<Handles> = RefCell::default();
}

/// Counts one answered request.
pub fn record_request(method: &Method, route: &str, status: u16, elapsed: Duration) {
    HANDLES.with_borrow_mut(|handles| {
        if !handles.contains_key(route) {
            handles.insert(route.to_owned(), HashMap::new());
        }
        let Some(by_route) = handles.get_mut(route) else {
            return;
        };
        let (requests, duration) = by_route
            .entry((method.clone(), status))
            .or_insert_with(|| request_metrics(method.as_str(), route, status));
        requests.increment(1);
        duration.record(elapsed.as_secs_f64());
    });
}

/// The handles of one method, route and status, from the recorder.
fn request_metrics(method: &str, route: &str, status: u16) -> RequestMetrics {
    let labels = [("method", method.to_owned()), ("route", route.to_owned())];
    (
        metrics::counter!(
            REQUESTS,
            &[
                ("method", method.to_owned()),
                ("route", route.to_owned()),
                ("status", status.to_string()),
            ]
        ),
        metrics::histogram!(DURATION, &labels),
    )
}

/// `GET /metrics`: the Prometheus text exposition format.
pub async fn metrics(State(app): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let mut out = handle().map(PrometheusHandle::render).unwrap_or_default();
    let now = app.clock.now();
    let queue = app.store.queue_stats(now).await?;
    let lag = queue
        .oldest_due_at
        .map(|due| (now - due).num_milliseconds().max(0) as f64 / 1000.0)
        .unwrap_or(0.0);
    let mut gauge = |name: &str, help: &str, kind: &str, samples: &[(String, f64)]| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(out, "{name}{labels} {value}");
        }
    };
    gauge(
        "vidpulse_refresh_due_videos",
        "Videos due for a read and not claimed by a worker.",
        "gauge",
        &[(String::new(), queue.due_videos as f64)],
    );
    gauge(
        "vidpulse_refresh_claimed_videos",
        "Videos a worker holds a claim on.",
        "gauge",
        &[(String::new(), queue.claimed_videos as f64)],
    );
    gauge(
        "vidpulse_refresh_lag_seconds",
        "How long the oldest due read has waited.",
        "gauge",
        &[(String::new(), lag)],
    );
    let jobs: Vec<(String, f64)> = ["queued", "processing", "succeeded", "error"]
        .iter()
        .map(|status| {
            let n = queue
                .jobs
                .iter()
                .find(|(s, _)| s == status)
                .map_or(0, |(_, n)| *n);
            (format!("{{status=\"{status}\"}}"), n as f64)
        })
        .collect();
    gauge(
        "vidpulse_creator_jobs",
        "Creator-track jobs by status.",
        "gauge",
        &jobs,
    );
    let webhooks = app.store.webhook_queue().await?;
    gauge(
        "vidpulse_webhook_pending_deliveries",
        "Webhook deliveries waiting for an attempt (including retries).",
        "gauge",
        &[(String::new(), webhooks.pending as f64)],
    );
    gauge(
        "vidpulse_webhook_oldest_undelivered_seconds",
        "How long the oldest undelivered webhook delivery has waited since it was queued.",
        "gauge",
        &[(
            String::new(),
            webhooks
                .oldest_pending_at
                .map(|at| (now - at).num_milliseconds().max(0) as f64 / 1000.0)
                .unwrap_or(0.0),
        )],
    );
    let upstreams = app.source.upstream_stats();
    let per = |f: &dyn Fn(&vidpulse_platforms::http::UpstreamSnapshot) -> Option<f64>| {
        upstreams
            .iter()
            .filter_map(|u| f(u).map(|v| (format!("{{upstream=\"{}\"}}", u.name), v)))
            .collect::<Vec<_>>()
    };
    gauge(
        "vidpulse_upstream_calls_total",
        "Calls sent to a platform upstream by this process, retries included.",
        "counter",
        &per(&|u| Some(u.calls as f64)),
    );
    gauge(
        "vidpulse_upstream_failures_total",
        "Calls to a platform upstream that failed.",
        "counter",
        &per(&|u| Some(u.failures as f64)),
    );
    gauge(
        "vidpulse_upstream_quota_used",
        "Quota units spent today on a platform upstream.",
        "gauge",
        &per(&|u| Some(u.quota_used as f64)),
    );
    gauge(
        "vidpulse_upstream_quota_limit",
        "The daily quota of a platform upstream.",
        "gauge",
        &per(&|u| u.quota_limit.map(|l| l as f64)),
    );
    gauge(
        "vidpulse_upstream_circuit_open",
        "1 while calls to a platform upstream are suspended after failures.",
        "gauge",
        &per(&|u| Some(f64::from(u8::from(u.circuit_open)))),
    );
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    ))
}
