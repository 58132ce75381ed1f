//! Blogger management (docs/api.md, "Dashboard rules"): the
//! organization's tracked creators, pausing and resuming them (the same
//! deactivation and reactivation as the public API), and the campaign and
//! budget their new videos get. Viewers read; editors and above write.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_store::{AccountChange, NewCreatorJob, StartJob};

use crate::app::bloggers::{bad_budget, bad_is_active, creator_cap_reached};
use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::dashboard::tags::TagView;
use crate::dashboard::team::Message;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::input::{Bounded, Campaign, Fault, Id, Refusals, bad_campaign, bad_id, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The blogger routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(toggle))
        .routes(routes!(set_campaign))
        .routes(routes!(set_budget))
        .routes(routes!(delete))
        .routes(routes!(delete_with_videos))
        .routes(routes!(fetch_initial_videos))
}

/// A queued refetch.
#[derive(Debug, Serialize, ToSchema)]
pub struct Refetch {
    /// What happened.
    pub message: String,
    /// The creator job doing it.
    pub job_id: Uuid,
}

/// What deleting a creator with its videos did.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedWithVideos {
    /// What happened.
    pub message: String,
    /// The organization's videos deleted with it.
    pub videos_deleted: u64,
}

/// A tracked creator with a summary of its videos.
#[derive(Debug, Serialize, ToSchema)]
pub struct BloggerItem {
    /// The organization's tracking of it (`tracking_id` of the other endpoints).
    pub tracking_id: Uuid,
    /// The creator.
    pub blogger_id: Uuid,
    /// Handle.
    pub username: String,
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// Display name.
    pub channel_name: Option<String>,
    /// Followers.
    pub number_of_subscribers: Option<i64>,
    /// Whether new videos are picked up daily.
    pub is_active: bool,
    /// Campaign its new videos get.
    pub campaign: Option<String>,
    /// Budget its new videos get.
    pub budget_per_video: Option<i64>,
    /// Videos backfilled at the start.
    pub initial_videos_count: i64,
    /// New videos tracked per day at most (null: the service default).
    pub daily_videos_count: Option<i64>,
    /// When its videos were last listed.
    pub last_scraped_at: Option<String>,
    /// The videos its backfill and discovery tracked.
    pub videos_tracked: i64,
    /// Their latest views, summed.
    pub total_views: i64,
    /// Followers gained over the last 7 days (docs/api.md, "Follower
    /// gain"); null when no count was ever recorded.
    pub follower_gain_7d: Option<i64>,
    /// Followers gained over the last 30 days; null when no count was ever
    /// recorded.
    pub follower_gain_30d: Option<i64>,
    /// The creator profile it is grouped into (null: none).
    pub creator_id: Option<Uuid>,
    /// That profile's name.
    pub creator_name: Option<String>,
    /// Its tags, by name (its videos carry them).
    pub tags: Vec<TagView>,
}

/// Body of `POST /blogger/toggle`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ToggleBloggerRequest {
    /// Required UUID: the organization's tracking of the creator.
    #[schema(value_type = Uuid)]
    tracking_id: Id,
    /// Required boolean: `false` pauses, `true` resumes.
    is_active: bool,
}

impl Refusals for ToggleBloggerRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "tracking_id" => bad_id(fault),
            "is_active" => bad_is_active(),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /blogger/set-campaign`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetCampaignRequest {
    /// Required UUID: the organization's tracking of the creator.
    #[schema(value_type = Uuid)]
    tracking_id: Id,
    /// Required string or `null`: the campaign; trimmed, at most 200
    /// characters of letters, digits, spaces and `- _ . ( ) | : % &`; `""` or
    /// `null` clears.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(value_type = Option<String>, required = true, max_length = 200)]
    campaign: Option<Campaign>,
}

impl Refusals for SetCampaignRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match (fault.field(), fault.sent()) {
            ("tracking_id", _) => bad_id(fault),
            ("campaign", None) => ApiError::validation("campaign", "`campaign` is required"),
            ("campaign", sent) => bad_campaign(sent),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /blogger/set-budget-per-video`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetBudgetRequest {
    /// Required UUID: the organization's tracking of the creator.
    #[schema(value_type = Uuid)]
    tracking_id: Id,
    /// Required integer greater than 0, or `null` to clear: the budget of
    /// each new video.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(value_type = Option<i64>, required = true, minimum = 1)]
    budget_per_video: Option<Bounded<1, { i64::MAX }>>,
}

impl Refusals for SetBudgetRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match (fault.field(), fault.sent()) {
            ("tracking_id", _) => bad_id(fault),
            ("budget_per_video", None) => {
                ApiError::validation("budget_per_video", "`budget_per_video` is required")
            }
            ("budget_per_video", _) => bad_budget(),
            _ => not_an_object(),
        }
    }
}

