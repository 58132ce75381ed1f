//! The listing (docs/api.md: GET /v1/videos/stats and GET /dashboard/videos,
//! "Pagination": nothing is silently clamped): its query, its parameters
//! (named once, in [`FILTER_PARAMETERS`], for the listing and the export),
//! the store's query they make and the page it answers. Its errors are
//! `INVALID_PARAMETER`.

use std::collections::HashMap;

use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use vidpulse_domain::analytics::{Baseline, DateRange, Metric};
use vidpulse_domain::names::{CAMPAIGN_MAX_CHARS, Campaign, Handle, TAG_MAX_CHARS, TagName};
use vidpulse_domain::{OrgId, Platform, VideoId};
use vidpulse_store::{ListQuery, SortKey, SortOrder, VideoLookup, VideoRecord, VideoState};

use crate::app::analytics::params::{BaselineName, Day, bad_baseline, range};
use crate::app::videos::{VideoView, record_json};
use crate::envelope::{Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::input::{Bounded, Fault, Refusals, text, text_unless_empty};
use crate::middleware::RequestContext;
use crate::record_cache::gzip::Part;
use crate::record_cache::{Shown, answer};
use crate::state::AppState;

/// Pagination facts of the listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct Pagination {
    /// Matching videos in all.
    pub total: i64,
    /// Page size.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
    /// Whether more rows follow this page.
    pub has_more: bool,
}

/// `data` of the listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct VideoPage {
    /// The page.
    pub data: Vec<VideoView>,
    /// Where the page sits.
    pub pagination: Pagination,
    /// The days each video's `gained` measures; present when the gains are
    /// (a gained sort, or `from` / `to` sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowView>,
}

/// The days a listing's gains measure.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct WindowView {
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Where a video tracked after `from` starts counting: `window` (from
    /// 0) or `tracking` (from its first reading).
    pub baseline: &'static str,
}

const SORT_OPTIONS: [&str; 8] = [
    "created_at",
    "views",
    "likes",
    "comments",
    "updated_at",
    "published_at",
    "views_gained",
    "likes_gained",
];

/// The listing's filters and sort, in the order an unknown parameter's
/// answer lists them: the parameters the listing and the export share. The
/// listing knows these after `limit` and `offset`; the export, after
/// `format`. Any other parameter answers 400.
pub const FILTER_PARAMETERS: [&str; 15] = [
    "platform",
    "status",
    "sort",
    "order",
    "q",
    "campaign",
    "blogger",
    "tag",
    "from",
    "to",
    "published_from",
    "published_to",
    "tracked_from",
    "tracked_to",
    "baseline",
];

/// The listing's page: the parameters it knows before [`FILTER_PARAMETERS`].
const PAGE_PARAMETERS: [&str; 2] = ["limit", "offset"];

/// The listing's query: its page (`limit`, `offset`), then [`FILTER_PARAMETERS`], in
/// that order.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Page size, 1 to 100 (default 50)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>)]
    limit: Option<Bounded<1, 100>>,
    /// Rows to skip, 0 or more (default 0)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>)]
    offset: Option<Bounded<0, { i64::MAX }>>,
    /// TikTok, YouTube or Instagram
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<String>)]
    platform: Option<AnyCase>,
    /// active, completed or failed
    #[param(value_type = Option<String>)]
    status: Option<Status>,
    /// created_at (default), views, likes, comments, updated_at, published_at, views_gained or likes_gained (the gain over `from`..`to`)
    #[param(value_type = Option<String>)]
    sort: Option<Sort>,
    /// asc or desc (default)
    #[param(value_type = Option<String>)]
    order: Option<Order>,
    /// Only videos whose title holds this text, in any case (at most 200 characters; empty: all)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    q: Option<TitleSearch>,
    /// Only videos of this campaign (exactly, as set on the videos)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    campaign: Option<CampaignFilter>,
    /// Only videos of this creator: a handle, with or without `@`, any case
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    blogger: Option<Handle>,
    /// Only videos carrying this tag (any case); repeat it (`tag=a&tag=b`) for videos carrying all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tag: Option<TagName>,
    /// First day the gains measure, YYYY-MM-DD (default: 29 days before `to`); with `from` or `to`, each video carries `gained`
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    from: Option<Day>,
    /// Last day the gains measure, YYYY-MM-DD (default: today, UTC); at most 366 days in all
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    to: Option<Day>,
    /// Only videos published on or after this day, YYYY-MM-DD (UTC)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_from: Option<Day>,
    /// Only videos published on or before this day, YYYY-MM-DD (UTC)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    published_to: Option<Day>,
    /// Only videos whose tracking started on or after this day, YYYY-MM-DD (UTC)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_from: Option<Day>,
    /// Only videos whose tracking started on or before this day, YYYY-MM-DD (UTC)
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    tracked_to: Option<Day>,
    /// Where the gains of a video tracked after `from` start: window (default: from 0, the views it had before tracking count) or tracking (from its first reading); it does not by itself make the answer carry gains
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    baseline: Option<BaselineName>,
}

