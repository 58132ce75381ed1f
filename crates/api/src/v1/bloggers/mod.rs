//! Creators in the public API (docs/api.md: POST /v1/bloggers/track,
//! GET /v1/bloggers/jobs/{job_id}, GET /v1/bloggers,
//! GET, PATCH and DELETE /v1/bloggers/by-username/{username}, its
//! `/history` and its `/refresh`): one module per endpoint, each a thin face
//! of its use case in [`crate::app::bloggers`] for an API key.

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

mod history;
mod job;
mod list;
mod lookup;
mod refresh;
mod track;
mod untrack;
mod update;

/// The creator routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(track::track))
        .routes(routes!(job::job))
        .routes(routes!(list::list))
        .routes(routes!(
            lookup::by_username,
            update::update,
            untrack::untrack
        ))
        .routes(routes!(history::history))
        .routes(routes!(refresh::refresh))
}
