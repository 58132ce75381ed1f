//! What every authenticated `/v1` request passes before its handler runs
//! (docs/api.md, "Scopes" and "Rate limits"), and the headers every answer
//! to one carries.
//!
//! - [`scope_needed`]: the one place that says which `/v1` routes write
//!   (need the `write` scope) and which only read.
//! - `admit`, called by the [`ApiKeyAuth`] extractor once the key is
//!   verified: spends one unit of the key's general budget (429
//!   `RATE_LIMIT_EXCEEDED` with `Retry-After` when it is spent), then checks
//!   the route's scope (403 `INSUFFICIENT_SCOPE`). Both come before the
//!   handler reads its body, writes or charges anything, and are answered
//!   in the endpoint's own error form.
//! - [`rate_limit_headers`], a layer over every route: writes
//!   `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10)
//!   for the most constraining budget the request checked. A request that
//!   authenticated no key checked none, and carries neither.

use axum::extract::{MatchedPath, Request};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use vidpulse_domain::api_key::Scope;

use crate::auth::ApiKeyAuth;
use crate::error::ApiError;
use crate::rate_limit::{collecting, most_constraining};
use crate::state::AppState;

/// `RateLimit-Policy`: the policy of the budget reported.
pub const RATE_LIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
/// `RateLimit`: what is left of it, and when it is full again.
pub const RATE_LIMIT: HeaderName = HeaderName::from_static("ratelimit");

/// `POST` routes of `/v1` that only read (answer something computed from
/// the request, changing nothing and calling no platform). None today:
/// every `POST` tracks, creates, sends or reads a platform on the
/// organization's behalf (a manual refresh writes the reading and charges).
pub const READ_ONLY_POSTS: &[&str] = &[];

/// The scope a request of `method` to the `/v1` route `route` (its path
/// template, `/v1/videos/by-id/{video_id}`) needs: `read` for `GET` and
/// `HEAD` (and the `POST`s of [`READ_ONLY_POSTS`]), `write` for everything
/// else.
pub fn scope_needed(method: &Method, route: &str) -> Scope {
    let reads = method == Method::GET
        || method == Method::HEAD
        || method == Method::OPTIONS
        || (method == Method::POST && READ_ONLY_POSTS.contains(&route));
    if reads { Scope::Read } else { Scope::Write }
}

/// Whether `path` is the public API's.
pub fn is_v1(path: &str) -> bool {
    path == "/v1" || path.starts_with("/v1/")
}

/// Admits a request of `auth`'s key to a `/v1` route: one unit of the
/// key's general budget, then the route's scope. Other paths pass.
pub(crate) async fn admit(
    app: &AppState,
    parts: &Parts,
    auth: &ApiKeyAuth,
) -> Result<(), ApiError> {
    if !is_v1(parts.uri.path()) {
        return Ok(());
    }
    app.limits.check_request(auth.key_id).await?;
    let route = parts
        .extensions
        .get::<MatchedPath>()
        .map_or(parts.uri.path(), MatchedPath::as_str);
    auth.require(scope_needed(&parts.method, route))
}

/// Layer: the rate-limit headers of a `/v1` answer, from the budgets its
/// request checked.
pub async fn rate_limit_headers(req: Request, next: Next) -> Response {
    if !is_v1(req.uri().path()) {
        return next.run(req).await;
    }
    let (mut response, states) = collecting(next.run(req)).await;
    if let Some(state) = most_constraining(&states)
        && let (Ok(policy), Ok(limit)) = (
            HeaderValue::from_str(&state.policy_item()),
            HeaderValue::from_str(&state.limit_item()),
        )
    {
        let headers = response.headers_mut();
        headers.insert(RATE_LIMIT_POLICY, policy);
        headers.insert(RATE_LIMIT, limit);
    }
    response
}

