//! A local stand-in for the YouTube Data API's `videos.list`, for the
//! refresh throughput benchmark (`scripts/refresh-bench.py`): it answers any
//! ids with made-up, growing counters in the API's wire format, at once.
//!
//! ```sh
//! cargo run --release -p vidpulse --example youtube_stub -- 127.0.0.1:8099
//! VIDPULSE_UPSTREAM=live VIDPULSE_YOUTUBE_API_KEY=bench \
//!   VIDPULSE_YOUTUBE_API_BASE=http://127.0.0.1:8099 vidpulse worker
//! ```
#![allow(clippy::print_stderr)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

/// Requests and ids answered, printed at exit by the benchmark.
#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    ids: AtomicU64,
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

async fn videos(
    State(counters): State<Arc<Counters>>,
    Query(query): Query<HashMap<String, String>>,
) -> Json<Value> {
    let ids: Vec<&str> = query
        .get("id")
        .map(|s| s.split(',').collect())
        .unwrap_or_default();
    counters.calls.fetch_add(1, Ordering::Relaxed);
    counters.ids.fetch_add(ids.len() as u64, Ordering::Relaxed);
    let minutes = (chrono::Utc::now().timestamp() / 60) as u64;
    let items: Vec<Value> = ids
        .iter()
        .map(|id| {
            let h = hash(id);
            let views = h % 100_000 + minutes % 100_000 * (h % 7 + 1);
            json!({
                "kind": "youtube#video",
                "id": id,
                "snippet": {
                    "publishedAt": "2026-10-20T12:00:00Z",
                    "channelId": format!("UC{:022}", h % 1000),
                    "title": format!("Video {id}"),
                    "channelTitle": format!("Creator {}", h % 1000),
                    "thumbnails": {"high": {"url": format!("https://i.ytimg.com/vi/{id}/hqdefault.jpg")}}
                },
                "statistics": {
                    "viewCount": views.to_string(),
                    "likeCount": (views / 20).to_string(),
                    "commentCount": (views / 300).to_string()
                }
            })
        })
        .collect();
    Json(json!({"kind": "youtube#videoListResponse", "items": items}))
}

async fn stats(State(counters): State<Arc<Counters>>) -> Json<Value> {
    Json(json!({
        "calls": counters.calls.load(Ordering::Relaxed),
        "ids": counters.ids.load(Ordering::Relaxed),
    }))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let listen = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8099".into());
    let app = Router::new()
        .route("/videos", get(videos))
        .route("/stub-stats", get(stats))
        .with_state(Arc::new(Counters::default()));
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    eprintln!("YouTube stub listening on {listen}");
    axum::serve(listener, app).await?;
    Ok(())
}
