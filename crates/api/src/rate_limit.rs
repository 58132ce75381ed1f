//! Per-API-key rate limits (docs/api.md, "Rate limits"), and the
//! per-token limit of the pages a share link opens: GCRA, kept in the
//! process by `governor`, or shared by every API node through Redis when
//! `VIDPULSE_REDIS_URL` is set (one Lua script per check, on the Redis
//! server's clock, so nodes with skewed clocks agree).
//!
//! Every `/v1` request spends one unit of the key's general budget
//! ([`Budget::Requests`], checked by [`crate::v1::gate`]); a few routes also
//! spend a budget of their own. Each check notes the budget's state as the
//! limiter holds it after the check ([`BudgetState`]: remaining units and
//! time until the budget is full again) for the request being answered
//! ([`collecting`]), and the gate writes the most constraining one into the
//! `RateLimit-Policy` and `RateLimit` headers.
//!
//! The algorithm: each budget of each key keeps a theoretical arrival time
//! (TAT). Its *backlog* is how far the TAT lies ahead of now (0: the budget
//! is full). A check of `n` units adds `n` intervals (a minute / the quota)
//! to the backlog, and is refused when that would exceed the capacity (a
//! minute): then nothing is spent. The units left are (capacity − backlog)
//! / interval, the budget is full again after the backlog.
//!
//! In the process, `governor` decides (one keyed limiter per budget, with
//! its `StateInformationMiddleware`): the units left are its snapshot's
//! `remaining_burst_capacity()`, the wait of a refusal its
//! `NotUntil::wait_time_from`. governor does not expose the TAT itself, so
//! the reset there is (quota − remaining) × interval, rounded up: the
//! latest moment the budget is full again, up to one interval (60 s /
//! quota) later than the exact one the Redis script answers. governor has
//! no read-only check either: a peek runs its check on a store that
//! does not write ([`RateLimits::peek`]).
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use governor::clock::{Clock as _, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::{DashMapStateStore, ShrinkableKeyedStateStore};
use governor::state::{NotKeyed, StateStore};
use governor::{Quota, RateLimiter};
use tokio::sync::OnceCell;
use vidpulse_domain::ApiKeyId;

use crate::error::{ApiError, ErrorCode};

/// Limits per API key and minute.
#[derive(Debug, Clone)]
pub struct RateLimitConfig {
    /// Every `/v1` request (`VIDPULSE_RATE_LIMIT_REQUESTS_PER_MINUTE`).
    pub requests_per_minute: u32,
    /// `POST /v1/videos/track` requests with more than one URL.
    pub multi_video_requests_per_minute: u32,
    /// URLs across all track requests.
    pub videos_per_minute: u32,
    /// `POST /v1/bloggers/track` requests; the job status reads have a
    /// budget of their own of the same size.
    pub creator_requests_per_minute: u32,
    /// Share the limits through this Redis (`redis://host:6379/0`); in the
    /// process when `None`.
    pub redis_url: Option<String>,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            requests_per_minute: DEFAULT_REQUESTS_PER_MINUTE,
            multi_video_requests_per_minute: 20,
            videos_per_minute: 1000,
            creator_requests_per_minute: 60,
            redis_url: None,
        }
    }
}

/// The general budget's default: requests per key and minute.
pub const DEFAULT_REQUESTS_PER_MINUTE: u32 = 600;
/// The most units a budget can have per minute (one per microsecond).
pub const MAX_PER_MINUTE: u32 = 60_000_000;
/// Every budget's window, in seconds: a budget refills over a minute.
pub const WINDOW_SECS: u64 = 60;
const WINDOW_US: u64 = WINDOW_SECS * 1_000_000;

/// One budget of an API key: a policy of the `RateLimit-Policy` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Every `/v1` request.
    Requests,
    /// `POST /v1/videos/track` requests with more than one URL.
    MultiVideoRequests,
    /// URLs across all track requests.
    Videos,
    /// `POST /v1/bloggers/track` requests.
    CreatorTrack,
    /// `GET /v1/bloggers/jobs/{job_id}` requests.
    JobStatus,
    /// The requests of a share link's pages, per token (not a key's).
    ShareLink,
}