/// Body naming one tracked creator (`POST /blogger/delete`,
/// `/blogger/delete-with-videos`, `/blogger/fetch-initial-videos`).
#[derive(Debug, Deserialize, ToSchema)]
pub struct TrackingIdRequest {
    /// Required UUID: the organization's tracking of the creator.
    #[schema(value_type = Uuid)]
    tracking_id: Id,
}

impl Refusals for TrackingIdRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "tracking_id" => bad_id(fault),
            _ => not_an_object(),
        }
    }
}

fn unknown() -> ApiError {
    ApiError::not_found("No such tracked blogger")
}

/// The answer of a write to one tracked blogger: `message` when the
/// organization has it, 404 otherwise.
fn written(
    found: bool,
    message: &str,
    ctx: &RequestContext,
) -> Result<Json<Envelope<Message>>, ApiError> {
    if !found {
        return Err(unknown());
    }
    Ok(ok(
        Message {
            message: message.into(),
        },
        Meta::of(ctx),
    ))
}

/// The organization's tracked creators, by handle. Any member.
#[utoipa::path(
    get, path = "/blogger/list", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses((status = 200, description = "Tracked creators", body = Envelope<Vec<BloggerItem>>)),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<BloggerItem>>>, ApiError> {
    let bloggers = app.store.bloggers(auth.org).await?;
    let creators: Vec<Uuid> = bloggers.iter().map(|b| b.blogger_id).collect();
    let today = app.clock.now().date_naive();
    let gains = app.store.follower_gains(&creators, today).await?;
    let items = bloggers
        .into_iter()
        .map(|b| {
            let gain = gains.get(&b.blogger_id).copied().unwrap_or_default();
            BloggerItem {
                tracking_id: b.tracking_id,
                blogger_id: b.blogger_id,
                username: b.username,
                platform: b.platform.id(),
                channel_name: b.channel_name,
                number_of_subscribers: b.number_of_subscribers,
                is_active: b.is_active,
                campaign: b.campaign,
                budget_per_video: b.budget_per_video,
                initial_videos_count: b.initial_videos_count,
                daily_videos_count: b.daily_videos_count,
                last_scraped_at: b.last_scraped_at.map(rfc3339),
                videos_tracked: b.videos_tracked,
                total_views: b.total_views,
                follower_gain_7d: gain.gain_7d,
                follower_gain_30d: gain.gain_30d,
                creator_id: b.creator_profile.as_ref().map(|p| p.id),
                creator_name: b.creator_profile.map(|p| p.name),
                tags: b.tags.into_iter().map(TagView::from).collect(),
            }
        })
        .collect();
    Ok(ok(items, Meta::of(&ctx)))
}

/// Pauses (`is_active: false`: no more daily discovery; its videos keep
/// their tracking) or resumes a creator. Editors and above.
#[utoipa::path(
    post, path = "/blogger/toggle", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = ToggleBloggerRequest, description = "`{\"tracking_id\": \"<uuid>\", \"is_active\": false}`"),
    responses(
        (status = 200, description = "Done", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
        (status = 422, description = "TRACKED_CREATORS_LIMIT: resuming would pass the creator cap"),
    ),
    security(("bearer_jwt" = []))
)]
async fn toggle(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<ToggleBloggerRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Editor)?;
    let ToggleBloggerRequest {
        tracking_id: Id(id),
        is_active: active,
    } = body.parse()?;
    let message = if active {
        "Tracking resumed"
    } else {
        "Tracking paused"
    };
    match app
        .store
        .set_account_active(auth.org, id, active, app.clock.now())
        .await?
    {
        AccountChange::Done => written(true, message, &ctx),
        AccountChange::NotFound => Err(unknown()),
        AccountChange::CreatorCapReached { cap, in_use } => Err(creator_cap_reached(cap, in_use)),
    }
}

/// Sets the campaign the creator's new videos get (`null` or `""` clears);
/// videos already tracked keep theirs. Editors and above.
#[utoipa::path(
    post, path = "/blogger/set-campaign", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = SetCampaignRequest, description = "`{\"tracking_id\": \"<uuid>\", \"campaign\": \"Summer\"}`"),
    responses(
        (status = 200, description = "Done", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn set_campaign(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<SetCampaignRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Editor)?;
    let SetCampaignRequest {
        tracking_id: Id(id),
        campaign,
    } = body.parse()?;
    let campaign = campaign.and_then(|Campaign(c)| c);
    let found = app
        .store
        .set_blogger_campaign(auth.org, id, campaign.as_deref(), app.clock.now())
        .await?;
    written(found, "Campaign set", &ctx)
}

/// Sets the budget the creator's new videos get: a whole number above 0, or
/// `null` to clear. Editors and above.
#[utoipa::path(
    post, path = "/blogger/set-budget-per-video", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = SetBudgetRequest, description = "`{\"tracking_id\": \"<uuid>\", \"budget_per_video\": 500}`"),
    responses(
        (status = 200, description = "Done", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn set_budget(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<SetBudgetRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Editor)?;
    let SetBudgetRequest {
        tracking_id: Id(id),
        budget_per_video,
    } = body.parse()?;
    let budget = budget_per_video.map(|Bounded(b)| b);
    let found = app
        .store
        .set_blogger_budget(auth.org, id, budget, app.clock.now())
        .await?;
    written(found, "Budget set", &ctx)
}

/// Stops tracking a creator; the videos it brought in stay tracked, with
/// their history. Editors and above.
#[utoipa::path(
    post, path = "/blogger/delete", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = TrackingIdRequest, description = "`{\"tracking_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn delete(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<TrackingIdRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Editor)?;
    let Id(id) = body.parse()?.tracking_id;
    let found = app.store.delete_blogger(auth.org, id).await?;
    written(found, "Blogger deleted; its videos are kept", &ctx)
}

