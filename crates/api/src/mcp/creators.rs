//! The creator tools: `get_creator` (GET /v1/bloggers/by-username/{username})
//! and `get_creator_followers` (its `/history`), over `app::bloggers`: free,
//! never calling a platform.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vidpulse_domain::names::Handle;
use vidpulse_store::TrackedAccount;

use super::videos::reads;
use super::{Access, Answer, Call, Platform, Schemas, Spec, tool};
use crate::app::analytics::params::{Day, bad_day};
use crate::app::bloggers::{
    BloggerView, FollowerDayView, PlatformId, bad_platform, blogger_view, follower_days,
    follower_window, refused_username, tracked_or_404,
};
use crate::envelope::Meta;
use crate::error::ApiError;
use crate::input::{Fault, Refusals, text_unless_empty};

/// `get_creator`.
pub(super) const GET: &str = "get_creator";
/// `get_creator_followers`.
pub(super) const FOLLOWERS: &str = "get_creator_followers";

/// The creator tools' definitions.
pub(super) fn tools(schemas: &Schemas) -> Vec<Spec> {
    vec![
        Spec {
            tool: tool::<CreatorArgs>(
                GET,
                "Get a creator",
                "Look up a creator the organization tracks, by handle (and platform): its \
                 profile, follower count and gains over 7 and 30 days, whether it is active, \
                 how many of its videos are tracked and their views. A creator the organization \
                 does not track is BLOGGER_NOT_TRACKED. Free.",
                schemas.named("BloggerData"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
        Spec {
            tool: tool::<FollowersArgs>(
                FOLLOWERS,
                "Creator's followers",
                "A tracked creator's follower count per day between two days (default: the 30 \
                 days to today); days without a recorded count are left out. Free.",
                schemas.named("FollowerHistory"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
    ]
}

/// The arguments of `get_creator`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "a schema: the arguments are read as the lookup's")]
struct CreatorArgs {
    /// The creator's handle, with or without `@`
    #[schemars(length(min = 1, max = 100))]
    username: String,
    /// Its platform; omitted: any platform (the most recently tracked account of that handle)
    platform: Option<Platform>,
}

/// The arguments of `get_creator_followers`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the history's"
)]
struct FollowersArgs {
    /// The creator's handle, with or without `@`
    #[schemars(length(min = 1, max = 100))]
    username: String,
    /// Its platform; omitted: any platform (the most recently tracked account of that handle)
    platform: Option<Platform>,
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[schemars(extend("format" = "date"))]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, UTC); on or after `from`, at most 366 days in all
    #[schemars(extend("format" = "date"))]
    to: Option<String>,
}

/// The query of a creator read but its handle: the lookup's and the
/// history's parameters, as `/v1` reads them.
#[derive(Debug, Deserialize)]
struct CreatorParams {
    #[serde(default, deserialize_with = "text_unless_empty")]
    platform: Option<PlatformId>,
    #[serde(default, deserialize_with = "text_unless_empty")]
    from: Option<Day>,
    #[serde(default, deserialize_with = "text_unless_empty")]
    to: Option<Day>,
}

impl Refusals for CreatorParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "platform" => bad_platform("platform", fault.sent()),
            _ => bad_day(fault),
        }
    }
}

/// The handle a call names by its `username` (refused as the path's
/// handle is), and its other arguments.
fn named(call: &Call) -> Result<(Handle, CreatorParams), ApiError> {
    call.refuse_unknown()?;
    let raw = call.text("username")?.unwrap_or_default();
    let username = Handle::parse(raw).map_err(|fault| refused_username("username", fault))?;
    let params = call.query::<CreatorParams>(&["username"])?.parse()?;
    Ok((username, params))
}

/// The account the organization tracks under `username` (on `platform`).
async fn tracked(
    call: &Call,
    username: &Handle,
    platform: Option<PlatformId>,
) -> Result<TrackedAccount, ApiError> {
    let platform = platform.map(|PlatformId(p)| p);
    tracked_or_404(&call.app, call.auth.org.id, platform, username).await
}

/// `data` of a creator lookup (the `/v1` answer's).
#[derive(Serialize)]
struct BloggerData {
    blogger: BloggerView,
}

/// `get_creator`: the creator and its totals.
pub(super) async fn get(call: &Call) -> Result<Answer, ApiError> {
    let (username, params) = named(call)?;
    let account = tracked(call, &username, params.platform).await?;
    let blogger = blogger_view(&call.app, call.auth.org.id, account).await?;
    Answer::new(BloggerData { blogger }, Meta::of(&call.ctx))
}

/// `data` of a follower history (the `/v1` answer's).
#[derive(Serialize)]
struct FollowerHistory {
    platform: &'static str,
    channel_username: String,
    from: NaiveDate,
    to: NaiveDate,
    days: Vec<FollowerDayView>,
}

/// `get_creator_followers`: the follower count per day of the window.
pub(super) async fn followers(call: &Call) -> Result<Answer, ApiError> {
    let (username, params) = named(call)?;
    let today = call.app.clock.now().date_naive();
    let window = follower_window(
        params.from.map(|Day(d)| d),
        params.to.map(|Day(d)| d),
        today,
    )?;
    let account = tracked(call, &username, params.platform).await?;
    let days = follower_days(
        &call.app,
        call.auth.org.id,
        account.tracked_account_id,
        window,
    )
    .await?;
    let history = FollowerHistory {
        platform: account.platform.id(),
        channel_username: account.username,
        from: window.from,
        to: window.to,
        days,
    };
    Answer::new(history, Meta::of(&call.ctx))
}