impl Budget {
    /// Every budget of an API key, the general one first.
    pub const ALL: [Budget; 5] = [
        Budget::Requests,
        Budget::MultiVideoRequests,
        Budget::Videos,
        Budget::CreatorTrack,
        Budget::JobStatus,
    ];

    /// The policy's name in the headers.
    pub fn policy(self) -> &'static str {
        match self {
            Budget::Requests => "default",
            Budget::MultiVideoRequests => "track-multi",
            Budget::Videos => "track-urls",
            Budget::CreatorTrack => "creator-track",
            Budget::JobStatus => "job-status",
            Budget::ShareLink => "share-link",
        }
    }

    /// What the budget counts: `requests`, or `urls` (the URLs of track
    /// requests).
    pub fn unit(self) -> &'static str {
        match self {
            Budget::Videos => "urls",
            _ => "requests",
        }
    }

    /// The requests that spend it, for people.
    pub fn applies_to(self) -> &'static str {
        match self {
            Budget::Requests => "every /v1 request",
            Budget::MultiVideoRequests => "POST /v1/videos/track with more than one URL",
            Budget::Videos => "the URLs of POST /v1/videos/track",
            Budget::CreatorTrack => "POST /v1/bloggers/track",
            Budget::JobStatus => "GET /v1/bloggers/jobs/{job_id}",
            Budget::ShareLink => "GET /share/{token}, /report, /report.csv and /logo",
        }
    }

    /// What a refusal says is spent.
    fn name(self) -> &'static str {
        match self {
            Budget::Requests => "requests per minute",
            Budget::MultiVideoRequests => "multi-video requests per minute",
            Budget::Videos => "videos per minute",
            Budget::CreatorTrack => "creator track requests per minute",
            Budget::JobStatus => "job status requests per minute",
            Budget::ShareLink => "requests per minute for this link",
        }
    }

    fn key_part(self) -> &'static str {
        match self {
            Budget::Requests => "requests",
            Budget::MultiVideoRequests => "multi",
            Budget::Videos => "videos",
            Budget::CreatorTrack => "creator",
            Budget::JobStatus => "jobs",
            Budget::ShareLink => "share",
        }
    }

    /// Units a minute under `config`, within 1 and [`MAX_PER_MINUTE`].
    pub fn per_minute(self, config: &RateLimitConfig) -> u32 {
        match self {
            Budget::Requests => config.requests_per_minute,
            Budget::MultiVideoRequests => config.multi_video_requests_per_minute,
            Budget::Videos => config.videos_per_minute,
            Budget::CreatorTrack | Budget::JobStatus => config.creator_requests_per_minute,
            Budget::ShareLink => crate::shared::REQUESTS_PER_MINUTE,
        }
        .clamp(1, MAX_PER_MINUTE)
    }
}

/// A budget's state, as the limiter holds it after one check of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetState {
    /// The budget.
    pub budget: Budget,
    /// Units per window.
    pub quota: u32,
    /// Units left now.
    pub remaining: u32,
    /// Seconds (rounded up) until the budget is full again.
    pub reset_secs: u64,
    /// `Some(seconds to wait)` when the check was refused.
    pub retry_after: Option<u64>,
}

impl BudgetState {
    fn new(budget: Budget, quota: u32, backlog_us: u64, retry_after: Option<u64>) -> Self {
        let interval = interval_us(quota);
        let capacity = interval * u64::from(quota);
        let left = capacity.saturating_sub(backlog_us) / interval;
        Self {
            budget,
            quota,
            remaining: u32::try_from(left).unwrap_or(quota).min(quota),
            reset_secs: backlog_us.div_ceil(1_000_000),
            retry_after,
        }
    }

