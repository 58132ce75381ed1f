//! API-key authentication of the public API.
//!
//! `Authorization: Bearer <key>`. The key's clear prefix finds its row; its
//! SHA-256 is compared in constant time. Verified keys are cached briefly
//! (so the hot read path costs one database query), so a revoked key
//! stops working within [`crate::ApiConfig::key_cache_ttl`].
//!
//! A key carries its [`Scopes`] (`read`, or `read` and `write`). On `/v1`,
//! the extractor also spends the key's general rate budget and checks the
//! route's scope ([`crate::v1::gate`], the one place that says which routes
//! write): 429 or 403 `INSUFFICIENT_SCOPE` before the handler runs. Other
//! faces of the same keys (an MCP server, say) ask
//! [`ApiKeyAuth::allows_write`] or [`ApiKeyAuth::require`].

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use moka::sync::Cache;
use vidpulse_domain::api_key;
use vidpulse_domain::api_key::{Scope, Scopes};
use vidpulse_domain::{ApiKeyId, Plan};
use vidpulse_store::{ApiKeyOwner, Organization};

use crate::error::{ApiError, ErrorCode};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// Recently verified keys, by the SHA-256 of the presented key.
#[derive(Debug, Clone)]
pub struct KeyCache(Cache<[u8; 32], ApiKeyOwner>);

impl KeyCache {
    /// A cache whose entries live `ttl`.
    pub fn new(ttl: Duration) -> Self {
        Self(
            Cache::builder()
                .max_capacity(100_000)
                .time_to_live(ttl)
                .build(),
        )
    }

    /// Forgets every cached key (after a revocation, say).
    pub fn clear(&self) {
        self.0.invalidate_all();
    }
}

/// The caller of a public-API request: a valid key and its organization.
#[derive(Debug, Clone)]
pub struct ApiKeyAuth {
    /// The key.
    pub key_id: ApiKeyId,
    /// Its organization (plan and limits as of the key's verification).
    pub org: Organization,
    /// What the key may do: `read` alone, or `read` and `write` (keys made
    /// before scopes existed have both).
    pub scopes: Scopes,
    /// The key's label.
    pub key_name: Option<String>,
    /// The key's clear prefix (`vpk_` and 8 more characters).
    pub key_prefix: String,
}

impl ApiKeyAuth {
    /// Fails with 402 `PAID_PLAN_REQUIRED` on the free plan.
    pub fn require_paid_plan(&self, upgrade_url: &str) -> Result<(), ApiError> {
        require_paid_plan(self.org.plan, upgrade_url)
    }

    /// Whether the key may write (track, edit, delete, refresh, send).
    pub fn allows_write(&self) -> bool {
        self.scopes.allows_write()
    }

    /// Whether the key has `scope`.
    pub fn allows(&self, scope: Scope) -> bool {
        self.scopes.allows(scope)
    }

    /// Fails with 403 `INSUFFICIENT_SCOPE` when the key lacks `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.allows(scope) {
            Ok(())
        } else {
            Err(insufficient_scope(scope, self.scopes))
        }
    }
}

/// 403 `INSUFFICIENT_SCOPE`: the key, of `scopes`, lacks `needed`.
pub fn insufficient_scope(needed: Scope, scopes: Scopes) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        ErrorCode::InsufficientScope,
        format!(
            "This API key's scopes ({scopes}) do not include `{needed}`, which this request needs; \
             use a key with the `{needed}` scope"
        ),
    )
    .with_details(serde_json::json!({
        "required_scope": needed.as_str(),
        "key_scopes": scopes,
    }))
}

/// Fails with 402 `PAID_PLAN_REQUIRED` (and where to upgrade) when `plan` is
/// free: one rule for an operation, whichever interface asks.
pub fn require_paid_plan(plan: Plan, upgrade_url: &str) -> Result<(), ApiError> {
    if plan.is_paid() {
        return Ok(());
    }
    let mut e = ApiError::new(
        StatusCode::PAYMENT_REQUIRED,
        ErrorCode::PaidPlanRequired,
        format!(
            "This operation requires a paid plan (pro or business); the organization is on the {} plan",
            Plan::Free
        ),
    );
    e.upgrade_url = Some(upgrade_url.to_owned());
    Err(e)
}

impl FromRequestParts<AppState> for ApiKeyAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        // Extracted (and admitted) once already for this request.
        if let Some(auth) = parts.extensions.get::<ApiKeyAuth>() {
            return Ok(auth.clone());
        }
        let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::MissingAuth,
                "Missing Authorization header; send `Authorization: Bearer <API key>`",
            ));
        };
        let invalid = || {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::InvalidApiKey,
                "Invalid API key",
            )
        };
        let presented = value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, key)| key.trim())
            .ok_or_else(invalid)?;
        let prefix = api_key::prefix_of(presented).ok_or_else(invalid)?;
        let hash = api_key::hash(presented);
        let owner = match app.keys.0.get(&hash) {
            Some(owner) => owner,
            None => {
                let found = app
                    .store
                    .api_keys_by_prefix(prefix)
                    .await?
                    .into_iter()
                    .find(|o| api_key::verify(presented, &o.key.key_hash))
                    .ok_or_else(invalid)?;
                app.keys.0.insert(hash, found.clone());
                found
            }
        };
        if let Some(ctx) = parts.extensions.get::<RequestContext>() {
            let _ = ctx.caller.set((owner.organization.id, owner.key.id));
        }
        let auth = ApiKeyAuth {
            key_id: owner.key.id,
            org: owner.organization,
            scopes: owner.key.scopes,
            key_name: owner.key.name,
            key_prefix: owner.key.prefix,
        };
        crate::v1::gate::admit(app, parts, &auth).await?;
        parts.extensions.insert(auth.clone());
        Ok(auth)
    }
}