/// A campaign as the PATCH sets it ([`Campaign`]: trimmed; letters,
/// digits, spaces and `- _ . ( ) | : % &`); a blank one is refused.
#[derive(Debug, Clone)]
struct CampaignFilter(Campaign);

impl std::str::FromStr for CampaignFilter {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match Campaign::parse(s) {
            Ok(Some(c)) => Ok(CampaignFilter(c)),
            _ => Err(()),
        }
    }
}

/// Most `tag` values of one listing.
const MAX_TAG_FILTERS: usize = 10;

/// The text of a title search: 1 to 200 characters once trimmed.
#[derive(Debug, Clone)]
struct TitleSearch(String);

impl std::str::FromStr for TitleSearch {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let text = s.trim();
        if (1..=TITLE_SEARCH_MAX_CHARS).contains(&text.chars().count()) {
            Ok(TitleSearch(text.to_owned()))
        } else {
            Err(())
        }
    }
}

/// Longest title search.
const TITLE_SEARCH_MAX_CHARS: usize = 200;

/// A platform named in any case (`TikTok`, `tiktok`, `TIKTOK`).
#[derive(Debug, Clone, Copy)]
struct AnyCase(Platform);

impl std::str::FromStr for AnyCase {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Platform::from_any_case(s).map(AnyCase).map_err(|_| ())
    }
}

/// A tracking status: the `status` filter.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Active,
    Completed,
    Failed,
}

/// The `sort` key.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Sort {
    CreatedAt,
    Views,
    Likes,
    Comments,
    UpdatedAt,
    PublishedAt,
    ViewsGained,
    LikesGained,
}

/// A sort order: the `order`.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Order {
    Asc,
    Desc,
}