    /// The state of a budget with `remaining` units left (governor's
    /// snapshot): full again after the units spent, rounded up.
    fn with_remaining(
        budget: Budget,
        quota: u32,
        interval: Duration,
        remaining: u32,
        retry_after: Option<u64>,
    ) -> Self {
        let remaining = remaining.min(quota);
        let spent = interval.as_nanos() * u128::from(quota - remaining);
        Self {
            budget,
            quota,
            remaining,
            reset_secs: u64::try_from(spent.div_ceil(1_000_000_000)).unwrap_or(WINDOW_SECS),
            retry_after,
        }
    }

    /// The item of the `RateLimit-Policy` header:
    /// `"default";q=600;w=60` (and `;qu="urls"` for a budget of URLs).
    pub fn policy_item(&self) -> String {
        let mut item = format!(
            "\"{}\";q={};w={WINDOW_SECS}",
            self.budget.policy(),
            self.quota
        );
        if self.budget.unit() != "requests" {
            item.push_str(&format!(";qu=\"{}\"", self.budget.unit()));
        }
        item
    }

    /// The item of the `RateLimit` header: `"default";r=599;t=1`.
    pub fn limit_item(&self) -> String {
        format!(
            "\"{}\";r={};t={}",
            self.budget.policy(),
            self.remaining,
            self.reset_secs
        )
    }
}

/// Of the states checked for one request, the one to report: a refusal
/// first; else the budget with the smallest share left, the smaller quota
/// on a tie.
pub fn most_constraining(states: &[BudgetState]) -> Option<BudgetState> {
    if let Some(refused) = states.iter().find(|s| s.retry_after.is_some()) {
        return Some(*refused);
    }
    states.iter().copied().min_by(|a, b| {
        // remaining / quota compared without division.
        let left_a = u64::from(a.remaining) * u64::from(b.quota);
        let left_b = u64::from(b.remaining) * u64::from(a.quota);
        left_a.cmp(&left_b).then(a.quota.cmp(&b.quota))
    })
}

tokio::task_local! {
    /// The budgets checked while answering the current request.
    static CHECKED: RefCell<Vec<BudgetState>>;
}

/// Runs `work`, and answers with its output the states of the budgets it
/// checked (in the order checked). Checks made outside such a scope are
/// noted nowhere.
pub async fn collecting<F: Future>(work: F) -> (F::Output, Vec<BudgetState>) {
    CHECKED
        .scope(RefCell::new(Vec::new()), async {
            let out = work.await;
            let states = CHECKED.with(RefCell::take);
            (out, states)
        })
        .await
}

fn note(state: BudgetState) {
    let _ = CHECKED.try_with(|checked| checked.borrow_mut().push(state));
}

/// A minute divided by `quota`, in microseconds (at least 1).
fn interval_us(quota: u32) -> u64 {
    (WINDOW_US / u64::from(quota.max(1))).max(1)
}

/// The limiters.
#[derive(Debug)]
pub struct RateLimits {
    config: RateLimitConfig,
    store: Limiters,
}

/// One budget of every key in the process: governor's keyed limiter.
type Limiter = RateLimiter<String, Store, DefaultClock, StateInformationMiddleware>;

/// The budgets kept in the process.
#[derive(Debug)]
struct LocalBudgets {
    limiters: HashMap<Budget, LocalBudget>,
}

#[derive(Debug)]
struct LocalBudget {
    limiter: Limiter,
    quota: Quota,
    /// Keys held at which full budgets are forgotten next.
    prune_at: AtomicUsize,
}

/// Keys held before the first pruning of full budgets.
const PRUNE_FLOOR: usize = 4096;

thread_local! {
    /// Set while a peek runs its check: the store then writes nothing.
    static PEEKING: Cell<bool> = const { Cell::new(false) };
}

/// governor's keyed store, which writes nothing while [`PEEKING`] (then an
/// unknown key is not added either).
#[derive(Debug, Default)]
struct Store(DashMapStateStore<String>);

impl StateStore for Store {
    type Key = String;

    fn measure_and_replace<T, F, E>(&self, key: &String, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        if !PEEKING.get() {
            return self.0.measure_and_replace(key, f);
        }
        let tat = self.0.get(key).and_then(|state| {
            state
                .measure_and_replace(&NotKeyed::NonKey, Err::<((), Nanos), _>)
                .err()
                .flatten()
        });
        f(tat).map(|(out, _)| out)
    }
}

