//! Trend search (docs/api.md, "Trend search": GET /v1/trends/search).
//!
//! Paid plans only, with a monthly number of searches per plan. A search is
//! charged 1 credit when it succeeds: the charge is reserved inside the
//! monthly cap before the upstream call and refunded if the call fails, so
//! concurrent searches can never exceed the cap and a failure costs nothing.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::Datelike;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::Platform;
use vidpulse_platforms::{SourceError, TrendQuery, TrendVideo};
use vidpulse_store::{CappedCharge, Charge};

use crate::app::account::{month_start, next_month_start};
use crate::auth::ApiKeyAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::Query;
use crate::input::{Fault, Refusals, text_unless_empty};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Longest keyword, in characters.
pub const KEYWORD_MAX_CHARS: usize = 100;
/// Longest cursor accepted.
const CURSOR_MAX_LEN: usize = 1000;
/// Largest `days`.
const DAYS_MAX: u32 = 3650;

/// The trend routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(search))
}

/// Counters of a trend video; `null` when the platform does not say.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendStats {
    /// Plays (views).
    pub plays: Option<i64>,
    /// Likes.
    pub likes: Option<i64>,
    /// Comments.
    pub comments: Option<i64>,
    /// Shares.
    pub shares: Option<i64>,
}

/// The author of a trend video.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendAuthor {
    /// Handle or channel name.
    pub username: Option<String>,
    /// Avatar URL.
    pub cover: Option<String>,
}

/// A video found by a trend search.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendVideoView {
    /// The platform's id.
    pub id: String,
    /// Page URL.
    pub url: String,
    /// Cover image URL.
    pub cover: Option<String>,
    /// Counters.
    pub stats: TrendStats,
    /// Author.
    pub author: TrendAuthor,
}

impl From<TrendVideo> for TrendVideoView {
    fn from(v: TrendVideo) -> Self {
        Self {
            id: v.id,
            url: v.url,
            cover: v.cover,
            stats: TrendStats {
                plays: v.plays,
                likes: v.likes,
                comments: v.comments,
                shares: v.shares,
            },
            author: TrendAuthor {
                username: v.author_username,
                cover: v.author_cover,
            },
        }
    }
}

/// `data` of a trend search.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendResults {
    /// The page of videos.
    pub videos: Vec<TrendVideoView>,
    /// Pass as `cursor` for the next page; empty on the last page.
    pub cursor: String,
    /// Whether another page follows.
    #[serde(rename = "hasMore")]
    pub has_more: bool,
}

/// The search's query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// Search keyword
    #[param(value_type = String)]
    keyword: Keyword,
    /// tiktok or youtube
    #[param(value_type = String)]
    platform: TrendPlatform,
    /// Pagination cursor from a previous response
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    cursor: Option<Cursor>,
    /// Two-letter ISO 3166-1 country code; omit for all regions
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<String>)]
    region: Option<Region>,
    /// Published within the last N days; 0 or omitted for all time
    #[serde(default, deserialize_with = "text_unless_empty")]
    #[param(value_type = Option<u32>)]
    days: Option<Days>,
}

/// The keyword, trimmed: 1 to [`KEYWORD_MAX_CHARS`] characters.
#[derive(Debug)]
struct Keyword(String);

impl<'de> Deserialize<'de> for Keyword {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        let keyword = raw.trim();
        if keyword.is_empty() || keyword.chars().count() > KEYWORD_MAX_CHARS {
            return Err(de::Error::custom("not a keyword"));
        }
        Ok(Keyword(keyword.to_owned()))
    }
}

/// The platforms that offer trend search.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TrendPlatform {
    TikTok,
    YouTube,
}

/// A cursor of at most [`CURSOR_MAX_LEN`] bytes; the platform decides
/// whether it is one of its own.
#[derive(Debug)]
struct Cursor(String);

impl std::str::FromStr for Cursor {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        (s.len() <= CURSOR_MAX_LEN)
            .then(|| Cursor(s.to_owned()))
            .ok_or(())
    }
}

/// A two-letter country code, upper case.
#[derive(Debug)]
struct Region(String);

impl std::str::FromStr for Region {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_alphabetic()))
            .then(|| Region(s.to_ascii_uppercase()))
            .ok_or(())
    }
}

/// Days back, 0 to [`DAYS_MAX`].
#[derive(Debug)]
struct Days(u32);

impl std::str::FromStr for Days {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        s.parse::<u32>()
            .ok()
            .filter(|d| *d <= DAYS_MAX)
            .map(Days)
            .ok_or(())
    }
}

