//! The organization logo: uploaded by admins as multipart `file` (PNG, JPEG
//! or WebP, at most 512 KiB and 4096×4096 pixels, decoded whole before it is
//! kept: SVG and anything that only starts like an image are refused), kept
//! in the [`crate::files::FileStore`] and served at `/files/{name}` with
//! headers that keep a browser from taking it for anything but an image.
//! The logo it replaces is deleted.

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
use crate::files::{ImageKind, check_image, is_safe_name};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Largest logo, in bytes.
pub const MAX_LOGO_BYTES: usize = 512 * 1024;
/// The policy served files carry: nothing loads, nothing runs.
pub const FILE_CSP: &str = "default-src 'none'; sandbox";

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
    request_body(content_type = "multipart/form-data", description = "A `file` field: PNG, JPEG or WebP, at most 512 KiB and 4096×4096 pixels"),
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
    // Decoding is CPU work: off the async runtime.
    let (kind, bytes) = tokio::task::spawn_blocking(move || (check_image(&bytes), bytes))
        .await
        .map_err(|e| ApiError::internal(&e))?;
    let kind = kind.map_err(|refusal| {
        let mut message = refusal.to_string();
        if let Some(first) = message.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        ApiError::validation("file", message)
    })?;
    let digest = hex::encode(Sha256::digest(&bytes));
    let name = format!("{}-{}.{}", auth.org.0, &digest[..16], kind.extension());
    app.files
        .put(&name, &bytes)
        .await
        .map_err(|e| ApiError::internal(&e))?;
    let replaced = app
        .store
        .organization_settings(auth.org)
        .await?
        .and_then(|s| s.logo_url);
    let url = format!(
        "{}/files/{name}",
        app.config.public_url.trim_end_matches('/')
    );
    app.store.set_logo_url(auth.org, &url).await?;
    if let Some(old) = replaced.as_deref().and_then(|u| own_file(u, auth.org.0))
        && old != name
    {
        // The logo is already replaced: a file left behind is only disk space.
        if let Err(e) = app.files.delete(old).await {
            tracing::warn!(error = %e, file = old, "could not delete the replaced logo");
        }
    }
    Ok(ok(LogoUrl { logo_url: url }, Meta::of(&ctx)))
}

/// The name of the file behind logo address `url` when it is one this
/// organization uploaded here (its names start with the organization id),
/// whatever the public address was when it was stored.
fn own_file(url: &str, org: uuid::Uuid) -> Option<&str> {
    let (_, name) = url.rsplit_once("/files/")?;
    (is_safe_name(name) && name.starts_with(&format!("{org}-"))).then_some(name)
}

/// A stored file (logos), with its media type. Public: names are
/// unguessable. Served inline under its own name, never sniffed, and
/// sandboxed with no sources allowed, so a browser opening it directly
/// treats it as the image it was checked to be and runs nothing in it.
#[utoipa::path(
    get, path = "/files/{name}", tag = "dashboard",
    params(("name" = String, Path, description = "The file name from `logo_url`")),
    responses(
        (status = 200, description = "The file, with `Content-Disposition: inline`, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`"),
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
        // `name` passed `is_safe_name`: nothing in it needs quoting.
        .header(
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{name}\""),
        )
        .header(header::CONTENT_SECURITY_POLICY, FILE_CSP)
        .header(header::CACHE_CONTROL, "public, max-age=31536000, immutable")
        .body(Body::from(bytes))
        .map_err(|e| ApiError::internal(&e))
}
