//! The ceiling of the HTTP load test (`scripts/load-test.py`): a minimal
//! axum server whose one route reads one row through the same store, pool
//! and runtime as `vidpulse serve`, with nothing else: no authentication,
//! no envelope, no middleware.
//!
//! ```sh
//! DATABASE_URL=sqlite://… cargo run --release -p vidpulse --example ceiling -- 127.0.0.1:8090
//! curl 127.0.0.1:8090/row/<tracked video id>
//! curl 127.0.0.1:8090/row/<tracked video id>?pad=46000
//! ```
//!
//! `pad=N` adds N bytes to the answer (a string of `x`), at no other cost:
//! the ceiling of an endpoint whose answers are that large.
#![allow(clippy::print_stderr)]

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use vidpulse_store::{Store, StoreConfig};

/// The same allocator as `vidpulse`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The most padding an answer carries.
const MAX_PAD: usize = 1 << 20;

/// What the route answers: the row's id, and the padding asked for.
#[derive(Serialize)]
struct Answer {
    id: Option<Uuid>,
    pad: &'static str,
}

/// `?pad=N`.
#[derive(Deserialize)]
struct Padding {
    #[serde(default)]
    pad: usize,
}

async fn row(
    State(store): State<Arc<dyn Store>>,
    Path(id): Path<Uuid>,
    Query(Padding { pad }): Query<Padding>,
) -> (StatusCode, Json<Answer>) {
    static PAD: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| "x".repeat(MAX_PAD));
    let pad = &PAD[..pad.min(MAX_PAD)];
    match store.probe_row(id).await {
        Ok(Some(found)) => (
            StatusCode::OK,
            Json(Answer {
                id: Some(found),
                pad,
            }),
        ),
        Ok(None) => (StatusCode::NOT_FOUND, Json(Answer { id: None, pad })),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Answer { id: None, pad: "" }),
        ),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let listen = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8090".into());
    let url = std::env::var("DATABASE_URL")?;
    let store = vidpulse_store::open(&StoreConfig::new(url)).await?;
    let app = Router::new().route("/row/{id}", get(row)).with_state(store);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    eprintln!("ceiling listening on {listen}");
    axum::serve(listener, app).await?;
    Ok(())
}
