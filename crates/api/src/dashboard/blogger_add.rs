//! Adding bloggers from the dashboard (docs/api.md, "Dashboard rules", and
//! README, "The dashboard API"): `POST /blogger/add` reads the channel profile from the
//! platform and `POST /blogger/add-from-tracking` takes a creator the
//! organization already knows. Both open the tracked account at once, with
//! its campaign, daily count and tags, and queue the same creator job as the
//! public API's track to backfill its initial videos. Editors and above.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::Platform;
use vidpulse_domain::identity::Role;
use vidpulse_domain::names::Handle;
use vidpulse_platforms::SourceError;
use vidpulse_store::{AccountSetup, CreatorJob, CreatorProfile, NewCreatorJob, SetupCreator};

use crate::app::bloggers::{
    DEFAULT_INITIAL_VIDEOS, MAX_INITIAL_VIDEOS, PlatformId, bad_daily_count, bad_initial_count,
    bad_platform, bad_username, profile_of, read_failed, start_job,
};
use crate::dashboard::access::OrgAuth;
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{
    self, Bounded, Campaign, Fault, Id, Ids, Refusals, bad_campaign, bad_id, bad_ids, not_an_object,
};
use crate::middleware::RequestContext;
use crate::state::AppState;

pub use crate::app::bloggers::MAX_TAGS;
pub use vidpulse_domain::plan::MAX_DAILY_VIDEOS;
/// Longest wait for the platform's channel profile.
const PROFILE_TIMEOUT: Duration = Duration::from_secs(20);

/// The add routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(add))
        .routes(routes!(add_from_tracking))
}

/// The blogger of an add answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct AddedBlogger {
    /// The creator (`blogger_id` of the other endpoints).
    pub id: Uuid,
    /// Handle, as the platform spells it.
    pub username: String,
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// Display name.
    pub channel_name: Option<String>,
    /// Followers (null when the platform does not say).
    pub number_of_subscribers: Option<i64>,
}

/// The answer of an add: `success`, `blogger` and `tracking_id` at the top
/// level (no `data` wrapper), and the job backfilling its initial videos.
#[derive(Debug, Serialize, ToSchema)]
pub struct Added {
    /// Always true.
    pub success: bool,
    /// The creator.
    pub blogger: AddedBlogger,
    /// The organization's tracking of it.
    pub tracking_id: Uuid,
    /// The creator job fetching its initial videos (`/v1/bloggers/jobs/{id}`).
    pub job_id: Uuid,
}

/// Body of `POST /blogger/add`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AddBloggerRequest {
    /// Required string: the handle, with or without a leading `@`; once
    /// trimmed and without the `@`, 1 to 100 letters, digits, `.`, `_` or `-`.
    #[schema(value_type = String, min_length = 1)]
    username: Handle,
    /// Required string: `tiktok`, `instagram` or `youtube`, in any case.
    #[schema(value_type = String)]
    platform: PlatformId,
    #[serde(flatten)]
    settings: AddSettings,
}

impl Refusals for AddBloggerRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "platform" => bad_platform("platform", fault.sent()),
            "username" => bad_username("username", fault.sent()),
            _ => match settings_fault(fault) {
                // Worded as the public track words it.
                Some(inner) if inner.field() == "initial_videos_count" => {
                    bad_initial_count(inner.sent())
                }
                Some(inner) => AddSettings::refuse(&inner),
                None => not_an_object(),
            },
        }
    }
}

/// Body of `POST /blogger/add-from-tracking`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AddFromTrackingRequest {
    /// Required UUID: a creator the organization knows (one it tracked
    /// before, or the author of videos it tracks).
    #[schema(value_type = Uuid)]
    blogger_id: Id,
    #[serde(flatten)]
    settings: AddSettings,
}

impl Refusals for AddFromTrackingRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "blogger_id" => bad_id(fault),
            _ => settings_fault(fault)
                .map_or_else(not_an_object, |inner| AddSettings::refuse(&inner)),
        }
    }
}

/// The fault in the settings part of an add's body. serde reads a flattened
/// part without saying where in it a fault lies, so the part is read again
/// alone.
fn settings_fault<'a>(fault: &Fault<'a>) -> Option<Fault<'a>> {
    input::typed::<AddSettings>(fault.body()).err()
}

