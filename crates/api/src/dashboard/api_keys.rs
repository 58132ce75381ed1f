//! The organization's API keys, for admins (an addition of ours; README, "The
//! dashboard API"): create (the key is shown once), list, revoke.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{ApiKeyId, api_key};
use vidpulse_store::{ApiKeyRecord, NewApiKey};

use crate::app::account::KeyScope;
use crate::app::rfc3339;
use crate::dashboard::access::OrgAuth;
use crate::dashboard::organizations::MAX_NAME_CHARS;
use crate::dashboard::team::Message;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, PathParam};
use crate::input::{Fault, Refusals, Trimmed, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The API key routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}

/// An API key as listed: never the key itself.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyItem {
    /// Id.
    pub key_id: Uuid,
    /// The key's clear prefix, to recognise it.
    pub prefix: String,
    /// Its label.
    pub name: Option<String>,
    /// What it may do: `["read"]` (read only) or `["read", "write"]` (full
    /// access).
    #[schema(value_type = Vec<KeyScope>, example = json!(["read", "write"]))]
    pub scopes: Scopes,
    /// When it was created.
    pub created_at: String,
    /// When it was last used, if ever.
    pub last_used_at: Option<String>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
}

/// A new key: `api_key` is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedKey {
    /// The key.
    pub api_key: String,
    /// The listing of it.
    #[serde(flatten)]
    pub key: KeyItem,
}

fn item(k: ApiKeyRecord) -> KeyItem {
    KeyItem {
        key_id: k.id.0,
        prefix: k.prefix,
        name: k.name,
        scopes: k.scopes,
        created_at: rfc3339(k.created_at),
        last_used_at: k.last_used_at.map(rfc3339),
        revoked_at: k.revoked_at.map(rfc3339),
    }
}

/// Body of `POST /organizations/api-keys`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateKeyRequest {
    /// Optional string or `null` (the default: no label): the key's label;
    /// trimmed, 1 to 200 characters.
    #[schema(value_type = Option<String>, min_length = 1, max_length = 200)]
    name: Option<Trimmed<1, MAX_NAME_CHARS>>,
    /// Optional: what the key may do, `["read"]` (read only) or `["read",
    /// "write"]` (full access, the default; also when `null`).
    #[schema(value_type = Option<Vec<KeyScope>>, example = json!(["read"]))]
    scopes: Option<Scopes>,
}

impl Refusals for CreateKeyRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let (field, message) = match (fault.field(), fault.sent_in(fault.field())) {
            ("name", Some(Value::String(_))) => (
                "name",
                format!("`name` must be 1 to {MAX_NAME_CHARS} characters"),
            ),
            ("name", _) => ("name", "`name` must be a string".to_owned()),
            ("scopes", Some(Value::Array(names))) => {
                let names: Option<Vec<&str>> = names.iter().map(Value::as_str).collect();
                let why = match names.map(Scopes::from_names) {
                    Some(Err(e)) => e.to_string(),
                    _ => "the scopes are strings, `read` and `write`".to_owned(),
                };
                ("scopes", format!("`scopes`: {why}"))
            }
            ("scopes", _) => (
                "scopes",
                "`scopes` must be an array: `[\"read\"]` or `[\"read\", \"write\"]`".to_owned(),
            ),
            _ => return not_an_object(),
        };
        ApiError::validation(field, message)
    }
}

/// The organization's keys, newest first. Admins.
#[utoipa::path(
    get, path = "/organizations/api-keys", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "Keys", body = Envelope<Vec<KeyItem>>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn list(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Vec<KeyItem>>>, ApiError> {
    auth.require(Role::Admin)?;
    let keys = app.store.list_api_keys(auth.org).await?;
    Ok(ok(keys.into_iter().map(item).collect(), Meta::of(&ctx)))
}

/// Creates a key; the answer holds it once. Admins.
#[utoipa::path(
    post, path = "/organizations/api-keys", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = CreateKeyRequest, description = "`{\"name\": \"CI\", \"scopes\": [\"read\"]}` (both optional; full access by default)"),
    responses(
        (status = 201, description = "Created", body = Envelope<CreatedKey>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
    ),
    security(("bearer_jwt" = []))
)]
async fn create(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<CreateKeyRequest>,
) -> Result<(StatusCode, Json<Envelope<CreatedKey>>), ApiError> {
    auth.require(Role::Admin)?;
    let body = body.parse()?;
    let name = body.name.map(|Trimmed(name)| name);
    let secret = api_key::generate();
    let key = app
        .store
        .create_api_key(NewApiKey {
            organization_id: auth.org,
            name,
            prefix: secret.prefix.clone(),
            key_hash: secret.hash.to_vec(),
            scopes: body.scopes.unwrap_or_default(),
            now: app.clock.now(),
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        ok(
            CreatedKey {
                api_key: secret.secret,
                key: item(key),
            },
            Meta::of(&ctx),
        ),
    ))
}

/// Revokes a key: it stops working at once on this node, within the key
/// cache's lifetime (30 s) on others. Admins.
#[utoipa::path(
    delete, path = "/organizations/api-keys/{key_id}", tag = "dashboard",
    params(
        ("X-Organization-ID" = Uuid, Header, description = "The organization"),
        ("key_id" = Uuid, Path, description = "The key"),
    ),
    responses(
        (status = 200, description = "Revoked", body = Envelope<Message>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: no such active key in this organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn revoke(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    PathParam(key_id): PathParam,
) -> Result<Json<Envelope<Message>>, ApiError> {
    auth.require(Role::Admin)?;
    let key = Uuid::parse_str(&key_id).map_err(|_| ApiError::not_found("No such API key"))?;
    if !app
        .store
        .revoke_api_key(auth.org, ApiKeyId(key), app.clock.now())
        .await?
    {
        return Err(ApiError::not_found("No such API key"));
    }
    app.keys.clear();
    Ok(ok(
        Message {
            message: "API key revoked".into(),
        },
        Meta::of(&ctx),
    ))
}
