//! Creating, listing, reading, changing and deleting campaigns.
//!
//! A campaign's counts are read beside it: its videos from
//! `campaign_counts` (kept by triggers, migration 0025), its creators by
//! counting the distinct (platform, handle in lower case) of its videos
//! through the index `tracked_videos_org_campaign`. Renaming or deleting a
//! campaign rewrites the name its videos and creators carry and settles
//! the analytics rollup (keyed by that name) in the same transaction.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::{CampaignId, OrgId};

use super::{CampaignChanges, CampaignListQuery, CampaignRecord, CampaignRefusal, NewCampaign};
use crate::StoreError;
use crate::backend::Db;
use crate::rollup::{self, Scope};
use crate::sql::{Conn, Dialect, SqlStore, Tx, rollback_with};

/// A campaign row with its counts.
#[derive(sqlx::FromRow)]
struct CampaignRow {
    id: Uuid,
    name: String,
    client: Option<String>,
    starts_on: Option<NaiveDate>,
    ends_on: Option<NaiveDate>,
    budget: Option<f64>,
    currency: String,
    target_views: Option<i64>,
    notes: Option<String>,
    archived_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    videos: i64,
    creators: i64,
}

impl From<CampaignRow> for CampaignRecord {
    fn from(r: CampaignRow) -> Self {
        Self {
            id: CampaignId(r.id),
            name: r.name,
            client: r.client,
            starts_on: r.starts_on,
            ends_on: r.ends_on,
            budget: r.budget,
            currency: r.currency,
            target_views: r.target_views,
            notes: r.notes,
            archived_at: r.archived_at,
            videos: r.videos,
            creators: r.creators,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The columns of [`CampaignRow`], from `campaigns c`: the videos counted by
/// the triggers' table, the creators by the distinct handles (in lower
/// case, per platform) of the videos carrying the name; a video without a
/// known author adds none.
const SELECT_CAMPAIGN: &str = "SELECT c.id, c.name, c.client, c.starts_on, c.ends_on, c.budget,
       c.currency, c.target_views, c.notes, c.archived_at, c.created_at, c.updated_at,
       CAST(coalesce((SELECT cc.videos FROM campaign_counts cc
                      WHERE cc.organization_id = c.organization_id AND cc.campaign = c.name), 0)
            AS BIGINT) AS videos,
       (SELECT count(DISTINCT pv.platform || ':' || lower(coalesce(pv.author_username, tv.own_author)))
        FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
        WHERE tv.organization_id = c.organization_id AND tv.campaign = c.name) AS creators
FROM campaigns c";

/// Organization `$1`'s campaign `$2`, with its counts.
const READ_CAMPAIGN: &str = "WHERE c.organization_id = $1 AND c.id = $2";

/// `org`'s campaign `id` read on `conn`.
async fn read<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<CampaignRecord>, StoreError> {
    let row: Option<CampaignRow> =
        D::query(AssertSqlSafe(format!("{SELECT_CAMPAIGN} {READ_CAMPAIGN}")))
            .bind(org.0)
            .bind(id)
            .fetch_optional(conn)
            .await?;
    Ok(row.map(CampaignRecord::from))
}

pub(super) async fn create<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    new: NewCampaign,
    now: DateTime<Utc>,
) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
    let mut tx = store.write_tx().await?;
    let id = Uuid::now_v7();
    // The organization's currency unless one is given; a name taken in
    // any case inserts nothing.
    let inserted: Option<Uuid> = D::query(AssertSqlSafe(format!(
        "INSERT INTO campaigns (id, organization_id, name, name_lower, client, starts_on, ends_on,
                                budget, currency, target_views, notes, created_at, updated_at)
         SELECT $1, o.id, $3, $4, $5, $6, $7, $8, coalesce({currency}, o.currency), $10, $11, $12, $12
         FROM organizations o WHERE o.id = $2
         ON CONFLICT (organization_id, name_lower) DO NOTHING
         RETURNING id",
        currency = D::typed("$9", "text"),
    )))
    .bind(id)
    .bind(org.0)
    .bind(new.name.as_str())
    .bind(new.name.key())
    .bind(new.client.as_deref())
    .bind(new.starts_on)
    .bind(new.ends_on)
    .bind(new.budget)
    .bind(new.currency.as_deref())
    .bind(new.target_views)
    .bind(new.notes.as_deref())
    .bind(now)
    .fetch_scalar_optional(&mut *tx)
    .await?;
    if inserted.is_none() {
        return rollback_with(tx, Ok(Err(CampaignRefusal::NameTaken))).await;
    }
    let record = read::<D>(&mut tx, org, id).await?;
    tx.commit().await?;
    Ok(record.ok_or(CampaignRefusal::NotFound))
}