/// The bounds `[from, before)` of a filter on an instant.
type Instants = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// The instants `[start of from, start of the day after to)` of two
/// inclusive days named `lower` and `upper` (the analytics periods' rules;
/// a lower day after the upper is `INVALID_PARAMETER`).
fn instants(
    from: (Option<Day>, &'static str),
    to: (Option<Day>, &'static str),
) -> Result<Instants, ApiError> {
    let refuse = |lower: &'static str, message: String| {
        ApiError::invalid_parameter(message).with_details(json!({ "parameter": lower }))
    };
    let start = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
    Ok(match range(from, to, refuse)? {
        Some((from, to)) => (from.map(start), to.and_then(|t| t.succ_opt()).map(start)),
        None => (None, None),
    })
}

impl ListParams {
    /// The store's query; `today` ends the default gain window. The
    /// second value says whether the answer carries the gains.
    fn into_query(self, today: NaiveDate) -> Result<(ListQuery, bool), ApiError> {
        let with_gains = self.from.is_some()
            || self.to.is_some()
            || matches!(self.sort, Some(Sort::ViewsGained | Sort::LikesGained));
        let window = DateRange::window(self.from.map(|Day(d)| d), self.to.map(|Day(d)| d), today)
            .map_err(|(field, message)| {
            ApiError::invalid_parameter(message).with_details(json!({ "parameter": field }))
        })?;
        let (published_from, published_before) = instants(
            (self.published_from, "published_from"),
            (self.published_to, "published_to"),
        )?;
        let (tracked_from, tracked_before) = instants(
            (self.tracked_from, "tracked_from"),
            (self.tracked_to, "tracked_to"),
        )?;
        let query = ListQuery {
            platform: self.platform.map(|AnyCase(p)| p),
            status: self.status.map(|s| match s {
                Status::Active => VideoState::Active,
                Status::Completed => VideoState::Completed,
                Status::Failed => VideoState::Failed,
            }),
            title: self.q.map(|TitleSearch(text)| text),
            campaign: self.campaign.map(|CampaignFilter(c)| c.into_string()),
            author: self.blogger.map(|h| h.as_str().to_owned()),
            // The last `tag`; `list_page` reads every one.
            tags: self.tag.into_iter().collect(),
            published_from,
            published_before,
            tracked_from,
            tracked_before,
            window,
            baseline: self.baseline.map_or(Baseline::Window, |BaselineName(b)| b),
            sort: match self.sort.unwrap_or(Sort::CreatedAt) {
                Sort::CreatedAt => SortKey::CreatedAt,
                Sort::Views => SortKey::Views,
                Sort::Likes => SortKey::Likes,
                Sort::Comments => SortKey::Comments,
                Sort::UpdatedAt => SortKey::UpdatedAt,
                Sort::PublishedAt => SortKey::PublishedAt,
                Sort::ViewsGained => SortKey::Gained(Metric::Views),
                Sort::LikesGained => SortKey::Gained(Metric::Likes),
            },
            order: match self.order.unwrap_or(Order::Desc) {
                Order::Asc => SortOrder::Asc,
                Order::Desc => SortOrder::Desc,
            },
            limit: self.limit.map_or(50, |Bounded(n)| n),
            offset: self.offset.map_or(0, |Bounded(n)| n),
        };
        Ok((query, with_gains))
    }
}

impl ListParams {
    /// The answer to a `tag` value that is not a tag name.
    fn refuse_tag(raw: &str) -> ApiError {
        ApiError::invalid_parameter(format!(
            "`tag` must be a tag name of at most {TAG_MAX_CHARS} characters; got `{raw}`"
        ))
        .with_details(json!({ "parameter": "tag" }))
    }
}

impl Refusals for ListParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let name = fault.field();
        let raw = fault.sent().and_then(Value::as_str).unwrap_or_default();
        let (message, details) = match name {
            "limit" | "offset" => {
                let rule = if name == "limit" {
                    "an integer from 1 to 100"
                } else {
                    "an integer of 0 or more"
                };
                (
                    format!("`{name}` must be {rule}; got `{raw}`"),
                    json!({ "parameter": name }),
                )
            }
            "platform" => (
                format!("`platform` must be TikTok, YouTube or Instagram; got `{raw}`"),
                json!({ "parameter": "platform", "valid_platform_options": ["TikTok", "YouTube", "Instagram"] }),
            ),
            "campaign" => (
                format!(
                    "`campaign` must be a campaign name (at most {CAMPAIGN_MAX_CHARS} characters of letters, digits, spaces and - _ . ( ) | : % &); got `{raw}`"
                ),
                json!({ "parameter": "campaign" }),
            ),
            "blogger" => (
                format!("`blogger` must be a creator's handle; got `{raw}`"),
                json!({ "parameter": "blogger" }),
            ),
            "tag" => (
                format!(
                    "`tag` must be a tag name of at most {TAG_MAX_CHARS} characters; got `{raw}`"
                ),
                json!({ "parameter": "tag" }),
            ),
            "q" => (
                format!("`q` must be at most {TITLE_SEARCH_MAX_CHARS} characters"),
                json!({ "parameter": "q" }),
            ),
            "from" | "to" | "published_from" | "published_to" | "tracked_from" | "tracked_to" => (
                format!("`{name}` must be a date YYYY-MM-DD; got `{raw}`"),
                json!({ "parameter": name }),
            ),
            "baseline" => (
                bad_baseline(raw),
                json!({ "parameter": "baseline", "valid_baseline_options": ["window", "tracking"] }),
            ),
            "status" => (
                format!("`status` must be active, completed or failed; got `{raw}`"),
                json!({ "parameter": "status", "valid_status_options": ["active", "completed", "failed"] }),
            ),
            "sort" => (
                format!(
                    "`sort` must be one of {}; got `{raw}`",
                    SORT_OPTIONS.join(", ")
                ),
                json!({ "parameter": "sort", "valid_sort_options": SORT_OPTIONS }),
            ),
            _ => (
                format!("`order` must be asc or desc; got `{raw}`"),
                json!({ "parameter": "order", "valid_order_options": ["asc", "desc"] }),
            ),
        };
        ApiError::invalid_parameter(message).with_details(details)
    }
}