/// Documents what the gate adds to every `/v1` operation of `doc` that
/// takes an API key: 429 `RATE_LIMIT_EXCEEDED` (the general budget), 403
/// `INSUFFICIENT_SCOPE` on writes, and the two headers on every answer but
/// 401. Run before [`crate::openapi::describe_errors`], which gives the
/// new error answers their body.
pub fn describe(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{Ref, RefOr, ResponseBuilder, Type};

    let components = doc.components.get_or_insert_with(Default::default);
    for (name, description) in [
        (
            "RateLimit-Policy",
            "The budget reported: `\"<policy>\";q=<quota>;w=<seconds>` (draft-ietf-httpapi-ratelimit-headers-10)",
        ),
        (
            "RateLimit",
            "What is left of it: `\"<policy>\";r=<remaining>;t=<seconds until full>`",
        ),
    ] {
        components.headers.insert(
            name.to_owned(),
            HeaderBuilder::new()
                .schema(Some(
                    utoipa::openapi::ObjectBuilder::new().schema_type(Type::String),
                ))
                .description(Some(description))
                .build()
                .into(),
        );
    }
    let header = |name: &str| RefOr::Ref(Ref::new(format!("#/components/headers/{name}")));
    for (path, item) in doc.paths.paths.iter_mut() {
        if !is_v1(path) {
            continue;
        }
        let operations = [
            (Method::GET, &mut item.get),
            (Method::PUT, &mut item.put),
            (Method::POST, &mut item.post),
            (Method::DELETE, &mut item.delete),
            (Method::PATCH, &mut item.patch),
        ];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            let keyed = operation.security.as_ref().is_some_and(|all| {
                all.iter().any(|requirement| {
                    serde_json::to_value(requirement).is_ok_and(|v| v.get("api_key").is_some())
                })
            });
            if !keyed {
                continue;
            }
            let responses = &mut operation.responses.responses;
            match responses.get_mut("429") {
                Some(RefOr::T(existing)) => {
                    if !existing.description.contains("request budget") {
                        existing.description.push_str(
                            "; or RATE_LIMIT_EXCEEDED: the key's request budget is spent (`Retry-After`)",
                        );
                    }
                }
                Some(RefOr::Ref(_)) => {}
                None => {
                    responses.insert(
                        "429".to_owned(),
                        RefOr::T(
                            ResponseBuilder::new()
                                .description("RATE_LIMIT_EXCEEDED: the key's request budget is spent (`Retry-After`)")
                                .build(),
                        ),
                    );
                }
            }
            if scope_needed(&method, path) == Scope::Write {
                match responses.get_mut("403") {
                    Some(RefOr::T(existing)) => {
                        existing
                            .description
                            .push_str("; or INSUFFICIENT_SCOPE: the key may only read");
                    }
                    Some(RefOr::Ref(_)) => {}
                    None => {
                        responses.insert(
                            "403".to_owned(),
                            RefOr::T(
                                ResponseBuilder::new()
                                    .description("INSUFFICIENT_SCOPE: the key may only read")
                                    .build(),
                            ),
                        );
                    }
                }
            }
            for (status, response) in responses.iter_mut() {
                if status == "401" {
                    continue;
                }
                if let RefOr::T(response) = response {
                    for name in ["RateLimit-Policy", "RateLimit"] {
                        response.headers.insert(name.to_owned(), header(name));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gets_read_and_everything_else_writes() {
        assert_eq!(scope_needed(&Method::GET, "/v1/videos/stats"), Scope::Read);
        assert_eq!(scope_needed(&Method::HEAD, "/v1/whoami"), Scope::Read);
        for method in [Method::POST, Method::PATCH, Method::PUT, Method::DELETE] {
            assert_eq!(scope_needed(&method, "/v1/videos/track"), Scope::Write);
        }
        for route in READ_ONLY_POSTS {
            assert_eq!(scope_needed(&Method::POST, route), Scope::Read);
        }
        assert!(is_v1("/v1/whoami"));
        assert!(is_v1("/v1"));
        assert!(!is_v1("/v1x"));
        assert!(!is_v1("/mcp"));
    }
}
