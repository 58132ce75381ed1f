//! Shared plumbing of the HTTP adapters: one [`Upstream`] per platform API,
//! owning the timeouts, the per-upstream rate limit, retries with exponential
//! backoff and jitter for transient failures only, a circuit breaker, a cap
//! on response size, a daily quota, and the counters that metrics expose.
//! Adapters never retry or sleep themselves.

use std::num::NonZeroU32;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Duration as ChronoDuration, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::America::Los_Angeles;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use url::Url;

/// Installs ring as the process's TLS crypto provider, once. reqwest is built
/// without a default provider (to avoid compiling a second crypto library),
/// so every client construction goes through here first.
pub fn install_crypto_provider() {
    // An error only means a provider is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Settings of one upstream API.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Short name for logs and metrics (`youtube`, `tiktok_research`, ...).
    pub name: &'static str,
    /// Base address; request paths are joined to it.
    pub base_url: Url,
    /// Time allowed for one attempt (connect, send, read).
    pub timeout: Duration,
    /// Attempts after the first, for transient failures.
    pub max_retries: u32,
    /// First backoff; doubles each retry, with full jitter.
    pub backoff: Duration,
    /// Requests per second allowed to this upstream.
    pub requests_per_second: NonZeroU32,
    /// Consecutive transient failures that open the circuit.
    pub breaker_threshold: u32,
    /// How long an open circuit refuses calls before letting one try.
    pub breaker_cooldown: Duration,
    /// Largest response body read, in bytes.
    pub max_body_bytes: usize,
    /// Daily quota in the upstream's units, reset at midnight in `quota_reset`.
    pub daily_quota: Option<u64>,
    /// Where the daily quota resets.
    pub quota_reset: QuotaReset,
}

impl UpstreamConfig {
    /// Defaults for an upstream at `base_url`: 10 s per attempt, 2 retries
    /// from 250 ms, 10 requests per second, the circuit opening after 5
    /// failures for 30 s, 8 MiB bodies, no quota.
    pub fn new(name: &'static str, base_url: Url) -> Self {
        Self {
            name,
            base_url,
            timeout: Duration::from_secs(10),
            max_retries: 2,
            backoff: Duration::from_millis(250),
            requests_per_second: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
            breaker_threshold: 5,
            breaker_cooldown: Duration::from_secs(30),
            max_body_bytes: 8 * 1024 * 1024,
            daily_quota: None,
            quota_reset: QuotaReset::UtcMidnight,
        }
    }
}

/// When a daily quota resets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaReset {
    /// Midnight UTC.
    UtcMidnight,
    /// Midnight in US Pacific time (Google's quotas).
    PacificMidnight,
}

impl QuotaReset {
    /// The quota day `at` falls in.
    pub fn day_of(self, at: DateTime<Utc>) -> NaiveDate {
        match self {
            QuotaReset::UtcMidnight => at.date_naive(),
            QuotaReset::PacificMidnight => at.with_timezone(&Los_Angeles).date_naive(),
        }
    }

    /// The next reset after `at`.
    pub fn next_reset(self, at: DateTime<Utc>) -> DateTime<Utc> {
        let day = self.day_of(at);
        let midnight = day.succ_opt().unwrap_or(day).and_time(NaiveTime::MIN);
        let utc_midnight = Utc.from_utc_datetime(&midnight);
        match self {
            QuotaReset::UtcMidnight => utc_midnight,
            // Pacific time changes at 2:00, so its midnight always exists
            // once; the fallback (standard time) is never taken.
            QuotaReset::PacificMidnight => Los_Angeles
                .from_local_datetime(&midnight)
                .earliest()
                .map_or(utc_midnight + ChronoDuration::hours(8), |t| {
                    t.with_timezone(&Utc)
                }),
        }
    }
}

/// Counters of one upstream, for logs and metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamSnapshot {
    /// The upstream's name.
    pub name: &'static str,
    /// Attempts sent (retries included).
    pub calls: u64,
    /// Attempts that failed (any status ≥ 400, network error, timeout).
    pub failures: u64,
    /// Quota units spent today (where the upstream has a quota).
    pub quota_used: u64,
    /// The daily quota, where there is one.
    pub quota_limit: Option<u64>,
    /// Whether the circuit is open now.
    pub circuit_open: bool,
}

