//! The campaign use cases (docs/api.md, "Campaigns"): an organization's
//! campaigns created, listed, read, changed (a new name moves its videos
//! and creators, and their analytics) and deleted (its videos stay
//! tracked, without a campaign). The public API's `/v1/campaigns` and the
//! dashboard's `/dashboard/campaigns` call them alike; each face checks the
//! caller's role and plan first.

pub(crate) mod report;

use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use vidpulse_domain::names::{CAMPAIGN_MAX_CHARS, Campaign, NameError};
use vidpulse_domain::patch::sent;
use vidpulse_domain::{CampaignId, OrgId};
use vidpulse_store::{
    CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, NewCampaign,
};

use crate::app::rfc3339;
use crate::envelope::Pagination;
use crate::error::{ApiError, ErrorCode};
use crate::extract::PathParam;
use crate::input::{Bounded, Fault, Refusals, not_an_object, text};
use crate::state::AppState;

/// Longest `client`, in characters (after trimming).
pub const CLIENT_MAX_CHARS: usize = 200;
/// Longest `notes`, in characters (after trimming).
pub const NOTES_MAX_CHARS: usize = 5000;
/// Largest `budget`: beyond any real one, and small enough that sums of
/// money stay exact to the cent in a double.
pub const BUDGET_MAX: f64 = 1e12;
/// Default page size of the listing.
pub const DEFAULT_LIMIT: i64 = 50;

/// A campaign as its organization sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct CampaignView {
    /// Its id.
    pub id: Uuid,
    /// Its name, unique in the organization in any letter case; videos and
    /// creators carry it as their `campaign`.
    pub name: String,
    /// The client it is run for.
    pub client: Option<String>,
    /// First day, `YYYY-MM-DD`.
    pub starts_on: Option<String>,
    /// Last day, `YYYY-MM-DD` (on or after `starts_on`).
    pub ends_on: Option<String>,
    /// The money it may spend, in `currency`.
    pub budget: Option<f64>,
    /// ISO 4217 code of its money.
    pub currency: String,
    /// The views it aims at.
    pub target_views: Option<i64>,
    /// Free text.
    pub notes: Option<String>,
    /// Whether it is archived (still readable, hidden by default in the app).
    pub archived: bool,
    /// When it was archived.
    pub archived_at: Option<String>,
    /// Tracked videos carrying it.
    pub videos: i64,
    /// Distinct creators (platform and handle, in any letter case) of those
    /// videos; a video whose author is unknown adds none.
    pub creators: i64,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

impl From<CampaignRecord> for CampaignView {
    fn from(c: CampaignRecord) -> Self {
        Self {
            id: c.id.0,
            name: c.name,
            client: c.client,
            starts_on: c.starts_on.map(|d| d.to_string()),
            ends_on: c.ends_on.map(|d| d.to_string()),
            budget: c.budget,
            currency: c.currency,
            target_views: c.target_views,
            notes: c.notes,
            archived: c.archived_at.is_some(),
            archived_at: c.archived_at.map(rfc3339),
            videos: c.videos,
            creators: c.creators,
            created_at: rfc3339(c.created_at),
            updated_at: rfc3339(c.updated_at),
        }
    }
}

/// Body of a creation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCampaign {
    /// Required: at most 200 characters of letters, digits, spaces and `- _ . ( ) | : % &` (the rules of a video's `campaign`); unique in the organization in any letter case.
    name: String,
    /// The client, at most 200 characters; `""` or `null`: none.
    #[serde(default)]
    client: Option<String>,
    /// First day, `YYYY-MM-DD`.
    #[serde(default)]
    starts_on: Option<String>,
    /// Last day, `YYYY-MM-DD`, on or after `starts_on`.
    #[serde(default)]
    ends_on: Option<String>,
    /// The money it may spend: a number from 0 to 10^12.
    #[serde(default)]
    budget: Option<f64>,
    /// ISO 4217 code (any letter case; default: the organization's currency).
    #[serde(default)]
    currency: Option<String>,
    /// The views it aims at: a whole number of 1 or more.
    #[serde(default)]
    target_views: Option<i64>,
    /// Free text, at most 5000 characters.
    #[serde(default)]
    notes: Option<String>,
}

