//! Signing in to the web app (docs/api.md, "Signing in"): e-mail and
//! password, sessions kept server-side, one-time links that set a password.
//!
//! A session stands in for the dashboard API's bearer token: with its cookie
//! (and, on state-changing requests, its CSRF token) every dashboard
//! endpoint answers as it does for the session's user.

pub mod password;
pub mod reset_queue;
pub mod session;
mod throttle;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{AppendHeaders, IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;
use vidpulse_domain::names::EmailAddress;
use vidpulse_store::{InvitationPassword, NewSession, User};

use crate::envelope::{Envelope, Meta, ok};
use crate::error::{ApiError, ErrorCode};
use crate::extract::JsonBody;
use crate::input::{Fault, Id, Refusals, bad_id, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

pub use password::Passwords;
pub use reset_queue::ResetQueue;
use session::SessionAuth;
pub use throttle::SignInThrottle;

/// How long a forgotten-password link works.
pub const RESET_LINK_TTL: Duration = Duration::hours(1);

/// The sign-in routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sign_in))
        .routes(routes!(current))
        .routes(routes!(sign_out))
        .routes(routes!(set_password))
        .routes(routes!(forgot_password))
        .routes(routes!(invitation_password))
        .routes(routes!(sessions))
        .routes(routes!(revoke))
}

/// Body of `POST /auth/sign-in`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SignInRequest {
    /// The account's e-mail address.
    email: String,
    /// Its password.
    password: String,
}

impl Refusals for SignInRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "email" => ApiError::validation("email", "`email` must be an e-mail address"),
            "password" => ApiError::validation("password", "`password` must be a string"),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /auth/set-password`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetPasswordRequest {
    /// The token of the link (`/set-password?token=…`).
    token: String,
    /// The new password: 10 to 1024 characters.
    password: String,
}

impl Refusals for SetPasswordRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "token" => bad_token(),
            "password" => ApiError::validation("password", "`password` must be a string"),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /auth/forgot-password`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ForgotPasswordRequest {
    /// The account's e-mail address.
    email: String,
}

impl Refusals for ForgotPasswordRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "email" => ApiError::validation("email", "`email` must be an e-mail address"),
            _ => not_an_object(),
        }
    }
}

/// Body of `POST /auth/invitation-password`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct InvitationPasswordRequest {
    /// Required: the token of the invitation's e-mailed link
    /// (`/invitations/{id}?token=…`); the id alone proves nothing.
    token: String,
    /// Optional: the invitation's id; when sent, it must be the token's.
    #[serde(default)]
    #[schema(value_type = Option<Uuid>)]
    invite_id: Option<Id>,
    /// The new account's password: 10 to 1024 characters.
    password: String,
}

impl Refusals for InvitationPasswordRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "token" => bad_token(),
            "invite_id" => bad_id(fault),
            "password" => ApiError::validation("password", "`password` must be a string"),
            _ => not_an_object(),
        }
    }
}

/// The answer to a `token` that is not a string.
pub(crate) fn bad_token() -> ApiError {
    ApiError::validation("token", "`token` must be the link's token")
}

/// The answer to a link's token that is unknown, used or expired (a
/// set-password link or an invitation's): one answer for all three.
pub(crate) fn unknown_link() -> ApiError {
    ApiError::validation(
        "token",
        "This link is unknown, was used already or has expired; ask for a new one",
    )
}

/// Body of `POST /auth/sessions/revoke`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RevokeSessionRequest {
    /// The session's `id` (from `GET /auth/sessions`).
    #[schema(value_type = Uuid)]
    session_id: Id,
}

impl Refusals for RevokeSessionRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        match fault.field() {
            "session_id" => bad_id(fault),
            _ => not_an_object(),
        }
    }
}

/// The signed-in user.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionUser {
    /// The user's id.
    pub id: Uuid,
    /// Their e-mail address.
    pub email: String,
    /// Their interface language.
    pub language: String,
}

/// A session, as sign-in and `GET /auth/session` answer it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionAnswer {
    /// Who is signed in.
    pub user: SessionUser,
    /// Send it in `X-CSRF-Token` on every POST, PUT, PATCH and DELETE.
    pub csrf_token: String,
    /// When the session ends.
    pub expires_at: DateTime<Utc>,
}

/// A session in the user's list.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionItem {
    /// The session's id.
    pub id: Uuid,
    /// When it started.
    pub created_at: DateTime<Utc>,
    /// When it was last used (to the minute).
    pub last_seen_at: DateTime<Utc>,
    /// When it ends.
    pub expires_at: DateTime<Utc>,
    /// The browser it was started from.
    pub user_agent: Option<String>,
    /// Whether it is the session of this request.
    pub current: bool,
}

/// A confirmation.
#[derive(Debug, Serialize, ToSchema)]
pub struct Message {
    /// What happened.
    pub message: String,
}

fn answer(user: User, token: &str, expires_at: DateTime<Utc>) -> SessionAnswer {
    SessionAnswer {
        user: SessionUser {
            id: user.id.0,
            email: user.email,
            language: user.language,
        },
        csrf_token: session::csrf_token(token),
        expires_at,
    }
}