/// Organization `$1`'s campaigns whose key contains pattern `$2` (any
/// when `NULL`; `\` escapes).
const LIST_FILTER: &str = "WHERE c.organization_id = $1
  AND (CAST($2 AS TEXT) IS NULL OR c.name_lower LIKE $2 ESCAPE '\\')";

/// `q` as a `LIKE` pattern matching names that contain it in any case:
/// its key, with `\`, `%` and `_` taken literally.
fn contains_pattern(q: &str) -> String {
    let mut pattern = String::from("%");
    for ch in vidpulse_domain::names::campaign_key(q).chars() {
        if matches!(ch, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(ch);
    }
    pattern.push('%');
    pattern
}

pub(super) async fn list<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    query: &CampaignListQuery,
) -> Result<(Vec<CampaignRecord>, i64), StoreError> {
    let pattern = query
        .q
        .as_deref()
        .filter(|q| !q.is_empty())
        .map(contains_pattern);
    let mut conn = store.read().await?;
    let rows: Vec<CampaignRow> = D::query(AssertSqlSafe(format!(
        "{SELECT_CAMPAIGN} {LIST_FILTER} ORDER BY c.created_at DESC, c.id DESC LIMIT $3 OFFSET $4"
    )))
    .bind(org.0)
    .bind(pattern.as_deref())
    .bind(query.limit)
    .bind(query.offset)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 = D::query(AssertSqlSafe(format!(
        "SELECT count(*) FROM campaigns c {LIST_FILTER}"
    )))
    .bind(org.0)
    .bind(pattern.as_deref())
    .fetch_scalar(&mut *conn)
    .await?;
    Ok((rows.into_iter().map(CampaignRecord::from).collect(), total))
}

pub(super) async fn get<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
) -> Result<Option<CampaignRecord>, StoreError> {
    read::<D>(&mut *store.read().await?, org, id.0).await
}

/// What an update reads of the campaign before changing it.
#[derive(sqlx::FromRow)]
struct Current {
    name: String,
    starts_on: Option<NaiveDate>,
    ends_on: Option<NaiveDate>,
}

pub(super) async fn update<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
    changes: CampaignChanges,
    now: DateTime<Utc>,
) -> Result<Result<CampaignRecord, CampaignRefusal>, StoreError> {
    let mut tx = store.write_tx().await?;
    let current: Option<Current> = D::query(AssertSqlSafe(format!(
        "SELECT name, starts_on, ends_on FROM campaigns
         WHERE organization_id = $1 AND id = $2 {lock}",
        lock = D::ROW_LOCK,
    )))
    .bind(org.0)
    .bind(id.0)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(current) = current else {
        return rollback_with(tx, Ok(Err(CampaignRefusal::NotFound))).await;
    };
    // The days as they will be: a change of one is checked against the
    // other as stored.
    let starts_on = changes.starts_on.unwrap_or(current.starts_on);
    let ends_on = changes.ends_on.unwrap_or(current.ends_on);
    if starts_on.zip(ends_on).is_some_and(|(s, e)| e < s) {
        return rollback_with(tx, Ok(Err(CampaignRefusal::EndsBeforeStart))).await;
    }
    let new_name = changes.name.as_ref().filter(|n| n.as_str() != current.name);
    if let Some(name) = new_name {
        // Another campaign of that name in any case; the campaign itself
        // may change its own name's letter case.
        let taken: Option<Uuid> = D::query(
            "SELECT id FROM campaigns WHERE organization_id = $1 AND name_lower = $2 AND id <> $3",
        )
        .bind(org.0)
        .bind(name.key())
        .bind(id.0)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        if taken.is_some() {
            return rollback_with(tx, Ok(Err(CampaignRefusal::NameTaken))).await;
        }
    }
    D::query(AssertSqlSafe(format!(
        "UPDATE campaigns SET
           name = coalesce({name}, name),
           name_lower = coalesce({name_lower}, name_lower),
           client = CASE WHEN $5 THEN {client} ELSE client END,
           starts_on = CASE WHEN $7 THEN {starts_on} ELSE starts_on END,
           ends_on = CASE WHEN $9 THEN {ends_on} ELSE ends_on END,
           budget = CASE WHEN $11 THEN {budget} ELSE budget END,
           currency = coalesce({currency}, currency),
           target_views = CASE WHEN $14 THEN {target_views} ELSE target_views END,
           notes = CASE WHEN $16 THEN {notes} ELSE notes END,
           archived_at = CASE WHEN {archived} IS NULL THEN archived_at
                              WHEN {archived} THEN coalesce(archived_at, $19)
                              ELSE NULL END,
           updated_at = $19
         WHERE organization_id = $1 AND id = $2",
        name = D::typed("$3", "text"),
        name_lower = D::typed("$4", "text"),
        client = D::typed("$6", "text"),
        starts_on = D::typed("$8", "date"),
        ends_on = D::typed("$10", "date"),
        budget = D::typed("$12", "float8"),
        currency = D::typed("$13", "text"),
        target_views = D::typed("$15", "bigint"),
        notes = D::typed("$17", "text"),
        archived = D::typed("$18", "boolean"),
    )))
    .bind(org.0)
    .bind(id.0)
    .bind(new_name.map(|n| n.as_str()))
    .bind(new_name.map(|n| n.key()))
    .bind(changes.client.is_some())
    .bind(changes.client.clone().flatten())
    .bind(changes.starts_on.is_some())
    .bind(starts_on)
    .bind(changes.ends_on.is_some())
    .bind(ends_on)
    .bind(changes.budget.is_some())
    .bind(changes.budget.flatten())
    .bind(changes.currency.as_deref())
    .bind(changes.target_views.is_some())
    .bind(changes.target_views.flatten())
    .bind(changes.notes.is_some())
    .bind(changes.notes.clone().flatten())
    .bind(changes.archived)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let name = match new_name {
        Some(name) => {
            let name = name.as_str().to_owned();
            rewrite(&mut tx, org, &current.name, Some(&name), now).await?;
            name
        }
        None => current.name.clone(),
    };
    let retime = new_name.is_some()
        || (changes.starts_on.is_some() && starts_on != current.starts_on)
        || (changes.ends_on.is_some() && ends_on != current.ends_on);
    if retime {
        super::tracking::retime_campaign::<D>(&mut tx, org, &name).await?;
    }
    let record = read::<D>(&mut tx, org, id.0).await?;
    tx.commit().await?;
    Ok(record.ok_or(CampaignRefusal::NotFound))
}

