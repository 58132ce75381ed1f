//! A creator-track job, as the client polls it (docs/api.md:
//! GET /v1/bloggers/jobs/{job_id}): [`job_view`], with the key's rate limit.

use axum::Json;
use axum::extract::State;

use crate::app::bloggers::{JobView, job_view};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::PathParam;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// A creator-track job. Free; 404 for unknown jobs and other organizations'
/// alike; 410 once the timeout sweep has closed it.
#[utoipa::path(
    get, path = "/v1/bloggers/jobs/{job_id}", tag = "creators",
    params(("job_id" = String, Path, description = "The job id from POST /v1/bloggers/track")),
    responses(
        (status = 200, description = "The job", body = Envelope<JobView>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "NOT_FOUND"),
        (status = 410, description = "JOB_TIMEOUT: re-issue POST /v1/bloggers/track to retry"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED (60 a minute per key)"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn job(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(job_id): PathParam,
) -> Result<Json<Envelope<JobView>>, ApiError> {
    app.limits.check_job_status(auth.key_id).await?;
    Ok(ok(
        job_view(&app, auth.org.id, &job_id).await?,
        Meta::of(&ctx),
    ))
}