/// Why a call to an upstream failed, before the adapter interprets it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The upstream answered with an error status; its body is kept for the adapter.
    #[error("HTTP {status}")]
    Status {
        /// The status.
        status: u16,
        /// The body (at most the size cap).
        body: String,
    },
    /// No answer: connection refused, reset, DNS, TLS.
    #[error("network error: {0}")]
    Network(String),
    /// No answer in time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The circuit is open after repeated failures.
    #[error("circuit open after repeated failures; retry in {0:?}")]
    CircuitOpen(Duration),
    /// The daily quota is spent until its reset.
    #[error("daily quota of {limit} units used up until {until}")]
    QuotaExhausted {
        /// The quota.
        limit: u64,
        /// Its reset.
        until: DateTime<Utc>,
    },
    /// The answer is larger than the cap.
    #[error("response larger than {0} bytes")]
    TooLarge(usize),
    /// The answer is not the JSON expected.
    #[error("unexpected response: {0}")]
    Decode(String),
}

impl HttpError {
    /// Whether the same call may succeed later.
    pub fn is_transient(&self) -> bool {
        match self {
            HttpError::Status { status, .. } => *status == 429 || *status >= 500,
            HttpError::Network(_) | HttpError::Timeout(_) | HttpError::CircuitOpen(_) => true,
            HttpError::QuotaExhausted { .. } => true,
            HttpError::TooLarge(_) | HttpError::Decode(_) => false,
        }
    }
}

#[derive(Debug, Default)]
struct Breaker {
    consecutive_failures: u32,
    open_until: Option<Instant>,
}

#[derive(Debug)]
struct QuotaState {
    day: NaiveDate,
    used: u64,
    exhausted_until: Option<DateTime<Utc>>,
}

/// One upstream API with its resilience policy.
#[derive(Debug)]
pub struct Upstream {
    config: UpstreamConfig,
    client: reqwest::Client,
    limiter: DefaultDirectRateLimiter,
    breaker: Mutex<Breaker>,
    quota: Mutex<QuotaState>,
    calls: AtomicU64,
    failures: AtomicU64,
}

