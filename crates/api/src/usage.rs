//! Request counting: aggregated in memory per organization, day and key,
//! and added to the store in batches (per-request bookkeeping stays off the hot path: it is
//! flushed every few seconds and on shutdown). A failed flush keeps its
//! counts for the next one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use tokio_util::sync::CancellationToken;
use vidpulse_domain::{ApiKeyId, OrgId};
use vidpulse_store::{Store, StoreError, UsageDelta};

type Key = (OrgId, NaiveDate, ApiKeyId);

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    requests: i64,
    successes: i64,
    errors: i64,
    response_ms_total: i64,
    last_used_at: Option<DateTime<Utc>>,
}

/// The in-memory request counters.
#[derive(Debug, Clone)]
pub struct UsageRecorder {
    pending: Arc<Mutex<HashMap<Key, Counts>>>,
    store: Arc<dyn Store>,
}

impl UsageRecorder {
    /// Counters that flush into `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            pending: Arc::default(),
            store,
        }
    }

    /// Counts one request.
    pub fn record(
        &self,
        org: OrgId,
        key: ApiKeyId,
        at: DateTime<Utc>,
        status: StatusCode,
        elapsed_ms: u64,
    ) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let c = pending.entry((org, at.date_naive(), key)).or_default();
        c.requests += 1;
        if status.as_u16() < 400 {
            c.successes += 1;
        } else {
            c.errors += 1;
        }
        c.response_ms_total += i64::try_from(elapsed_ms).unwrap_or(i64::MAX);
        c.last_used_at = c.last_used_at.max(Some(at));
    }

    /// Adds the pending counts to the store.
    pub async fn flush(&self) -> Result<(), StoreError> {
        let taken = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if taken.is_empty() {
            return Ok(());
        }
        let deltas: Vec<UsageDelta> = taken
            .iter()
            .map(|((org, day, key), c)| UsageDelta {
                organization_id: *org,
                day: *day,
                api_key_id: *key,
                requests: c.requests,
                successes: c.successes,
                errors: c.errors,
                response_ms_total: c.response_ms_total,
                last_used_at: c.last_used_at.unwrap_or_default(),
            })
            .collect();
        if let Err(e) = self.store.add_usage(&deltas).await {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            for (key, c) in taken {
                let p = pending.entry(key).or_default();
                p.requests += c.requests;
                p.successes += c.successes;
                p.errors += c.errors;
                p.response_ms_total += c.response_ms_total;
                p.last_used_at = p.last_used_at.max(c.last_used_at);
            }
            return Err(e);
        }
        Ok(())
    }

    /// Flushes every `interval` until `shutdown`, then once more.
    pub async fn run(self, interval: Duration, shutdown: CancellationToken) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(interval) => {}
                _ = shutdown.cancelled() => break,
            }
            if let Err(e) = self.flush().await {
                tracing::warn!(error = %e, "usage flush failed; keeping counts for the next one");
            }
        }
        if let Err(e) = self.flush().await {
            tracing::error!(error = %e, "final usage flush failed");
        }
    }
}
