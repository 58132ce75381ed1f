//! Running the real binary: servers, workers and admin commands as child
//! processes on one database, for the fleet and fault tests.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The Redis the tests share (`VIDPULSE_TEST_REDIS_URL` overrides).
pub fn redis_url() -> String {
    std::env::var("VIDPULSE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into())
}

/// A child process, killed (SIGKILL) when dropped.
pub struct Process(pub Child);

impl Process {
    /// Kills it at once, as `kill -9` does: no graceful stop.
    pub fn kill9(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// A free local port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `vidpulse ARGS` on `db` in `dir`, with the shared Redis and `env`.
pub fn start_with(db: &str, args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> Process {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vidpulse"));
    command
        .args(args)
        .current_dir(dir)
        .env("DATABASE_URL", db)
        .env("VIDPULSE_REDIS_URL", redis_url())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(match std::env::var("VIDPULSE_TEST_CHILD_LOG") {
            Ok(path) => std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map(Stdio::from)
                .unwrap_or_else(|_| Stdio::null()),
            Err(_) => Stdio::null(),
        });
    for (k, v) in env {
        command.env(k, v);
    }
    Process(command.spawn().unwrap())
}

/// Starts `vidpulse ARGS` on `db` in `dir`, with the shared Redis.
pub fn start(db: &str, args: &[&str], dir: &std::path::Path) -> Process {
    start_with(db, args, dir, &[])
}

/// Runs an admin command and returns the JSON object it prints.
pub fn admin(db: &str, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .args(args)
        .env("DATABASE_URL", db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// An HTTP client with timeouts.
pub fn client() -> reqwest::Client {
    vidpulse_platforms::http::install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Waits until `check` holds, for at most `limit`.
pub async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the server at `base` answers `/readyz` with 200.
pub async fn wait_ready(client: &reqwest::Client, base: &str) {
    let url = format!("{base}/readyz");
    eventually(Duration::from_secs(30), "the server to be ready", || {
        let client = client.clone();
        let url = url.clone();
        async move {
            client
                .get(&url)
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
        }
    })
    .await;
}
