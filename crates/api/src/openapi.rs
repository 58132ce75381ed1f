//! The OpenAPI document, assembled from the handlers' `#[utoipa::path]`
//! annotations as routes are registered, so it cannot drift from them, and
//! `/docs`, the browsable reference that reads it.

use axum::Router;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_swagger_ui::{Config, SwaggerUi};

/// The content security policy of `/docs`: the web app's
/// ([`vidpulse_web::CSP`]: nothing from another host, no framing, no inline
/// script), except that Swagger UI sets `style` attributes on its elements,
/// draws its icons as `data:` images, and its logo (an SVG) carries one
/// `<style>` element, allowed by its hash (a newer Swagger UI with another
/// logo shows up as a CSP violation in the browser test).
pub const DOCS_CSP: &str = "default-src 'self'; img-src 'self' data:; \
     style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; \
     style-src-attr 'unsafe-inline'; script-src 'self'; connect-src 'self'; \
     frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// `/docs`: Swagger UI (its assets compiled into the binary, so nothing
/// loads from another host) reading `/openapi.json`, with the web app's
/// security headers. Its online validator is off: it would send the document
/// to another host.
pub fn docs<S: Clone + Send + Sync + 'static>(doc: utoipa::openapi::OpenApi) -> Router<S> {
    let ui = SwaggerUi::new("/docs")
        .url("/openapi.json", doc)
        .config(Config::default().validator_url("none"));
    vidpulse_web::with_security_headers(Router::from(ui), DOCS_CSP)
}

/// The document's fixed parts; paths are added by the routers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "vidpulse",
        description = "Tracks how influencer videos and creators perform on TikTok, Instagram and YouTube.\n\nThe public API (`/v1`) authenticates with `Authorization: Bearer <API key>`; the dashboard API (root paths) with `Authorization: Bearer <JWT>`, or with the web app's session cookie (`/auth/sign-in`) plus `X-CSRF-Token` on state-changing requests.",
    ),
    modifiers(&SecuritySchemes),
    tags(
        (name = "videos", description = "Video tracking and statistics"),
        (name = "account", description = "Account usage"),
        (name = "trends", description = "Trend search"),
        (name = "creators", description = "Creator tracking jobs and lookup"),
        (name = "analytics", description = "Campaign totals and daily increments"),
        (name = "campaigns", description = "Campaigns: named groups of videos with client, dates, budget, currency and target"),
        (name = "alerts", description = "Alert rules: milestones, velocity, outliers, followers and unavailable videos, sent by e-mail, to Slack or Discord, or as webhook events"),
        (name = "recaps", description = "Scheduled recaps: a daily or weekly summary of a campaign or the organization, e-mailed to a member or posted to Slack or Discord"),
        (name = "webhooks", description = "Signed event deliveries (Standard Webhooks): endpoints, delivery log, replay"),
        (name = "dashboard", description = "Dashboard API: organizations and team (JWT, or a web-app session)"),
        (name = "shared", description = "Pages a campaign's share link opens, without sign-in: the token in the path is the key"),
        (name = "sign-in", description = "Web-app sign-in: passwords and sessions (the `vidpulse_session` cookie; state-changing requests also send `X-CSRF-Token`)"),
    )
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An API key created with `vidpulse admin create-api-key`",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "bearer_jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "An HS256 token from the identity provider, or from `vidpulse admin issue-token`",
                    ))
                    .build(),
            ),
        );
    }
}

/// The nested error envelope (the public API's, and the dashboard API's).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NestedError {
    /// Always false.
    pub success: bool,
    /// What went wrong.
    pub error: NestedErrorDetail,
}

/// The `error` object of a [`NestedError`]; some codes add fields of their
/// own (`job_id`, `unknown_tag_ids`, `limit`, ...).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NestedErrorDetail {
    /// Machine-readable code, such as `VALIDATION_ERROR`.
    pub code: &'static str,
    /// For people.
    pub message: String,
    /// The request's id (also `X-Request-Id`).
    pub request_id: String,
    /// The offending field, for validation errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Where to upgrade, for `PAID_PLAN_REQUIRED`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgrade_url: Option<String>,
    /// The code's own fields.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The flat error body of the video listing, the usage report and the video reads' 404.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct FlatError {
    /// Always false.
    pub success: bool,
    /// The message.
    pub error: String,
    /// The request's id.
    pub request_id: String,
    /// Machine-readable code, where the endpoint gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// Extra facts about the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
    /// The offending field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Where to upgrade.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgrade_url: Option<String>,
}

/// Gives every error response (4xx, 5xx) that declares no body the error
/// body schema (`ErrorBody`: the nested or the flat form), so clients and
/// conformance checks know its shape.
pub fn describe_errors(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::PartialSchema;
    use utoipa::openapi::schema::OneOfBuilder;
    use utoipa::openapi::{ContentBuilder, Ref, RefOr};

    let components = doc.components.get_or_insert_with(Default::default);
    for (name, schema) in [
        ("NestedError", <NestedError as PartialSchema>::schema()),
        (
            "NestedErrorDetail",
            <NestedErrorDetail as PartialSchema>::schema(),
        ),
        ("FlatError", <FlatError as PartialSchema>::schema()),
    ] {
        components.schemas.insert(name.to_owned(), schema);
    }
    components.schemas.insert(
        "ErrorBody".to_owned(),
        OneOfBuilder::new()
            .item(Ref::from_schema_name("NestedError"))
            .item(Ref::from_schema_name("FlatError"))
            .description(Some(
                "An error: the nested envelope, or the flat one of some public reads",
            ))
            .into(),
    );
    for item in doc.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            for (status, response) in operation.responses.responses.iter_mut() {
                if !(status.starts_with('4') || status.starts_with('5')) {
                    continue;
                }
                if let RefOr::T(response) = response
                    && response.content.is_empty()
                {
                    response.content.insert(
                        "application/json".to_owned(),
                        RefOr::T(
                            ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name("ErrorBody")))
                                .build(),
                        ),
                    );
                }
            }
        }
    }
}
