//! A tracked blogger's follower history in the dashboard (docs/api.md,
//! "Dashboard rules"): the days of `GET /v1/bloggers/by-username/{username}/history`
//! for a blogger named by its `tracking_id`. Any member.

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::analytics::DateRange;

use crate::app::analytics::params::{Day, bad_day};
use crate::app::bloggers::{FollowerDayView, follower_days, follower_window};
use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The follower history route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(followers))
}

/// The days of a follower history (the dashboard's); any other parameter
/// is refused.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct WindowParams {
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>, format = Date)]
    from: Option<Day>,
    /// Last day, YYYY-MM-DD (default: today, UTC); on or after `from`, at
    /// most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>, format = Date)]
    to: Option<Day>,
}

impl Refusals for WindowParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "from" | "to" => bad_day(fault),
            unknown => ApiError::validation(
                unknown,
                format!("Unknown query parameter `{unknown}`; known: from, to"),
            ),
        }
    }
}

impl WindowParams {
    /// The window asked for; `today` ends the default one.
    pub fn window(&self, today: NaiveDate) -> Result<DateRange, ApiError> {
        follower_window(self.from.map(|Day(d)| d), self.to.map(|Day(d)| d), today)
    }
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