/// Body of a change: the fields sent change, `null` clears an optional
/// one; a new `name` moves the campaign's videos and creators to it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCampaign {
    /// A new name (rules of creation); another campaign's name in any case is 409 `CAMPAIGN_EXISTS`.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    name: Option<String>,
    /// The client; `null` or `""` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    client: Option<Option<String>>,
    /// First day; `null` clears. Checked against `ends_on` as it will be.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    starts_on: Option<Option<String>>,
    /// Last day; `null` clears. Checked against `starts_on` as it will be.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    ends_on: Option<Option<String>>,
    /// Budget; `null` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<f64>)]
    budget: Option<Option<f64>>,
    /// Currency (ISO 4217); cannot be cleared.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = String)]
    currency: Option<String>,
    /// Target views; `null` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<i64>)]
    target_views: Option<Option<i64>>,
    /// Notes; `null` or `""` clears.
    #[serde(default, deserialize_with = "sent::nullable")]
    #[schema(value_type = Option<String>)]
    notes: Option<Option<String>>,
    /// `true` archives, `false` restores.
    #[serde(default, deserialize_with = "sent::value")]
    #[schema(value_type = bool)]
    archived: Option<bool>,
}

/// The fields a body may hold, for the message on an unknown one.
const FIELDS: &str =
    "name, client, starts_on, ends_on, budget, currency, target_views, notes, archived";

/// The answer to a value of the wrong type, or a field no body has.
fn refuse_body(fault: &Fault<'_>) -> ApiError {
    let field = fault.field();
    let sent = fault.sent();
    let message = match field {
        "" => return not_an_object(),
        "name" if sent.is_none() || sent == Some(&Value::Null) => "`name` is required".to_owned(),
        "name" => "`name` must be a string".to_owned(),
        "client" | "notes" => format!("`{field}` must be a string or null"),
        "starts_on" | "ends_on" => format!("`{field}` must be a date YYYY-MM-DD or null"),
        "budget" => "`budget` must be a number of 0 or more, or null".to_owned(),
        "currency" => "`currency` must be an ISO 4217 code such as USD or EUR".to_owned(),
        "target_views" => "`target_views` must be a whole number of 1 or more, or null".to_owned(),
        "archived" => "`archived` must be true or false".to_owned(),
        unknown => format!("unknown field `{unknown}`; known: {FIELDS}"),
    };
    ApiError::validation(field, message)
}

impl Refusals for CreateCampaign {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

impl Refusals for UpdateCampaign {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        refuse_body(fault)
    }
}

/// A checked name: the rules of a video's `campaign`, never blank.
fn checked_name(raw: &str) -> Result<Campaign, ApiError> {
    match Campaign::parse(raw) {
        Ok(Some(name)) => Ok(name),
        Ok(None) => Err(ApiError::validation("name", "`name` must not be empty")),
        Err(NameError::BadCharacter(bad)) => Err(ApiError::validation(
            "name",
            format!(
                "`name` may contain only letters, digits, spaces and - _ . ( ) | : % & (found `{bad}`)"
            ),
        )),
        Err(_) => Err(ApiError::validation(
            "name",
            format!("`name` must be at most {CAMPAIGN_MAX_CHARS} characters"),
        )),
    }
}

/// Checked free text of `field`: trimmed, empty is none, at most `max` characters.
fn checked_text(field: &str, raw: Option<&str>, max: usize) -> Result<Option<String>, ApiError> {
    let text = raw.map(str::trim).filter(|t| !t.is_empty());
    if text.is_some_and(|t| t.chars().count() > max) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be at most {max} characters"),
        ));
    }
    Ok(text.map(str::to_owned))
}

