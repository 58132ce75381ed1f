//! Webhook delivery: claims due deliveries under a lease, posts each signed
//! the Standard Webhooks way, and records the attempt: delivered, tried
//! again with exponential backoff and jitter (over more than a day), or
//! failed. Also writes the time-driven events (a tracking window ending).
//!
//! A delivery never reaches an address that is not global (loopback,
//! private, link-local, an IPv6 form of one of them…: `is_global`)
//! unless the operator allows it: the client's resolver drops such
//! addresses after DNS resolution, on every attempt, so the address checked
//! is the address connected to; an address written in the URL is checked
//! before sending.

use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::{DateTime, Duration, Utc};
use futures::StreamExt;
use hmac::{Hmac, Mac};
use rand::Rng;
use sha2::Sha256;
use tokio_util::sync::CancellationToken;
use vidpulse_domain::Clock;
use vidpulse_domain::webhooks::{disable_after, refused_url, retry_after};
use vidpulse_platforms::PublicOnly;
use vidpulse_store::{Attempt, DueDelivery, Store, StoreError};

use crate::Tick;

/// Tuning of the delivery loop.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Deliver to loopback, private and link-local addresses too (tests, or
    /// receivers on the operator's own network).
    pub allow_private: bool,
    /// Longest an attempt may take, connecting included.
    pub timeout: StdDuration,
    /// Bytes of an answer read at most (the rest is never read).
    pub max_answer_bytes: usize,
    /// Deliveries claimed per tick.
    pub claim_batch: i64,
    /// How long a claim holds; a worker that dies frees its deliveries then.
    pub lease: Duration,
    /// Attempts in flight at once.
    pub concurrency: usize,
    /// Longest wait between two looks at the queue when idle.
    pub idle_poll: StdDuration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            timeout: StdDuration::from_secs(10),
            max_answer_bytes: 64 * 1024,
            claim_batch: 16,
            lease: Duration::seconds(300),
            concurrency: 8,
            idle_poll: StdDuration::from_secs(1),
        }
    }
}

/// What the delivery loop works with.
#[derive(Debug, Clone)]
pub struct WebhookContext {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Tuning.
    pub config: WebhookConfig,
    /// The HTTP client deliveries go through.
    pub client: reqwest::Client,
    /// When this node last swept the ended tracking windows.
    last_sweep: Arc<Mutex<Option<DateTime<Utc>>>>,
}

impl WebhookContext {
    /// The context, with a client built for `config` (which fails only
    /// when TLS cannot be set up).
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        config: WebhookConfig,
    ) -> Result<Self, reqwest::Error> {
        let client = client(&config)?;
        Ok(Self {
            store,
            clock,
            config,
            client,
            last_sweep: Arc::default(),
        })
    }

    /// Whether the ended tracking windows are due for a sweep at `now`
    /// (every [`SWEEP_INTERVAL`]); marks it done if so.
    fn sweep_due(&self, now: DateTime<Utc>) -> bool {
        let mut last = self.last_sweep.lock().unwrap_or_else(|e| e.into_inner());
        let due = last.is_none_or(|at| now - at >= SWEEP_INTERVAL);
        if due {
            *last = Some(now);
        }
        due
    }
}

/// How often a worker writes the `video.tracking_completed` of windows that
/// ended (a write transaction each time, so not on every idle poll).
pub const SWEEP_INTERVAL: Duration = Duration::seconds(30);

/// The delivery client: no redirects, no proxy, the timeout on every
/// attempt, and a resolver that keeps non-global addresses out.
fn client(config: &WebhookConfig) -> Result<reqwest::Client, reqwest::Error> {
    vidpulse_platforms::http::install_crypto_provider();
    reqwest::Client::builder()
        .timeout(config.timeout)
        .connect_timeout(config.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("vidpulse-webhooks/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Arc::new(PublicOnly {
            allow_private: config.allow_private,
        }))
        .build()
}

