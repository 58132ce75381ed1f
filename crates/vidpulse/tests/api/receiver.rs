//! A webhook receiver for the tests: an HTTP server on 127.0.0.1 that keeps
//! every request it gets and answers as told (fail the first few, slowly).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
    pub body: String,
}

impl Received {
    /// The body, parsed.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// Whether one of the signatures is `secret`'s over this request.
    pub fn signed_by(&self, secret: &str) -> bool {
        let timestamp: i64 = self.timestamp.parse().unwrap();
        let expected = vidpulse_worker::webhooks::signature(
            &[secret.to_owned()],
            &self.id,
            timestamp,
            &self.body,
        );
        self.signature.split(' ').any(|s| s == expected)
    }
}

#[derive(Default)]
struct Inner {
    received: Mutex<Vec<Received>>,
    failures_left: AtomicUsize,
    delay_ms: AtomicUsize,
}

/// A running receiver.
#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    inner: Arc<Inner>,
    stop: CancellationToken,
}

impl Receiver {
    /// Starts one on a free port.
    pub async fn start() -> Self {
        let inner = Arc::new(Inner::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let app = axum::Router::new()
            .route("/hooks", axum::routing::post(take))
            .with_state(inner.clone());
        let until = stop.clone();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move { until.cancelled().await })
                .await
                .unwrap();
        });
        Self { url, inner, stop }
    }

    /// Answers 500 to the next `n` requests.
    pub fn fail_next(&self, n: usize) {
        self.inner.failures_left.store(n, Ordering::SeqCst);
    }

    /// Waits `ms` before answering each request.
    pub fn delay(&self, ms: usize) {
        self.inner.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.inner.received.lock().unwrap().clone()
    }

    /// The requests so far whose body's `type` is `kind`.
    pub fn of_type(&self, kind: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.json()["type"] == kind)
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if Arc::strong_count(&self.inner) <= 2 {
            self.stop.cancel();
        }
    }
}

async fn take(State(inner): State<Arc<Inner>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    inner.received.lock().unwrap().push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let delay = inner.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay as u64)).await;
    }
    let failing = inner
        .failures_left
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if failing {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::NO_CONTENT
    }
}
