//! A tracked blogger's follower history in the dashboard (docs/api.md,
//! "Dashboard rules"): the days of `GET /v1/bloggers/by-username/{username}/history`
//! for a blogger named by its `tracking_id`. Any member.

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::bloggers::{FollowerDayView, WindowParams, follower_days};

/// The follower history route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(followers))
}

/// `data` of a blogger's follower history.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerFollowers {
    /// The organization's tracking of the blogger.
    pub tracking_id: Uuid,
    /// First day of the window.
    #[schema(value_type = String, format = Date)]
    pub from: NaiveDate,
    /// Last day of the window.
    #[schema(value_type = String, format = Date)]
    pub to: NaiveDate,
    /// The days of the window with a recorded count, ascending; days
    /// without one are left out.
    pub days: Vec<FollowerDayView>,
}

/// A tracked blogger's follower count per day (the last read of each UTC
/// day). Any member.
#[utoipa::path(
    get, path = "/blogger/{tracking_id}/followers", tag = "dashboard",
    params(
        ("tracking_id" = String, Path, description = "The organization's tracking of the blogger (UUID)"),
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        WindowParams,
    ),
    responses(
        (status = 200, description = "The follower history", body = Envelope<BloggerFollowers>),
        (status = 400, description = "VALIDATION_ERROR naming the `field` (an unknown parameter is named too)"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: no such tracked blogger in the organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn followers(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    path: Result<PathParam, ApiError>,
    q: Query<WindowParams>,
) -> Result<Json<Envelope<BloggerFollowers>>, ApiError> {
    let tracking_id = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(p.trim()).ok())
        .ok_or_else(|| ApiError::not_found("No such tracked blogger"))?;
    let window = q.parse()?.window(app.clock.now().date_naive())?;
    let days = follower_days(&app, auth.org, tracking_id, window).await?;
    Ok(ok(
        BloggerFollowers {
            tracking_id,
            from: window.from,
            to: window.to,
            days,
        },
        Meta::of(&ctx),
    ))
}