/// The listing's answer to a query the extractor refused (a NUL character):
/// `INVALID_PARAMETER` naming the parameter, as its other faults are.
pub(crate) fn refused_query(e: ApiError) -> ApiError {
    ApiError::invalid_parameter(e.message.clone()).with_details(json!({ "parameter": e.field }))
}

/// A page of the organization's videos, as `params` ask.
pub(crate) async fn list_page(
    app: &AppState,
    org: OrgId,
    params: &Query<ListParams>,
) -> Result<VideoPage, ApiError> {
    let (query, with_gains) = filtered_query(app, params, &PAGE_PARAMETERS)?;
    page_of(app, org, &query, with_gains).await
}

/// A page of the organization's videos, as `params` ask, as the whole
/// answer (the envelope with `ctx`'s meta): without gains, from the records
/// this node kept ([`kept_page`]), gzip-compressed when `gzip`.
pub(crate) async fn list_page_answer(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    params: &Query<ListParams>,
    gzip: bool,
) -> Result<Response, ApiError> {
    let (query, with_gains) = filtered_query(app, params, &PAGE_PARAMETERS)?;
    if with_gains {
        let data = page_of(app, org, &query, with_gains).await?;
        return Ok(ok(data, Meta::of(ctx)).into_response());
    }
    kept_page(app, ctx, org, &query, gzip).await
}

