//! A tracked creator's follower history (docs/api.md:
//! GET /v1/bloggers/by-username/{username}/history): the creator by handle
//! ([`tracked_or_404`]), then [`follower_days`].

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::analytics::DateRange;
use vidpulse_domain::names::Handle;

use crate::app::analytics::params::{Day, bad_day};
use crate::app::bloggers::{
    FollowerDayView, PlatformId, bad_platform, follower_days, follower_window, refused_username,
    tracked_or_404,
};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{PathParam, Query};
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The history's query; any other parameter is refused.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HistoryParams {
    /// tiktok, instagram or youtube, any case; omitted: any platform (the
    /// most recently tracked account of that handle)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    platform: Option<PlatformId>,
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

impl Refusals for HistoryParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "platform" => bad_platform("platform", fault.sent()),
            "from" | "to" => bad_day(fault),
            unknown => ApiError::validation(
                unknown,
                format!("Unknown query parameter `{unknown}`; known: platform, from, to"),
            ),
        }
    }
}

impl HistoryParams {
    /// The window asked for; `today` ends the default one.
    fn window(&self, today: NaiveDate) -> Result<DateRange, ApiError> {
        follower_window(self.from.map(|Day(d)| d), self.to.map(|Day(d)| d), today)
    }
}

/// `data` of a follower history.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerHistory {
    /// Platform id.
    pub platform: &'static str,
    /// Handle, without `@`.
    pub channel_username: String,
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

/// A tracked creator's follower count per day. Free; never calls a platform.
#[utoipa::path(
    get, path = "/v1/bloggers/by-username/{username}/history", tag = "creators",
    params(
        ("username" = String, Path, description = "The handle; a leading `@` must be sent as `%40`"),
        HistoryParams,
    ),
    responses(
        (status = 200, description = "The follower history", body = Envelope<FollowerHistory>),
        (status = 400, description = "VALIDATION_ERROR naming the `field` (an unknown parameter is named too)"),
        (status = 401, description = "MISSING_AUTH or INVALID_API_KEY"),
        (status = 404, description = "BLOGGER_NOT_TRACKED"),
    ),
    security(("api_key" = []))
)]
pub(super) async fn history(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: ApiKeyAuth,
    PathParam(username): PathParam,
    q: Query<HistoryParams>,
) -> Result<Json<Envelope<FollowerHistory>>, ApiError> {
    let username = Handle::parse(&username).map_err(|fault| refused_username("username", fault))?;
    let params = q.parse()?;
    let window = params.window(app.clock.now().date_naive())?;
    let platform = params.platform.map(|PlatformId(p)| p);
    let account = tracked_or_404(&app, auth.org.id, platform, &username).await?;
    let days = follower_days(&app, auth.org.id, account.tracked_account_id, window).await?;
    Ok(ok(
        FollowerHistory {
            platform: account.platform.id(),
            channel_username: account.username,
            from: window.from,
            to: window.to,
            days,
        },
        Meta::of(&ctx),
    ))
}
