//! The one-off task of migration 0030: every campaign name an organization
//! already used becomes a campaign.

use std::collections::BTreeMap;

use chrono::Utc;
use uuid::Uuid;
use vidpulse_domain::names::campaign_key;

use crate::StoreError;
use crate::sql::{Conn, Dialect};

/// Runs the `adopt_campaigns` task when a migration queued it: per
/// organization and name in any letter case, one campaign, named by its most
/// used spelling (ties: the first in byte order); videos and creators that
/// carry another spelling are rewritten to it, and the analytics rollup is
/// queued for a rebuild (its cells are keyed by the name). Run it before
/// [`crate::rollup::rebuild_if_queued`].
pub(crate) async fn adopt_if_queued<D: Dialect>(conn: &mut Conn<D>) -> Result<(), StoreError> {
    let pending: Option<String> =
        D::query("DELETE FROM store_tasks WHERE name = 'adopt_campaigns' RETURNING name")
            .fetch_scalar_optional(&mut *conn)
            .await?;
    if pending.is_none() {
        return Ok(());
    }
    let used: Vec<(Uuid, String, i64)> = D::query(
        "SELECT organization_id, campaign, CAST(count(*) AS BIGINT) FROM (
           SELECT organization_id, campaign FROM tracked_videos WHERE campaign IS NOT NULL
           UNION ALL
           SELECT organization_id, campaign FROM tracked_accounts WHERE campaign IS NOT NULL
         ) u GROUP BY organization_id, campaign",
    )
    .fetch_all(&mut *conn)
    .await?;
    // (org, key) → spellings with their use counts.
    let mut groups: BTreeMap<(Uuid, String), Vec<(String, i64)>> = BTreeMap::new();
    for (org, name, uses) in used {
        if name.trim().is_empty() {
            continue;
        }
        groups
            .entry((org, campaign_key(&name)))
            .or_default()
            .push((name, uses));
    }
    let now = Utc::now();
    let mut rewritten = false;
    for ((org, key), mut spellings) in groups {
        spellings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let name = spellings[0].0.clone();
        D::query(
            "INSERT INTO campaigns (id, organization_id, name, name_lower, currency, created_at, updated_at)
             SELECT $1, o.id, $3, $4, o.currency, $5, $5 FROM organizations o WHERE o.id = $2
             ON CONFLICT (organization_id, name_lower) DO NOTHING",
        )
        .bind(Uuid::now_v7())
        .bind(org)
        .bind(&name)
        .bind(&key)
        .bind(now)
        .execute(&mut *conn)
        .await?;
        for (other, _) in &spellings[1..] {
            for statement in [
                "UPDATE tracked_videos SET campaign = $3 WHERE organization_id = $1 AND campaign = $2",
                "UPDATE tracked_accounts SET campaign = $3 WHERE organization_id = $1 AND campaign = $2",
            ] {
                D::query(statement)
                    .bind(org)
                    .bind(other)
                    .bind(&name)
                    .execute(&mut *conn)
                    .await?;
            }
            rewritten = true;
        }
    }
    if rewritten {
        D::query(
            "INSERT INTO store_tasks (name) VALUES ('rebuild_analytics') ON CONFLICT DO NOTHING",
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
