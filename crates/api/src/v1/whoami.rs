//! `GET /v1/whoami` (docs/api.md, "Who am I"): the key's organization, the
//! key itself and its scopes, the plan's quotas and their use, and the
//! key's rate limits. Free, for read-only keys too.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::account::{Whoami, whoami};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The whoami route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_whoami))
}

/// What the calling API key is and may do: its organization (id, name,
/// plan), the key (id, name, prefix, scopes), the plan's quotas with what
/// the organization uses of them, credits charged, and the key's rate
/// limits as they stand after this request. Free; never charged; read-only
/// keys may call it.
#[utoipa::path(
    get, path = "/v1/whoami", tag = "account",
    responses(
        (status = 200, description = "The key and its organization", body = Envelope<Whoami>),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
    ),
    security(("api_key" = []))
)]
async fn get_whoami(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
) -> Result<Json<Envelope<Whoami>>, ApiError> {
    Ok(ok(whoami(&app, &auth).await?, Meta::of(&ctx)))
}
