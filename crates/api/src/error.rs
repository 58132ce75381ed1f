//! The one error type of the HTTP interfaces, and how it is rendered.
//!
//! A handler or extractor returns [`ApiError`]; its `IntoResponse` only logs
//! an internal cause and records the error in the response's extensions. The
//! request middleware ([`crate::middleware`]) then renders it in the envelope
//! the endpoint uses (flat or nested, docs/api.md "Envelopes") with the request id.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use vidpulse_store::StoreError;

use crate::openapi::{FlatError, NestedError, NestedErrorDetail};

/// Machine-readable error codes of both interfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A missing or invalid field or parameter, or a malformed body.
    ValidationError,
    /// An invalid query parameter of the stats listing.
    InvalidParameter,
    /// No `Authorization` header.
    MissingAuth,
    /// An unknown, revoked or malformed API key.
    InvalidApiKey,
    /// A dashboard token that is malformed, expired, wrongly signed or not HS256.
    InvalidToken,
    /// A token's e-mail address belongs to another identity.
    IdentityConflict,
    /// Signing in with an unknown address or a wrong password.
    InvalidCredentials,
    /// A state-changing request of a session without its CSRF token.
    CsrfFailed,
    /// Setting a first password for an address that has one.
    PasswordAlreadySet,
    /// Removing the last admin of an organization.
    LastAdmin,
    /// Demoting or removing the only owner of an organization.
    LastOwner,
    /// The request took longer than the server allows.
    RequestTimeout,
    /// Accepting or declining an expired invitation.
    InviteExpired,
    /// Accepting or declining an invitation already answered.
    InviteNotPending,
    /// Bad credentials on trend search.
    AuthenticationFailed,
    /// A paid operation on the free plan.
    PaidPlanRequired,
    /// The plan's tracked-video quota is reached.
    SubscriptionLimit,
    /// The caller may not do this.
    InsufficientPermissions,
    /// The API key's scopes do not include what the request needs.
    InsufficientScope,
    /// PATCH of a video that does not exist for the caller.
    VideoNotFound,
    /// Anything else that does not exist (including unknown paths).
    NotFound,
    /// The HTTP method is not served on this path.
    MethodNotAllowed,
    /// The body is over the size limit.
    PayloadTooLarge,
    /// Too many requests.
    RateLimitExceeded,
    /// A server-side failure.
    InternalError,
    /// The database is unreachable for now.
    ServiceUnavailable,
    /// An upstream platform failed.
    ExternalApiError,
    /// The organization tracks this creator already.
    CreatorAlreadyTracked,
    /// A job for this creator is in flight.
    CreatorTrackInFlight,
    /// A job reactivating this deactivated creator is in flight.
    CreatorReactivateInFlight,
    /// The organization's creator cap is reached.
    TrackedCreatorsLimit,
    /// The creator lookup found no creator tracked by the organization.
    BloggerNotTracked,
    /// The job ran past the timeout and was closed.
    JobTimeout,
    /// The platform has no such account.
    PlatformNotFound,
    /// A manual refresh asked again within the cooldown, or while a read of
    /// the video is under way.
    RefreshTooSoon,
    /// A manual refresh of a video whose tracking window has ended.
    TrackingEnded,
    /// A manual refresh of a video the platform reports removed or private.
    VideoUnavailable,
    /// Creating a webhook endpoint beyond the organization's limit.
    WebhookLimit,
    /// An e-mail the request exists to send could not be sent.
    EmailFailed,
    /// Another campaign of the organization has this name, in some letter case.
    CampaignExists,
    /// A refresh of a paused creator.
    CreatorPaused,
    /// An `Idempotency-Key` sent again with another request.
    IdempotencyKeyReused,
}

impl ErrorCode {
    /// The code as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::InvalidParameter => "INVALID_PARAMETER",
            ErrorCode::MissingAuth => "MISSING_AUTH",
            ErrorCode::InvalidApiKey => "INVALID_API_KEY",
            ErrorCode::InvalidToken => "INVALID_TOKEN",
            ErrorCode::IdentityConflict => "IDENTITY_CONFLICT",
            ErrorCode::InvalidCredentials => "INVALID_CREDENTIALS",
            ErrorCode::CsrfFailed => "CSRF_FAILED",
            ErrorCode::PasswordAlreadySet => "PASSWORD_ALREADY_SET",
            ErrorCode::LastAdmin => "LAST_ADMIN",
            ErrorCode::LastOwner => "LAST_OWNER",
            ErrorCode::RequestTimeout => "REQUEST_TIMEOUT",
            ErrorCode::InviteExpired => "INVITE_EXPIRED",
            ErrorCode::InviteNotPending => "INVITE_NOT_PENDING",
            ErrorCode::AuthenticationFailed => "AUTHENTICATION_FAILED",
            ErrorCode::PaidPlanRequired => "PAID_PLAN_REQUIRED",
            ErrorCode::SubscriptionLimit => "SUBSCRIPTION_LIMIT",
            ErrorCode::InsufficientPermissions => "INSUFFICIENT_PERMISSIONS",
            ErrorCode::InsufficientScope => "INSUFFICIENT_SCOPE",
            ErrorCode::VideoNotFound => "VIDEO_NOT_FOUND",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::RateLimitExceeded => "RATE_LIMIT_EXCEEDED",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            ErrorCode::ExternalApiError => "EXTERNAL_API_ERROR",
            ErrorCode::CreatorAlreadyTracked => "CREATOR_ALREADY_TRACKED",
            ErrorCode::CreatorTrackInFlight => "CREATOR_TRACK_IN_FLIGHT",
            ErrorCode::CreatorReactivateInFlight => "CREATOR_REACTIVATE_IN_FLIGHT",
            ErrorCode::TrackedCreatorsLimit => "TRACKED_CREATORS_LIMIT",
            ErrorCode::BloggerNotTracked => "BLOGGER_NOT_TRACKED",
            ErrorCode::JobTimeout => "JOB_TIMEOUT",
            ErrorCode::PlatformNotFound => "PLATFORM_NOT_FOUND",
            ErrorCode::RefreshTooSoon => "REFRESH_TOO_SOON",
            ErrorCode::TrackingEnded => "TRACKING_ENDED",
            ErrorCode::VideoUnavailable => "VIDEO_UNAVAILABLE",
            ErrorCode::WebhookLimit => "WEBHOOK_LIMIT",
            ErrorCode::EmailFailed => "EMAIL_FAILED",
            ErrorCode::CampaignExists => "CAMPAIGN_EXISTS",
            ErrorCode::CreatorPaused => "CREATOR_PAUSED",
            ErrorCode::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
        }
    }
}

