//! The dashboard API (docs/api.md): JWT bearer auth, root paths,
//! errors in the public API's nested envelope.

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub mod access;
pub mod alerts;
pub mod api_keys;
pub mod blogger_add;
pub mod blogger_followers;
pub mod bloggers;
pub mod campaign_report;
pub mod campaigns;
pub mod creator_profiles;
pub mod identity;
pub mod invitations;
pub mod logo;
pub mod organizations;
pub mod plan;
pub mod recaps;
pub mod settings;
pub mod share_links;
pub mod stats;
pub mod tags;
pub mod team;
pub mod thumbnails;
pub mod videos;
pub mod webhooks;

/// Every dashboard route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(organizations::router())
        .merge(settings::router())
        .merge(plan::router())
        .merge(thumbnails::router())
        .merge(team::router())
        .merge(invitations::router())
        .merge(logo::router())
        .merge(stats::router())
        .merge(bloggers::router())
        .merge(blogger_add::router())
        .merge(blogger_followers::router())
        .merge(tags::router())
        .merge(creator_profiles::router())
        .merge(api_keys::router())
        .merge(videos::router())
        .merge(webhooks::router())
        .merge(campaigns::router())
        .merge(campaign_report::router())
        .merge(recaps::router())
        .merge(share_links::router())
        .merge(alerts::router())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use vidpulse_domain::patch::CAMPAIGN_MAX_CHARS;

    use crate::app::bloggers::{DEFAULT_INITIAL_VIDEOS, MAX_INITIAL_VIDEOS};

    /// The dashboard routes' OpenAPI document, as JSON.
    fn doc() -> Value {
        let (_, doc) = super::router().split_for_parts();
        serde_json::to_value(doc).unwrap()
    }

    #[test]
    fn json_request_bodies_are_registered_schemas() {
        let doc = doc();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let mut bodies = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let Some(content) = op["requestBody"]["content"].as_object() else {
                    continue;
                };
                for (mime, media) in content {
                    if mime == "multipart/form-data" {
                        continue;
                    }
                    let name = media["schema"]["$ref"]
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/components/schemas/"))
                        .unwrap_or_else(|| panic!("{method} {path}: untyped {mime} body"));
                    assert!(
                        schemas.contains_key(name),
                        "{method} {path}: schema {name} is not registered"
                    );
                    bodies += 1;
                }
            }
        }
        assert_eq!(bodies, 36, "JSON request bodies of the dashboard API");
        for name in ["InviteEntry", "InvitableRole"] {
            assert!(schemas.contains_key(name), "{name} is not registered");
        }
    }

    #[test]
    fn request_schemas_state_the_handlers_bounds() {
        let doc = doc();
        let schemas = &doc["components"]["schemas"];
        let field = |schema: &str, name: &str| schemas[schema]["properties"][name].clone();
        let settings = "AddSettings";
        let initial = field(settings, "initial_videos_count");
        assert_eq!(initial["maximum"], json!(MAX_INITIAL_VIDEOS));
        assert_eq!(initial["default"], json!(DEFAULT_INITIAL_VIDEOS));
        assert_eq!(
            field(settings, "daily_videos_count")["maximum"],
            json!(super::blogger_add::MAX_DAILY_VIDEOS)
        );
        assert_eq!(
            field(settings, "campaign")["maxLength"],
            json!(CAMPAIGN_MAX_CHARS)
        );
        assert_eq!(
            field(settings, "tag_ids")["maxItems"],
            json!(super::blogger_add::MAX_TAGS)
        );
        assert_eq!(schemas[settings]["required"], Value::Null, "all optional");
        // Both adds: the shared settings, and the creator fields they require.
        for (schema, required) in [
            ("AddBloggerRequest", json!(["username", "platform"])),
            ("AddFromTrackingRequest", json!(["blogger_id"])),
        ] {
            let parts = &schemas[schema]["allOf"];
            assert_eq!(
                parts[0]["$ref"],
                json!(format!("#/components/schemas/{settings}")),
                "{schema}"
            );
            assert_eq!(parts[1]["required"], required, "{schema}");
        }
        assert_eq!(
            field("SetCampaignRequest", "campaign")["maxLength"],
            json!(CAMPAIGN_MAX_CHARS)
        );
        assert_eq!(
            schemas["SetCampaignRequest"]["required"],
            json!(["tracking_id", "campaign"])
        );
        assert_eq!(
            schemas["SetBudgetRequest"]["required"],
            json!(["tracking_id", "budget_per_video"])
        );
        assert_eq!(
            field("SetTagsRequest", "tag_ids")["maxItems"],
            json!(super::blogger_add::MAX_TAGS)
        );
        assert_eq!(
            field("CreateTagRequest", "name")["maxLength"],
            json!(super::tags::TAG_NAME_MAX_CHARS)
        );
        for schema in ["RegisterRequest", "CreateKeyRequest"] {
            assert_eq!(
                field(schema, "name")["maxLength"],
                json!(super::organizations::MAX_NAME_CHARS),
                "{schema}"
            );
        }
        assert_eq!(
            field("MergeRequest", "blogger_ids")["maxItems"],
            json!(super::creator_profiles::MAX_MERGE)
        );
        assert_eq!(
            field("MergeRequest", "name")["maxLength"],
            json!(super::creator_profiles::PROFILE_NAME_MAX_CHARS)
        );
        assert_eq!(
            field("InviteRequest", "invites")["maxItems"],
            json!(super::invitations::MAX_INVITES)
        );
    }
}