/// The `webhook-signature` header: `v1,<base64 HMAC-SHA256>` of
/// `{id}.{timestamp}.{body}` under each secret (`whsec_<base64 key>`),
/// space-separated.
pub fn signature(secrets: &[String], id: &str, timestamp: i64, body: &str) -> String {
    secrets
        .iter()
        .filter_map(|secret| {
            let key = BASE64
                .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
                .ok()?;
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
            mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
            Some(format!("v1,{}", BASE64.encode(mac.finalize().into_bytes())))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Claims the deliveries due now, attempts each and records the attempts;
/// also writes the tracking windows that ended (every [`SWEEP_INTERVAL`]).
pub async fn tick(ctx: &WebhookContext) -> Result<Tick, StoreError> {
    let now = ctx.clock.now();
    if ctx.sweep_due(now) {
        ctx.store.sweep_completed_tracking(now).await?;
    }
    let due = ctx
        .store
        .claim_deliveries(now, ctx.config.claim_batch, ctx.config.lease)
        .await?;
    if due.is_empty() {
        return Ok(Tick::Idle);
    }
    let claimed = due.len();
    let finished: Vec<Result<bool, StoreError>> = futures::stream::iter(due)
        .map(|delivery| async move {
            let attempt = attempt(ctx, &delivery).await;
            let outcome = match (&attempt.error, attempt.retry_at) {
                (None, _) => "delivered",
                (Some(_), Some(_)) => "retrying",
                (Some(_), None) => "failed",
            };
            metrics::counter!("vidpulse_webhook_deliveries_total", "outcome" => outcome)
                .increment(1);
            ctx.store
                .finish_delivery(&delivery, &attempt, disable_after())
                .await
        })
        .buffer_unordered(ctx.config.concurrency.max(1))
        .collect()
        .await;
    for result in finished {
        result?;
    }
    Ok(Tick::Worked(claimed))
}

/// Posts one delivery and tells what came of it.
async fn attempt(ctx: &WebhookContext, delivery: &DueDelivery) -> Attempt {
    let at = ctx.clock.now();
    let started = Instant::now();
    let (status_code, error) = match post(ctx, delivery, at).await {
        Ok(status) if (200..300).contains(&status) => (Some(i64::from(status)), None),
        Ok(status) => (
            Some(i64::from(status)),
            Some(format!("the endpoint answered {status}")),
        ),
        Err(error) => (None, Some(error)),
    };
    let latency_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    let attempts = u32::try_from(delivery.attempts + 1).unwrap_or(u32::MAX);
    let retry_at = error
        .as_ref()
        .and_then(|_| retry_after(attempts))
        .map(|wait| at + jitter(wait));
    if let Some(error) = &error {
        tracing::info!(delivery = %delivery.id, endpoint = %delivery.endpoint_id, attempts, error, "webhook delivery failed");
    }
    Attempt {
        at,
        status_code,
        error,
        latency_ms,
        retry_at,
    }
}

/// `wait`, 20% more or less at random, so deliveries failed together do
/// not come back together.
fn jitter(wait: Duration) -> Duration {
    let ms = wait.num_milliseconds() as f64 * rand::rng().random_range(0.8..1.2);
    Duration::milliseconds(ms as i64)
}

/// Sends the delivery; the status answered, or why nothing was.
async fn post(
    ctx: &WebhookContext,
    delivery: &DueDelivery,
    at: DateTime<Utc>,
) -> Result<u16, String> {
    if let Some(refused) = refused_url(&delivery.url, ctx.config.allow_private) {
        return Err(refused);
    }
    let id = delivery.event_id.to_string();
    let timestamp = at.timestamp();
    let response = ctx
        .client
        .post(&delivery.url)
        .header("content-type", "application/json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", timestamp.to_string())
        .header(
            "webhook-signature",
            signature(&delivery.secrets, &id, timestamp, &delivery.body),
        )
        .body(delivery.body.clone())
        .send()
        .await
        .map_err(|e| describe(&e))?;
    let status = response.status().as_u16();
    // The answer is read up to the limit and no further.
    let mut response = response;
    let mut read = 0;
    while let Ok(Some(chunk)) = response.chunk().await {
        read += chunk.len();
        if read >= ctx.config.max_answer_bytes {
            break;
        }
    }
    Ok(status)
}

/// A failed send, in one line with its cause.
fn describe(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else {
        "could not send".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Runs the delivery loop until `shutdown`: ticks while there is work,
/// then waits for the poll interval. A store failure backs off (1 s
/// doubling to 30 s); the tick in progress when shutdown comes finishes.
pub async fn run(ctx: WebhookContext, shutdown: CancellationToken) {
    let mut backoff = StdDuration::from_secs(1);
    loop {
        if shutdown.is_cancelled() {
            return;
        }
        let wait = match tick(&ctx).await {
            Ok(Tick::Worked(_)) => {
                backoff = StdDuration::from_secs(1);
                continue;
            }
            Ok(Tick::Idle) => {
                backoff = StdDuration::from_secs(1);
                ctx.config.idle_poll
            }
            Err(e) => {
                tracing::warn!(error = %e, "webhook tick failed; backing off");
                let wait = backoff;
                backoff = (backoff * 2).min(StdDuration::from_secs(30));
                wait
            }
        };
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vidpulse_domain::webhooks::new_secret;

    #[test]
    fn signs_as_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&[secret], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn two_secrets_sign_twice() {
        let a = new_secret();
        let b = new_secret();
        assert!(a.starts_with("whsec_") && a != b);
        let both = signature(&[a.clone(), b], "id", 1, "{}");
        assert_eq!(both.split(' ').count(), 2);
        assert!(both.starts_with(&signature(&[a], "id", 1, "{}")));
    }
}
