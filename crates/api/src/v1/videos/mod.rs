//! Videos in the public API (docs/api.md: "POST /v1/videos/track",
//! "GET /v1/videos/stats", the two video reads, the PATCH and its batch,
//! untracking, reading now, exports): one module per endpoint, each a thin
//! face of its use case in [`crate::app::videos`] for an API key.

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::middleware::flat_errors;
use crate::state::AppState;

mod batch;
mod export;

pub(crate) use export::videos_export;
mod list;
mod patch;
mod read;
mod refresh;
mod track;
mod untrack;

/// The video routes.
pub fn router() -> OpenApiRouter<AppState> {
    let flat = OpenApiRouter::new()
        .routes(routes!(list::list_stats))
        .routes(routes!(export::export_videos))
        .route_layer(axum::middleware::from_fn(flat_errors));
    OpenApiRouter::new()
        .routes(routes!(track::track))
        .routes(routes!(batch::patch_batch))
        .routes(routes!(refresh::refresh_by_id))
        .routes(routes!(refresh::refresh_by_external_id))
        .routes(routes!(export::export_history))
        .routes(routes!(read::by_id, untrack::untrack_by_id))
        .routes(routes!(
            read::by_external_id,
            patch::patch_by_external_id,
            untrack::untrack_by_external_id
        ))
        .merge(flat)
}
