//! Idempotent `POST`s of the public API (docs/api.md, "Idempotent
//! requests"): a route layer ([`idempotent`]) on every `POST` under `/v1`
//! that carries an `Idempotency-Key`.
//!
//! The layer authenticates the API key itself ([`ApiKeyAuth`]: keys are
//! per organization), checks the key ([`IdempotencyKey`]) and reads the
//! body, whose fingerprint (method, path and query, body) says whether a
//! retry is the same request. It then claims the key in the database
//! ([`vidpulse_store::IdempotencyStore`], so every API node sees it):
//!
//! - a key new to the organization (or last used more than a day ago) runs
//!   the request; its answer, rendered as the client gets it, is kept with
//!   its status and headers (its `X-Request-Id` among them), unless it is a
//!   5xx or a 429, which free the key for a retry to do the work;
//! - the same key with the same request answers the kept answer at once,
//!   with `Idempotent-Replayed: true`: nothing runs, nothing is charged;
//! - the same key with another request is 422 `IDEMPOTENCY_KEY_REUSED`;
//! - while the first request runs, a retry waits for its answer. The first
//!   holds the key under a lease a little longer than the request time limit:
//!   a request cut off by the limit or by its client frees the key at once,
//!   one whose API node dies frees it when the lease runs out.

use std::time::Duration as StdDuration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::LengthLimitError;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::idempotency::{self, IdempotencyKey, KEY_MAX_CHARS};
use vidpulse_store::{KeptAnswer, KeyClaim};

use crate::auth::ApiKeyAuth;
use crate::error::{ApiError, ErrorCode};
use crate::middleware::{REQUEST_ID_HEADER, RequestContext, render_error};
use crate::router::BODY_LIMIT;
use crate::state::AppState;

/// The request header naming a request's idempotency key.
pub const KEY_HEADER: &str = "idempotency-key";
/// The header a replayed answer carries (`true`).
pub const REPLAYED_HEADER: &str = "idempotent-replayed";

/// How much longer than the request time limit a claim holds: past it, the
/// request that claimed the key is surely gone.
const LEASE_MARGIN: StdDuration = StdDuration::from_secs(30);
/// The first wait for a request in flight with the same key; it doubles up
/// to [`POLL_MAX`].
const POLL_FIRST: StdDuration = StdDuration::from_millis(25);
/// The longest wait between two looks at a key in flight.
const POLL_MAX: StdDuration = StdDuration::from_millis(500);

/// Route layer of the interfaces: a `POST` under `/v1` with an
/// `Idempotency-Key` is run once per organization and key (module docs);
/// any other request passes through untouched.
pub async fn idempotent(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let applies = req.method() == Method::POST
        && req.uri().path().starts_with("/v1/")
        && req.headers().contains_key(KEY_HEADER);
    if !applies {
        return next.run(req).await;
    }
    match run_once(&app, req, next).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// The request under its key: the kept answer, or the request run and its
/// answer kept.
async fn run_once(app: &AppState, req: Request, next: Next) -> Result<Response, ApiError> {
    let (mut parts, body) = req.into_parts();
    let auth = ApiKeyAuth::from_request_parts(&mut parts, app).await?;
    let key = key_of(&parts.headers)?;
    let body = read_body(body).await?;
    let target = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path(), |p| p.as_str());
    let fingerprint = idempotency::fingerprint(parts.method.as_str(), target, &body);
    let request_id = parts
        .extensions
        .get::<RequestContext>()
        .map(|ctx| ctx.id.clone())
        .unwrap_or_default();
    let org = auth.org.id;
    let lease = chrono::Duration::from_std(app.config.connections.request_timeout + LEASE_MARGIN)
        .unwrap_or(chrono::Duration::minutes(2));
    let mut wait = POLL_FIRST;
    let token = loop {
        match app
            .store
            .claim_idempotency_key(
                org,
                key.as_str(),
                &fingerprint,
                app.clock.now(),
                lease,
                idempotency::retention(),
            )
            .await?
        {
            KeyClaim::Claimed { token } => break token,
            KeyClaim::Answered(answer) => return Ok(replay(answer)),
            KeyClaim::Reused => return Err(reused()),
            // The request time limit bounds the wait (408).
            KeyClaim::InFlight => {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(POLL_MAX);
            }
        }
    };
    let claim = Claim {
        app: app.clone(),
        org,
        key: key.as_str().to_owned(),
        token: Some(token),
    };
    let response = next.run(Request::from_parts(parts, Body::from(body))).await;
    claim.settle(response, &request_id).await
}

