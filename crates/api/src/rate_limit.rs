//! Per-API-key rate limits (docs/api.md, "Rate limits"): GCRA, kept in
//! the process by governor, or shared by every API node through Redis when
//! `VIDPULSE_REDIS_URL` is set (one Lua script per check, on the Redis
//! server's clock, so nodes with skewed clocks agree).

use std::num::NonZeroU32;
use std::time::Duration;

use axum::http::StatusCode;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tokio::sync::OnceCell;
use vidpulse_domain::ApiKeyId;

use crate::error::{ApiError, ErrorCode};

/// Limits per API key and minute.
#[derive(Debug, Clone)]
pub struct RateLimitConfig {
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
            multi_video_requests_per_minute: 20,
            videos_per_minute: 1000,
            creator_requests_per_minute: 60,
            redis_url: None,
        }
    }
}

/// One budget of an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bucket {
    MultiVideoRequests,
    Videos,
    CreatorTrack,
    JobStatus,
}

impl Bucket {
    fn name(self) -> &'static str {
        match self {
            Bucket::MultiVideoRequests => "multi-video requests per minute",
            Bucket::Videos => "videos per minute",
            Bucket::CreatorTrack => "creator track requests per minute",
            Bucket::JobStatus => "job status requests per minute",
        }
    }

    fn key_part(self) -> &'static str {
        match self {
            Bucket::MultiVideoRequests => "multi",
            Bucket::Videos => "videos",
            Bucket::CreatorTrack => "creator",
            Bucket::JobStatus => "jobs",
        }
    }

    fn per_minute(self, config: &RateLimitConfig) -> NonZeroU32 {
        per_minute(match self {
            Bucket::MultiVideoRequests => config.multi_video_requests_per_minute,
            Bucket::Videos => config.videos_per_minute,
            Bucket::CreatorTrack | Bucket::JobStatus => config.creator_requests_per_minute,
        })
    }
}

/// The limiters.
#[derive(Debug)]
pub struct RateLimits {
    config: RateLimitConfig,
    store: Limiters,
}

/// The in-process limiters, one per bucket.
#[derive(Debug)]
struct LocalLimiters {
    multi_video_requests: DefaultKeyedRateLimiter<ApiKeyId>,
    videos: DefaultKeyedRateLimiter<ApiKeyId>,
    creator_track: DefaultKeyedRateLimiter<ApiKeyId>,
    job_status: DefaultKeyedRateLimiter<ApiKeyId>,
}

#[derive(Debug)]
enum Limiters {
    Local(Box<LocalLimiters>),
    Redis {
        url: String,
        connection: OnceCell<redis::aio::ConnectionManager>,
    },
}

/// GCRA on the Redis server: `KEYS[1]` holds the theoretical arrival time
/// in microseconds; `ARGV` are the emission interval (µs), the burst and the
/// cost. Answers 0 when admitted (and stores the new time), else the wait in µs.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval * cost
local allowed_at = new_tat - interval * burst
if allowed_at > now then
  return math.ceil(allowed_at - now)
end
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1000)
return 0
";

fn per_minute(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl RateLimits {
    /// Limiters for `config`; with a Redis URL, connected on first use (or
    /// by [`Self::check`]).
    pub fn new(config: &RateLimitConfig) -> Self {
        let keyed = |b: Bucket| RateLimiter::keyed(Quota::per_minute(b.per_minute(config)));
        let store = match &config.redis_url {
            None => Limiters::Local(Box::new(LocalLimiters {
                multi_video_requests: keyed(Bucket::MultiVideoRequests),
                videos: keyed(Bucket::Videos),
                creator_track: keyed(Bucket::CreatorTrack),
                job_status: keyed(Bucket::JobStatus),
            })),
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

    /// Takes `n` from `bucket` of `key`; `Err(wait in seconds)` when refused.
    /// A Redis that fails admits the request (logged): limits protect the
    /// service, they do not stop it.
    async fn take(&self, bucket: Bucket, key: ApiKeyId, n: NonZeroU32) -> Result<(), u64> {
        match &self.store {
            Limiters::Local(local) => {
                let limiter = match bucket {
                    Bucket::MultiVideoRequests => &local.multi_video_requests,
                    Bucket::Videos => &local.videos,
                    Bucket::CreatorTrack => &local.creator_track,
                    Bucket::JobStatus => &local.job_status,
                };
                match limiter.check_key_n(&key, n) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(not_until)) => Err(wait_secs(&not_until)),
                    Err(_) => Err(60),
                }
            }
            Limiters::Redis { .. } => {
                let burst = bucket.per_minute(&self.config).get();
                if n.get() > burst {
                    return Err(60);
                }
                let interval_us = 60_000_000 / u64::from(burst);
                let result: Result<u64, String> = async {
                    let mut conn = self.redis().await?;
                    redis::Script::new(GCRA)
                        .key(format!("vidpulse:rl:{}:{}", bucket.key_part(), key.0))
                        .arg(interval_us)
                        .arg(burst)
                        .arg(n.get())
                        .invoke_async(&mut conn)
                        .await
                        .map_err(|e| e.to_string())
                }
                .await;
                match result {
                    Ok(0) => Ok(()),
                    Ok(wait_us) => Err(wait_us.div_ceil(1_000_000)),
                    Err(e) => {
                        tracing::warn!(error = %e, "shared rate limit unavailable; request admitted");
                        Ok(())
                    }
                }
            }
        }
    }

    /// Admits a `POST /v1/bloggers/track` for `key`, or says when to retry.
    pub async fn check_creator_track(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Bucket::CreatorTrack, key, 1).await
    }

    /// Admits a job status read for `key`, or says when to retry.
    pub async fn check_job_status(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.admit(Bucket::JobStatus, key, 1).await
    }

    /// Admits a track request of `urls` URLs for `key`, or says when to retry.
    pub async fn check_track(&self, key: ApiKeyId, urls: usize) -> Result<(), ApiError> {
        // The smaller budget first, so a request it refuses spends no videos.
        if urls > 1 {
            self.admit(Bucket::MultiVideoRequests, key, 1).await?;
        }
        self.admit(Bucket::Videos, key, urls).await
    }

    async fn admit(&self, bucket: Bucket, key: ApiKeyId, n: usize) -> Result<(), ApiError> {
        let n = NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX)).unwrap_or(NonZeroU32::MIN);
        self.take(bucket, key, n)
            .await
            .map_err(|wait| limited(bucket.name(), wait))
    }
}

fn wait_secs(not_until: &governor::NotUntil<governor::clock::QuantaInstant>) -> u64 {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

fn limited(what: &str, retry_after: u64) -> ApiError {
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimitExceeded,
        format!("Rate limit exceeded ({what}); retry in {retry_after} s"),
    )
    .with_retry_after(retry_after.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn multi_video_requests_are_limited_separately_from_videos(redis_url: Option<String>) {
        let limits = RateLimits::new(&RateLimitConfig {
            multi_video_requests_per_minute: 2,
            videos_per_minute: 10,
            creator_requests_per_minute: 60,
            redis_url,
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
        let url = std::env::var("VIDPULSE_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into());
        multi_video_requests_are_limited_separately_from_videos(Some(url)).await;
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
