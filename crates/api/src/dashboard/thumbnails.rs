//! `GET /thumbnails/{video_id}`: a tracked video's picture, from this origin
//! (`crate::thumbnails`). The web app's `<img>` sends the session cookie and
//! no organization header, so the check is on the video itself: the caller
//! must be a member of the organization that tracks it; anyone else, like an
//! unknown id, gets 404.

use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::VideoId;

use crate::dashboard::identity::UserAuth;
use crate::dashboard::logo::FILE_CSP;
use crate::error::ApiError;
use crate::extract::PathParam;
use crate::state::AppState;
use crate::thumbnails::placeholder;

/// How long a browser keeps a thumbnail (it is the caller's only: private).
const CACHE_CONTROL: &str = "private, max-age=86400";

/// The thumbnail route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(thumbnail))
}

fn not_found() -> ApiError {
    ApiError::not_found("Video not found")
}

/// A tracked video's thumbnail: the platform's picture (PNG, JPEG or WebP,
/// fetched from the platform's image CDN and kept a day), or an SVG tile in
/// the platform's colour when there is none to fetch. Any member of the
/// organization that tracks the video; served with `nosniff`, a sandboxing
/// policy and `Cache-Control: private, max-age=86400`.
#[utoipa::path(
    get, path = "/thumbnails/{video_id}", tag = "dashboard",
    params(("video_id" = String, Path, description = "The video's UUID (`video_id` of its record)")),
    responses(
        (status = 200, description = "The picture: `image/jpeg`, `image/png`, `image/webp`, or the `image/svg+xml` placeholder"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: no such video in the caller's organizations"),
    ),
    security(("bearer_jwt" = []))
)]
async fn thumbnail(
    State(app): State<AppState>,
    auth: UserAuth,
    path: Result<PathParam, ApiError>,
) -> Result<Response, ApiError> {
    let video = path
        .ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .map(VideoId)
        .ok_or_else(not_found)?;
    let source = app
        .store
        .thumbnail_source(auth.user.id, video)
        .await?
        .ok_or_else(not_found)?;
    let (content_type, body) = match app.thumbnails.image(source.thumbnail_url.as_deref()).await {
        Some(image) => (image.kind.content_type(), Body::from(image.bytes)),
        None => (
            "image/svg+xml",
            Body::from(placeholder::svg(source.platform)),
        ),
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::CONTENT_SECURITY_POLICY, FILE_CSP)
        .header(header::CACHE_CONTROL, CACHE_CONTROL)
        .body(body)
        .map_err(|e| ApiError::internal(&e))
}
