//! The video tools: `find_videos` (GET /v1/videos/stats), `get_video`
//! (GET /v1/videos/by-id and by-external-id) and `track_videos` (POST
//! /v1/videos/track), over the use cases in `app::videos`.

use axum::http::HeaderMap;
use rmcp::model::ToolAnnotations;
use schemars::JsonSchema;
use serde_json::Value;
use uuid::Uuid;
use vidpulse_domain::VideoId;
use vidpulse_store::VideoLookup;

use super::{Access, Answer, Baseline, Call, Platform, Schemas, Spec, tool};
use crate::app::videos::{
    ListParams, Order, Sort, Status, TrackRequest, list_page, read_video, track_urls,
};
use crate::envelope::Meta;
use crate::error::ApiError;
use crate::input::List;

/// `find_videos`.
pub(super) const FIND: &str = "find_videos";
/// `get_video`.
pub(super) const GET: &str = "get_video";
/// `track_videos`.
pub(super) const TRACK: &str = "track_videos";

/// The video tools' definitions.
pub(super) fn tools(schemas: &Schemas) -> Vec<Spec> {
    vec![
        Spec {
            tool: tool::<FindArgs>(
                FIND,
                "Find videos",
                "Find the organization's tracked videos, a page at a time (at most 100, default \
                 50): filter by platform, tracking status, title text, campaign, creator, tags and \
                 the days they were published or tracked; sort by a latest counter or by what \
                 views or likes gained between `from` and `to` (then each video carries \
                 `gained`). Each video has its latest counters, CPM, engagement rate and its \
                 statistics history. The arguments are those of GET /v1/videos/stats. Free.",
                schemas.named("VideoPage"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
        Spec {
            tool: tool::<GetArgs>(
                GET,
                "Get a video",
                "Read one tracked video, by `video_id` (vidpulse's id, as find_videos gives it) \
                 or by `external_video_id` (the platform's id), with its latest counters and its \
                 whole statistics history (`stats`: metric -> time -> value). A video the \
                 organization does not track is NOT_FOUND. Free.",
                schemas.named("OneVideo"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
        Spec {
            tool: tool::<TrackArgs>(
                TRACK,
                "Track videos",
                "Start tracking 1 to 50 video URLs (TikTok, Instagram or YouTube, short links \
                 included): one result per URL (`tracked`, `already_tracked` or `error`). 30 \
                 credits per newly tracked video; a video already tracked and a URL that fails \
                 cost nothing. Refused whole (SUBSCRIPTION_LIMIT) when the plan's tracked-video \
                 quota would be exceeded. The first statistics are read within seconds.",
                schemas.named("TrackData"),
            )
            .annotate(
                ToolAnnotations::with_title("Track videos")
                    .read_only(false)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(true),
            ),
            access: Access::Write,
        },
    ]
}

/// The annotations of a tool that reads the organization's own data.
pub(super) fn reads() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// The arguments of `find_videos`: the listing's query parameters.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the listing's query"
)]
struct FindArgs {
    /// Page size, 1 to 100 (default 50)
    #[schemars(range(min = 1, max = 100))]
    limit: Option<i64>,
    /// Rows to skip, 0 or more (default 0)
    #[schemars(range(min = 0))]
    offset: Option<i64>,
    /// Only videos of this platform
    platform: Option<Platform>,
    /// Only videos whose tracking is active, completed (its window ended) or failed
    status: Option<Status>,
    /// The sort key (default created_at); views_gained and likes_gained sort by the gain over `from`..`to`
    sort: Option<Sort>,
    /// asc or desc (default)
    order: Option<Order>,
    /// Only videos whose title holds this text, in any case (at most 200 characters)
    #[schemars(length(max = 200))]
    q: Option<String>,
    /// Only videos of this campaign (exactly, as set on the videos)
    #[schemars(length(max = 200))]
    campaign: Option<String>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    blogger: Option<String>,
    /// Only videos carrying every one of these tags (any case), at most 10
    #[schemars(length(max = 10))]
    tag: Option<Vec<String>>,
    /// First day the gains measure, YYYY-MM-DD (default: 29 days before `to`); with `from` or `to`, each video carries `gained`
    #[schemars(extend("format" = "date"))]
    from: Option<String>,
    /// Last day the gains measure, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[schemars(extend("format" = "date"))]
    to: Option<String>,
    /// Only videos published on or after this day, YYYY-MM-DD (UTC)
    #[schemars(extend("format" = "date"))]
    published_from: Option<String>,
    /// Only videos published on or before this day, YYYY-MM-DD (UTC)
    #[schemars(extend("format" = "date"))]
    published_to: Option<String>,
    /// Only videos whose tracking started on or after this day, YYYY-MM-DD (UTC)
    #[schemars(extend("format" = "date"))]
    tracked_from: Option<String>,
    /// Only videos whose tracking started on or before this day, YYYY-MM-DD (UTC)
    #[schemars(extend("format" = "date"))]
    tracked_to: Option<String>,
    /// Where the gains of a video tracked after `from` start: window (default: from 0) or tracking (from its first reading)
    baseline: Option<Baseline>,
}

/// The arguments of `get_video`: one of the two ids.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "a schema: the arguments are read one by one")]
struct GetArgs {
    /// vidpulse's id of the video (a UUID, `video_id` in find_videos)
    #[schemars(extend("format" = "uuid"))]
    video_id: Option<String>,
    /// Instead of `video_id`: the platform's id of the video (the most recently tracked one when two platforms share it)
    external_video_id: Option<String>,
}

/// The arguments of `track_videos`: the track request's body.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the track request's body"
)]
struct TrackArgs {
    /// 1 to 50 video URLs (TikTok, Instagram or YouTube, short links included)
    #[schemars(length(min = 1, max = 50))]
    urls: Vec<String>,
}

/// `find_videos`: a page of the listing.
pub(super) async fn find(call: &Call) -> Result<Answer, ApiError> {
    let q = call.query::<ListParams>(&[])?;
    let page = list_page(&call.app, call.auth.org.id, &q).await?;
    Answer::new(page, Meta::of(&call.ctx))
}

/// `get_video`: one video with its history, from the record cache as
/// `/v1` reads it.
pub(super) async fn get(call: &Call) -> Result<Answer, ApiError> {
    call.refuse_unknown()?;
    let lookup = match (call.text("video_id")?, call.text("external_video_id")?) {
        (Some(id), None) => {
            VideoLookup::Id(VideoId(Uuid::parse_str(id).map_err(|_| video_not_found())?))
        }
        (None, Some(id)) if !id.contains('\0') => VideoLookup::ExternalId(id.to_owned()),
        (None, Some(_)) => return Err(video_not_found()),
        _ => {
            return Err(ApiError::validation(
                "video_id",
                "Give one of `video_id` and `external_video_id`",
            ));
        }
    };
    let answer = read_video(
        &call.app,
        &call.ctx,
        call.auth.org.id,
        &HeaderMap::new(),
        lookup,
    )
    .await?
    .ok_or_else(video_not_found)?;
    // The answer `/v1` sends, uncompressed: its `data` is the tool's.
    let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX)
        .await
        .map_err(|e| ApiError::internal(&e))?;
    let mut envelope: Value = serde_json::from_slice(&bytes).map_err(|e| ApiError::internal(&e))?;
    Answer::new(envelope["data"].take(), Meta::of(&call.ctx))
}

/// The answer for a video the organization does not track (the `/v1`
/// reads' message).
fn video_not_found() -> ApiError {
    ApiError::not_found("Video not found")
}

/// `track_videos`: the track request, with the key's rate limit.
pub(super) async fn track(call: &Call) -> Result<Answer, ApiError> {
    let List(urls) = call.body::<TrackRequest>()?.parse()?.urls;
    call.app
        .limits
        .check_track(call.auth.key_id, urls.len())
        .await?;
    let tracked = track_urls(
        &call.app,
        &call.ctx,
        call.auth.org.id,
        Some(call.auth.key_id),
        urls,
    )
    .await?;
    let meta = Meta::of(&call.ctx)
        .with_credits(tracked.credits)
        .with_summary(tracked.summary);
    Answer::new(tracked.data, meta)
}
