//! The OpenAPI document, assembled from the handlers' `#[utoipa::path]`
//! annotations as routes are registered, so it cannot drift from them.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The document's fixed parts; paths are added by the routers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "vidpulse",
        description = "Tracks how influencer videos and creators perform on TikTok, Instagram and YouTube.\n\nThe public API (`/v1`) authenticates with `Authorization: Bearer <API key>`; the dashboard API (root paths) with `Authorization: Bearer <JWT>`.",
    ),
    modifiers(&SecuritySchemes),
    tags(
        (name = "videos", description = "Video tracking and statistics"),
        (name = "account", description = "Account usage"),
        (name = "trends", description = "Trend search"),
        (name = "creators", description = "Creator tracking jobs and lookup"),
        (name = "analytics", description = "Campaign totals and daily increments"),
        (name = "dashboard", description = "Dashboard API: organizations and team (JWT)"),
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