/// The two error envelopes of the public API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorForm {
    /// `{"success": false, "error": {"code", "message", "request_id", ...}}`.
    Nested,
    /// `{"success": false, "error": "<message>", "code"?, "details"?, "request_id"}`.
    Flat {
        /// Whether the flat form carries `code` (stats and usage do; the
        /// video reads' 404 does not).
        with_code: bool,
    },
}

/// An error answer. Boxed, so `Result<T, ApiError>` stays small on the happy path.
#[derive(Debug, Clone)]
pub struct ApiError(Box<ErrorDetails>);

/// What an error answer says.
#[derive(Debug, Clone)]
pub struct ErrorDetails {
    /// HTTP status.
    pub status: StatusCode,
    /// Error code.
    pub code: ErrorCode,
    /// Human-readable message.
    pub message: String,
    /// The offending field, for validation errors.
    pub field: Option<String>,
    /// Where to upgrade, for plan gates.
    pub upgrade_url: Option<String>,
    /// Extra details (flat form), or extra fields (nested form).
    pub details: Option<Value>,
    /// Seconds to wait, sent as `Retry-After`.
    pub retry_after: Option<u64>,
    /// The envelope; `None` lets the endpoint decide.
    pub form: Option<ErrorForm>,
}

impl std::ops::Deref for ApiError {
    type Target = ErrorDetails;
    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl ApiError {
    /// An error with a status, a code and a message.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self(Box::new(ErrorDetails {
            status,
            code,
            message: message.into(),
            field: None,
            upgrade_url: None,
            details: None,
            retry_after: None,
            form: None,
        }))
    }

    /// 400 `VALIDATION_ERROR` naming `field`.
    pub fn validation(field: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, ErrorCode::ValidationError, message).with_field(field)
    }

    /// 400 `INVALID_PARAMETER` (stats listing).
    pub fn invalid_parameter(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidParameter,
            message,
        )
    }

    /// 404 `NOT_FOUND`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
    }

    /// 500 `INTERNAL_ERROR` with a generic message; the cause is logged here.
    pub fn internal(cause: &dyn std::error::Error) -> Self {
        tracing::error!(error = %error_chain(cause), "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::InternalError,
            "Internal server error",
        )
    }

    /// Names the offending field.
    pub fn with_field(mut self, field: &str) -> Self {
        self.field = Some(field.to_owned());
        self
    }

    /// Adds details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Sets the envelope.
    pub fn with_form(mut self, form: ErrorForm) -> Self {
        self.form = Some(form);
        self
    }
}

impl ErrorDetails {
    /// Renders the body in `form` with the request id: the envelopes the
    /// OpenAPI document describes ([`NestedError`], [`FlatError`]).
    pub fn body(&self, form: ErrorForm, request_id: &str) -> Value {
        let body = match form {
            ErrorForm::Nested => {
                // A code's own fields never replace the envelope's.
                let mut extra = match &self.details {
                    Some(Value::Object(extra)) => extra.clone(),
                    _ => Map::new(),
                };
                extra.retain(|key, _| match key.as_str() {
                    "code" | "message" | "request_id" => false,
                    "field" => self.field.is_none(),
                    "upgrade_url" => self.upgrade_url.is_none(),
                    _ => true,
                });
                serde_json::to_value(NestedError {
                    success: false,
                    error: NestedErrorDetail {
                        code: self.code.as_str(),
                        message: self.message.clone(),
                        request_id: request_id.to_owned(),
                        field: self.field.clone(),
                        upgrade_url: self.upgrade_url.clone(),
                        extra,
                    },
                })
            }
            ErrorForm::Flat { with_code } => serde_json::to_value(FlatError {
                success: false,
                error: self.message.clone(),
                request_id: request_id.to_owned(),
                code: with_code.then_some(self.code.as_str()),
                details: self.details.clone(),
                field: self.field.clone(),
                upgrade_url: self.upgrade_url.clone(),
            }),
        };
        // Only a map with keys that are not strings fails to become a JSON
        // value, and these have none.
        body.unwrap_or_default()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        if let Some(secs) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response.extensions_mut().insert(self);
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(ref msg) => {
                tracing::error!(error = %msg, "database unavailable");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::ServiceUnavailable,
                    "The service is temporarily unavailable; retry shortly",
                )
                .with_retry_after(5)
            }
            other => ApiError::internal(&other),
        }
    }
}

impl ApiError {
    /// Sets `Retry-After`.
    pub fn with_retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }
}

/// An error and its sources, joined with `: `.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push_str(": ");
        out.push_str(&s.to_string());
        cur = s.source();
    }
    out
}
