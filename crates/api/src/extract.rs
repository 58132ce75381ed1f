//! Extractors whose failures become our errors, never axum's plain-text
//! rejections: a bad body is `VALIDATION_ERROR` (413 `PAYLOAD_TOO_LARGE` when
//! too big), a query is read leniently and validated by the handler.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::Value;

use crate::error::{ApiError, ErrorCode};
use crate::middleware::RequestContext;

impl<S: Send + Sync> FromRequestParts<S> for RequestContext {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<RequestContext>()
            .cloned()
            .ok_or_else(|| ApiError::internal(&MissingContext))
    }
}

#[derive(Debug, thiserror::Error)]
#[error("request context missing: the request middleware is not installed")]
struct MissingContext;

/// A JSON body, checked for its content type, size and syntax.
#[derive(Debug)]
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json"
                    || (mime.starts_with("application/") && mime.ends_with("+json"))
            })
            .unwrap_or(false);
        if !is_json {
            return Err(ApiError::validation(
                "body",
                "Content-Type must be application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::PayloadTooLarge,
                    "The request body is larger than 1 MiB",
                )
            } else {
                ApiError::validation("body", format!("Could not read the body: {rejection}"))
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::validation("body", format!("Malformed JSON: {e}")))
    }
}

/// The query string as name → last value. Never fails; handlers validate.
#[derive(Debug, Default)]
pub struct QueryParams(pub HashMap<String, String>);

impl QueryParams {
    /// The value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        Ok(QueryParams(
            url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
        ))
    }
}

/// The single path parameter, percent-decoded. A parameter that does not
/// decode is treated like a missing record (404), never as a 400 or a 500.
#[derive(Debug)]
pub struct PathParam(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathParam {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(p)| PathParam(p))
            .map_err(|_| ApiError::not_found("Not found"))
    }
}