/// The request's claim on its key: released when dropped unsettled (the
/// request cut off by the time limit or its client), so a retry can do the
/// work.
struct Claim {
    app: AppState,
    org: OrgId,
    key: String,
    token: Option<Uuid>,
}

impl Claim {
    /// Keeps `response` (rendered as the client gets it, with its request
    /// id) for retries, or frees the key when a retry should run again; the
    /// response to send.
    async fn settle(mut self, response: Response, request_id: &str) -> Result<Response, ApiError> {
        let Some(token) = self.token.take() else {
            return Ok(response);
        };
        let mut response = render_error(response, request_id);
        if !idempotency::keeps_answer(response.status().as_u16()) {
            self.release(token).await;
            return Ok(response);
        }
        if let Ok(id) = HeaderValue::from_str(request_id) {
            response.headers_mut().insert(REQUEST_ID_HEADER, id);
        }
        let (parts, body) = response.into_parts();
        let body = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(body) => body,
            Err(e) => {
                self.release(token).await;
                return Err(ApiError::internal(&e));
            }
        };
        let answer = KeptAnswer {
            status: parts.status.as_u16(),
            headers: kept_headers(&parts.headers),
            body: body.to_vec(),
        };
        // The work is done: its answer goes out whether or not it is kept.
        match self
            .app
            .store
            .keep_idempotent_answer(self.org, &self.key, token, &answer)
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(key = %self.key, "idempotency key taken over before its answer was kept");
            }
            Err(e) => {
                tracing::error!(key = %self.key, error = %e, "an idempotent answer could not be kept");
            }
        }
        Ok(Response::from_parts(parts, Body::from(body)))
    }

    /// Frees the key (a failure is logged: the lease frees it later).
    async fn release(&self, token: Uuid) {
        if let Err(e) = self
            .app
            .store
            .release_idempotency_key(self.org, &self.key, token)
            .await
        {
            tracing::warn!(key = %self.key, error = %e, "an idempotency key could not be freed; its lease will");
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(token) = self.token.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let store = self.app.store.clone();
            let (org, key) = (self.org, std::mem::take(&mut self.key));
            runtime.spawn(async move {
                if let Err(e) = store.release_idempotency_key(org, &key, token).await {
                    tracing::warn!(error = %e, "an idempotency key cut off could not be freed; its lease will");
                }
            });
        }
    }
}

/// The request's key: one header of 1 to 255 visible ASCII characters.
fn key_of(headers: &HeaderMap) -> Result<IdempotencyKey, ApiError> {
    let mut values = headers.get_all(KEY_HEADER).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(bad_key("Send one Idempotency-Key header, not several"));
    };
    IdempotencyKey::parse(value.as_bytes()).map_err(|e| bad_key(&e.to_string()))
}

/// 400 `VALIDATION_ERROR` naming the header.
fn bad_key(why: &str) -> ApiError {
    ApiError::validation(
        "Idempotency-Key",
        format!("{why}: a key is 1 to {KEY_MAX_CHARS} visible ASCII characters, such as a UUID"),
    )
}

/// 422 `IDEMPOTENCY_KEY_REUSED`.
fn reused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::IdempotencyKeyReused,
        "This Idempotency-Key was sent with another request (another method, path or body) \
         within the last 24 hours; send a new key with a new request",
    )
    .with_field("Idempotency-Key")
}

/// The whole body, at most [`BODY_LIMIT`] bytes (413 past it, as the body
/// extractors answer).
async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, BODY_LIMIT).await.map_err(|e| {
        let too_large = std::error::Error::source(&e).is_some_and(|s| s.is::<LengthLimitError>());
        if too_large {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                "The request body is larger than 1 MiB",
            )
        } else {
            ApiError::validation("body", format!("Could not read the body: {e}"))
        }
    })
}

