//! The pages a share link opens, with no sign-in (docs/api.md, "Shared
//! pages"): `GET /share/{token}` answers the web app's page (which shows
//! the shared report) and counts a view; `GET /share/{token}/report`,
//! `/report.csv` and `/logo` are its data. The use cases are in
//! [`crate::app::share_links::shared`].
//!
//! Only GET; no cookie is read or set and no session or API key is
//! needed or looked at. Every answer carries `X-Robots-Tag: noindex,
//! nofollow`, `Referrer-Policy: no-referrer` (the token is in the
//! address) and `Cache-Control: no-store`; the page carries the app's
//! content security policy. Each token has a budget of requests per
//! minute ([`REQUESTS_PER_MINUTE`]), kept by the API keys' limiter
//! ([`crate::rate_limit::Budget::ShareLink`], keyed by the token's
//! SHA-256): in each API node, or shared by every node through Redis.
//! Past it, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::share_links::shared::{
    Opened, SharedParams, SharedReport, link_gone, open, read_params, report_of, shared_csv,
    shared_report,
};
use crate::app::share_links::token_hash;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::Query;
use crate::files::{ImageKind, is_safe_name};
use crate::middleware::RequestContext;
use crate::state::AppState;
use crate::v1::export::{self, Format};

/// Requests a token may make per minute (in each API node, or across
/// them all with Redis).
pub const REQUESTS_PER_MINUTE: u32 = 60;

/// The shared pages' routes, with their headers on every answer.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(report))
        .routes(routes!(report_csv))
        .routes(routes!(logo))
        .route("/share/{token}", get(page))
        .layer(axum::middleware::map_response(private))
}

/// The headers of every shared answer: not indexed, not cached, the
/// address (and its token) sent to no other site.
async fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-robots-tag", "noindex, nofollow"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The token's budget, then its link when it opens.
async fn admit(app: &AppState, token: &str, count_view: bool) -> Result<Opened, ApiError> {
    app.limits.check_share_link(&token_hash(token)).await?;
    open(app, token, count_view).await
}

/// The page: the web app (as a signed-out browser gets it), which reads
/// the report; a view counted. A link that does not open gets the same
/// page with status 404 (the app says the link does not work).
async fn page(State(app): State<AppState>, Path(token): Path<String>) -> Response {
    let status = match admit(&app, &token, true).await {
        Ok(_) => StatusCode::OK,
        Err(e) if e.status == StatusCode::NOT_FOUND => StatusCode::NOT_FOUND,
        Err(e) => return e.into_response(),
    };
    let mut response = vidpulse_web::signed_out_page();
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(vidpulse_web::CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// A campaign's report as its share link shows it: the organization's name
/// and logo, the campaign (never its notes), the five metrics gained over
/// the days asked (from each video's first reading), per day, the top 10
/// videos and the creators; spend, budget, CPM and CPE only when the link
/// shows spend. No authentication: the token is the key.
#[utoipa::path(
    get, path = "/share/{token}/report", tag = "shared",
    params(("token" = String, Path, description = "The link's token (`vpshare_…`)"), SharedParams),
    responses(
        (status = 200, description = "The shared report", body = Envelope<SharedReport>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 404, description = "NOT_FOUND: an unknown, revoked or expired link (the body names nothing)"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED with `Retry-After`"),
    )
)]
async fn report(
    State(app): State<AppState>,
    ctx: RequestContext,
    Path(token): Path<String>,
    q: Query<SharedParams>,
) -> Result<Json<Envelope<SharedReport>>, ApiError> {
    let opened = admit(&app, &token, false).await?;
    let ask = read_params(&q)?;
    let data = shared_report(&app, &opened, &token, &ask).await?;
    Ok(ok(data, Meta::of(&ctx)))
}

/// The shared report's creators as CSV: the campaign report's CSV without
/// the campaign's id, and without `videos_without_cost`, `spend`, `cpm`,
/// `cpe`, `budget` and `budget_left` unless the link shows spend.
#[utoipa::path(
    get, path = "/share/{token}/report.csv", tag = "shared",
    params(("token" = String, Path, description = "The link's token (`vpshare_…`)"), SharedParams),
    responses(
        (status = 200, description = "A row per creator, then the total", content_type = "text/csv", body = String),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 404, description = "NOT_FOUND: an unknown, revoked or expired link"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED with `Retry-After`"),
    )
)]
async fn report_csv(
    State(app): State<AppState>,
    Path(token): Path<String>,
    q: Query<SharedParams>,
) -> Result<Response, ApiError> {
    let opened = admit(&app, &token, false).await?;
    let ask = read_params(&q)?;
    let report = report_of(&app, &opened, &ask).await?;
    let csv = shared_csv(&report, opened.link.show_spend)?;
    Ok(export::download(Format::Csv, "campaign-report", csv.into()))
}

/// The organization's logo, when it has one.
#[utoipa::path(
    get, path = "/share/{token}/logo", tag = "shared",
    params(("token" = String, Path, description = "The link's token (`vpshare_…`)")),
    responses(
        (status = 200, description = "The image (PNG, JPEG or WebP)"),
        (status = 404, description = "NOT_FOUND: no logo, or a link that does not open"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED with `Retry-After`"),
    )
)]
async fn logo(
    State(app): State<AppState>,
    Path(token): Path<String>,
) -> Result<Response, ApiError> {
    let opened = admit(&app, &token, false).await?;
    let org = opened.org.id;
    let url = app
        .store
        .organization_settings(org)
        .await?
        .and_then(|s| s.logo_url)
        .ok_or_else(link_gone)?;
    // Only a file this organization uploaded here.
    let name = url
        .rsplit_once("/files/")
        .map(|(_, name)| name)
        .filter(|name| is_safe_name(name) && name.starts_with(&format!("{}-", org.0)))
        .ok_or_else(link_gone)?;
    let kind = ImageKind::of_name(name).ok_or_else(link_gone)?;
    let bytes = app
        .files
        .get(name)
        .await
        .map_err(|e| ApiError::internal(&e))?
        .ok_or_else(link_gone)?;
    let mut response = Response::new(Body::from(bytes));
    let headers: &mut HeaderMap = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(kind.content_type()),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(crate::dashboard::logo::FILE_CSP),
    );
    Ok(response)
}
