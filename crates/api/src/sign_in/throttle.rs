//! Sign-in attempts and password-link requests, throttled per address in
//! each API node: a password cannot be guessed at speed, and an inbox cannot
//! be flooded with links.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use vidpulse_domain::names::EmailAddress;

use crate::error::{ApiError, ErrorCode};

/// Sign-in attempts an address may make at once…
const ATTEMPT_BURST: u32 = 10;
/// …and how often it gets another.
const ATTEMPT_EVERY: Duration = Duration::from_secs(90);
/// Password links an address may be sent at once…
const RESET_BURST: u32 = 3;
/// …and how often it gets another.
const RESET_EVERY: Duration = Duration::from_secs(20 * 60);
/// Addresses remembered before the idle ones are forgotten.
const REMEMBERED: usize = 10_000;

/// Per-address budgets of sign-in attempts and password links.
#[derive(Debug)]
pub struct SignInThrottle {
    attempts: DefaultKeyedRateLimiter<String>,
    resets: DefaultKeyedRateLimiter<String>,
}

impl Default for SignInThrottle {
    fn default() -> Self {
        let quota = |every: Duration, burst: u32| {
            Quota::with_period(every)
                .map(|q| q.allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN)))
                .unwrap_or_else(|| Quota::per_minute(NonZeroU32::MIN))
        };
        Self {
            attempts: RateLimiter::keyed(quota(ATTEMPT_EVERY, ATTEMPT_BURST)),
            resets: RateLimiter::keyed(quota(RESET_EVERY, RESET_BURST)),
        }
    }
}

impl SignInThrottle {
    /// Takes one sign-in attempt of `email`'s budget.
    pub fn attempt(&self, email: &EmailAddress) -> Result<(), ApiError> {
        take(&self.attempts, email, "sign-in attempts")
    }

    /// Takes one password link of `email`'s budget.
    pub fn reset(&self, email: &EmailAddress) -> Result<(), ApiError> {
        take(&self.resets, email, "password links")
    }
}

fn take(
    limiter: &DefaultKeyedRateLimiter<String>,
    email: &EmailAddress,
    what: &str,
) -> Result<(), ApiError> {
    if limiter.len() > REMEMBERED {
        limiter.retain_recent();
    }
    limiter.check_key(&email.key()).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimitExceeded,
            format!("Too many {what} for this address; retry in {secs} s"),
        )
        .with_retry_after(secs.max(1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_runs_out_of_attempts_and_another_does_not() {
        let throttle = SignInThrottle::default();
        let ann = EmailAddress::parse("ann@example.com").unwrap();
        let same = EmailAddress::parse("ANN@example.com").unwrap();
        for _ in 0..ATTEMPT_BURST {
            throttle.attempt(&ann).unwrap();
        }
        let refused = throttle.attempt(&same).unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.retry_after.is_some_and(|s| s >= 1));
        let bob = EmailAddress::parse("bob@example.com").unwrap();
        throttle.attempt(&bob).unwrap();
    }
}
