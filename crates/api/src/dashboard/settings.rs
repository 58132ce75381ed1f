//! Organization settings and the user's language (README, "The dashboard
//! API").

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use vidpulse_domain::identity::Role;

use crate::dashboard::access::OrgAuth;
use crate::dashboard::identity::UserAuth;
use crate::dashboard::organizations::RegisterRequest;
use crate::envelope::{Envelope, Meta, ok};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::input::{Fault, Refusals, not_an_object};
use crate::middleware::RequestContext;
use crate::state::AppState;

/// The settings routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(settings, rename, change))
        .routes(routes!(language, set_language))
}

/// What the dashboard shows of an organization.
#[derive(Debug, Serialize, ToSchema)]
pub struct Settings {
    /// Id.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// Logo address, or null before one is uploaded.
    pub logo_url: Option<String>,
    /// Currency code of budgets.
    pub currency: String,
}

/// A user's interface language.
#[derive(Debug, Serialize, ToSchema)]
pub struct Language {
    /// A language tag such as `en` or `pt-BR`.
    pub language: String,
}

/// Body of `PUT /organizations/user/language`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SetLanguageRequest {
    /// Required string: a language tag such as `en` or `pt-BR` (trimmed): 2
    /// or 3 ASCII letters, then `-`-separated subtags of 1 to 8 ASCII letters
    /// or digits; at most 35 characters.
    #[schema(
        value_type = String,
        min_length = 2,
        max_length = 35,
        pattern = "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$"
    )]
    language: LanguageTag,
}

/// A language tag ([`is_language_tag`]), trimmed.
#[derive(Debug)]
struct LanguageTag(String);

impl<'de> Deserialize<'de> for LanguageTag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        let tag = raw.trim();
        if is_language_tag(tag) {
            Ok(LanguageTag(tag.to_owned()))
        } else {
            Err(de::Error::custom("not a language tag"))
        }
    }
}

impl Refusals for SetLanguageRequest {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        if fault.field() != "language" {
            return not_an_object();
        }
        let message = match fault.sent() {
            None | Some(Value::Null) => "`language` is required",
            Some(Value::String(_)) => "`language` must be a language tag such as `en` or `pt-BR`",
            Some(_) => "`language` must be a string",
        };
        ApiError::validation("language", message)
    }
}

