//! The dashboard API (spec: dashboard-api.md): JWT bearer auth, root paths,
//! errors in the public API's nested envelope.

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub mod access;
pub mod api_keys;
pub mod blogger_add;
pub mod bloggers;
pub mod creator_profiles;
pub mod identity;
pub mod invitations;
pub mod logo;
pub mod organizations;
pub mod settings;
pub mod stats;
pub mod tags;
pub mod team;

/// Every dashboard route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(organizations::router())
        .merge(settings::router())
        .merge(team::router())
        .merge(invitations::router())
        .merge(logo::router())
        .merge(stats::router())
        .merge(bloggers::router())
        .merge(blogger_add::router())
        .merge(tags::router())
        .merge(creator_profiles::router())
        .merge(api_keys::router())
}
