//! Per-API-key rate limits (docs/api.md, "Rate limits"): GCRA, kept in
//! the process, or shared by every API node through Redis when
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
//! The algorithm, the same in the process and in Redis: each budget of each
//! key keeps a theoretical arrival time (TAT). Its *backlog* is how far the
//! TAT lies ahead of now (0: the budget is full). A check of `n` units adds
//! `n` intervals (a minute / the quota) to the backlog, and is refused when
//! that would exceed the capacity (a minute): then nothing is spent. The
//! units left are (capacity − backlog) / interval, the budget is full again
//! after the backlog.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
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
}

impl Budget {
    /// Every budget, the general one first.
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
        }
    }

    fn name(self) -> &'static str {
        match self {
            Budget::Requests => "requests per minute",
            Budget::MultiVideoRequests => "multi-video requests per minute",
            Budget::Videos => "videos per minute",
            Budget::CreatorTrack => "creator track requests per minute",
            Budget::JobStatus => "job status requests per minute",
        }
    }

    fn key_part(self) -> &'static str {
        match self {
            Budget::Requests => "requests",
            Budget::MultiVideoRequests => "multi",
            Budget::Videos => "videos",
            Budget::CreatorTrack => "creator",
            Budget::JobStatus => "jobs",
        }
    }

    /// Units a minute under `config`, within 1 and [`MAX_PER_MINUTE`].
    pub fn per_minute(self, config: &RateLimitConfig) -> u32 {
        match self {
            Budget::Requests => config.requests_per_minute,
            Budget::MultiVideoRequests => config.multi_video_requests_per_minute,
            Budget::Videos => config.videos_per_minute,
            Budget::CreatorTrack | Budget::JobStatus => config.creator_requests_per_minute,
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

/// One GCRA check: admitted or not, the backlog after it (unchanged when
/// refused), and, when refused, the wait until it would be admitted (µs).
/// The Lua script [`GCRA`] is this, on the Redis server.
fn decide(backlog: u64, interval: u64, quota: u32, cost: u32) -> (bool, u64, u64) {
    let capacity = interval * u64::from(quota);
    let after = backlog + interval * u64::from(cost);
    if after > capacity {
        (false, backlog, after - capacity)
    } else {
        (true, after, 0)
    }
}

/// The limiters.
#[derive(Debug)]
pub struct RateLimits {
    config: RateLimitConfig,
    store: Limiters,
}

/// The budgets kept in the process: each budget's TAT, in µs from `base`.
#[derive(Debug)]
struct LocalBudgets {
    base: Instant,
    state: Mutex<LocalState>,
}

#[derive(Debug, Default)]
struct LocalState {
    tats: HashMap<(Budget, ApiKeyId), u64>,
    /// Entries at which full budgets are forgotten next.
    prune_at: usize,
}

/// Entries kept before the first pruning of full budgets.
const PRUNE_FLOOR: usize = 4096;

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
            None => Limiters::Local(LocalBudgets {
                base: Instant::now(),
                state: Mutex::default(),
            }),
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
        key: ApiKeyId,
        quota: u32,
        cost: u32,
    ) -> Result<(u64, u64), String> {
        let mut conn = self.redis().await?;
        redis::Script::new(GCRA)
            .key(format!("vidpulse:rl:{}:{}", budget.key_part(), key.0))
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
    async fn take(&self, budget: Budget, key: ApiKeyId, n: u32) -> Taken {
        let quota = budget.per_minute(&self.config);
        let interval = interval_us(quota);
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
        match &self.store {
            Limiters::Local(local) => {
                let now = u64::try_from(local.base.elapsed().as_micros()).unwrap_or(u64::MAX);
                let mut state = local.state.lock().unwrap_or_else(|e| e.into_inner());
                let backlog = state
                    .tats
                    .get(&(budget, key))
                    .map_or(0, |tat| tat.saturating_sub(now));
                let (admitted, after, wait) = decide(backlog, interval, quota, cost);
                if too_many {
                    return refused(backlog, 0);
                }
                if !admitted {
                    return refused(backlog, wait);
                }
                state.tats.insert((budget, key), now + after);
                if state.tats.len() >= state.prune_at.max(PRUNE_FLOOR) {
                    // A budget whose TAT has passed is full: as if unknown.
                    state.tats.retain(|_, tat| *tat > now);
                    state.prune_at = state.tats.len() * 2;
                }
                Taken::Admitted(Some(BudgetState::new(budget, quota, after, None)))
            }
            Limiters::Redis { .. } => match self.script(budget, key, quota, cost).await {
                Ok((_, backlog)) if too_many => refused(backlog, 0),
                Ok((0, after)) => {
                    Taken::Admitted(Some(BudgetState::new(budget, quota, after, None)))
                }
                Ok((wait, backlog)) => refused(backlog, wait),
                Err(e) => {
                    tracing::warn!(error = %e, "shared rate limit unavailable; request admitted");
                    Taken::Admitted(None)
                }
            },
        }
    }

    /// The state of `budget` of `key` now, spending nothing; `None` when
    /// Redis cannot say.
    pub async fn peek(&self, budget: Budget, key: ApiKeyId) -> Option<BudgetState> {
        let quota = budget.per_minute(&self.config);
        match &self.store {
            Limiters::Local(local) => {
                let now = u64::try_from(local.base.elapsed().as_micros()).unwrap_or(u64::MAX);
                let state = local.state.lock().unwrap_or_else(|e| e.into_inner());
                let backlog = state
                    .tats
                    .get(&(budget, key))
                    .map_or(0, |tat| tat.saturating_sub(now));
                Some(BudgetState::new(budget, quota, backlog, None))
            }
            Limiters::Redis { .. } => match self.script(budget, key, quota, 0).await {
                Ok((_, backlog)) => Some(BudgetState::new(budget, quota, backlog, None)),
                Err(e) => {
                    tracing::warn!(error = %e, "shared rate limit unavailable");
                    None
                }
            },
        }
    }

    /// Admits one `/v1` request of `key` (the general budget), or says
    /// when to retry.
    pub async fn check_request(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::Requests, key, 1).await
    }

    /// Admits a `POST /v1/bloggers/track` for `key`, or says when to retry.
    pub async fn check_creator_track(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::CreatorTrack, key, 1).await
    }

    /// Admits a job status read for `key`, or says when to retry.
    pub async fn check_job_status(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Budget::JobStatus, key, 1).await
    }

    /// Admits a track request of `urls` URLs for `key`, or says when to retry.
    pub async fn check_track(&self, key: ApiKeyId, urls: usize) -> Result<(), ApiError> {
        // The smaller budget first, so a request it refuses spends no videos.
        if urls > 1 {
            self.admit(Budget::MultiVideoRequests, key, 1).await?;
        }
        self.admit(Budget::Videos, key, urls).await
    }

    /// Takes `n` (at least 1) from `budget`, notes its state for the
    /// request's headers, and answers 429 when refused.
    async fn admit(&self, budget: Budget, key: ApiKeyId, n: usize) -> Result<(), ApiError> {
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
                Err(limited(budget.name(), state.retry_after.unwrap_or(1)))
            }
        }
    }
}

fn limited(what: &str, retry_after: u64) -> ApiError {
    let retry_after = retry_after.max(1);
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimitExceeded,
        format!("Rate limit exceeded ({what}); retry in {retry_after} s"),
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
    fn gcra_spends_a_minute_at_most() {
        let interval = interval_us(600);
        assert_eq!(interval, 100_000);
        assert_eq!(decide(0, interval, 600, 1), (true, 100_000, 0));
        assert_eq!(decide(59_900_000, interval, 600, 1), (true, 60_000_000, 0));
        assert_eq!(
            decide(60_000_000, interval, 600, 1),
            (false, 60_000_000, 100_000)
        );
        let s = BudgetState::new(Budget::Requests, 600, 100_000, None);
        assert_eq!((s.remaining, s.reset_secs), (599, 1));
        assert_eq!(interval_us(MAX_PER_MINUTE), 1);
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