/// A checked day of `field`: `YYYY-MM-DD`.
fn checked_day(field: &str, raw: &str) -> Result<NaiveDate, ApiError> {
    let raw = raw.trim();
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .ok()
        .filter(|_| raw.len() == 10)
        .ok_or_else(|| {
            ApiError::validation(
                field,
                format!("`{field}` must be a date YYYY-MM-DD; got `{raw}`"),
            )
        })
}

/// A checked budget: a finite number from 0 to [`BUDGET_MAX`].
fn checked_budget(budget: f64) -> Result<f64, ApiError> {
    if budget.is_finite() && (0.0..=BUDGET_MAX).contains(&budget) {
        Ok(budget)
    } else {
        Err(ApiError::validation(
            "budget",
            "`budget` must be a number from 0 to 1000000000000",
        ))
    }
}

/// A checked target: 1 or more views.
fn checked_target(target: i64) -> Result<i64, ApiError> {
    if target >= 1 {
        Ok(target)
    } else {
        Err(ApiError::validation(
            "target_views",
            "`target_views` must be a whole number of 1 or more",
        ))
    }
}

/// A checked currency of `field`: a code of the current ISO 4217 list
/// (any letter case; answered in capitals). A code the list keeps only as
/// replaced (HRK by EUR) is refused, naming its successor.
pub(crate) fn checked_currency(field: &str, raw: &str) -> Result<String, ApiError> {
    let code = raw.trim().to_ascii_uppercase();
    let refuse = |message: String| Err(ApiError::validation(field, message));
    match iso_currency::Currency::from_code(&code) {
        Some(currency) => match currency.is_superseded() {
            Some(successor) => refuse(format!(
                "`{field}` {code} is no longer in use; it was replaced by {}",
                successor.code()
            )),
            None => Ok(currency.code().to_owned()),
        },
        None => refuse(format!(
            "`{field}` must be an ISO 4217 currency code such as USD or EUR; got `{}`",
            raw.trim()
        )),
    }
}

/// Checked days: `ends_on` on or after `starts_on`.
fn checked_order(starts_on: Option<NaiveDate>, ends_on: Option<NaiveDate>) -> Result<(), ApiError> {
    match starts_on.zip(ends_on) {
        Some((s, e)) if e < s => Err(ends_before_start()),
        _ => Ok(()),
    }
}

/// 400 for days out of order.
fn ends_before_start() -> ApiError {
    ApiError::validation("ends_on", "`ends_on` must be on or after `starts_on`")
}

/// 409 for a name another campaign has.
fn name_taken(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        ErrorCode::CampaignExists,
        format!(
            "The organization has a campaign named `{name}` already (names match in any letter case)"
        ),
    )
    .with_field("name")
}

/// The answer for a campaign the organization does not have.
pub(crate) fn campaign_not_found() -> ApiError {
    ApiError::not_found("No such campaign")
}

/// The campaign id of a path (an unparsable one is not found).
pub(crate) fn campaign_id(path: Result<PathParam, ApiError>) -> Result<CampaignId, ApiError> {
    path.ok()
        .and_then(|PathParam(p)| Uuid::parse_str(&p).ok())
        .map(CampaignId)
        .ok_or_else(campaign_not_found)
}

/// `data` of a deletion.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// The campaign deleted.
    pub id: Uuid,
    /// Always `true`.
    pub deleted: bool,
    /// Videos that carried it; they stay tracked, without a campaign.
    pub videos_cleared: i64,
}

