//! The web app of vidpulse: its static assets (HTML, CSS, JavaScript
//! modules, message catalogs, icon), compiled into the binary, and the
//! routes that serve them.
//!
//! Every page path answers the same `index.html`; the app routes on the
//! client with the History API and reads everything through the HTTP
//! interfaces other clients use (docs/api.md). Assets live under
//! `/assets/…` with `Cache-Control: no-cache` and an `ETag`, so a browser
//! revalidates each and gets 304 while the binary is unchanged. There is no
//! catch-all: any other path keeps answering the API's JSON 404.

use axum::Router;
use axum::body::Body;
use axum::extract::{OriginalUri, Path};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LOCATION,
    REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// The app's files, embedded at compile time (also in debug builds:
/// `debug-embed`), so the binary serves exactly what it was built with.
#[derive(RustEmbed)]
#[folder = "assets/"]
struct Assets;

/// The content security policy of every page and asset: nothing from
/// another host, no inline script or style.
pub const CSP: &str = "default-src 'self'; img-src 'self' data: https:; style-src 'self'; \
     script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
     form-action 'self'";

/// The paths that answer the app's page (`index.html`); the client picks
/// the view from the path.
pub const PAGES: [&str; 12] = [
    "/",
    "/sign-in",
    "/set-password",
    "/forgot-password",
    "/videos",
    "/videos/{id}",
    "/campaigns",
    "/creators",
    "/team",
    "/settings",
    "/usage",
    "/invitations/{id}",
];

/// Old addresses that lead to a page: (from, to), answered 303.
const REDIRECTS: [(&str, &str); 2] = [("/login", "/sign-in"), ("/dashboard", "/videos")];

/// The web app's routes: the pages, the redirects and `/assets/…`, with the
/// security headers on every answer and gzip for clients that accept it.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let mut router = Router::new();
    for path in PAGES {
        router = router.route(path, get(page));
    }
    for (from, to) in REDIRECTS {
        router = router.route(from, get(move |uri: OriginalUri| redirect(uri, to)));
    }
    let router = router
        .route("/assets/{*path}", get(asset))
        .layer(CompressionLayer::new());
    with_security_headers(router, CSP)
}

/// `router` with the app's security headers on every answer: `csp` as its
/// content security policy, `nosniff`, and no referrer sent to another
/// origin. Other browsable pages (the API reference at `/docs`) use it too,
/// with a policy of their own.
pub fn with_security_headers<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    csp: &'static str,
) -> Router<S> {
    router
        .layer(SetResponseHeaderLayer::overriding(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
}

async fn page(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    serve(&path, &headers)
}

async fn redirect(OriginalUri(uri): OriginalUri, to: &'static str) -> Response {
    let location = match uri.query() {
        Some(query) => format!("{to}?{query}"),
        None => to.to_owned(),
    };
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(LOCATION, value);
    }
    response
}

/// One embedded file, or 304 when the client holds it already, or 404.
fn serve(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Assets::get(path) else {
        return not_found();
    };
    let etag = etag(&file.metadata.sha256_hash());
    let mut response = if client_has(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(file.data.into_owned()));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
        response
    };
    let out = response.headers_mut();
    out.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        out.insert(ETAG, value);
    }
    response
}

/// The 404 of an unknown asset, in the API's nested error form.
fn not_found() -> Response {
    let body = r#"{"success":false,"error":{"code":"NOT_FOUND","message":"No such asset"}}"#;
    let mut response = (StatusCode::NOT_FOUND, body).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A strong entity tag from the file's SHA-256 (its first 16 bytes).
fn etag(hash: &[u8; 32]) -> String {
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether `If-None-Match` names this tag (weak or strong) or is `*`.
fn client_has(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim())
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
