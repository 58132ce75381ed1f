//! The success envelope: `success`, `data`, `meta`.

use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::middleware::RequestContext;

/// A successful answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    /// Always true.
    pub success: bool,
    /// The payload.
    pub data: T,
    /// Request facts.
    pub meta: Meta,
}

/// Request facts of a successful answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Meta {
    /// Unique per request; equals the `X-Request-Id` header.
    pub request_id: String,
    /// Time spent serving the request, in milliseconds.
    pub processing_time_ms: u64,
    /// Credits this request consumed, where the endpoint charges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits_used: Option<i64>,
    /// Per-status counts (POST /v1/videos/track only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<TrackSummary>,
    /// Where a page lies in the whole list (GET /v1/bloggers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
}

/// Where a page lies in the whole list.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct Pagination {
    /// Items matching the filters in all.
    pub total: i64,
    /// The page size asked for.
    pub limit: i64,
    /// Items skipped before this page.
    pub offset: i64,
    /// Whether items follow this page.
    pub has_more: bool,
}

impl Pagination {
    /// The pagination of the page at `offset` of size `limit` in `total`.
    pub fn of(total: i64, limit: i64, offset: i64) -> Self {
        Self {
            total,
            limit,
            offset,
            has_more: offset.saturating_add(limit) < total,
        }
    }
}

/// Counts of a track request's results.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct TrackSummary {
    /// URLs in the request.
    pub total: usize,
    /// Newly tracked.
    pub tracked: usize,
    /// Tracked before.
    pub already_tracked: usize,
    /// Failed.
    pub errors: usize,
}

impl Meta {
    /// Meta of the current request.
    pub fn of(ctx: &RequestContext) -> Self {
        Self {
            request_id: ctx.id.clone(),
            processing_time_ms: ctx.elapsed_ms(),
            credits_used: None,
            summary: None,
            pagination: None,
        }
    }

    /// With `pagination`.
    pub fn with_pagination(mut self, pagination: Pagination) -> Self {
        self.pagination = Some(pagination);
        self
    }

    /// With `credits_used`.
    pub fn with_credits(mut self, credits: i64) -> Self {
        self.credits_used = Some(credits);
        self
    }

    /// With a track's `summary`.
    pub fn with_summary(mut self, summary: TrackSummary) -> Self {
        self.summary = Some(summary);
        self
    }
}

/// Wraps `data` in a success envelope with `meta`.
pub fn ok<T: Serialize>(data: T, meta: Meta) -> Json<Envelope<T>> {
    Json(Envelope {
        success: true,
        data,
        meta,
    })
}
