//! An organization's tags, and a tracked account's: what its videos, present
//! and future, carry.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::names::{TagName, tag_key};

use super::{SetTags, Tag};
use crate::StoreError;
use crate::sql::{Builder, Dialect, SqlStore, Tx, rollback_with};

/// A tag row: id, name, creation time.
type TagRow = (Uuid, String, DateTime<Utc>);

fn tag((id, name, created_at): TagRow) -> Tag {
    Tag {
        id,
        name,
        created_at,
    }
}

/// [`crate::BloggerStore::tags`].
pub(super) async fn list<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
) -> Result<Vec<Tag>, StoreError> {
    let rows: Vec<TagRow> = D::query(
        "SELECT id, name, created_at FROM tags WHERE organization_id = $1
         ORDER BY name_lower",
    )
    .bind(org.0)
    .fetch_all(&mut *store.read().await?)
    .await?;
    Ok(rows.into_iter().map(tag).collect())
}

/// [`crate::BloggerStore::create_tag`].
pub(super) async fn create<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    name: &str,
    now: DateTime<Utc>,
) -> Result<(Tag, bool), StoreError> {
    let mut tx = store.write_tx().await?;
    let created: Option<Uuid> = D::query(
        "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (organization_id, name_lower) DO NOTHING
         RETURNING id",
    )
    .bind(Uuid::now_v7())
    .bind(org.0)
    .bind(name)
    .bind(tag_key(name))
    .bind(now)
    .fetch_scalar_optional(&mut *tx)
    .await?;
    let row: TagRow = D::query(
        "SELECT id, name, created_at FROM tags
         WHERE organization_id = $1 AND name_lower = $2",
    )
    .bind(org.0)
    .bind(tag_key(name))
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((tag(row), created.is_some()))
}

/// [`crate::BloggerStore::set_blogger_tags`].
pub(super) async fn set_on_account<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    tracking_id: Uuid,
    tag_ids: &[Uuid],
) -> Result<SetTags, StoreError> {
    let mut tx = store.write_tx().await?;
    if !super::manage::account_exists::<D>(&mut tx, org, tracking_id).await? {
        return rollback_with(tx, Ok(SetTags::UnknownBlogger)).await;
    }
    let mut tags = Vec::with_capacity(tag_ids.len());
    let mut unknown = Vec::new();
    for id in tag_ids {
        let found: Option<(String, DateTime<Utc>)> =
            D::query("SELECT name, created_at FROM tags WHERE id = $1 AND organization_id = $2")
                .bind(id)
                .bind(org.0)
                .fetch_optional(&mut *tx)
                .await?;
        match found {
            Some((name, created_at)) => tags.push(tag((*id, name, created_at))),
            None => unknown.push(*id),
        }
    }
    if !unknown.is_empty() {
        return rollback_with(tx, Ok(SetTags::UnknownTags(unknown))).await;
    }
    crate::creators::replace_account_tags(&mut tx, org.0, tracking_id, tag_ids).await?;
    tx.commit().await?;
    tags.sort_by_key(|t| tag_key(&t.name));
    tags.dedup_by_key(|t| t.id);
    Ok(SetTags::Done(tags))
}

/// The organization's tag `name` in any letter case, created at `now` when
/// it has none: its id, its stored name, and whether it was created.
pub(crate) async fn find_or_create<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    name: &TagName,
    now: DateTime<Utc>,
) -> Result<(Uuid, String, bool), StoreError> {
    let lower = name.key();
    let existing: Option<(Uuid, String)> =
        D::query("SELECT id, name FROM tags WHERE organization_id = $1 AND name_lower = $2")
            .bind(org.0)
            .bind(&lower)
            .fetch_optional(&mut **tx)
            .await?;
    if let Some((id, stored)) = existing {
        return Ok((id, stored, false));
    }
    let id = Uuid::now_v7();
    D::query(
        "INSERT INTO tags (id, organization_id, name, name_lower, created_at)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(org.0)
    .bind(name.as_str())
    .bind(&lower)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok((id, name.as_str().to_owned(), true))
}

/// A tag of a tracked account.
#[derive(sqlx::FromRow)]
struct AccountTagRow {
    tracked_account_id: Uuid,
    id: Uuid,
    name: String,
    created_at: DateTime<Utc>,
}

/// [`crate::BloggerStore::blogger_tags`].
pub(super) async fn of_accounts<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    accounts: &[Uuid],
) -> Result<HashMap<Uuid, Vec<Tag>>, StoreError> {
    let mut tags: HashMap<Uuid, Vec<Tag>> = HashMap::new();
    if accounts.is_empty() {
        return Ok(tags);
    }
    let mut q = Builder::<D>::new(
        "SELECT at.tracked_account_id, t.id, t.name, t.created_at
         FROM account_tags at JOIN tags t ON t.id = at.tag_id
         WHERE t.organization_id = ",
    );
    q.push_bind(org.0).push(" AND at.tracked_account_id IN (");
    q.push_list(accounts.iter().copied());
    q.push(") ORDER BY t.name_lower, t.id");
    let rows: Vec<AccountTagRow> = q.build().fetch_all(&mut *store.read().await?).await?;
    for r in rows {
        tags.entry(r.tracked_account_id)
            .or_default()
            .push(tag((r.id, r.name, r.created_at)));
    }
    Ok(tags)
}