/// Moves `org`'s videos and creators carrying campaign `old` to `new`
/// (`None`: no campaign), settling the analytics rollup their cells move
/// in; the ids of the videos moved.
async fn rewrite<D: Db>(
    tx: &mut Tx<D>,
    org: OrgId,
    old: &str,
    new: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, StoreError> {
    let videos: Vec<(Uuid, i64)> = D::query(
        "SELECT id, platform_video_id FROM tracked_videos
         WHERE organization_id = $1 AND campaign = $2",
    )
    .bind(org.0)
    .bind(old)
    .fetch_all(&mut **tx)
    .await?;
    let scope = Scope::tracked_by(org.0, videos.iter().map(|(_, catalog)| *catalog));
    let before = rollup::shares(tx, &scope).await?;
    for statement in [
        "UPDATE tracked_videos SET campaign = $3, updated_at = $4
         WHERE organization_id = $1 AND campaign = $2",
        "UPDATE tracked_accounts SET campaign = $3, updated_at = $4
         WHERE organization_id = $1 AND campaign = $2",
    ] {
        D::query(statement)
            .bind(org.0)
            .bind(old)
            .bind(new)
            .bind(now)
            .execute(&mut **tx)
            .await?;
    }
    rollup::settle(tx, &scope, before).await?;
    Ok(videos.into_iter().map(|(id, _)| id).collect())
}

pub(super) async fn delete<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    id: CampaignId,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let mut tx = store.write_tx().await?;
    let name: Option<String> = D::query(AssertSqlSafe(format!(
        "SELECT name FROM campaigns WHERE organization_id = $1 AND id = $2 {lock}",
        lock = D::ROW_LOCK,
    )))
    .bind(org.0)
    .bind(id.0)
    .fetch_scalar_optional(&mut *tx)
    .await?;
    let Some(name) = name else {
        return rollback_with(tx, Ok(false)).await;
    };
    let cleared = rewrite(&mut tx, org, &name, None, now).await?;
    super::tracking::retime_videos::<D>(&mut tx, org, &cleared).await?;
    D::query("DELETE FROM campaigns WHERE organization_id = $1 AND id = $2")
        .bind(org.0)
        .bind(id.0)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::contains_pattern;

    #[test]
    fn searches_take_wildcards_literally_in_any_case() {
        assert_eq!(contains_pattern("Sum"), "%sum%");
        assert_eq!(contains_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }
}