/// A request to send: method, path (joined to the base), query and body.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// Method.
    pub method: Method,
    /// Path below the base address.
    pub path: &'a str,
    /// Query parameters.
    pub query: Vec<(&'a str, String)>,
    /// Extra headers.
    pub headers: HeaderMap,
    /// JSON body.
    pub json: Option<serde_json::Value>,
    /// Form body.
    pub form: Option<Vec<(&'a str, String)>>,
    /// Quota units the call costs.
    pub cost: u64,
}

impl<'a> Call<'a> {
    /// A GET of `path` with `query`, costing `cost` units.
    pub fn get(path: &'a str, query: Vec<(&'a str, String)>, cost: u64) -> Self {
        Self {
            method: Method::GET,
            path,
            query,
            headers: HeaderMap::new(),
            json: None,
            form: None,
            cost,
        }
    }

    /// A POST of a JSON body.
    pub fn post_json(
        path: &'a str,
        query: Vec<(&'a str, String)>,
        body: serde_json::Value,
        cost: u64,
    ) -> Self {
        Self {
            method: Method::POST,
            path,
            query,
            headers: HeaderMap::new(),
            json: Some(body),
            form: None,
            cost,
        }
    }
}

impl Upstream {
    /// A client for `config`.
    pub fn new(config: UpstreamConfig) -> Result<Self, HttpError> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(config.timeout)
            .timeout(config.timeout)
            .user_agent(concat!("vidpulse/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| HttpError::Network(format!("cannot build the HTTP client: {e}")))?;
        let limiter = RateLimiter::direct(Quota::per_second(config.requests_per_second));
        Ok(Self {
            quota: Mutex::new(QuotaState {
                day: config.quota_reset.day_of(Utc::now()),
                used: 0,
                exhausted_until: None,
            }),
            config,
            client,
            limiter,
            breaker: Mutex::default(),
            calls: AtomicU64::new(0),
            failures: AtomicU64::new(0),
        })
    }

    /// The upstream's name.
    pub fn name(&self) -> &'static str {
        self.config.name
    }

    /// Sends `call` and decodes a JSON answer.
    pub async fn json<T: DeserializeOwned>(&self, call: Call<'_>) -> Result<T, HttpError> {
        let body = self.send(call).await?;
        serde_json::from_str(&body)
            .map_err(|e| HttpError::Decode(format!("{}: {e}", self.config.name)))
    }

    /// Sends `call` with the policy: quota, circuit, rate limit, attempts
    /// with backoff for transient failures. Returns the body of a 2xx answer.
    pub async fn send(&self, call: Call<'_>) -> Result<String, HttpError> {
        self.reserve_quota(call.cost)?;
        let url = self
            .config
            .base_url
            .join(call.path.trim_start_matches('/'))
            .map_err(|e| HttpError::Decode(format!("bad path {}: {e}", call.path)))?;
        let mut attempt = 0;
        loop {
            self.check_circuit()?;
            self.limiter.until_ready().await;
            let started = Instant::now();
            let result = self.attempt(&url, &call).await;
            self.calls.fetch_add(1, Ordering::Relaxed);
            let elapsed_ms = started.elapsed().as_millis();
            match &result {
                Ok(_) => {
                    self.record_success();
                    tracing::debug!(
                        upstream = self.config.name,
                        path = call.path,
                        cost = call.cost,
                        elapsed_ms,
                        "upstream call"
                    );
                    return result;
                }
                Err(e) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    let transient = e.is_transient();
                    if transient {
                        self.record_failure();
                    }
                    tracing::debug!(upstream = self.config.name, path = call.path, cost = call.cost, elapsed_ms, error = %e, "upstream call failed");
                    if !transient || attempt >= self.config.max_retries {
                        return result;
                    }
                }
            }
            attempt += 1;
            tokio::time::sleep(self.backoff(attempt)).await;
        }
    }

    async fn attempt(&self, url: &Url, call: &Call<'_>) -> Result<String, HttpError> {
        let mut req = self
            .client
            .request(call.method.clone(), url.clone())
            .headers(call.headers.clone());
        if !call.query.is_empty() {
            req = req.query(&call.query);
        }
        if let Some(json) = &call.json {
            req = req.json(json);
        }
        if let Some(form) = &call.form {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(form)
                .finish();
            req = req
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body);
        }
        let mut response = req.send().await.map_err(|e| self.request_error(e))?;
        let status = response.status();
        if let Some(len) = response.content_length()
            && len > self.config.max_body_bytes as u64
        {
            return Err(HttpError::TooLarge(self.config.max_body_bytes));
        }
        let mut body: Vec<u8> = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.request_error(e))? {
            if body.len() + chunk.len() > self.config.max_body_bytes {
                return Err(HttpError::TooLarge(self.config.max_body_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        let body = String::from_utf8_lossy(&body).into_owned();
        if status.is_success() {
            Ok(body)
        } else {
            Err(HttpError::Status {
                status: status.as_u16(),
                body,
            })
        }
    }

    /// Classifies a transport error. The URL is dropped from the message:
    /// its query may carry a credential (YouTube's `key=`).
    fn request_error(&self, e: reqwest::Error) -> HttpError {
        if e.is_timeout() {
            HttpError::Timeout(self.config.timeout)
        } else {
            HttpError::Network(e.without_url().to_string())
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let cap = self.config.backoff.saturating_mul(1 << attempt.min(8));
        // Full jitter: anywhere between zero and the exponential cap.
        cap.mul_f64(rand::random::<f64>())
    }

    fn check_circuit(&self) -> Result<(), HttpError> {
        let mut b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        match b.open_until {
            Some(until) if Instant::now() < until => {
                Err(HttpError::CircuitOpen(until - Instant::now()))
            }
            Some(_) => {
                // Half-open: let this call try; one more failure reopens.
                b.open_until = None;
                b.consecutive_failures = self.config.breaker_threshold.saturating_sub(1);
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn record_success(&self) {
        let mut b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        b.consecutive_failures = 0;
        b.open_until = None;
    }

    fn record_failure(&self) {
        let mut b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        b.consecutive_failures += 1;
        if b.consecutive_failures >= self.config.breaker_threshold {
            tracing::warn!(upstream = self.config.name, cooldown = ?self.config.breaker_cooldown, "circuit opened");
            b.open_until = Some(Instant::now() + self.config.breaker_cooldown);
        }
    }

    fn reserve_quota(&self, cost: u64) -> Result<(), HttpError> {
        let now = Utc::now();
        let mut q = self.quota.lock().unwrap_or_else(|e| e.into_inner());
        let today = self.config.quota_reset.day_of(now);
        if q.day != today {
            *q = QuotaState {
                day: today,
                used: 0,
                exhausted_until: None,
            };
        }
        if let Some(limit) = self.config.daily_quota {
            if let Some(until) = q.exhausted_until.filter(|u| *u > now) {
                return Err(HttpError::QuotaExhausted { limit, until });
            }
            if q.used + cost > limit {
                return Err(HttpError::QuotaExhausted {
                    limit,
                    until: self.config.quota_reset.next_reset(now),
                });
            }
        }
        q.used += cost;
        Ok(())
    }

    /// Records that the upstream itself said its quota is spent: no call is
    /// sent until the quota resets.
    pub fn quota_exhausted(&self) -> DateTime<Utc> {
        let until = self.config.quota_reset.next_reset(Utc::now());
        let mut q = self.quota.lock().unwrap_or_else(|e| e.into_inner());
        q.exhausted_until = Some(until);
        tracing::warn!(upstream = self.config.name, %until, "upstream quota exhausted");
        until
    }

    /// The counters now.
    pub fn snapshot(&self) -> UpstreamSnapshot {
        let q = self.quota.lock().unwrap_or_else(|e| e.into_inner());
        let b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        UpstreamSnapshot {
            name: self.config.name,
            calls: self.calls.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            quota_used: q.used,
            quota_limit: self.config.daily_quota,
            circuit_open: b.open_until.is_some_and(|u| Instant::now() < u),
        }
    }
}

/// `true` for status codes that mean "this answer will not change by retrying".
pub fn is_client_error(status: u16) -> bool {
    (400..500).contains(&status) && status != 429 && status != StatusCode::REQUEST_TIMEOUT.as_u16()
}

#[cfg(test)]
mod tests {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    fn config(server: &MockServer) -> UpstreamConfig {
        let mut c = UpstreamConfig::new(
            "test",
            Url::parse(&format!("{}/api/", server.uri())).unwrap(),
        );
        c.backoff = Duration::from_millis(1);
        c.timeout = Duration::from_millis(300);
        c.requests_per_second = NonZeroU32::new(1000).unwrap();
        c
    }

    #[tokio::test]
    async fn retries_transient_failures_then_succeeds() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/api/x"))
            .respond_with(ResponseTemplate::new(503))
            .up_to_n_times(2)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/api/x"))
            .respond_with(ResponseTemplate::new(200).set_body_string("{\"ok\":1}"))
            .mount(&server)
            .await;
        let up = Upstream::new(config(&server)).unwrap();
        let v: serde_json::Value = up.json(Call::get("x", vec![], 1)).await.unwrap();
        assert_eq!(v["ok"], 1);
        let s = up.snapshot();
        assert_eq!((s.calls, s.failures, s.quota_used), (3, 2, 1));
    }

    #[tokio::test]
    async fn client_errors_are_not_retried() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(400).set_body_string("bad"))
            .expect(1)
            .mount(&server)
            .await;
        let up = Upstream::new(config(&server)).unwrap();
        let e = up.send(Call::get("x", vec![], 1)).await.unwrap_err();
        assert_eq!(
            e,
            HttpError::Status {
                status: 400,
                body: "bad".into()
            }
        );
        assert!(!e.is_transient());
    }

    #[tokio::test]
    async fn slow_answers_time_out_and_open_the_circuit() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(2)))
            .mount(&server)
            .await;
        let mut c = config(&server);
        c.max_retries = 0;
        c.breaker_threshold = 2;
        c.breaker_cooldown = Duration::from_secs(60);
        let up = Upstream::new(c).unwrap();
        for _ in 0..2 {
            assert!(matches!(
                up.send(Call::get("x", vec![], 0)).await,
                Err(HttpError::Timeout(_))
            ));
        }
        assert!(matches!(
            up.send(Call::get("x", vec![], 0)).await,
            Err(HttpError::CircuitOpen(_))
        ));
        assert!(up.snapshot().circuit_open);
        assert_eq!(up.snapshot().calls, 2, "an open circuit sends nothing");
    }

    #[tokio::test]
    async fn network_errors_never_show_the_query() {
        // A port nobody listens on: the connection is refused.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let mut c = UpstreamConfig::new(
            "test",
            Url::parse(&format!("http://127.0.0.1:{port}/api/")).unwrap(),
        );
        c.max_retries = 0;
        let up = Upstream::new(c).unwrap();
        let e = up
            .send(Call::get("x", vec![("key", "s3cr3t-key".into())], 1))
            .await
            .unwrap_err();
        assert!(matches!(e, HttpError::Network(_)), "{e:?}");
        assert!(!e.to_string().contains("s3cr3t-key"), "{e}");
    }

    #[tokio::test]
    async fn huge_and_malformed_bodies_are_errors() {
        let server = MockServer::start().await;
        Mock::given(path("/api/big"))
            .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(2000)))
            .mount(&server)
            .await;
        Mock::given(path("/api/html"))
            .respond_with(ResponseTemplate::new(200).set_body_string("<html>"))
            .mount(&server)
            .await;
        let mut c = config(&server);
        c.max_body_bytes = 1000;
        let up = Upstream::new(c).unwrap();
        assert_eq!(
            up.send(Call::get("big", vec![], 0)).await,
            Err(HttpError::TooLarge(1000))
        );
        let e = up
            .json::<serde_json::Value>(Call::get("html", vec![], 0))
            .await
            .unwrap_err();
        assert!(matches!(e, HttpError::Decode(_)));
    }

    #[tokio::test]
    async fn the_daily_quota_stops_calls() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
            .mount(&server)
            .await;
        let mut c = config(&server);
        c.daily_quota = Some(150);
        let up = Upstream::new(c).unwrap();
        up.send(Call::get("x", vec![], 100)).await.unwrap();
        assert!(matches!(
            up.send(Call::get("x", vec![], 100)).await,
            Err(HttpError::QuotaExhausted { limit: 150, .. })
        ));
        up.send(Call::get("x", vec![], 50)).await.unwrap();
        up.quota_exhausted();
        assert!(matches!(
            up.send(Call::get("x", vec![], 0)).await,
            Err(HttpError::QuotaExhausted { .. })
        ));
    }

    #[test]
    fn pacific_midnight() {
        let utc = |mo, d, h, mi| Utc.with_ymd_and_hms(2026, mo, d, h, mi, 0).unwrap();
        let day = |mo, d| NaiveDate::from_ymd_opt(2026, mo, d).unwrap();
        let pacific = QuotaReset::PacificMidnight;
        // Winter: PST (UTC−8): midnight is 08:00 UTC.
        let at = utc(1, 15, 7, 59);
        assert_eq!(pacific.day_of(at), day(1, 14));
        assert_eq!(pacific.next_reset(at), utc(1, 15, 8, 0));
        // Summer: PDT (UTC−7): midnight is 07:00 UTC.
        let at = utc(7, 1, 12, 0);
        assert_eq!(pacific.next_reset(at), utc(7, 2, 7, 0));
        assert_eq!(QuotaReset::UtcMidnight.next_reset(at), utc(7, 2, 0, 0));
        // DST starts on March 8, 2026 at 2:00 PST (10:00 UTC): that day
        // begins at 08:00 UTC and lasts 23 hours.
        assert_eq!(pacific.day_of(utc(3, 8, 7, 59)), day(3, 7));
        assert_eq!(pacific.next_reset(utc(3, 8, 7, 59)), utc(3, 8, 8, 0));
        for at in [
            utc(3, 8, 8, 0),
            utc(3, 8, 9, 59),
            utc(3, 8, 10, 0),
            utc(3, 9, 6, 59),
        ] {
            assert_eq!(pacific.day_of(at), day(3, 8), "{at}");
            assert_eq!(pacific.next_reset(at), utc(3, 9, 7, 0), "{at}");
        }
        // DST ends on November 1, 2026 at 2:00 PDT (09:00 UTC): that day
        // begins at 07:00 UTC and lasts 25 hours (1:30 comes twice).
        assert_eq!(pacific.day_of(utc(11, 1, 6, 59)), day(10, 31));
        assert_eq!(pacific.next_reset(utc(11, 1, 6, 59)), utc(11, 1, 7, 0));
        for at in [
            utc(11, 1, 7, 0),
            utc(11, 1, 8, 30),
            utc(11, 1, 9, 30),
            utc(11, 2, 7, 59),
        ] {
            assert_eq!(pacific.day_of(at), day(11, 1), "{at}");
            assert_eq!(pacific.next_reset(at), utc(11, 2, 8, 0), "{at}");
        }
        assert_eq!(pacific.day_of(utc(11, 2, 8, 0)), day(11, 2));
    }
}
