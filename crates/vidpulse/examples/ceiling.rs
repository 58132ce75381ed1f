//! The ceiling of the HTTP load test (`scripts/load-test.py`): a minimal
//! axum server whose one route reads one row through the same store, pool
//! and runtime as `vidpulse serve`, with nothing else: no authentication,
//! no envelope, no middleware.
//!
//! ```sh
//! DATABASE_URL=sqlite://… cargo run --release -p vidpulse --example ceiling -- 127.0.0.1:8090
//! curl 127.0.0.1:8090/row/<tracked video id>
//! ```
#![allow(clippy::print_stderr)]

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use uuid::Uuid;
use vidpulse_store::{Store, StoreConfig};

/// The same allocator as `vidpulse`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

async fn row(
    State(store): State<Arc<dyn Store>>,
    Path(id): Path<Uuid>,
) -> (StatusCode, Json<Option<Uuid>>) {
    match store.probe_row(id).await {
        Ok(Some(found)) => (StatusCode::OK, Json(Some(found))),
        Ok(None) => (StatusCode::NOT_FOUND, Json(None)),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, Json(None)),
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
