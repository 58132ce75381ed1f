//! The organization logo: uploaded by admins as multipart `file` (PNG, JPEG
//! or WebP, recognised by content, at most 512 KiB; SVG is refused because it
//! can carry scripts), kept in the [`crate::files::FileStore`] and served at
//! `/files/{name}`.

use axum::Json;
use axum::body::Body;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use vidpulse_domain::identity::Role;

use crate::dashboard::access::OrgAuth;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::files::{ImageKind, is_safe_name};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Largest logo, in bytes.
pub const MAX_LOGO_BYTES: usize = 512 * 1024;

/// The logo routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload))
        .routes(routes!(file))
}

/// Where the new logo is served.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogoUrl {
    /// Its address.
    pub logo_url: String,
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::PayloadTooLarge,
        format!("The logo is larger than {} KiB", MAX_LOGO_BYTES / 1024),
    )
}

/// Uploads the organization's logo. Admins.
#[utoipa::path(
    post, path = "/organizations/logo", tag = "dashboard",
    params(("X-Organization-ID" = uuid::Uuid, Header, description = "The organization")),
    request_body(content_type = "multipart/form-data", description = "A `file` field: PNG, JPEG or WebP, at most 512 KiB"),
    responses(
        (status = 200, description = "Stored", body = Envelope<LogoUrl>),
        (status = 400, description = "VALIDATION_ERROR with `field` `file`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 413, description = "PAYLOAD_TOO_LARGE"),
    ),
    security(("bearer_jwt" = []))
)]
async fn upload(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<Envelope<LogoUrl>>, ApiError> {
    auth.require(Role::Admin)?;
    let mut multipart = multipart
        .map_err(|_| ApiError::validation("file", "Send the logo as multipart/form-data `file`"))?;
    let mut bytes: Option<Vec<u8>> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
            Err(e) => {
                return Err(ApiError::validation(
                    "file",
                    format!("Bad multipart body: {e}"),
                ));
            }
        };
        if field.name() != Some("file") {
            continue;
        }
        let data = field.bytes().await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large()
            } else {
                ApiError::validation("file", format!("Bad multipart body: {e}"))
            }
        })?;
        bytes = Some(data.to_vec());
    }
    let bytes =
        bytes.ok_or_else(|| ApiError::validation("file", "The `file` field is required"))?;
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(too_large());
    }
    let kind = ImageKind::sniff(&bytes).ok_or_else(|| {
        ApiError::validation(
            "file",
            "The logo must be a PNG, JPEG or WebP image (SVG is not accepted)",
        )
    })?;
    let digest = hex::encode(Sha256::digest(&bytes));
    let name = format!("{}-{}.{}", auth.org.0, &digest[..16], kind.extension());
    app.files
        .put(&name, &bytes)
        .await
        .map_err(|e| ApiError::internal(&e))?;
    let url = format!(
        "{}/files/{name}",
        app.config.public_url.trim_end_matches('/')
    );
    app.store.set_logo_url(auth.org, &url).await?;
    Ok(ok(LogoUrl { logo_url: url }, Meta::of(&ctx)))
}

/// A stored file (logos), with its media type. Public: names are unguessable.
#[utoipa::path(
    get, path = "/files/{name}", tag = "dashboard",
    params(("name" = String, Path, description = "The file name from `logo_url`")),
    responses(
        (status = 200, description = "The file"),
        (status = 404, description = "NOT_FOUND"),
    )
)]
async fn file(
    State(app): State<AppState>,
    PathParam(name): PathParam,
) -> Result<Response, ApiError> {
    let kind = ImageKind::of_name(&name)
        .filter(|_| is_safe_name(&name))
        .ok_or_else(|| ApiError::not_found("No such file"))?;
    let bytes = app
        .files
        .get(&name)
        .await
        .map_err(|e| ApiError::internal(&e))?
        .ok_or_else(|| ApiError::not_found("No such file"))?;
    Response::builder()
        .header(header::CONTENT_TYPE, kind.content_type())
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::CACHE_CONTROL, "public, max-age=31536000, immutable")
        .body(Body::from(bytes))
        .map_err(|e| ApiError::internal(&e))
}