impl ShrinkableKeyedStateStore<String> for Store {
    fn retain_recent(&self, drop_below: Nanos) {
        ShrinkableKeyedStateStore::retain_recent(&self.0, drop_below);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl LocalBudgets {
    fn new(config: &RateLimitConfig) -> Self {
        let budgets = Budget::ALL.into_iter().chain([Budget::ShareLink]);
        let limiters = budgets
            .map(|budget| {
                let quota = NonZeroU32::new(budget.per_minute(config)).unwrap_or(NonZeroU32::MIN);
                let quota = Quota::per_minute(quota);
                let limiter = Limiter::new(quota, Store::default(), DefaultClock::default());
                let prune_at = AtomicUsize::new(PRUNE_FLOOR);
                (
                    budget,
                    LocalBudget {
                        limiter,
                        quota,
                        prune_at,
                    },
                )
            })
            .collect();
        Self { limiters }
    }

    fn get(&self, budget: Budget) -> &LocalBudget {
        &self.limiters[&budget]
    }
}

impl LocalBudget {
    /// Takes `n` units (at most the quota) of `key`'s budget.
    fn take(&self, budget: Budget, quota: u32, key: &str, n: u32) -> Taken {
        let held = self.limiter.len();
        if held >= self.prune_at.load(Ordering::Relaxed) {
            // A budget whose TAT has passed is full: as if unknown.
            self.limiter.retain_recent();
            let next = (self.limiter.len() * 2).max(PRUNE_FLOOR);
            self.prune_at.store(next, Ordering::Relaxed);
        }
        let key = key.to_owned();
        let cells = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        let wait = match self.limiter.check_key_n(&key, cells) {
            Ok(Ok(snapshot)) => {
                let interval = snapshot.quota().replenish_interval();
                let remaining = snapshot.remaining_burst_capacity();
                let state = BudgetState::with_remaining(budget, quota, interval, remaining, None);
                return Taken::Admitted(Some(state));
            }
            Ok(Err(not_until)) => {
                let wait = not_until.wait_time_from(self.limiter.clock().now());
                u64::try_from(wait.as_nanos().div_ceil(1_000_000_000))
                    .unwrap_or(WINDOW_SECS)
                    .max(1)
            }
            // More than a whole budget never fits: wait a window and ask less.
            Err(_) => WINDOW_SECS,
        };
        Taken::Refused(self.peek(budget, quota, &key, Some(wait)))
    }

    /// The budget's state now, spending nothing: governor's check of one
    /// unit on a store that does not write.
    fn peek(&self, budget: Budget, quota: u32, key: &str, retry_after: Option<u64>) -> BudgetState {
        PEEKING.set(true);
        let checked = self.limiter.check_key(&key.to_owned());
        PEEKING.set(false);
        let interval = self.quota.replenish_interval();
        // The snapshot counts the units left after the unit it would take.
        let remaining = checked.map_or(0, |snapshot| snapshot.remaining_burst_capacity() + 1);
        BudgetState::with_remaining(budget, quota, interval, remaining, retry_after)
    }
}

#[derive(Debug)]
enum Limiters {
    Local(LocalBudgets),
    Redis {
        url: String,
        connection: OnceCell<redis::aio::ConnectionManager>,
    },
}

/// GCRA on the Redis server: `KEYS[1]` holds the theoretical arrival time
/// in microseconds; `ARGV` are the emission interval (µs), the quota and the
/// cost (0 only reads). Answers `{wait, backlog}`: `wait` 0 when admitted
/// (and the new time is stored), else the wait in µs; `backlog` how far the
/// arrival time lies ahead of now after the check, in µs.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local backlog = tat - now
if cost == 0 then
  return {0, backlog}
end
local after = backlog + interval * cost
local capacity = interval * quota
if after > capacity then
  return {after - capacity, backlog}
end
redis.call('SET', KEYS[1], string.format('%d', now + after), 'PX', math.ceil(after / 1000) + 1000)
return {0, after}
";

/// What one check came to.
enum Taken {
    /// Admitted; the budget's state, unless Redis failed to say.
    Admitted(Option<BudgetState>),
    /// Refused, spending nothing.
    Refused(BudgetState),
}

impl RateLimits {
    /// Limiters for `config`; with a Redis URL, connected on first use (or
    /// by [`Self::check`]).
    pub fn new(config: &RateLimitConfig) -> Self {
        let store = match &config.redis_url {
            None => Limiters::Local(LocalBudgets::new(config)),
            Some(url) => Limiters::Redis {
                url: url.clone(),
                connection: OnceCell::new(),
            },
        };
        Self {
            config: config.clone(),
            store,
        }
    }

    /// The limits in force.
    pub fn config(&self) -> &RateLimitConfig {
        &self.config
    }

    /// Whether the limits are shared through Redis.
    pub fn shared(&self) -> bool {
        matches!(self.store, Limiters::Redis { .. })
    }

    /// Connects to Redis now (a no-op in the process), so a server starts
    /// only when its limits work.
    pub async fn check(&self) -> Result<(), String> {
        match &self.store {
            Limiters::Local(_) => Ok(()),
            Limiters::Redis { .. } => {
                let mut conn = self.redis().await?;
                redis::cmd("PING")
                    .query_async::<String>(&mut conn)
                    .await
                    .map(|_| ())
                    .map_err(|e| format!("Redis does not answer: {e}"))
            }
        }
    }

    async fn redis(&self) -> Result<redis::aio::ConnectionManager, String> {
        let Limiters::Redis { url, connection } = &self.store else {
            return Err("no Redis configured".into());
        };
        connection
            .get_or_try_init(|| async {
                let client = redis::Client::open(url.as_str())
                    .map_err(|e| format!("`{url}` is not a Redis URL: {e}"))?;
                tokio::time::timeout(Duration::from_secs(5), client.get_connection_manager())
                    .await
                    .map_err(|_| "no answer within 5 s".to_owned())?
                    .map_err(|e| e.to_string())
            })
            .await
            .cloned()
            .map_err(|e| format!("cannot connect to Redis: {e}"))
    }

    /// Runs the GCRA script: `(wait µs, backlog µs)`.
    async fn script(
        &self,
        budget: Budget,
        key: &str,
        quota: u32,
        cost: u32,
    ) -> Result<(u64, u64), String> {
        let mut conn = self.redis().await?;
        redis::Script::new(GCRA)
            .key(format!("vidpulse:rl:{}:{key}", budget.key_part()))
            .arg(interval_us(quota))
            .arg(quota)
            .arg(cost)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| e.to_string())
    }

    /// Takes `n` units from `budget` of `key`. A Redis that fails admits the
    /// request (logged), with no state to report: limits protect the
    /// service, they do not stop it.
    async fn take(&self, budget: Budget, key: &str, n: u32) -> Taken {
        let quota = budget.per_minute(&self.config);
        let local = match &self.store {
            Limiters::Local(local) => local,
            Limiters::Redis { .. } => return self.take_shared(budget, key, quota, n).await,
        };
        local.get(budget).take(budget, quota, key, n)
    }

    /// [`Self::take`] through the Redis script.
    async fn take_shared(&self, budget: Budget, key: &str, quota: u32, n: u32) -> Taken {
        // More than a whole budget never fits: wait a window and ask less.
        let too_many = n > quota;
        let cost = if too_many { 0 } else { n };
        let refused = |backlog, wait_us: u64| {
            let wait = if too_many {
                WINDOW_SECS
            } else {
                wait_us.div_ceil(1_000_000).max(1)
            };
            Taken::Refused(BudgetState::new(budget, quota, backlog, Some(wait)))
        };
        match self.script(budget, key, quota, cost).await {
            Ok((_, backlog)) if too_many => refused(backlog, 0),
            Ok((0, after)) => Taken::Admitted(Some(BudgetState::new(budget, quota, after, None))),
            Ok((wait, backlog)) => refused(backlog, wait),
            Err(e) => {
                tracing::warn!(error = %e, "shared rate limit unavailable; request admitted");
                Taken::Admitted(None)
            }
        }
    }

    /// The state of `budget` of `key` now, spending nothing; `None` when
    /// Redis cannot say.
    pub async fn peek(&self, budget: Budget, key: ApiKeyId) -> Option<BudgetState> {
        let quota = budget.per_minute(&self.config);
        let key = key.0.to_string();
        match &self.store {
            Limiters::Local(local) => Some(local.get(budget).peek(budget, quota, &key, None)),
            Limiters::Redis { .. } => match self.script(budget, &key, quota, 0).await {
                Ok((_, backlog)) => Some(BudgetState::new(budget, quota, backlog, None)),
                Err(e) => {
                    tracing::warn!(error = %e, "shared rate limit unavailable");
                    None
                }
            },
        }
    }

    /// Admits one request to the pages of the share link whose token
    /// hashes (SHA-256, hex) to `token_hash`, or says when to retry.
    pub async fn check_share_link(&self, token_hash: &str) -> Result<(), ApiError> {
        self.admit(Budget::ShareLink, token_hash, 1).await
    }

    /// Admits one `/v1` request of `key` (the general budget), or says
    /// when to retry.
    pub async fn check_request(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::Requests, &key.0.to_string(), 1).await
    }

