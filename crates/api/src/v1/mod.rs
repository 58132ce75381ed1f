//! The public API, `/v1` (docs/api.md).

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub mod account;
pub mod alerts;
pub mod analytics;
pub mod bloggers;
pub mod campaign_report;
pub mod campaigns;
pub mod export;
pub mod gate;
pub mod recaps;
pub mod share_links;
pub mod top;
pub mod trends;
pub mod videos;
pub mod webhooks;
pub mod whoami;

/// Every `/v1` route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(videos::router())
        .merge(account::router())
        .merge(trends::router())
        .merge(bloggers::router())
        .merge(analytics::router())
        .merge(top::router())
        .merge(webhooks::router())
        .merge(campaigns::router())
        .merge(campaign_report::router())
        .merge(share_links::router())
        .merge(alerts::router())
        .merge(recaps::router())
        .merge(whoami::router())
}