/// Whether `tag` is a plausible language tag: 2–3 letters, then
/// `-`-separated subtags of 1–8 letters or digits, 35 characters at most.
pub fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or_default();
    tag.len() <= 35
        && (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// The current organization's settings. Any member.
#[utoipa::path(
    get, path = "/organizations/settings", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    responses(
        (status = 200, description = "Settings", body = Envelope<Settings>),
        (status = 400, description = "VALIDATION_ERROR: missing or malformed X-Organization-ID"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn settings(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
) -> Result<Json<Envelope<Settings>>, ApiError> {
    let s = app
        .store
        .organization_settings(auth.org)
        .await?
        .ok_or_else(|| ApiError::not_found("No such organization"))?;
    Ok(ok(
        Settings {
            id: s.id.0,
            name: s.name,
            logo_url: s.logo_url,
            currency: s.currency,
        },
        Meta::of(&ctx),
    ))
}

/// Renames the current organization; its settings as they now are. Admins
/// and owners.
#[utoipa::path(
    put, path = "/organizations/settings", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = RegisterRequest, description = "`{\"name\": \"…\"}`: the new name, as at registration"),
    responses(
        (status = 200, description = "Settings", body = Envelope<Settings>),
        (status = 400, description = "VALIDATION_ERROR: `name`, or a missing or malformed X-Organization-ID"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn rename(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: JsonBody<RegisterRequest>,
) -> Result<Json<Envelope<Settings>>, ApiError> {
    auth.require(Role::Admin)?;
    let name = body.parse()?.into_name();
    app.store.rename_organization(auth.org, &name).await?;
    settings(State(app), ctx, auth).await
}

/// Body of `PATCH /organizations/settings`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsChange {
    /// Required: the organization's currency, an ISO 4217 code (any letter
    /// case; kept in capitals), which campaigns created from now on get
    /// unless they name their own. Existing campaigns keep theirs.
    #[schema(example = "EUR")]
    currency: String,
}

impl Refusals for SettingsChange {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let message = match (fault.field(), fault.sent()) {
            ("", _) => return not_an_object(),
            ("currency", None | Some(Value::Null)) => "`currency` is required".to_owned(),
            ("currency", _) => "`currency` must be an ISO 4217 code such as USD or EUR".to_owned(),
            (unknown, _) => format!("unknown field `{unknown}`; known: currency"),
        };
        ApiError::validation(fault.field(), message)
    }
}

/// Sets the current organization's currency; its settings as they now
/// are. Admins and owners, paid plans (like the other annotations).
#[utoipa::path(
    patch, path = "/organizations/settings", tag = "dashboard",
    params(("X-Organization-ID" = Uuid, Header, description = "The organization")),
    request_body(content = SettingsChange, description = "`{\"currency\": \"EUR\"}`"),
    responses(
        (status = 200, description = "Settings", body = Envelope<Settings>),
        (status = 400, description = "VALIDATION_ERROR: `currency` (not a current ISO 4217 code), an unknown field, or a missing or malformed X-Organization-ID"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
        (status = 402, description = "PAID_PLAN_REQUIRED with `upgrade_url`"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS"),
        (status = 404, description = "NOT_FOUND: not a member of that organization"),
    ),
    security(("bearer_jwt" = []))
)]
async fn change(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: OrgAuth,
    body: Result<JsonBody<SettingsChange>, ApiError>,
) -> Result<Json<Envelope<Settings>>, ApiError> {
    auth.require(Role::Admin)?;
    auth.require_paid_plan(&app).await?;
    let change = body?.parse()?;
    let currency = crate::app::campaigns::checked_currency("currency", &change.currency)?;
    app.store
        .set_organization_currency(auth.org, &currency)
        .await?;
    settings(State(app), ctx, auth).await
}

/// The caller's interface language.
#[utoipa::path(
    get, path = "/organizations/user/language", tag = "dashboard",
    responses(
        (status = 200, description = "Language", body = Envelope<Language>),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
    ),
    security(("bearer_jwt" = []))
)]
async fn language(ctx: RequestContext, auth: UserAuth) -> Json<Envelope<Language>> {
    ok(
        Language {
            language: auth.user.language,
        },
        Meta::of(&ctx),
    )
}

/// Sets the caller's interface language.
#[utoipa::path(
    put, path = "/organizations/user/language", tag = "dashboard",
    request_body(content = SetLanguageRequest, description = "`{\"language\": \"pt-BR\"}`"),
    responses(
        (status = 200, description = "The new language", body = Envelope<Language>),
        (status = 400, description = "VALIDATION_ERROR with `field`"),
        (status = 401, description = "MISSING_AUTH or INVALID_TOKEN"),
    ),
    security(("bearer_jwt" = []))
)]
async fn set_language(
    State(app): State<AppState>,
    ctx: RequestContext,
    auth: UserAuth,
    body: JsonBody<SetLanguageRequest>,
) -> Result<Json<Envelope<Language>>, ApiError> {
    let LanguageTag(language) = body.parse()?.language;
    app.store.set_language(auth.user.id, &language).await?;
    Ok(ok(Language { language }, Meta::of(&ctx)))
}

#[cfg(test)]
mod tests {
    use super::is_language_tag;

    #[test]
    fn language_tags() {
        for ok in ["en", "pt-BR", "zh-Hant-TW", "gsw"] {
            assert!(is_language_tag(ok), "{ok}");
        }
        for bad in [
            "",
            "e",
            "english",
            "en_US",
            "en-",
            "-en",
            "en-toolongsubtag",
            "1a",
        ] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }
}
