//! `TestApp`: the server started in-process on `127.0.0.1:0` against a new
//! database, with a manual clock and the simulated source, plus typed helpers.

use std::sync::Arc;

use chrono::{DurationRound, Utc};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;
use vidpulse::app::{Services, run_server};
use vidpulse::commands::admin;
use vidpulse_api::ApiConfig;
use vidpulse_domain::{Clock, ManualClock, Plan};
use vidpulse_platforms::{ShortLinkResolver, SimulatedConfig, SimulatedSource, Source};
use vidpulse_store::testing::TestDb;
use vidpulse_store::{Backend, Store};
use vidpulse_worker::{CreatorConfig, RefreshConfig, Tick, WebhookConfig};

/// Knobs of a test server.
#[derive(Debug, Clone, Default)]
pub struct TestConfig {
    /// HTTP settings.
    pub api: ApiConfig,
    /// Worker settings.
    pub refresh: RefreshConfig,
    /// Simulated upstream faults.
    pub sim: SimulatedConfig,
    /// Run the background refresh loop (tests usually step it instead).
    pub run_worker: bool,
    /// Creator loop settings.
    pub creators: CreatorConfig,
    /// Serve this source instead of the simulated one (live adapters on stubs).
    pub source: Option<Arc<dyn Source>>,
    /// Webhook delivery settings (`TestApp::spawn` allows private addresses:
    /// the test receivers listen on 127.0.0.1).
    pub webhooks: WebhookConfig,
}

/// A running test server.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub store: Arc<dyn Store>,
    pub clock: ManualClock,
    pub source: SimulatedSource,
    pub services: Services,
    pub db: TestDb,
    shutdown: CancellationToken,
    server: Option<JoinHandle<anyhow::Result<()>>>,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The request id header.
    pub fn request_id(&self) -> &str {
        self.headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
}