/// Creates a campaign for `org` from `body`.
pub(crate) async fn create_campaign(
    app: &AppState,
    org: OrgId,
    body: CreateCampaign,
) -> Result<CampaignView, ApiError> {
    let name = checked_name(&body.name)?;
    let client = checked_text("client", body.client.as_deref(), CLIENT_MAX_CHARS)?;
    let starts_on = body
        .starts_on
        .as_deref()
        .map(|d| checked_day("starts_on", d))
        .transpose()?;
    let ends_on = body
        .ends_on
        .as_deref()
        .map(|d| checked_day("ends_on", d))
        .transpose()?;
    checked_order(starts_on, ends_on)?;
    let new = NewCampaign {
        client,
        starts_on,
        ends_on,
        budget: body.budget.map(checked_budget).transpose()?,
        currency: body
            .currency
            .as_deref()
            .map(|c| checked_currency("currency", c))
            .transpose()?,
        target_views: body.target_views.map(checked_target).transpose()?,
        notes: checked_text("notes", body.notes.as_deref(), NOTES_MAX_CHARS)?,
        name: name.clone(),
    };
    match app.store.create_campaign(org, new, app.clock.now()).await? {
        Ok(created) => Ok(created.into()),
        Err(CampaignRefusal::NameTaken) => Err(name_taken(name.as_str())),
        Err(CampaignRefusal::EndsBeforeStart) => Err(ends_before_start()),
        Err(CampaignRefusal::NotFound) => Err(campaign_not_found()),
    }
}

/// The listing's query.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct CampaignsParams {
    /// Only campaigns whose name contains this text, in any letter case (at most 200 characters; `%` and `_` are plain text)
    #[serde(default)]
    q: Option<String>,
    /// Campaigns per page, 1 to 100 (default 50)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100, default = 50)]
    limit: Option<Bounded<1, 100>>,
    /// Campaigns skipped, 0 or more (default 0)
    #[serde(default, deserialize_with = "text")]
    #[param(value_type = Option<i64>, minimum = 0, default = 0)]
    offset: Option<Bounded<0, { i64::MAX }>>,
}

impl Refusals for CampaignsParams {
    fn refuse(fault: &Fault<'_>) -> ApiError {
        let field = fault.field();
        let message = match field {
            "q" => "`q` must be text".to_owned(),
            "limit" => "`limit` must be a whole number from 1 to 100".to_owned(),
            "offset" => "`offset` must be a whole number of 0 or more".to_owned(),
            unknown => format!("Unknown query parameter `{unknown}`; known: q, limit, offset"),
        };
        ApiError::validation(field, message)
    }
}

/// A page of `org`'s campaigns, newest first.
pub(crate) async fn list_campaigns(
    app: &AppState,
    org: OrgId,
    params: CampaignsParams,
) -> Result<(Vec<CampaignView>, Pagination), ApiError> {
    let q = params
        .q
        .map(|q| q.trim().to_owned())
        .filter(|q| !q.is_empty());
    if q.as_ref()
        .is_some_and(|q| q.chars().count() > CAMPAIGN_MAX_CHARS)
    {
        return Err(ApiError::validation(
            "q",
            format!("`q` must be at most {CAMPAIGN_MAX_CHARS} characters"),
        ));
    }
    let query = CampaignListQuery {
        q,
        limit: params.limit.map_or(DEFAULT_LIMIT, |Bounded(n)| n),
        offset: params.offset.map_or(0, |Bounded(n)| n),
    };
    let (items, total) = app.store.campaigns(org, &query).await?;
    Ok((
        items.into_iter().map(CampaignView::from).collect(),
        Pagination::of(total, query.limit, query.offset),
    ))
}

/// `org`'s campaign `id`.
pub(crate) async fn read_campaign(
    app: &AppState,
    org: OrgId,
    id: CampaignId,
) -> Result<CampaignView, ApiError> {
    let campaign = app
        .store
        .campaign(org, id)
        .await?
        .ok_or_else(campaign_not_found)?;
    Ok(campaign.into())
}

