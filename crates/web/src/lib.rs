//! The web app of vidpulse: its static assets (HTML, CSS, JavaScript
//! modules, message catalogs, icon), compiled into the binary, and the
//! routes that serve them.
//!
//! Every page path answers the same `index.html`; the app routes on the
//! client with the History API and reads everything through the HTTP
//! interfaces other clients use (docs/api.md). Assets live under
//! `/assets/…` with `Cache-Control: no-cache` and an `ETag`, so a browser
//! revalidates each and gets 304 while the binary is unchanged. There is no
//! catch-all route: the API's fallback answers any other path, and asks
//! [`not_found_page`] first, so that a browser opening an unknown page gets
//! the app (which shows its not-found page) with status 404, while API
//! clients keep the JSON 404.
//!
//! The page tells the app whether the request came with a session cookie
//! (`<meta name="vidpulse-session">`): a browser without one is signed out,
//! and the app does not ask the server for a session it cannot have (an
//! answer of 401, which browsers log as an error).

use axum::Router;
use axum::body::Body;
use axum::extract::{OriginalUri, Path};
use axum::http::header::{
    ACCEPT, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, COOKIE, ETAG, IF_NONE_MATCH,
    LOCATION, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
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

/// The headers of every answer of the app: its content security policy, no
/// type sniffing, and no address sent to other sites.
fn security_headers(csp: &'static str) -> [(HeaderName, &'static str); 3] {
    [
        (CONTENT_SECURITY_POLICY, csp),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "same-origin"),
    ]
}

/// The name of the web app's session cookie (set by the API's sign-in).
pub const SESSION_COOKIE: &str = "vidpulse_session";

/// The paths of the HTTP interfaces and the server's own documents: an
/// unknown path at or under one of them is the API's JSON 404 whatever the
/// client accepts, never the app's not-found page.
pub const API_PREFIXES: [&str; 17] = [
    "/v1",
    "/mcp",
    "/auth",
    "/organizations",
    "/dashboard",
    "/blogger",
    "/analytics",
    "/tags",
    "/files",
    "/thumbnails",
    "/openapi.json",
    "/docs",
    "/healthz",
    "/readyz",
    "/metrics",
    "/assets",
    "/share",
];

/// The paths that answer the app's page (`index.html`); the client picks
/// the view from the path.
pub const PAGES: [&str; 17] = [
    "/",
    "/sign-in",
    "/set-password",
    "/forgot-password",
    "/videos",
    "/videos/{id}",
    "/campaigns",
    "/campaigns/{id}",
    "/creators",
    "/alerts",
    "/team",
    "/settings",
    "/usage",
    "/recaps",
    "/invitations/{id}",
    "/webhooks",
    "/webhooks/{id}",
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
    mut router: Router<S>,
    csp: &'static str,
) -> Router<S> {
    for (name, value) in security_headers(csp) {
        router = router.layer(SetResponseHeaderLayer::overriding(
            name,
            HeaderValue::from_static(value),
        ));
    }
    router
}

async fn page(headers: HeaderMap) -> Response {
    index(&headers)
}

/// The answer to a request no route takes, when it is a browser opening a
/// page: a GET (or HEAD) whose `Accept` prefers HTML, of a path outside the
/// HTTP interfaces ([`API_PREFIXES`]). That is the app's page with status
/// 404 and the app's security headers; the app shows its not-found page.
/// `None` leaves the answer to the API (its JSON 404).
pub fn not_found_page(method: &Method, path: &str, headers: &HeaderMap) -> Option<Response> {
    let opened = *method == Method::GET || *method == Method::HEAD;
    if !opened || is_api_path(path) || !prefers_html(headers) {
        return None;
    }
    // The whole page, never a 304: the status says what the path is.
    let mut unconditional = headers.clone();
    unconditional.remove(IF_NONE_MATCH);
    let mut response = index(&unconditional);
    *response.status_mut() = StatusCode::NOT_FOUND;
    let out = response.headers_mut();
    for (name, value) in security_headers(CSP) {
        out.insert(name, HeaderValue::from_static(value));
    }
    Some(response)
}

/// Whether `path` is one of [`API_PREFIXES`] or under one.
fn is_api_path(path: &str) -> bool {
    API_PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Whether `Accept` ranks HTML above JSON and at least as high as anything
/// (`*/*`): true for a browser opening a page, false for `application/json`,
/// `*/*` or no `Accept` at all.
fn prefers_html(headers: &HeaderMap) -> bool {
    let (mut html, mut json, mut any) = (0.0_f32, 0.0_f32, 0.0_f32);
    let ranges = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for range in ranges {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let slot = match media.as_str() {
            "text/html" | "application/xhtml+xml" => &mut html,
            "application/json" => &mut json,
            "*/*" => &mut any,
            _ => continue,
        };
        *slot = slot.max(q);
    }
    html > 0.0 && html > json && html >= any
}

/// The app's page: `index.html`, its `vidpulse-session` marker saying
/// `none` when the request carries no session cookie (each variant with its
/// own entity tag).
fn index(headers: &HeaderMap) -> Response {
    let mut response = if has_session_cookie(headers) {
        serve("index.html", headers)
    } else {
        signed_out_index(headers)
    };
    response
        .headers_mut()
        .insert(VARY, HeaderValue::from_static("cookie"));
    response
}

/// The app's page as a browser without a session gets it, whatever the
/// request's cookies: the page a share link opens, which no session may
/// see differently. Always the whole page (never a 304).
pub fn signed_out_page() -> Response {
    signed_out_index(&HeaderMap::new())
}

/// `index.html` with its marker saying `none`, under a tag of its own.
fn signed_out_index(headers: &HeaderMap) -> Response {
    let Some(file) = Assets::get("index.html") else {
        return not_found();
    };
    let page = String::from_utf8_lossy(&file.data).replacen(SESSION_MARKER, SIGNED_OUT_MARKER, 1);
    let hex = etag(&file.metadata.sha256_hash()).replace('"', "");
    let tag = format!("\"{hex}-signed-out\"");
    respond("index.html", page.into_bytes(), &tag, headers)
}

/// The marker of `index.html` as the file has it (a session may exist)...
const SESSION_MARKER: &str = r#"<meta name="vidpulse-session" content="unknown">"#;
/// ...and as a request without a session cookie gets it.
const SIGNED_OUT_MARKER: &str = r#"<meta name="vidpulse-session" content="none">"#;

/// Whether the request's cookies include a non-empty session cookie.
fn has_session_cookie(headers: &HeaderMap) -> bool {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split_once('='))
        .any(|(name, value)| name.trim() == SESSION_COOKIE && !value.trim().is_empty())
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
    respond(path, file.data.into_owned(), &etag, headers)
}

/// `data` (the file at `path`) under the entity tag `etag`, or 304 when
/// the client holds it already.
fn respond(path: &str, data: Vec<u8>, etag: &str, headers: &HeaderMap) -> Response {
    let mut response = if client_has(headers, etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(data));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
        response
    };
    let out = response.headers_mut();
    out.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(etag) {
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