/// The headers of an answer a retry gets again: all but those of the
/// connection and the moment (length, date, cookies, rate-limit state,
/// which the replay's own answer sets).
fn kept_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| {
            let name = name.as_str();
            !matches!(
                name,
                "content-length" | "transfer-encoding" | "connection" | "date" | "set-cookie"
            ) && !name.starts_with("ratelimit")
                && !name.starts_with("x-ratelimit")
        })
        .filter_map(|(name, value)| {
            value
                .to_str()
                .ok()
                .map(|v| (name.as_str().to_owned(), v.to_owned()))
        })
        .collect()
}

/// The kept answer, sent again.
fn replay(answer: KeptAnswer) -> Response {
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    for (name, value) in answer.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.append(name, value);
        }
    }
    if !headers.contains_key(header::CONTENT_TYPE) {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    headers.insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    tracing::info!(
        replay_of = headers
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default(),
        "idempotent replay"
    );
    response
}

/// Documents the header on every `POST` under `/v1` of the OpenAPI
/// document, and its 422.
pub fn describe(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{Required, ResponseBuilder};

    for (path, item) in doc.paths.paths.iter_mut() {
        let Some(operation) = item.post.as_mut().filter(|_| path.starts_with("/v1/")) else {
            continue;
        };
        let parameter = ParameterBuilder::new()
            .name("Idempotency-Key")
            .parameter_in(ParameterIn::Header)
            .required(Required::False)
            .description(Some(
                "Makes a retry safe: the same key with the same request within 24 hours \
                 answers the first answer (with `Idempotent-Replayed: true`) without doing \
                 or charging anything again; with another request, 422 \
                 `IDEMPOTENCY_KEY_REUSED`. 1 to 255 visible ASCII characters, such as a UUID; \
                 per organization",
            ))
            .schema(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .min_length(Some(1))
                    .max_length(Some(KEY_MAX_CHARS))
                    .pattern(Some("^[!-~]+$")),
            ))
            .build();
        operation
            .parameters
            .get_or_insert_with(Vec::new)
            .push(utoipa::openapi::RefOr::T(parameter));
        let reused = "IDEMPOTENCY_KEY_REUSED: the Idempotency-Key came with another request";
        match operation.responses.responses.get_mut("422") {
            Some(utoipa::openapi::RefOr::T(response)) => {
                response.description = format!("{}; or {reused}", response.description);
            }
            Some(_) => {}
            None => {
                operation.responses.responses.insert(
                    "422".to_owned(),
                    ResponseBuilder::new().description(reused).build().into(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_keep_their_headers_but_the_moments() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("content-type", "application/json"),
            ("location", "/v1/bloggers/jobs/1"),
            ("retry-after", "1"),
            ("x-request-id", "abc"),
            ("content-length", "12"),
            ("date", "Thu, 01 Jan 2026 00:00:00 GMT"),
            ("ratelimit", "limit=60, remaining=59, reset=1"),
            ("ratelimit-policy", "60;w=60"),
        ] {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let names: Vec<String> = kept_headers(&headers).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            ["content-type", "location", "retry-after", "x-request-id"]
        );
    }

    #[test]
    fn keys_are_one_header_of_visible_ascii() {
        let mut headers = HeaderMap::new();
        headers.insert(KEY_HEADER, HeaderValue::from_static("k-1"));
        assert_eq!(key_of(&headers).unwrap().as_str(), "k-1");
        headers.append(KEY_HEADER, HeaderValue::from_static("k-2"));
        assert_eq!(
            key_of(&headers).unwrap_err().field.as_deref(),
            Some("Idempotency-Key")
        );
        let mut headers = HeaderMap::new();
        headers.insert(KEY_HEADER, HeaderValue::from_static("a b"));
        assert!(key_of(&headers).is_err());
    }

    #[test]
    fn a_replay_says_so() {
        let r = replay(KeptAnswer {
            status: 202,
            headers: vec![
                ("location".into(), "/v1/bloggers/jobs/1".into()),
                ("x-request-id".into(), "first".into()),
            ],
            body: b"{}".to_vec(),
        });
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        assert_eq!(r.headers()[REPLAYED_HEADER], "true");
        assert_eq!(r.headers()["x-request-id"], "first");
        assert_eq!(r.headers()["content-type"], "application/json");
    }
}