    /// Admits a `POST /v1/bloggers/track` for `key`, or says when to retry.
    pub async fn check_creator_track(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::CreatorTrack, &key.0.to_string(), 1)
            .await
    }

    /// Admits a job status read for `key`, or says when to retry.
    pub async fn check_job_status(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::JobStatus, &key.0.to_string(), 1).await
    }

    /// Admits a track request of `urls` URLs for `key`, or says when to retry.
    pub async fn check_track(&self, key: ApiKeyId, urls: usize) -> Result<(), ApiError> {
        let key = key.0.to_string();
        // The smaller budget first, so a request it refuses spends no videos.
        if urls > 1 {
            self.admit(Budget::MultiVideoRequests, &key, 1).await?;
        }
        self.admit(Budget::Videos, &key, urls).await
    }

    /// Takes `n` (at least 1) from `budget`, notes its state for the
    /// request's headers, and answers 429 when refused.
    async fn admit(&self, budget: Budget, key: &str, n: usize) -> Result<(), ApiError> {
        let n = u32::try_from(n).unwrap_or(u32::MAX).max(1);
        match self.take(budget, key, n).await {
            Taken::Admitted(state) => {
                if let Some(state) = state {
                    note(state);
                }
                Ok(())
            }
            Taken::Refused(state) => {
                note(state);
                Err(limited(budget, state.retry_after.unwrap_or(1)))
            }
        }
    }
}