/// The optional settings both adds take besides the creator.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AddSettings {
    /// Optional integer from 0 to 50 (default 10; `null` means the default):
    /// the most recent videos to track at once.
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 50, default = 10)]
    initial_videos_count: Option<Bounded<0, MAX_INITIAL_VIDEOS>>,
    /// Optional integer from 0 to 50, or `null` (the default: the service's
    /// daily limit): the most new videos its daily discovery tracks.
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 50)]
    daily_videos_count: Option<Bounded<0, MAX_DAILY_VIDEOS>>,
    /// Optional string or `null` (the default: none): the campaign its new
    /// videos get; trimmed, at most 200 characters of letters, digits, spaces
    /// and `- _ . ( ) | : % &`; `""` means none.
    #[schema(value_type = Option<String>, max_length = 200)]
    campaign: Option<Campaign>,
    /// Optional array or `null` (the default: none): 0 to 50 ids of the
    /// organization's tags (`GET /tags`); repeats are dropped.
    #[schema(value_type = Option<Vec<Uuid>>, max_items = 50)]
    tag_ids: Option<Ids<0, MAX_TAGS>>,
}

impl Refusals for AddSettings {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "initial_videos_count" => ApiError::validation(
                "initial_videos_count",
                format!(
                    "`initial_videos_count` must be a whole number from 0 to {MAX_INITIAL_VIDEOS}"
                ),
            ),
            "daily_videos_count" => bad_daily_count(),
            "campaign" => bad_campaign(fault.sent()),
            "tag_ids" => bad_ids::<0, MAX_TAGS>("tag_ids"),
            _ => not_an_object(),
        }
    }
}

/// The settings an add takes besides the creator, defaults applied.
struct Settings {
    initial_videos_count: i64,
    daily_videos_count: Option<i64>,
    campaign: Option<String>,
    tag_ids: Option<Vec<Uuid>>,
}

impl From<AddSettings> for Settings {
    fn from(s: AddSettings) -> Self {
        Settings {
            initial_videos_count: s
                .initial_videos_count
                .map_or(DEFAULT_INITIAL_VIDEOS, |Bounded(n)| n),
            daily_videos_count: s.daily_videos_count.map(|Bounded(n)| n),
            campaign: s.campaign.and_then(|Campaign(c)| c),
            tag_ids: s.tag_ids.map(|Ids(ids)| ids),
        }
    }
}

/// Refuses tag ids that are not the organization's.
async fn check_tags(
    app: &AppState,
    auth: &OrgAuth,
    tag_ids: Option<&[Uuid]>,
) -> Result<(), ApiError> {
    let Some(ids) = tag_ids.filter(|ids| !ids.is_empty()) else {
        return Ok(());
    };
    let known = app.store.tags(auth.org).await?;
    let unknown: Vec<Uuid> = ids
        .iter()
        .filter(|id| !known.iter().any(|t| t.id == **id))
        .copied()
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(unknown_tags(&unknown))
    }
}

/// 400 naming tag ids the organization does not have.
pub(crate) fn unknown_tags(ids: &[Uuid]) -> ApiError {
    ApiError::validation(
        "tag_ids",
        "These are not tags of the organization (see GET /tags)",
    )
    .with_details(serde_json::json!({ "unknown_tag_ids": ids }))
}

/// Queues the job opening the account and answers 201.
async fn start(
    app: &AppState,
    ctx: &RequestContext,
    auth: &OrgAuth,
    profile: CreatorSource,
    settings: Settings,
) -> Result<(StatusCode, Json<Added>), ApiError> {
    let (platform, username, creator) = match profile {
        CreatorSource::Read(p) => (p.platform, p.username.clone(), SetupCreator::Profile(p)),
        CreatorSource::Known(id, p) => (p.platform, p.username, SetupCreator::Known(id)),
    };
    let job = NewCreatorJob {
        organization_id: auth.org,
        api_key_id: None,
        request_id: ctx.id.clone(),
        platform,
        username,
        initial_videos_count: settings.initial_videos_count,
        now: app.clock.now(),
        refetch: false,
        setup: Some(AccountSetup {
            creator,
            daily_videos_count: settings.daily_videos_count,
            campaign: settings.campaign,
            tag_ids: settings.tag_ids,
        }),
    };
    let job: Box<CreatorJob> = start_job(app, &job).await?;
    let account = job.account.ok_or_else(|| {
        ApiError::internal(&std::io::Error::other(
            "the queued job of a blogger add has no tracked account",
        ))
    })?;
    Ok((
        StatusCode::CREATED,
        Json(Added {
            success: true,
            blogger: AddedBlogger {
                id: account.creator_id,
                username: account.username,
                platform: account.platform.id(),
                channel_name: account.display_name,
                number_of_subscribers: account.follower_count,
            },
            tracking_id: account.tracked_account_id,
            job_id: job.id,
        }),
    ))
}

/// Tracking creators needs a paid plan, as `POST /v1/bloggers/track` does:
/// 402 `PAID_PLAN_REQUIRED` on the free plan.
async fn require_paid_plan(app: &AppState, auth: &OrgAuth) -> Result<(), ApiError> {
    let org = app
        .store
        .organization(auth.org)
        .await?
        .ok_or_else(|| ApiError::not_found("No such organization"))?;
    crate::auth::require_paid_plan(org.plan, &app.config.upgrade_url)
}

