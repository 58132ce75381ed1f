//! Extractors whose failures become our errors, never axum's plain-text
//! rejections: a bad body is `VALIDATION_ERROR` (413 `PAYLOAD_TOO_LARGE` when
//! too big). A body and a query string are then read as their documented
//! types ([`crate::input`]) where the handler asks: a handler's role or plan
//! check answers before the fields are looked at, as the spec orders them.
//!
//! No text with a NUL character (U+0000) gets past them: PostgreSQL refuses
//! it in every text column while SQLite stores it, so the extractors refuse it
//! for both backends alike, before a handler writes or charges anything. A
//! body names the first field whose text holds one, a query its parameter
//! (both 400 `VALIDATION_ERROR`); a path parameter answers 404, like any
//! other path that names nothing.

use std::marker::PhantomData;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::{Map, Value};

use crate::error::{ApiError, ErrorCode};
use crate::input::Input;
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

/// A JSON body, checked for its content type, size, syntax and NUL
/// characters; [`JsonBody::parse`] reads it as `T`.
pub struct JsonBody<T> {
    body: Value,
    typed_as: PhantomData<fn() -> T>,
}

impl<T: Input> JsonBody<T> {
    /// The body as `T`, or the answer to its first fault.
    pub fn parse(&self) -> Result<T, ApiError> {
        T::from_json(&self.body)
    }
}

impl<T> JsonBody<T> {
    /// A body already read as JSON (an MCP tool's arguments), checked for
    /// NUL characters as a request's body is.
    pub(crate) fn from_value(body: Value) -> Result<Self, ApiError> {
        if let Some(nul) = find_nul(&body) {
            return Err(nul.into_error());
        }
        Ok(JsonBody {
            body,
            typed_as: PhantomData,
        })
    }
}

impl<S: Send + Sync, T> FromRequest<S> for JsonBody<T> {
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
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::validation("body", format!("Malformed JSON: {e}")))?;
        if let Some(nul) = find_nul(&value) {
            return Err(nul.into_error());
        }
        Ok(JsonBody {
            body: value,
            typed_as: PhantomData,
        })
    }
}

/// Where a JSON value holds a NUL character: the path of the field (`notes`,
/// `settings.campaign`, `tags[1]`; `body` for the body itself), and whether
/// it is in a field's name rather than in its value.
#[derive(Debug, PartialEq, Eq)]
struct NulAt {
    path: String,
    in_name: bool,
}

impl NulAt {
    fn into_error(self) -> ApiError {
        let message = if self.in_name {
            format!(
                "A field name in `{}` contains a NUL character (\\u0000), which is not accepted",
                self.path
            )
        } else {
            format!(
                "`{}` contains a NUL character (\\u0000), which is not accepted",
                self.path
            )
        };
        ApiError::validation(&self.path, message)
    }
}

/// The first NUL character in `value`, in document order. serde_json nests
/// at most 128 levels, which bounds the recursion.
fn find_nul(value: &Value) -> Option<NulAt> {
    fn walk(value: &Value, path: &mut String) -> Option<NulAt> {
        let at = |path: &str, in_name: bool| NulAt {
            path: if path.is_empty() {
                "body".to_owned()
            } else {
                path.to_owned()
            },
            in_name,
        };
        match value {
            Value::String(s) if s.contains('\0') => Some(at(path, false)),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let found = walk(item, path);
                path.truncate(len);
                found
            }),
            Value::Object(fields) => fields.iter().find_map(|(name, item)| {
                if name.contains('\0') {
                    return Some(at(path, true));
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
                let found = walk(item, path);
                path.truncate(len);
                found
            }),
            _ => None,
        }
    }
    walk(value, &mut String::new())
}

/// The query string, a parameter given twice counting once (its last
/// value) for [`Query::parse`], which reads it as `T`; every value of a
/// repeatable one is in [`Query::all`]. Checked for NUL characters.
pub struct Query<T> {
    params: Value,
    repeated: Vec<(String, String)>,
    typed_as: PhantomData<fn() -> T>,
}

impl<T: Input> Query<T> {
    /// The query as `T`, or the answer to its first fault.
    pub fn parse(&self) -> Result<T, ApiError> {
        T::from_json(&self.params)
    }
}

impl<T> Query<T> {
    /// The first parameter not in `known`, if any was sent.
    pub fn unknown<'a>(&'a self, known: &[&str]) -> Option<&'a str> {
        self.repeated
            .iter()
            .map(|(n, _)| n.as_str())
            .find(|n| !known.contains(n))
    }

    /// Every value of parameter `name`, in the order sent.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.repeated
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl<S: Send + Sync, T> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        Query::from_pairs(url::form_urlencoded::parse(query.as_bytes()).into_owned())
    }
}

impl<T> Query<T> {
    /// The query of these parameters, in order (a repeated one counts once
    /// for [`Query::parse`], every value in [`Query::all`]), checked for NUL
    /// characters: a query string's, or an MCP tool's arguments.
    pub(crate) fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, ApiError> {
        let mut params = Map::new();
        let mut repeated = Vec::new();
        for (name, value) in pairs {
            if name.contains('\0') {
                return Err(ApiError::validation(
                    "query",
                    "A query parameter name contains a NUL character (%00), which is not accepted",
                ));
            }
            if value.contains('\0') {
                return Err(ApiError::validation(
                    &name,
                    format!("`{name}` contains a NUL character (%00), which is not accepted"),
                ));
            }
            repeated.push((name.clone(), value.clone()));
            params.insert(name, Value::String(value));
        }
        Ok(Query {
            params: Value::Object(params),
            repeated,
            typed_as: PhantomData,
        })
    }
}

/// The single path parameter, percent-decoded. A parameter that does not
/// decode, or holds a NUL character, is treated like a missing record (404),
/// never as a 400 or a 500.
#[derive(Debug)]
pub struct PathParam(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathParam {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .ok()
            .filter(|axum::extract::Path(p)| !p.contains('\0'))
            .map(|axum::extract::Path(p)| PathParam(p))
            .ok_or_else(|| ApiError::not_found("Not found"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn nul(value: Value) -> Option<(String, bool)> {
        find_nul(&value).map(|n| (n.path, n.in_name))
    }

    #[test]
    fn the_first_nul_is_named_by_its_path() {
        assert_eq!(nul(json!({"notes": "ok", "tags": ["a", "b"]})), None);
        assert_eq!(nul(json!("a\u{0}")), Some(("body".into(), false)));
        assert_eq!(
            nul(json!({"notes": "a\u{0}b"})),
            Some(("notes".into(), false))
        );
        assert_eq!(
            nul(json!({"tags": ["a", "\u{0}"]})),
            Some(("tags[1]".into(), false))
        );
        assert_eq!(
            nul(json!({"settings": {"campaign": "x\u{0}"}})),
            Some(("settings.campaign".into(), false))
        );
        assert_eq!(
            nul(json!({"invites": [{"email": "\u{0}@x.com"}]})),
            Some(("invites[0].email".into(), false))
        );
        assert_eq!(nul(json!({"a\u{0}": 1})), Some(("body".into(), true)));
        assert_eq!(nul(json!({"s": {"a\u{0}": 1}})), Some(("s".into(), true)));
        assert_eq!(nul(json!([[1, "\u{0}"]])), Some(("[0][1]".into(), false)));
    }
}