fn limited(budget: Budget, retry_after: u64) -> ApiError {
    let retry_after = retry_after.max(1);
    let message = match budget {
        Budget::ShareLink => format!("Too many requests for this link; retry in {retry_after} s"),
        _ => format!(
            "Rate limit exceeded ({}); retry in {retry_after} s",
            budget.name()
        ),
    };
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimitExceeded,
        message,
    )
    .with_retry_after(retry_after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redis_url() -> String {
        std::env::var("VIDPULSE_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into())
    }

    async fn multi_video_requests_are_limited_separately_from_videos(redis_url: Option<String>) {
        let limits = RateLimits::new(&RateLimitConfig {
            multi_video_requests_per_minute: 2,
            videos_per_minute: 10,
            creator_requests_per_minute: 60,
            redis_url,
            ..RateLimitConfig::default()
        });
        limits.check().await.unwrap();
        let key = ApiKeyId::new();
        assert!(limits.check_track(key, 2).await.is_ok());
        assert!(limits.check_track(key, 2).await.is_ok());
        let err = limits.check_track(key, 2).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::RateLimitExceeded);
        assert!(err.retry_after.is_some_and(|s| s >= 1));
        // Single-URL requests only count toward videos per minute.
        assert!(limits.check_track(key, 1).await.is_ok());
        assert!(limits.check_track(key, 6).await.is_err());
        assert!(limits.check_track(ApiKeyId::new(), 11).await.is_err());
    }

    #[tokio::test]
    async fn in_the_process() {
        multi_video_requests_are_limited_separately_from_videos(None).await;
    }

    #[tokio::test]
    async fn through_redis() {
        multi_video_requests_are_limited_separately_from_videos(Some(redis_url())).await;
    }

    /// The states noted come from the limiter: the same numbers in the
    /// process and through Redis.
    async fn states_follow_the_limiter(redis_url: Option<String>) {
        let limits = RateLimits::new(&RateLimitConfig {
            requests_per_minute: 3,
            videos_per_minute: 10,
            redis_url,
            ..RateLimitConfig::default()
        });
        limits.check().await.unwrap();
        let key = ApiKeyId::new();
        let fresh = limits.peek(Budget::Requests, key).await.unwrap();
        assert_eq!((fresh.quota, fresh.remaining, fresh.reset_secs), (3, 3, 0));
        let (results, states) = collecting(async {
            let mut results = Vec::new();
            for _ in 0..4 {
                results.push(limits.check_request(key).await.is_ok());
            }
            results
        })
        .await;
        assert_eq!(results, [true, true, true, false]);
        let remaining: Vec<u32> = states.iter().map(|s| s.remaining).collect();
        assert_eq!(remaining, [2, 1, 0, 0]);
        // Three requests of a minute's three: full again in a minute.
        assert!((59..=60).contains(&states[2].reset_secs), "{:?}", states[2]);
        let refused = states[3];
        assert!(refused.retry_after.is_some_and(|s| (1..=20).contains(&s)));
        assert_eq!(most_constraining(&states), Some(refused));
        assert_eq!(
            refused.limit_item(),
            format!("\"default\";r=0;t={}", refused.reset_secs)
        );
        assert_eq!(refused.policy_item(), "\"default\";q=3;w=60");
        // Peeking spends nothing.
        let peeked = limits.peek(Budget::Requests, key).await.unwrap();
        assert_eq!(peeked.remaining, 0);
        assert_eq!(
            limits.peek(Budget::Requests, key).await.unwrap().remaining,
            0
        );
        // URLs: a refused request spends none and says what is left.
        let (result, states) = collecting(limits.check_track(key, 4)).await;
        assert!(result.is_ok());
        assert_eq!(states.last().unwrap().remaining, 6);
        assert_eq!(
            states.last().unwrap().policy_item(),
            "\"track-urls\";q=10;w=60;qu=\"urls\""
        );
        let (result, states) = collecting(limits.check_track(key, 7)).await;
        assert!(result.is_err());
        assert_eq!(states.last().unwrap().remaining, 6);
        // Outside a collecting scope, nothing is noted and nothing fails.
        assert!(limits.check_job_status(key).await.is_ok());
    }

    #[tokio::test]
    async fn states_in_the_process() {
        states_follow_the_limiter(None).await;
    }

    #[tokio::test]
    async fn states_through_redis() {
        states_follow_the_limiter(Some(redis_url())).await;
    }

    #[test]
    fn the_most_constraining_state_is_reported() {
        let state = |budget, quota, remaining, retry_after| BudgetState {
            budget,
            quota,
            remaining,
            reset_secs: 1,
            retry_after,
        };
        let general = state(Budget::Requests, 600, 599, None);
        let creator = state(Budget::CreatorTrack, 60, 59, None);
        assert_eq!(most_constraining(&[general, creator]), Some(creator));
        let urls = state(Budget::Videos, 1000, 999, None);
        assert_eq!(most_constraining(&[general, urls]), Some(general));
        let low = state(Budget::Videos, 1000, 100, None);
        assert_eq!(most_constraining(&[general, low]), Some(low));
        let refused = state(Budget::Videos, 1000, 999, Some(3));
        assert_eq!(most_constraining(&[general, refused]), Some(refused));
        assert_eq!(most_constraining(&[]), None);
    }

    #[test]
    fn states_from_a_backlog_or_the_units_left() {
        assert_eq!(interval_us(600), 100_000);
        assert_eq!(interval_us(MAX_PER_MINUTE), 1);
        let s = BudgetState::new(Budget::Requests, 600, 100_000, None);
        assert_eq!((s.remaining, s.reset_secs), (599, 1));
        let s = BudgetState::new(Budget::Requests, 600, 60_000_000, None);
        assert_eq!((s.remaining, s.reset_secs), (0, 60));
        let interval = Quota::per_minute(NonZeroU32::new(600).unwrap()).replenish_interval();
        let s = BudgetState::with_remaining(Budget::Requests, 600, interval, 599, None);
        assert_eq!((s.remaining, s.reset_secs), (599, 1));
        let s = BudgetState::with_remaining(Budget::Requests, 600, interval, 0, Some(1));
        assert_eq!((s.remaining, s.reset_secs), (0, 60));
        let s = BudgetState::with_remaining(Budget::Requests, 600, interval, 600, None);
        assert_eq!((s.remaining, s.reset_secs), (600, 0));
    }

    /// A whole budget in one check, then a refusal of one unit; a unit
    /// comes back after an interval; more than the quota never fits.
    #[tokio::test]
    async fn governor_spends_a_minute_at_most() {
        let limits = RateLimits::new(&RateLimitConfig {
            videos_per_minute: 600,
            ..RateLimitConfig::default()
        });
        let key = ApiKeyId::new();
        let (result, states) = collecting(limits.check_track(key, 1)).await;
        assert!(result.is_ok());
        assert_eq!((states[0].remaining, states[0].reset_secs), (599, 1));
        let (result, states) = collecting(limits.check_track(key, 599)).await;
        assert!(result.is_ok());
        let urls = states.last().unwrap();
        assert_eq!(
            (urls.budget, urls.remaining, urls.reset_secs),
            (Budget::Videos, 0, 60)
        );
        let (result, states) = collecting(limits.check_track(key, 1)).await;
        let err = result.unwrap_err();
        assert_eq!(err.retry_after, Some(1));
        assert_eq!(states[0].retry_after, Some(1));
        assert_eq!(states[0].remaining, 0);
        tokio::time::sleep(Duration::from_millis(120)).await;
        let (result, states) = collecting(limits.check_track(key, 1)).await;
        assert!(result.is_ok());
        assert_eq!(states[0].remaining, 0);
        let err = limits.check_track(ApiKeyId::new(), 601).await.unwrap_err();
        assert_eq!(err.retry_after, Some(WINDOW_SECS));
    }

    async fn share_links_have_a_budget_per_token(redis_url: Option<String>) {
        let limits = RateLimits::new(&RateLimitConfig {
            redis_url,
            ..RateLimitConfig::default()
        });
        limits.check().await.unwrap();
        let token = format!("{:064x}", uuid::Uuid::new_v4().as_u128());
        for _ in 0..crate::shared::REQUESTS_PER_MINUTE {
            limits.check_share_link(&token).await.unwrap();
        }
        let err = limits.check_share_link(&token).await.unwrap_err();
        assert_eq!(err.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(err.retry_after.is_some_and(|s| (1..=2).contains(&s)));
        assert!(err.message.contains("this link"), "{}", err.message);
        let other = format!("{:064x}", uuid::Uuid::new_v4().as_u128());
        assert!(limits.check_share_link(&other).await.is_ok());
    }

    #[tokio::test]
    async fn share_links_in_the_process() {
        share_links_have_a_budget_per_token(None).await;
    }

    #[tokio::test]
    async fn share_links_through_redis() {
        share_links_have_a_budget_per_token(Some(redis_url())).await;
    }

    #[tokio::test]
    async fn a_redis_url_that_is_not_one_is_refused_at_the_check() {
        let limits = RateLimits::new(&RateLimitConfig {
            redis_url: Some("http://x".into()),
            ..RateLimitConfig::default()
        });
        assert!(limits.check().await.is_err());
    }
}