/// Stops tracking a creator and deletes the videos its backfill and
/// discovery tracked (their statistics leave the organization's analytics;
/// credits are not refunded). Editors and above.
#[utoipa::path(
    post, path = "/blogger/delete-with-videos", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = TrackingIdRequest, description = "`{\"tracking_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Deleted", body = Envelope<DeletedWithVideos>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
    ),
    security(("bearer_jwt" = []))
)]
async fn delete_with_videos(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<TrackingIdRequest>,
) -> Result<Json<Envelope<DeletedWithVideos>>, ApiError> {
    auth.require(Role::Editor)?;
    let Id(id) = body.parse()?.tracking_id;
    let videos_deleted = app
        .store
        .delete_blogger_with_videos(auth.org, id)
        .await?
        .ok_or_else(unknown)?;
    Ok(ok(
        DeletedWithVideos {
            message: "Blogger and its videos deleted".into(),
            videos_deleted,
        },
        Meta::of(&ctx),
    ))
}

/// Fetches the creator's initial videos again (after a failed backfill), as
/// a creator job: videos tracked already are neither tracked nor charged
/// twice; new ones count against the quota. Answers 202. Editors and above.
#[utoipa::path(
    post, path = "/blogger/fetch-initial-videos", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = TrackingIdRequest, description = "`{\"tracking_id\": \"<uuid>\"}`"),
    responses(
        (status = 202, description = "Queued", body = Envelope<Refetch>),
        (status = 400, description = "VALIDATION_ERROR: bad `tracking_id`, or the blogger is paused"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND"),
        (status = 409, description = "CREATOR_TRACK_IN_FLIGHT, with `job_id`"),
        (status = 422, description = "SUBSCRIPTION_LIMIT"),
    ),
    security(("bearer_jwt" = []))
)]
async fn fetch_initial_videos(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<TrackingIdRequest>,
) -> Result<(StatusCode, Json<Envelope<Refetch>>), ApiError> {
    auth.require(Role::Editor)?;
    let Id(id) = body.parse()?.tracking_id;
    let blogger = app
        .store
        .bloggers(auth.org)
        .await?
        .into_iter()
        .find(|b| b.tracking_id == id)
        .ok_or_else(unknown)?;
    if !blogger.is_active {
        return Err(ApiError::validation(
            "tracking_id",
            "The blogger is paused: resume it first",
        ));
    }
    let job = NewCreatorJob {
        organization_id: auth.org,
        api_key_id: None,
        request_id: ctx.id.clone(),
        platform: blogger.platform,
        username: blogger.username.clone(),
        initial_videos_count: blogger.initial_videos_count,
        now: app.clock.now(),
        refetch: true,
        setup: None,
    };
    let job_id = match app.store.start_creator_job(&job).await? {
        StartJob::Queued(job) => job.id,
        StartJob::InFlight { job_id, .. } => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::CreatorTrackInFlight,
                "A job for this blogger is in flight",
            )
            .with_details(serde_json::json!({ "job_id": job_id })));
        }
        StartJob::QuotaExceeded {
            quota,
            in_use,
            requested,
        } => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::SubscriptionLimit,
                format!(
                    "The tracked-video quota ({quota}) cannot take {requested} more videos; {in_use} are in use"
                ),
            ));
        }
        StartJob::AlreadyTracked { .. } | StartJob::CreatorCapReached { .. } => {
            // Not for an active account with `refetch`; it was paused meanwhile.
            return Err(ApiError::validation(
                "tracking_id",
                "The blogger is paused: resume it first",
            ));
        }
    };
    app.jobs_wake.notify_one();
    Ok((
        StatusCode::ACCEPTED,
        ok(
            Refetch {
                message: "Initial videos will be fetched again".into(),
                job_id,
            },
            Meta::of(&ctx),
        ),
    ))
}
