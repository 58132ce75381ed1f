//! Attaching by name: the campaign a video or creator gets when a write
//! names one, found in any letter case or created.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use vidpulse_domain::OrgId;
use vidpulse_domain::names::Campaign;

use crate::StoreError;
use crate::sql::{Conn, Dialect};

/// The stored name of `org`'s campaign called `name` in any letter case,
/// creating it (with the organization's currency) when it has none. Call it
/// inside the write that sets the name, and write what it returns.
pub(crate) async fn attach<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    name: &Campaign,
    now: DateTime<Utc>,
) -> Result<String, StoreError> {
    let key = name.key();
    D::query(
        "INSERT INTO campaigns (id, organization_id, name, name_lower, currency, created_at, updated_at)
         SELECT $1, o.id, $3, $4, o.currency, $5, $5 FROM organizations o WHERE o.id = $2
         ON CONFLICT (organization_id, name_lower) DO NOTHING",
    )
    .bind(Uuid::now_v7())
    .bind(org.0)
    .bind(name.as_str())
    .bind(&key)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    let stored: Option<String> =
        D::query("SELECT name FROM campaigns WHERE organization_id = $1 AND name_lower = $2")
            .bind(org.0)
            .bind(&key)
            .fetch_scalar_optional(&mut *conn)
            .await?;
    Ok(stored.unwrap_or_else(|| name.as_str().to_owned()))
}