impl TestApp {
    /// A second API node on this app's database, clock and platforms, with
    /// `rate_limits`, serving on its own port: `(its address, what stops
    /// it, the server)`.
    pub async fn second_node(
        &self,
        rate_limits: vidpulse_api::rate_limit::RateLimitConfig,
    ) -> (String, CancellationToken, JoinHandle<anyhow::Result<()>>) {
        let api = ApiConfig {
            rate_limits,
            ..ApiConfig::default()
        };
        let services = Services::new(
            self.store.clone(),
            Arc::new(self.clock.clone()),
            Arc::new(self.source.clone()),
            ShortLinkResolver::offline(),
            api,
            vidpulse::app::WorkerSettings::default(),
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(run_server(listener, services, false, shutdown.clone()));
        (address, shutdown, server)
    }

    /// A server with the default settings, webhooks allowed to reach the
    /// test receivers on 127.0.0.1.
    pub async fn spawn(backend: Backend) -> Self {
        let config = TestConfig {
            webhooks: WebhookConfig {
                allow_private: true,
                ..WebhookConfig::default()
            },
            ..TestConfig::default()
        };
        Self::spawn_with(backend, config).await
    }

    pub async fn spawn_with(backend: Backend, config: TestConfig) -> Self {
        let db = TestDb::new(backend).await.expect("test database");
        Self::start(db, config).await
    }

    /// Starts a server on an existing database.
    pub async fn start(db: TestDb, mut config: TestConfig) -> Self {
        vidpulse_platforms::http::install_crypto_provider();
        if config.api.mail.outbox == vidpulse_api::mail::MailConfig::default().outbox {
            // Never the working directory's data/ folder.
            config.api.mail.outbox =
                std::env::temp_dir().join(format!("vidpulse-outbox-{}", uuid::Uuid::new_v4()));
        }
        if config.api.files_dir == ApiConfig::default().files_dir {
            config.api.files_dir =
                std::env::temp_dir().join(format!("vidpulse-files-{}", uuid::Uuid::new_v4()));
        }
        let now = Utc::now()
            .duration_trunc(chrono::Duration::microseconds(1))
            .unwrap();
        let clock = ManualClock::new(now);
        let source = SimulatedSource::new(config.sim.clone(), Arc::new(clock.clone()));
        let services = Services::new(
            db.store.clone(),
            Arc::new(clock.clone()),
            config
                .source
                .clone()
                .unwrap_or_else(|| Arc::new(source.clone())),
            ShortLinkResolver::offline(),
            config.api,
            vidpulse::app::WorkerSettings {
                refresh: config.refresh,
                creators: config.creators,
                webhooks: config.webhooks,
            },
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(run_server(
            listener,
            services.clone(),
            config.run_worker,
            shutdown.clone(),
        ));
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap();
        TestApp {
            address,
            client,
            store: db.store.clone(),
            clock,
            source,
            services,
            db,
            shutdown,
            server: Some(server),
        }
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(&mut self) {
        self.shutdown.cancel();
        if let Some(server) = self.server.take() {
            server.await.unwrap().unwrap();
        }
    }

    /// A new organization on `plan` and an API key for it.
    pub async fn org_with_key(&self, plan: Plan) -> (Uuid, String) {
        let org = admin::create_org(&self.store, "Test org", plan, None, self.clock.now())
            .await
            .unwrap();
        let key = admin::create_api_key(
            &self.store,
            org.organization_id,
            Some("test"),
            self.clock.now(),
        )
        .await
        .unwrap();
        (org.organization_id, key.api_key)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn answer(response: reqwest::Response) -> Answer {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, key: Option<&str>) -> Answer {
        let mut req = self.client.get(self.url(path));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        Self::answer(req.send().await.unwrap()).await
    }

    pub async fn send_json(
        &self,
        method: reqwest::Method,
        path: &str,
        key: Option<&str>,
        body: &Value,
    ) -> Answer {
        let mut req = self.client.request(method, self.url(path)).json(body);
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        Self::answer(req.send().await.unwrap()).await
    }

    pub async fn send_raw(
        &self,
        method: reqwest::Method,
        path: &str,
        key: Option<&str>,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> Answer {
        let mut req = self
            .client
            .request(method, self.url(path))
            .header("content-type", content_type)
            .body(body);
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        Self::answer(req.send().await.unwrap()).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Answer {
        self.send_json(reqwest::Method::POST, path, Some(key), body)
            .await
    }

    pub async fn patch(&self, path: &str, key: &str, body: &Value) -> Answer {
        self.send_json(reqwest::Method::PATCH, path, Some(key), body)
            .await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Answer {
        self.send_json(reqwest::Method::DELETE, path, Some(key), &Value::Null)
            .await
    }

    /// Tracks `urls` and expects 200.
    pub async fn track(&self, key: &str, urls: &[&str]) -> Value {
        let a = self
            .post(
                "/v1/videos/track",
                key,
                &serde_json::json!({ "urls": urls }),
            )
            .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        a.body
    }

    /// Runs refresh ticks until nothing is due; returns videos read.
    pub async fn run_worker_until_idle(&self) -> usize {
        let mut total = 0;
        loop {
            match vidpulse_worker::refresh::tick(&self.services.refresh)
                .await
                .unwrap()
            {
                Tick::Worked(n) => total += n,
                Tick::Idle => return total,
            }
        }
    }

    /// Runs webhook ticks (the tracking-window sweep and due deliveries)
    /// until nothing is due; returns the attempts made.
    pub async fn run_webhooks_until_idle(&self) -> usize {
        let mut total = 0;
        loop {
            match vidpulse_worker::webhooks::tick(&self.services.webhooks)
                .await
                .unwrap()
            {
                Tick::Worked(n) => total += n,
                Tick::Idle => return total,
            }
        }
    }

    /// Runs creator jobs until none is left to claim; returns jobs run.
    pub async fn run_jobs_until_idle(&self) -> usize {
        let mut total = 0;
        loop {
            match vidpulse_worker::creators::tick_jobs(&self.services.creators)
                .await
                .unwrap()
            {
                Tick::Worked(n) => total += n,
                Tick::Idle => return total,
            }
        }
    }

    /// Runs the daily discoveries that are due; returns creators visited.
    pub async fn run_discovery_until_idle(&self) -> usize {
        let mut total = 0;
        loop {
            match vidpulse_worker::creators::tick_discovery(&self.services.creators)
                .await
                .unwrap()
            {
                Tick::Worked(n) => total += n,
                Tick::Idle => return total,
            }
        }
    }

    /// The test clock's instant.
    pub fn clock_now(&self) -> chrono::DateTime<Utc> {
        self.clock.now()
    }

    /// Moves time forward.
    pub fn advance(&self, by: chrono::Duration) {
        self.clock.advance(by);
    }

    /// Writes pending request counts.
    pub async fn flush_usage(&self) {
        self.services.state.usage.flush().await.unwrap();
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Asserts the nested error envelope with `code`, and that it carries the request id.
pub fn assert_nested_error(a: &Answer, status: u16, code: &str) {
    assert_eq!(a.status.as_u16(), status, "{}", a.body);
    assert_eq!(a.body["success"], false, "{}", a.body);
    assert_eq!(a.body["error"]["code"], code, "{}", a.body);
    assert!(
        a.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{}",
        a.body
    );
    assert_eq!(a.body["error"]["request_id"], a.request_id(), "{}", a.body);
    assert!(!a.request_id().is_empty());
}

/// Asserts the flat error envelope with `code`.
pub fn assert_flat_error(a: &Answer, status: u16, code: &str) {
    assert_eq!(a.status.as_u16(), status, "{}", a.body);
    assert_eq!(a.body["success"], false, "{}", a.body);
    assert!(a.body["error"].is_string(), "{}", a.body);
    assert_eq!(a.body["code"], code, "{}", a.body);
    assert_eq!(a.body["request_id"], a.request_id(), "{}", a.body);
}

pub const TIKTOK: &str = "https://www.tiktok.com/@mira.cooks/video/7301234567890123456";
pub const YOUTUBE: &str = "https://www.youtube.com/watch?v=dQw4w9WgXcQ";
pub const INSTAGRAM: &str = "https://www.instagram.com/reel/CWqAgUZgCku/";

/// Pauses the organization's tracked creator `username` (as the dashboard's
/// toggle does) and answers its tracked account id.
pub async fn pause_creator(app: &TestApp, org: Uuid, key: &str, username: &str) -> Uuid {
    let a = app
        .get(&format!("/v1/bloggers/by-username/{username}"), Some(key))
        .await;
    let account: Uuid = a.body["data"]["blogger"]["tracked_account_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        app.store
            .set_account_active(vidpulse_domain::OrgId(org), account, false, app.clock.now())
            .await
            .unwrap(),
        vidpulse_store::AccountChange::Done
    );
    account
}

/// A distinct valid YouTube URL per `n`.
pub fn youtube(n: usize) -> String {
    format!("https://youtu.be/yt{n:09}")
}
