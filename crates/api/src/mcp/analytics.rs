//! The analytics tools: `leaderboard` (GET /v1/analytics/top) and `totals`
//! (GET /v1/analytics/metrics/totals), over `app::top` and `app::analytics`:
//! paid plans, 1 credit each when they answer, as on `/v1`.

use schemars::JsonSchema;

use super::videos::reads;
use super::{Access, Answer, Baseline, Call, Platform, Schemas, Spec, tool};
use crate::app::analytics::params::TotalsParams;
use crate::app::analytics::totals_data;
use crate::app::top::{TopParams, leaderboard as ranked};
use crate::envelope::Meta;
use crate::error::ApiError;
use crate::v1::analytics::charge;

/// `leaderboard`.
pub(super) const LEADERBOARD: &str = "leaderboard";
/// `totals`.
pub(super) const TOTALS: &str = "totals";

/// The analytics tools' definitions.
pub(super) fn tools(schemas: &Schemas) -> Vec<Spec> {
    vec![
        Spec {
            tool: tool::<LeaderboardArgs>(
                LEADERBOARD,
                "Leaderboard",
                "The videos, creators or campaigns that gained most of one metric between two \
                 days (default: the 30 days to today), largest gain first, optionally compared \
                 with the previous period of equal length. The arguments are those of GET \
                 /v1/analytics/top. Paid plans (else PAID_PLAN_REQUIRED); 1 credit.",
                schemas.named("TopData"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
        Spec {
            tool: tool::<TotalsArgs>(
                TOTALS,
                "Totals",
                "Views, likes, comments, reposts and saves the organization's videos gained \
                 between two days (default: the 30 days to today), in total and per group \
                 (platform, creator, campaign), for the videos of a campaign, platform or \
                 creator, published or tracked within given days; with compare, also the \
                 previous period of equal length and each metric's change. The arguments are \
                 those of GET /v1/analytics/metrics/totals. Paid plans (else \
                 PAID_PLAN_REQUIRED); 1 credit.",
                schemas.named("TotalsData"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
    ]
}

/// A metric.
#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum Metric {
    Views,
    Likes,
    Comments,
    Reposts,
    Saves,
}

/// What a leaderboard ranks.
#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum Ranked {
    Video,
    Blogger,
    PlatformBlogger,
    Campaign,
}

/// How totals are grouped.
#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum GroupBy {
    None,
    Platform,
    BloggerUsername,
    PlatformBlogger,
    Campaign,
}

/// The one comparison.
#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as query parameters"
)]
enum Compare {
    PreviousPeriod,
}

/// The arguments of `leaderboard`: the leaderboard's query parameters.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the leaderboard's query"
)]
struct LeaderboardArgs {
    /// The metric ranked, largest gain first (default views)
    metric: Option<Metric>,
    /// What is ranked (default video); blogger merges a handle's accounts across platforms
    by: Option<Ranked>,
    /// How many places, 1 to 100 (default 10)
    #[schemars(range(min = 1, max = 100))]
    limit: Option<i64>,
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[schemars(extend("format" = "date"))]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[schemars(extend("format" = "date"))]
    to: Option<String>,
    /// Only videos of this platform
    platform: Option<Platform>,
    /// Only videos of this campaign
    #[schemars(length(max = 200))]
    campaign: Option<String>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    blogger: Option<String>,
    /// previous_period: also the gains over the period of equal length ending the day before `from`, and each metric's change
    compare: Option<Compare>,
    /// Where a video tracked after `from` starts counting: window (default, from 0) or tracking (from its first reading)
    baseline: Option<Baseline>,
}

/// The arguments of `totals`: the totals' query parameters.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the totals' query"
)]
struct TotalsArgs {
    /// First day, YYYY-MM-DD (default: 29 days before `to`)
    #[schemars(extend("format" = "date"))]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[schemars(extend("format" = "date"))]
    to: Option<String>,
    /// How the answer groups the videos (default none: the total alone)
    group_by: Option<GroupBy>,
    /// Only videos of this campaign
    #[schemars(length(max = 200))]
    campaign: Option<String>,
    /// Only videos of this platform
    platform: Option<Platform>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    blogger: Option<String>,
    /// Only videos published on or after this day, YYYY-MM-DD
    #[serde(rename = "published_at.from")]
    #[schemars(extend("format" = "date"))]
    published_from: Option<String>,
    /// Only videos published on or before this day, YYYY-MM-DD
    #[serde(rename = "published_at.to")]
    #[schemars(extend("format" = "date"))]
    published_to: Option<String>,
    /// Only videos whose tracking started on or after this day, YYYY-MM-DD
    #[serde(rename = "tracked_at.from")]
    #[schemars(extend("format" = "date"))]
    tracked_from: Option<String>,
    /// Only videos whose tracking started on or before this day, YYYY-MM-DD
    #[serde(rename = "tracked_at.to")]
    #[schemars(extend("format" = "date"))]
    tracked_to: Option<String>,
    /// Where a video tracked after `from` starts counting: window (default, from 0) or tracking (from its first reading)
    baseline: Option<Baseline>,
    /// previous_period: also the gains over the period of equal length ending the day before `from`, and each metric's change
    compare: Option<Compare>,
}

/// `leaderboard`: the leaderboard, charged 1 credit.
pub(super) async fn leaderboard(call: &Call) -> Result<Answer, ApiError> {
    call.auth.require_paid_plan(&call.app.config.upgrade_url)?;
    let q = call.query::<TopParams>(&[])?;
    let data = ranked(&call.app, call.auth.org.id, TopParams::read(&q)?).await?;
    charge(&call.app, &call.auth, &call.ctx, "analytics_top").await?;
    Answer::new(data, Meta::of(&call.ctx).with_credits(1))
}

/// `totals`: the totals, charged 1 credit.
pub(super) async fn totals(call: &Call) -> Result<Answer, ApiError> {
    call.auth.require_paid_plan(&call.app.config.upgrade_url)?;
    let TotalsParams(params, compare) = call.query::<TotalsParams>(&[])?.parse()?;
    let query = params.query(call.app.clock.now().date_naive())?;
    let data = totals_data(&call.app, call.auth.org.id, &query, &compare).await?;
    charge(&call.app, &call.auth, &call.ctx, "analytics_totals").await?;
    Answer::new(data, Meta::of(&call.ctx).with_credits(1))
}