/// The store's query `params` ask for, refusing any parameter but `first`
/// and [`FILTER_PARAMETERS`], and whether the answer carries each video's
/// gains.
pub(crate) fn filtered_query(
    app: &AppState,
    params: &Query<ListParams>,
    first: &[&'static str],
) -> Result<(ListQuery, bool), ApiError> {
    let known: Vec<&str> = first.iter().chain(&FILTER_PARAMETERS).copied().collect();
    if let Some(name) = params.unknown(&known) {
        return Err(ApiError::invalid_parameter(format!(
            "Unknown query parameter `{name}`; this endpoint knows {}",
            known.join(", ")
        ))
        .with_details(json!({ "parameter": name, "valid_parameters": known })));
    }
    let (mut query, with_gains) = params.parse()?.into_query(app.clock.now().date_naive())?;
    // `tag` repeats: every value, each checked as the last one was.
    let mut tags = Vec::new();
    for raw in params.all("tag").filter(|t| !t.is_empty()) {
        let tag: TagName = raw.parse().map_err(|_| ListParams::refuse_tag(raw))?;
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    if tags.len() > MAX_TAG_FILTERS {
        return Err(
            ApiError::invalid_parameter(format!("At most {MAX_TAG_FILTERS} `tag` values"))
                .with_details(json!({ "parameter": "tag" })),
        );
    }
    query.tags = tags;
    Ok((query, with_gains))
}

/// The page `query` names, read whole, with each video's gains when asked.
async fn page_of(
    app: &AppState,
    org: OrgId,
    query: &ListQuery,
    with_gains: bool,
) -> Result<VideoPage, ApiError> {
    let page = app.store.list_videos(org, query, app.clock.now()).await?;
    let has_more = query.offset.saturating_add(page.items.len() as i64) < page.total;
    let mut gains = HashMap::new();
    if with_gains {
        let ids: Vec<VideoId> = page.items.iter().map(|r| r.video_id).collect();
        gains.extend(
            app.store
                .video_gains(org, &ids, query.window, query.baseline)
                .await?,
        );
    }
    Ok(VideoPage {
        data: page
            .items
            .into_iter()
            .map(|r| {
                let gained = with_gains.then(|| gains.get(&r.video_id).copied());
                VideoView::from(r).with_gains(gained)
            })
            .collect(),
        pagination: Pagination {
            total: page.total,
            limit: query.limit,
            offset: query.offset,
            has_more,
        },
        window: with_gains.then_some(WindowView {
            from: query.window.from,
            to: query.window.to,
            baseline: query.baseline.as_str(),
        }),
    })
}

/// The page `query` names (without gains), answered from the records this
/// node kept: the database gives the page's stamps and count, and only the
/// records whose stamp moved (or that this node never showed) are read
/// whole, shown and kept. The bytes are those of [`page_of`]'s answer.
async fn kept_page(
    app: &AppState,
    ctx: &RequestContext,
    org: OrgId,
    query: &ListQuery,
    gzip: bool,
) -> Result<Response, ApiError> {
    let now = app.clock.now();
    let page = app.store.list_stamps(org, query, now).await?;
    let mut shown: Vec<Option<Shown>> = page
        .items
        .iter()
        .map(|stamp| {
            app.records
                .get(org, &VideoLookup::Id(stamp.video_id))
                .filter(|kept| kept.is_current(stamp, now))
                .map(Shown::Kept)
        })
        .collect();
    let missing: Vec<VideoId> = page
        .items
        .iter()
        .zip(&shown)
        .filter(|(_, shown)| shown.is_none())
        .map(|(stamp, _)| stamp.video_id)
        .collect();
    if !missing.is_empty() {
        let mut records: HashMap<VideoId, VideoRecord> = app
            .store
            .videos_by_id(org, &missing, now)
            .await?
            .into_iter()
            .map(|r| (r.video_id, r))
            .collect();
        for (stamp, slot) in page.items.iter().zip(shown.iter_mut()) {
            // A video untracked between the two reads is left out.
            if let (None, Some(record)) = (&slot, records.remove(&stamp.video_id)) {
                let (id, stamp, changes_at) = (record.video_id, record.stamp, record.changes_at());
                let body = record_json(record)?;
                *slot = Some(app.records.keep_and_show(
                    org,
                    VideoLookup::Id(id),
                    stamp,
                    changes_at,
                    body,
                    gzip,
                ));
            }
        }
    }
    let pagination = Pagination {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        has_more: query.offset.saturating_add(page.items.len() as i64) < page.total,
    };
    let mut closing = br#"],"pagination":"#.to_vec();
    serde_json::to_writer(&mut closing, &pagination).map_err(|e| ApiError::internal(&e))?;
    closing.extend_from_slice(br#"},"meta":"#);
    serde_json::to_writer(&mut closing, &Meta::of(ctx)).map_err(|e| ApiError::internal(&e))?;
    closing.push(b'}');
    let mut parts = vec![Part::Plain(br#"{"success":true,"data":{"data":["#)];
    for (i, record) in shown.iter().flatten().enumerate() {
        if i > 0 {
            parts.push(Part::Plain(b","));
        }
        parts.push(record.part());
    }
    parts.push(Part::Plain(&closing));
    answer(&parts, gzip)
}

#[cfg(test)]
mod tests {
    use utoipa::IntoParams;

    use super::*;

    #[test]
    fn the_documented_parameters_are_the_known_ones_in_order() {
        let documented: Vec<String> = ListParams::into_params(|| None)
            .into_iter()
            .map(|p| p.name)
            .collect();
        let known: Vec<&str> = PAGE_PARAMETERS
            .iter()
            .chain(&FILTER_PARAMETERS)
            .copied()
            .collect();
        assert_eq!(documented, known);
    }
}