impl Refusals for SearchParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let sent = fault.sent().and_then(Value::as_str);
        let message = match (field, sent) {
            ("keyword", Some(k)) if !k.trim().is_empty() => {
                format!("`keyword` must be at most {KEYWORD_MAX_CHARS} characters")
            }
            ("keyword", _) => "`keyword` is required".to_owned(),
            ("platform", None) => "`platform` is required: tiktok or youtube".to_owned(),
            ("platform", Some(p)) => format!("`platform` must be tiktok or youtube; got `{p}`"),
            ("region", r) => format!(
                "`region` must be a two-letter country code; got `{}`",
                r.unwrap_or_default()
            ),
            ("days", d) => format!(
                "`days` must be a whole number from 0 to {DAYS_MAX}; got `{}`",
                d.unwrap_or_default()
            ),
            _ => "`cursor` is not one this service issued".to_owned(),
        };
        ApiError::validation(field, message)
    }
}

impl SearchParams {
    /// The platform and the upstream query (its page size is the caller's).
    fn into_query(self) -> (Platform, TrendQuery) {
        let platform = match self.platform {
            TrendPlatform::TikTok => Platform::TikTok,
            TrendPlatform::YouTube => Platform::YouTube,
        };
        (
            platform,
            TrendQuery {
                keyword: self.keyword.0,
                region: self.region.map(|Region(r)| r),
                days: self.days.map(|Days(d)| d),
                cursor: self.cursor.map(|Cursor(c)| c),
                page_size: 0,
            },
        )
    }
}

/// Search videos by keyword on TikTok or YouTube. Paid plans; 1 credit per
/// successful search; monthly limits: pro 1000, business 6000.
#[utoipa::path(
    get, path = "/v1/trends/search", tag = "trends",
    params(SearchParams),
    responses(
        (status = 200, description = "A page of videos", body = Envelope<TrendResults>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or AUTHENTICATION_FAILED"),
        (status = 402, description = "PAID_PLAN_REQUIRED (free plan)"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED: monthly limit; Retry-After gives the start of next month"),
        (status = 502, description = "EXTERNAL_API_ERROR: the platform failed; nothing charged"),
    ),
    security(("api_key" = []))
)]
async fn search(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: Result<ApiKeyAuth, ApiError>,
    q: Query<SearchParams>,
) -> Result<Json<Envelope<TrendResults>>, ApiError> {
    let auth = auth.map_err(|mut e| {
        if e.code == ErrorCode::InvalidApiKey {
            e.code = ErrorCode::AuthenticationFailed;
            e.message = "Authentication failed: invalid API key".into();
        }
        e
    })?;
    auth.require_paid_plan(&app.config.upgrade_url)?;
    let (platform, mut query) = q.parse()?.into_query();
    query.page_size = app.config.trend_page_size;
    let limit = auth.org.plan.monthly_trend_searches().unwrap_or(0);

    let now = app.clock.now();
    let charge = Charge {
        organization_id: auth.org.id,
        api_key_id: Some(auth.key_id),
        request_id: ctx.id.clone(),
        amount: 1,
        reason: "trend_search",
        subject: Some(format!("{platform}:{}", query.keyword)),
        at: now,
    };
    let ledger_id = match app
        .store
        .charge_within_cap(&charge, month_start(now.year(), now.month()), limit)
        .await?
    {
        CappedCharge::Charged(id) => id,
        CappedCharge::CapReached(used) => {
            let reset = next_month_start(now);
            let wait = (reset - now).num_seconds().max(1) as u64;
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimitExceeded,
                format!(
                    "Monthly trend search limit reached: the {} plan allows {limit} searches a month ({used} used); it resets at {}",
                    auth.org.plan,
                    reset.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
            )
            .with_retry_after(wait));
        }
    };
    let page = match app.source.search_trends(platform, &query).await {
        Ok(page) => page,
        Err(e) => {
            if let Err(refund) = app.store.refund(ledger_id).await {
                tracing::error!(error = %refund, ledger_id, "could not refund a failed trend search");
            }
            return Err(match e {
                SourceError::Permanent(msg) if msg.contains("cursor") => ApiError::validation(
                    "cursor",
                    "`cursor` is not one this service issued for this search",
                ),
                other => {
                    // The platform's own words go to the log, not to the client.
                    tracing::warn!(%platform, error = %other, "trend search upstream failed");
                    ApiError::new(
                        StatusCode::BAD_GATEWAY,
                        ErrorCode::ExternalApiError,
                        format!(
                            "The {} search failed: {}",
                            platform.display_name(),
                            other.client_message(platform)
                        ),
                    )
                }
            });
        }
    };
    let data = TrendResults {
        videos: page.videos.into_iter().map(TrendVideoView::from).collect(),
        cursor: page.cursor.unwrap_or_default(),
        has_more: page.has_more,
    };
    Ok(ok(data, Meta::of(&ctx).with_credits(1)))
}