/// Applies `body` to `org`'s campaign `id`.
pub(crate) async fn update_campaign(
    app: &AppState,
    org: OrgId,
    id: CampaignId,
    body: UpdateCampaign,
) -> Result<CampaignView, ApiError> {
    let UpdateCampaign {
        name,
        client,
        starts_on,
        ends_on,
        budget,
        currency,
        target_views,
        notes,
        archived,
    } = body;
    let nothing = name.is_none()
        && client.is_none()
        && starts_on.is_none()
        && ends_on.is_none()
        && budget.is_none()
        && currency.is_none()
        && target_views.is_none()
        && notes.is_none()
        && archived.is_none();
    if nothing {
        return Err(ApiError::validation(
            "body",
            format!("at least one of {FIELDS} is required"),
        ));
    }
    let day = |field: &str, sent: Option<Option<String>>| {
        sent.map(|d| d.as_deref().map(|d| checked_day(field, d)).transpose())
            .transpose()
    };
    let changes = CampaignChanges {
        name: name.as_deref().map(checked_name).transpose()?,
        client: client
            .map(|c| checked_text("client", c.as_deref(), CLIENT_MAX_CHARS))
            .transpose()?,
        starts_on: day("starts_on", starts_on)?,
        ends_on: day("ends_on", ends_on)?,
        budget: budget
            .map(|b| b.map(checked_budget).transpose())
            .transpose()?,
        currency: currency
            .as_deref()
            .map(|c| checked_currency("currency", c))
            .transpose()?,
        target_views: target_views
            .map(|t| t.map(checked_target).transpose())
            .transpose()?,
        notes: notes
            .map(|n| checked_text("notes", n.as_deref(), NOTES_MAX_CHARS))
            .transpose()?,
        archived,
    };
    // Both days sent: checked here; one of them: by the store, against
    // the other as stored, in the write's transaction.
    if let (Some(s), Some(e)) = (changes.starts_on, changes.ends_on) {
        checked_order(s, e)?;
    }
    let new_name = changes.name.clone();
    match app
        .store
        .update_campaign(org, id, changes, app.clock.now())
        .await?
    {
        Ok(updated) => Ok(updated.into()),
        Err(CampaignRefusal::NameTaken) => {
            Err(name_taken(new_name.as_ref().map_or("", |n| n.as_str())))
        }
        Err(CampaignRefusal::EndsBeforeStart) => Err(ends_before_start()),
        Err(CampaignRefusal::NotFound) => Err(campaign_not_found()),
    }
}

/// Deletes `org`'s campaign `id`; its videos stay tracked, without a campaign.
pub(crate) async fn delete_campaign(
    app: &AppState,
    org: OrgId,
    id: CampaignId,
) -> Result<Deleted, ApiError> {
    let campaign = app
        .store
        .campaign(org, id)
        .await?
        .ok_or_else(campaign_not_found)?;
    if !app.store.delete_campaign(org, id, app.clock.now()).await? {
        return Err(campaign_not_found());
    }
    Ok(Deleted {
        id: id.0,
        deleted: true,
        videos_cleared: campaign.videos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currencies_are_the_current_iso_4217_codes() {
        assert_eq!(checked_currency("currency", " eur ").unwrap(), "EUR");
        assert_eq!(checked_currency("currency", "JPY").unwrap(), "JPY");
        for bad in ["", "EURO", "ABC", "US", "€"] {
            let e = checked_currency("currency", bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("currency"), "{bad}");
        }
        let e = checked_currency("currency", "HRK").unwrap_err();
        assert!(e.message.contains("EUR"), "{}", e.message);
    }

    #[test]
    fn days_are_strict_and_ordered() {
        assert!(checked_day("starts_on", "2026-07-01").is_ok());
        for bad in [
            "2026-7-1",
            "2026-02-30",
            "01/07/2026",
            "2026-07-01T00:00:00Z",
        ] {
            assert!(checked_day("starts_on", bad).is_err(), "{bad}");
        }
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        assert!(checked_order(d("2026-07-01"), d("2026-07-01")).is_ok());
        assert!(checked_order(d("2026-07-02"), d("2026-07-01")).is_err());
        assert!(checked_order(None, d("2026-07-01")).is_ok());
    }

    #[test]
    fn budgets_and_targets_have_bounds() {
        assert!(checked_budget(0.0).is_ok());
        assert!(checked_budget(1500.5).is_ok());
        assert!(checked_budget(-0.01).is_err());
        assert!(checked_budget(2e12).is_err());
        assert!(checked_target(1).is_ok());
        assert!(checked_target(0).is_err());
    }
}
