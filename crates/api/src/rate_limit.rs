//! Per-API-key rate limits (spec: public-api-v1.md, Limits), with governor's
//! GCRA limiters kept in the process.

use std::num::NonZeroU32;

use axum::http::StatusCode;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
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
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            multi_video_requests_per_minute: 20,
            videos_per_minute: 1000,
            creator_requests_per_minute: 60,
        }
    }
}

/// The limiters.
#[derive(Debug)]
pub struct RateLimits {
    multi_video_requests: DefaultKeyedRateLimiter<ApiKeyId>,
    videos: DefaultKeyedRateLimiter<ApiKeyId>,
    videos_burst: NonZeroU32,
    creator_track: DefaultKeyedRateLimiter<ApiKeyId>,
    job_status: DefaultKeyedRateLimiter<ApiKeyId>,
}

fn per_minute(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl RateLimits {
    /// Limiters for `config`.
    pub fn new(config: &RateLimitConfig) -> Self {
        let videos_burst = per_minute(config.videos_per_minute);
        Self {
            multi_video_requests: RateLimiter::keyed(Quota::per_minute(per_minute(
                config.multi_video_requests_per_minute,
            ))),
            videos: RateLimiter::keyed(Quota::per_minute(videos_burst)),
            videos_burst,
            creator_track: RateLimiter::keyed(Quota::per_minute(per_minute(
                config.creator_requests_per_minute,
            ))),
            job_status: RateLimiter::keyed(Quota::per_minute(per_minute(
                config.creator_requests_per_minute,
            ))),
        }
    }

    /// Admits a `POST /v1/bloggers/track` for `key`, or says when to retry.
    pub fn check_creator_track(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.creator_track.check_key(&key).map_err(|not_until| {
            limited("creator track requests per minute", wait_secs(&not_until))
        })
    }

    /// Admits a job status read for `key`, or says when to retry.
    pub fn check_job_status(&self, key: ApiKeyId) -> Result<(), ApiError> {
        self.job_status
            .check_key(&key)
            .map_err(|not_until| limited("job status requests per minute", wait_secs(&not_until)))
    }

    /// Admits a track request of `urls` URLs for `key`, or says when to retry.
    pub fn check_track(&self, key: ApiKeyId, urls: usize) -> Result<(), ApiError> {
        let n = NonZeroU32::new(u32::try_from(urls).unwrap_or(u32::MAX)).unwrap_or(NonZeroU32::MIN);
        if n > self.videos_burst {
            return Err(limited("videos per minute", 60));
        }
        // The smaller budget first, so a request it refuses spends no videos.
        if urls > 1
            && let Err(not_until) = self.multi_video_requests.check_key(&key)
        {
            return Err(limited(
                "multi-video requests per minute",
                wait_secs(&not_until),
            ));
        }
        match self.videos.check_key_n(&key, n) {
            Ok(Ok(())) => {}
            Ok(Err(not_until)) => return Err(limited("videos per minute", wait_secs(&not_until))),
            Err(_) => return Err(limited("videos per minute", 60)),
        }
        Ok(())
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

    #[test]
    fn multi_video_requests_are_limited_separately_from_videos() {
        let limits = RateLimits::new(&RateLimitConfig {
            multi_video_requests_per_minute: 2,
            videos_per_minute: 10,
            creator_requests_per_minute: 60,
        });
        let key = ApiKeyId::new();
        assert!(limits.check_track(key, 2).is_ok());
        assert!(limits.check_track(key, 2).is_ok());
        let err = limits.check_track(key, 2).unwrap_err();
        assert_eq!(err.code, ErrorCode::RateLimitExceeded);
        assert!(err.retry_after.is_some_and(|s| s >= 1));
        // Single-URL requests only count toward videos per minute.
        assert!(limits.check_track(key, 1).is_ok());
        assert!(limits.check_track(ApiKeyId::new(), 11).is_err());
    }
}
