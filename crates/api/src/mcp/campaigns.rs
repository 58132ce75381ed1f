//! The campaign tools: `list_campaigns` (GET /v1/campaigns) and
//! `campaign_report` (GET /v1/campaigns/{id}/report), over
//! `app::campaigns`.

use schemars::JsonSchema;
use serde_json::json;

use super::videos::reads;
use super::{Access, Answer, Baseline, Call, Schemas, Spec, tool};
use crate::app::campaigns::report::{ReportParams, campaign_report, read_params};
use crate::app::campaigns::{CampaignsParams, campaign_id, campaign_not_found, list_campaigns};
use crate::envelope::Meta;
use crate::error::ApiError;
use crate::extract::PathParam;
use crate::v1::analytics::charge;

/// `list_campaigns`.
pub(super) const LIST: &str = "list_campaigns";
/// `campaign_report`.
pub(super) const REPORT: &str = "campaign_report";

/// The campaign tools' definitions.
pub(super) fn tools(schemas: &Schemas) -> Vec<Spec> {
    // `/v1` sends the page in `meta.pagination`; a tool's output is one object.
    let page = schemas.root(json!({
        "required": ["data", "pagination"],
        "properties": {
            "data": {
                "type": "array",
                "description": "The campaigns, newest first.",
                "items": {"$ref": "#/components/schemas/CampaignView"}
            },
            "pagination": {"$ref": "#/components/schemas/Pagination"}
        }
    }));
    vec![
        Spec {
            tool: tool::<ListArgs>(
                LIST,
                "List campaigns",
                "The organization's campaigns, newest first, a page at a time (at most 100, \
                 default 50), with their dates, budget, target views and counts of videos and \
                 creators; `q` keeps those whose name holds the text. Its `id` is what \
                 campaign_report takes, its `name` what the other tools' `campaign` filters \
                 take. Free.",
                page,
            )
            .annotate(reads()),
            access: Access::Read,
        },
        Spec {
            tool: tool::<ReportArgs>(
                REPORT,
                "Campaign report",
                "What a campaign's videos gained over a window (default: the campaign's dates, \
                 else the 30 days to today) and what they cost: views, likes, comments, reposts, \
                 saves, spend, budget left, CPM, CPE, engagement rate and progress to the target \
                 views, in total and per creator. A campaign of another organization is \
                 NOT_FOUND. Paid plans (else PAID_PLAN_REQUIRED); 1 credit.",
                schemas.named("CampaignReport"),
            )
            .annotate(reads()),
            access: Access::Read,
        },
    ]
}

/// The arguments of `list_campaigns`: the listing's query parameters.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the listing's query"
)]
struct ListArgs {
    /// Only campaigns whose name contains this text, in any letter case (at most 200 characters)
    #[schemars(length(max = 200))]
    q: Option<String>,
    /// Campaigns per page, 1 to 100 (default 50)
    #[schemars(range(min = 1, max = 100))]
    limit: Option<i64>,
    /// Campaigns skipped, 0 or more (default 0)
    #[schemars(range(min = 0))]
    offset: Option<i64>,
}

/// The arguments of `campaign_report`: the campaign and the report's query
/// parameters.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "a schema: the arguments are read as the report's query"
)]
struct ReportArgs {
    /// The campaign's id (a UUID, `id` in list_campaigns)
    #[schemars(extend("format" = "uuid"))]
    campaign_id: String,
    /// First day, YYYY-MM-DD (default: the campaign's starts_on, else 29 days before `to`)
    #[schemars(extend("format" = "date"))]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: the campaign's ends_on when before today, else today, UTC); at most 366 days in all
    #[schemars(extend("format" = "date"))]
    to: Option<String>,
    /// Where a video tracked after `from` starts counting: window (default, from 0) or tracking (from its first reading)
    baseline: Option<Baseline>,
}

/// `list_campaigns`: a page of campaigns, with its pagination.
pub(super) async fn list(call: &Call) -> Result<Answer, ApiError> {
    let params = call.query::<CampaignsParams>(&[])?.parse()?;
    let (items, pagination) = list_campaigns(&call.app, call.auth.org.id, params).await?;
    Answer::new(
        json!({ "data": items, "pagination": pagination }),
        Meta::of(&call.ctx),
    )
}

/// `campaign_report`: the report, charged 1 credit.
pub(super) async fn report(call: &Call) -> Result<Answer, ApiError> {
    call.auth.require_paid_plan(&call.app.config.upgrade_url)?;
    let ask = read_params(&call.query::<ReportParams>(&["campaign_id"])?)?;
    let id = call
        .text("campaign_id")?
        .ok_or_else(|| ApiError::validation("campaign_id", "`campaign_id` is required"))?;
    let id = campaign_id(Ok(PathParam(id.to_owned())))?;
    let data = campaign_report(&call.app, call.auth.org.id, id, &ask)
        .await?
        .ok_or_else(campaign_not_found)?;
    charge(&call.app, &call.auth, &call.ctx, "campaign_report").await?;
    Answer::new(data, Meta::of(&call.ctx).with_credits(1))
}