/// Starts a session for `user`; the answer with its cookie.
async fn start(
    app: &AppState,
    ctx: &RequestContext,
    headers: &HeaderMap,
    user: User,
) -> Result<Response, ApiError> {
    let token = session::new_token();
    let now = app.clock.now();
    let expires_at = now + Duration::days(session::SESSION_DAYS);
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|ua| ua.chars().take(300).collect::<String>());
    app.store
        .start_session(NewSession {
            token_hash: &session::token_hash(&token),
            user: user.id,
            user_agent: user_agent.as_deref(),
            now,
            expires_at,
        })
        .await?;
    let cookie = session::set_cookie(app, &token, expires_at);
    Ok((
        AppendHeaders([(header::SET_COOKIE, cookie)]),
        ok(answer(user, &token, expires_at), Meta::of(ctx)),
    )
        .into_response())
}

fn email_of(sent: &str) -> Result<EmailAddress, ApiError> {
    EmailAddress::parse(sent)
        .map_err(|_| ApiError::validation("email", "`email` must be an e-mail address"))
}

/// Signs in with e-mail address and password.
#[utoipa::path(
    post, path = "/auth/sign-in", tag = "sign-in",
    request_body(content = SignInRequest, description = "`{\"email\": \"…\", \"password\": \"…\"}`"),
    responses(
        (status = 200, description = "Signed in; the `vidpulse_session` cookie is set", body = Envelope<SessionAnswer>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "INVALID_CREDENTIALS: unknown address, no password set, or a wrong one"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED: too many attempts for this address; see `Retry-After`"),
    )
)]
async fn sign_in(
    State(app): State<AppState>,
    ctx: RequestContext,
    headers: HeaderMap,
    body: JsonBody<SignInRequest>,
) -> Result<Response, ApiError> {
    let body = body.parse()?;
    let email = email_of(&body.email)?;
    app.sign_ins.attempt(&email)?;
    let found = app.store.password_of(email.as_str()).await?;
    let stored = found.as_ref().and_then(|(_, hash)| hash.as_deref());
    let matches = app.passwords.verify(&body.password, stored).await?;
    match found {
        Some((user, _)) if matches => start(&app, &ctx, &headers, user).await,
        _ => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::InvalidCredentials,
            "Wrong e-mail address or password",
        )),
    }
}

/// The session of this request: who is signed in, and the CSRF token.
#[utoipa::path(
    get, path = "/auth/session", tag = "sign-in",
    responses(
        (status = 200, description = "Signed in", body = Envelope<SessionAnswer>),
        (status = 401, description = "MISSING_AUTH (no session cookie) or INVALID_TOKEN (the session has ended)"),
    )
)]
async fn current(ctx: RequestContext, auth: SessionAuth) -> Json<Envelope<SessionAnswer>> {
    ok(
        answer(auth.user, &auth.token, auth.session.expires_at),
        Meta::of(&ctx),
    )
}

/// Signs out: ends this session and clears its cookie.
#[utoipa::path(
    post, path = "/auth/sign-out", tag = "sign-in",
    params(("X-CSRF-Token" = String, Header, description = "The session's CSRF token")),
    responses(
        (status = 200, description = "Signed out", body = Envelope<Message>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "CSRF_FAILED"),
    )
)]
async fn sign_out(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: SessionAuth,
) -> Result<Response, ApiError> {
    app.store
        .end_session_by_token(&session::token_hash(&auth.token))
        .await?;
    Ok((
        AppendHeaders([(header::SET_COOKIE, session::clear_cookie(&app))]),
        ok(
            Message {
                message: "Signed out".into(),
            },
            Meta::of(&ctx),
        ),
    )
        .into_response())
}

/// Sets a password with a one-time link's token (from
/// `vidpulse admin create-user` or a forgotten-password e-mail), ends the
/// user's other sessions and signs them in.
#[utoipa::path(
    post, path = "/auth/set-password", tag = "sign-in",
    request_body(content = SetPasswordRequest, description = "`{\"token\": \"…\", \"password\": \"…\"}`"),
    responses(
        (status = 200, description = "Password set and signed in", body = Envelope<SessionAnswer>),
        (status = 400, description = "VALIDATION_ERROR: `password` breaks the rules, or `token` is unknown, used or expired"),
    )
)]
async fn set_password(
    State(app): State<AppState>,
    ctx: RequestContext,
    headers: HeaderMap,
    body: JsonBody<SetPasswordRequest>,
) -> Result<Response, ApiError> {
    let body = body.parse()?;
    password::check(&body.password)?;
    let token_hash = session::sent_token_hash(&body.token).ok_or_else(unknown_link)?;
    let hash = app.passwords.hash(&body.password).await?;
    let user = app
        .store
        .use_password_link(&token_hash, &hash, app.clock.now())
        .await?
        .ok_or_else(unknown_link)?;
    start(&app, &ctx, &headers, user).await
}