/// Where the creator of an add comes from.
enum CreatorSource {
    /// Read from the platform just now.
    Read(CreatorProfile),
    /// The catalog row the organization knows.
    Known(Uuid, CreatorProfile),
}

/// Reads the channel profile from the platform, within [`PROFILE_TIMEOUT`].
async fn read_profile(
    app: &AppState,
    platform: Platform,
    username: &str,
) -> Result<CreatorProfile, ApiError> {
    let read = tokio::time::timeout(
        PROFILE_TIMEOUT,
        app.source.resolve_channel(platform, username),
    )
    .await
    .unwrap_or_else(|_| {
        Err(SourceError::Transient(format!(
            "no answer within {} seconds",
            PROFILE_TIMEOUT.as_secs()
        )))
    });
    read.map(profile_of)
        .map_err(|e| read_failed(platform, username, e))
}

/// Adds a creator to tracking: reads its channel profile from the platform,
/// opens the organization's tracked account (active at once; a paused one is
/// resumed) and queues the creator job backfilling its initial videos (they
/// count against the tracked-video quota like any tracked video). Editors
/// and above.
#[utoipa::path(
    post, path = "/blogger/add", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = AddBloggerRequest, description = "`{\"username\": \"mrbeast\", \"platform\": \"YouTube\", \"initial_videos_count\": 10, \"daily_videos_count\": 5, \"campaign\": \"Summer\", \"tag_ids\": [\"<uuid>\"]}`: `username` and `platform` required, the rest optional"),
    responses(
        (status = 201, description = "Tracked; its initial videos are being fetched", body = Added),
        (status = 400, description = "VALIDATION_ERROR with `field` (unknown tags: `unknown_tag_ids`)"),
        (status = 402, description = "PAID_PLAN_REQUIRED: the organization is on the free plan"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "PLATFORM_NOT_FOUND: no such account on the platform"),
        (status = 409, description = "CREATOR_ALREADY_TRACKED, CREATOR_TRACK_IN_FLIGHT or CREATOR_REACTIVATE_IN_FLIGHT"),
        (status = 422, description = "TRACKED_CREATORS_LIMIT or SUBSCRIPTION_LIMIT"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform could not be read"),
    ),
    security(("bearer_jwt" = []))
)]
async fn add(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<AddBloggerRequest>,
) -> Result<(StatusCode, Json<Added>), ApiError> {
    auth.require(Role::Editor)?;
    require_paid_plan(&app, &auth).await?;
    let AddBloggerRequest {
        username,
        platform: PlatformId(platform),
        settings,
    } = body.parse()?;
    let settings = Settings::from(settings);
    check_tags(&app, &auth, settings.tag_ids.as_deref()).await?;
    let profile = read_profile(&app, platform, username.as_str()).await?;
    start(&app, &ctx, &auth, CreatorSource::Read(profile), settings).await
}

/// Adds a creator the organization already knows (one it tracked before, or
/// the author of videos it tracks) from the stored profile, without a
/// platform call for the profile; then as `POST /blogger/add`. Editors and above.
#[utoipa::path(
    post, path = "/blogger/add-from-tracking", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = AddFromTrackingRequest, description = "`{\"blogger_id\": \"<uuid>\", \"initial_videos_count\": 10, \"daily_videos_count\": 5}`; `campaign` and `tag_ids` as for add"),
    responses(
        (status = 201, description = "Tracked; its initial videos are being fetched", body = Added),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 402, description = "PAID_PLAN_REQUIRED: the organization is on the free plan"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: the organization knows no such creator"),
        (status = 409, description = "CREATOR_ALREADY_TRACKED, CREATOR_TRACK_IN_FLIGHT or CREATOR_REACTIVATE_IN_FLIGHT"),
        (status = 422, description = "TRACKED_CREATORS_LIMIT or SUBSCRIPTION_LIMIT"),
    ),
    security(("bearer_jwt" = []))
)]
async fn add_from_tracking(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<AddFromTrackingRequest>,
) -> Result<(StatusCode, Json<Added>), ApiError> {
    auth.require(Role::Editor)?;
    require_paid_plan(&app, &auth).await?;
    let AddFromTrackingRequest {
        blogger_id: Id(id),
        settings,
    } = body.parse()?;
    let settings = Settings::from(settings);
    check_tags(&app, &auth, settings.tag_ids.as_deref()).await?;
    let known = app
        .store
        .known_creator(auth.org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("The organization knows no such blogger"))?;
    start(
        &app,
        &ctx,
        &auth,
        CreatorSource::Known(known.id, known.profile),
        settings,
    )
    .await
}
