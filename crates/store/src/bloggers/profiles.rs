//! Creator profiles: an organization's tracked accounts grouped under one
//! name.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;

use super::{CreatorGroup, GroupInto, Grouped};
use crate::StoreError;
use crate::sql::{Dialect, SqlStore, rollback_with};

/// A tracked account to group: id, its profile, its creator's handle and
/// display name.
type AccountRow = (Uuid, Option<Uuid>, String, Option<String>);

/// [`crate::BloggerStore::group_bloggers`].
pub(super) async fn group<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    into: GroupInto<'_>,
    blogger_ids: &[Uuid],
    now: DateTime<Utc>,
) -> Result<Grouped, StoreError> {
    let mut tx = store.write_tx().await?;
    // The accounts, in id order (row locks in one order on PostgreSQL).
    let mut accounts = Vec::with_capacity(blogger_ids.len());
    let mut unknown = Vec::new();
    for id in blogger_ids {
        let found: Option<AccountRow> = D::query(
            "SELECT ta.id, ta.creator_profile_id, c.username, c.display_name
             FROM tracked_accounts ta JOIN creators c ON c.id = ta.creator_id
             WHERE ta.creator_id = $1 AND ta.organization_id = $2",
        )
        .bind(id)
        .bind(org.0)
        .fetch_optional(&mut *tx)
        .await?;
        match found {
            Some(found) => accounts.push(found),
            None => unknown.push(*id),
        }
    }
    if !unknown.is_empty() {
        return rollback_with(tx, Ok(Grouped::UnknownBloggers(unknown))).await;
    }
    let profile = match into {
        GroupInto::Existing(id) => {
            let found: Option<Uuid> =
                D::query("SELECT id FROM creator_profiles WHERE id = $1 AND organization_id = $2")
                    .bind(id)
                    .bind(org.0)
                    .fetch_scalar_optional(&mut *tx)
                    .await?;
            match found {
                Some(id) => id,
                None => return rollback_with(tx, Ok(Grouped::UnknownProfile)).await,
            }
        }
        GroupInto::New(name) => {
            let name = match name {
                Some(name) => name.to_owned(),
                None => accounts
                    .first()
                    .map(|(_, _, username, display)| {
                        display.clone().unwrap_or_else(|| username.clone())
                    })
                    .unwrap_or_default(),
            };
            let id = Uuid::now_v7();
            D::query(
                "INSERT INTO creator_profiles (id, organization_id, name, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $4)",
            )
            .bind(id)
            .bind(org.0)
            .bind(name)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            id
        }
    };
    accounts.sort_by_key(|a| a.0);
    let mut left: Vec<Uuid> = Vec::new();
    for (account, previous, _, _) in &accounts {
        D::query(
            "UPDATE tracked_accounts SET creator_profile_id = $1, updated_at = $2
             WHERE id = $3",
        )
        .bind(profile)
        .bind(now)
        .bind(account)
        .execute(&mut *tx)
        .await?;
        if let Some(previous) = previous
            && *previous != profile
        {
            left.push(*previous);
        }
    }
    left.sort();
    left.dedup();
    for previous in left {
        D::query(
            "DELETE FROM creator_profiles WHERE id = $1 AND NOT EXISTS (
               SELECT 1 FROM tracked_accounts WHERE creator_profile_id = $1)",
        )
        .bind(previous)
        .execute(&mut *tx)
        .await?;
    }
    D::query("UPDATE creator_profiles SET updated_at = $2 WHERE id = $1")
        .bind(profile)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    let (name, created_at): (String, DateTime<Utc>) =
        D::query("SELECT name, created_at FROM creator_profiles WHERE id = $1")
            .bind(profile)
            .fetch_one(&mut *tx)
            .await?;
    let blogger_ids: Vec<Uuid> = D::query(
        "SELECT creator_id FROM tracked_accounts WHERE creator_profile_id = $1
         ORDER BY creator_id",
    )
    .bind(profile)
    .fetch_column(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Grouped::Done(CreatorGroup {
        id: profile,
        name,
        blogger_ids,
        created_at,
    }))
}