/// Sends a link that sets a new password, when the address has an account.
/// Answers the same either way, and at once: the address is queued, looked
/// up and mailed after the answer, so it tells no one which addresses exist.
#[utoipa::path(
    post, path = "/auth/forgot-password", tag = "sign-in",
    request_body(content = ForgotPasswordRequest, description = "`{\"email\": \"…\"}`"),
    responses(
        (status = 202, description = "A link is on its way if the address has an account", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 429, description = "RATE_LIMIT_EXCEEDED: too many requests for this address"),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many links waiting to be sent; see `Retry-After`"),
    )
)]
async fn forgot_password(
    State(app): State<AppState>,
    ctx: RequestContext,
    body: JsonBody<ForgotPasswordRequest>,
) -> Result<(StatusCode, Json<Envelope<Message>>), ApiError> {
    let body = body.parse()?;
    let email = email_of(&body.email)?;
    app.sign_ins.reset(&email)?;
    if !app.resets.push(email) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ServiceUnavailable,
            "Too many password links are waiting to be sent; try again in a minute",
        )
        .with_retry_after(60));
    }
    Ok((
        StatusCode::ACCEPTED,
        ok(
            Message {
                message:
                    "If this address has an account, a link to set a new password is on its way"
                        .into(),
            },
            Meta::of(&ctx),
        ),
    ))
}

/// Creates the first password of an invited address that cannot sign in
/// yet, with the token of the invitation's e-mailed link, and signs it in
/// (the invitation itself is then accepted or declined as usual). An address
/// that can sign in (a password, a set-password link, an identity provider)
/// signs in and accepts instead.
#[utoipa::path(
    post, path = "/auth/invitation-password", tag = "sign-in",
    request_body(content = InvitationPasswordRequest, description = "`{\"token\": \"…\", \"password\": \"…\"}`"),
    responses(
        (status = 200, description = "Account ready and signed in; the token is used up", body = Envelope<SessionAnswer>),
        (status = 400, description = "VALIDATION_ERROR: `password` breaks the rules, or `token` is missing, unknown, used or expired (or not the invitation `invite_id` names)"),
        (status = 409, description = "PASSWORD_ALREADY_SET: the address can sign in already; sign in, then accept (nothing changed)"),
    )
)]
async fn invitation_password(
    State(app): State<AppState>,
    ctx: RequestContext,
    headers: HeaderMap,
    body: JsonBody<InvitationPasswordRequest>,
) -> Result<Response, ApiError> {
    let body = body.parse()?;
    password::check(&body.password)?;
    let token_hash = session::sent_token_hash(&body.token).ok_or_else(unknown_link)?;
    let now = app.clock.now();
    // The token is looked up before the password is hashed (argon2 is
    // dear); the store checks it again as it uses it.
    let invitation = app
        .store
        .invitation_by_token(&token_hash, now)
        .await?
        .ok_or_else(unknown_link)?;
    if body
        .invite_id
        .is_some_and(|Id(id)| id != invitation.invitation.id)
    {
        return Err(unknown_link());
    }
    let hash = app.passwords.hash(&body.password).await?;
    match app
        .store
        .set_password_by_invitation(&token_hash, &hash, now)
        .await?
    {
        InvitationPassword::Set(user) => start(&app, &ctx, &headers, user).await,
        InvitationPassword::UnknownToken => Err(unknown_link()),
        InvitationPassword::CanSignIn => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::PasswordAlreadySet,
            "This address can sign in already: sign in, then accept the invitation",
        )),
    }
}

/// The signed-in user's sessions that have not ended, most recently used first.
#[utoipa::path(
    get, path = "/auth/sessions", tag = "sign-in",
    responses(
        (status = 200, description = "Sessions", body = Envelope<Vec<SessionItem>>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
    )
)]
async fn sessions(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: SessionAuth,
) -> Result<Json<Envelope<Vec<SessionItem>>>, ApiError> {
    let items = app
        .store
        .sessions(auth.user.id, app.clock.now())
        .await?
        .into_iter()
        .map(|s| SessionItem {
            current: s.id == auth.session.id,
            id: s.id,
            created_at: s.created_at,
            last_seen_at: s.last_seen_at,
            expires_at: s.expires_at,
            user_agent: s.user_agent,
        })
        .collect();
    Ok(ok(items, Meta::of(&ctx)))
}

/// Ends one of the signed-in user's sessions (signing that browser out).
#[utoipa::path(
    post, path = "/auth/sessions/revoke", tag = "sign-in",
    params(("X-CSRF-Token" = String, Header, description = "The session's CSRF token")),
    request_body(content = RevokeSessionRequest, description = "`{\"session_id\": \"<uuid>\"}`"),
    responses(
        (status = 200, description = "Ended", body = Envelope<Message>),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "CSRF_FAILED"),
        (status = 404, description = "NOT_FOUND: the user has no such session"),
    )
)]
async fn revoke(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: SessionAuth,
    body: JsonBody<RevokeSessionRequest>,
) -> Result<Json<Envelope<Message>>, ApiError> {
    let Id(id) = body.parse()?.session_id;
    if !app.store.end_session(auth.user.id, id).await? {
        return Err(ApiError::not_found("No such session"));
    }
    Ok(ok(
        Message {
            message: "Session ended".into(),
        },
        Meta::of(&ctx),
    ))
}
