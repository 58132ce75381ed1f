//! The organization a dashboard request acts on: `X-Organization-ID`, the
//! caller's membership there, and the role an endpoint needs.
//!
//! An organization the caller does not belong to answers exactly like one
//! that does not exist (404), so ids of other organizations reveal nothing.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::identity::Role;
use vidpulse_store::User;

use crate::dashboard::identity::UserAuth;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// The header naming the organization.
pub const ORG_HEADER: &str = "x-organization-id";

/// A signed-in member of the organization in `X-Organization-ID`.
#[derive(Debug, Clone)]
pub struct OrgAuth {
    /// The caller.
    pub user: User,
    /// The organization.
    pub org: OrgId,
    /// The caller's role there.
    pub role: Role,
}

impl OrgAuth {
    /// Refuses with 403 `INSUFFICIENT_PERMISSIONS` below `needed`.
    pub fn require(&self, needed: Role) -> Result<(), ApiError> {
        if self.role >= needed {
            Ok(())
        } else {
            Err(self.lacks(needed))
        }
    }

    /// Refuses with 402 `PAID_PLAN_REQUIRED` (and where to upgrade) when
    /// the organization is on the free plan.
    pub async fn require_paid_plan(&self, app: &AppState) -> Result<(), ApiError> {
        let org = app
            .store
            .organization(self.org)
            .await?
            .ok_or_else(|| ApiError::not_found("No such organization"))?;
        crate::auth::require_paid_plan(org.plan, &app.config.upgrade_url)
    }

    /// The answer to this caller for an action that needs role `needed`.
    pub fn lacks(&self, needed: Role) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::InsufficientPermissions,
            format!(
                "This needs the {} role or above; yours is {}",
                needed.as_str(),
                self.role.as_str()
            ),
        )
    }
}

impl FromRequestParts<AppState> for OrgAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        let UserAuth { user } = UserAuth::from_request_parts(parts, app).await?;
        let header = parts.headers.get(ORG_HEADER).ok_or_else(|| {
            ApiError::validation(
                "X-Organization-ID",
                "The X-Organization-ID header is required",
            )
        })?;
        let org = header
            .to_str()
            .ok()
            .and_then(|v| Uuid::parse_str(v.trim()).ok())
            .map(OrgId)
            .ok_or_else(|| {
                ApiError::validation("X-Organization-ID", "X-Organization-ID must be a UUID")
            })?;
        let role = app
            .store
            .membership_role(user.id, org)
            .await?
            .ok_or_else(|| ApiError::not_found("No such organization"))?;
        Ok(Self { user, org, role })
    }
}
