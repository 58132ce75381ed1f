//! The creator jobs and tracked accounts, stored: the one implementation of
//! [`CreatorStore`] for both backends.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use uuid::Uuid;
use vidpulse_domain::{OrgId, Platform};

use serde_json::json;
use sqlx::AssertSqlSafe;
use vidpulse_domain::names::{Handle, handle_key};
use vidpulse_domain::webhooks::EventType;

use super::rows::{
    ACCOUNT_COLUMNS, AccountRow, ClaimedJobRow, DUE_DISCOVERY_COLUMNS, DueDiscoveryRow,
    JOB_COLUMNS, JobRow,
};
use super::*;
use crate::StoreError;
use crate::rollup::ScopeDialect;
use crate::sql::{Dialect, SqlStore, Tx, rollback_with};
use crate::videos::{Page, QuotaPolicy, TrackBatch, TrackOutcome, track_in, videos_in_use};
use crate::webhooks::Subscribers;

/// The statuses of a creator job still running.
pub(crate) const IN_FLIGHT: &str = "status IN ('queued', 'processing')";

#[async_trait]
impl<D: ScopeDialect> CreatorStore for SqlStore<D> {
    async fn start_creator_job(&self, job: &NewCreatorJob) -> Result<StartJob, StoreError> {
        let mut tx = self.write_tx().await?;
        let limits = locked_limits(&mut tx, job.organization_id).await?;
        let key = handle_key(&job.username);

        let account: Option<(Uuid, bool)> = D::query(
            "SELECT ta.id, ta.is_active FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = $1 AND c.platform = $2
               AND (c.username_key = $3 OR c.channel_id = $4)
             ORDER BY ta.is_active DESC LIMIT 1",
        )
        .bind(job.organization_id.0)
        .bind(job.platform.id())
        .bind(&key)
        .bind(job.setup.as_ref().and_then(AccountSetup::channel_id))
        .fetch_optional(&mut *tx)
        .await?;
        let refetching = job.refetch && matches!(account, Some((_, true)));
        if let Some((id, true)) = account
            && !refetching
        {
            return rollback_with(
                tx,
                Ok(StartJob::AlreadyTracked {
                    tracked_account_id: id,
                }),
            )
            .await;
        }
        let in_flight: Option<Uuid> = D::query(AssertSqlSafe(format!(
            "SELECT id FROM creator_jobs
             WHERE organization_id = $1 AND platform = $2 AND username_key = $3 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .bind(job.platform.id())
        .bind(&key)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        if let Some(job_id) = in_flight {
            return rollback_with(
                tx,
                Ok(StartJob::InFlight {
                    job_id,
                    reactivation: account.is_some(),
                }),
            )
            .await;
        }

        let creators = creators_in_use(&mut tx, job.organization_id).await?;
        let pending_videos: i64 = D::query(AssertSqlSafe(format!(
            "SELECT CAST(coalesce(sum(initial_videos_count), 0) AS BIGINT)
             FROM creator_jobs WHERE organization_id = $1 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .fetch_scalar(&mut *tx)
        .await?;
        // A refetch tracks no new creator: only the videos count against
        // limits.
        if !refetching && creators + 1 > limits.creator_cap {
            return rollback_with(
                tx,
                Ok(StartJob::CreatorCapReached {
                    cap: limits.creator_cap,
                    in_use: creators,
                }),
            )
            .await;
        }
        let videos = videos_in_use(&mut tx, job.organization_id, job.now).await?;
        if videos + pending_videos + job.initial_videos_count > limits.video_quota {
            return rollback_with(
                tx,
                Ok(StartJob::QuotaExceeded {
                    quota: limits.video_quota,
                    in_use: videos + pending_videos,
                    requested: job.initial_videos_count,
                }),
            )
            .await;
        }

        let account_id = match &job.setup {
            Some(setup) => Some(
                open_account(
                    &mut tx,
                    job.organization_id.0,
                    setup,
                    job.initial_videos_count,
                    job.now,
                )
                .await?,
            ),
            None if refetching => account.map(|(id, _)| id),
            None => None,
        };
        let id = Uuid::now_v7();
        D::query(
            "INSERT INTO creator_jobs
               (id, organization_id, api_key_id, request_id, platform, username, username_key,
                initial_videos_count, status, created_at, tracked_account_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10)",
        )
        .bind(id)
        .bind(job.organization_id.0)
        .bind(job.api_key_id.map(|k| k.0))
        .bind(&job.request_id)
        .bind(job.platform.id())
        .bind(&job.username)
        .bind(&key)
        .bind(job.initial_videos_count)
        .bind(job.now)
        .bind(account_id)
        .execute(&mut *tx)
        .await?;
        let created = load_job(&mut tx, job.organization_id, id)
            .await?
            .ok_or(StoreError::NotFound)?;
        tx.commit().await?;
        Ok(StartJob::Queued(Box::new(created)))
    }

    async fn creator_job(
        &self,
        org: OrgId,
        job_id: Uuid,
    ) -> Result<Option<CreatorJob>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let row = D::query(AssertSqlSafe(job_sql()))
            .bind(job_id)
            .bind(org.0)
            .fetch_optional::<JobRow>(&mut *conn)
            .await?;
        row.map(CreatorJob::try_from).transpose()
    }

    async fn claim_creator_job(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let mut tx = self.write_tx().await?;
        let row = D::query(AssertSqlSafe(format!(
            "UPDATE creator_jobs SET status = 'processing', started_at = coalesce(started_at, $1),
               lease_until = $2, lease_token = $3, attempts = attempts + 1
             WHERE id = (
               SELECT id FROM creator_jobs
               WHERE status = 'queued'
                  OR (status = 'processing' AND (lease_until IS NULL OR lease_until <= $1))
               ORDER BY created_at LIMIT 1 {claim_lock})
             RETURNING id, organization_id, api_key_id, request_id, platform, username,
                       initial_videos_count, lease_token, attempts",
            claim_lock = D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(Uuid::new_v4())
        .fetch_optional::<ClaimedJobRow>(&mut *tx)
        .await?;
        tx.commit().await?;
        row.map(ClaimedJob::try_from).transpose()
    }

    async fn finish_creator_job(
        &self,
        success: &JobSuccess,
    ) -> Result<Option<JobFinished>, StoreError> {
        let mut tx = self.write_tx().await?;
        let job: Option<(Uuid, Option<Uuid>, String, i64)> = D::query(AssertSqlSafe(format!(
            "SELECT organization_id, api_key_id, request_id, initial_videos_count FROM creator_jobs
             WHERE id = $1 AND lease_token = $2 AND status = 'processing' {row_lock}",
            row_lock = D::ROW_LOCK
        )))
        .bind(success.job_id)
        .bind(success.lease_token)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((org, api_key_id, request_id, initial)) = job else {
            return rollback_with(tx, Ok(None)).await;
        };
        let creator_id = upsert_creator(&mut tx, &success.profile, success.now).await?;
        let account: Option<(Uuid, bool)> = D::query(
            "SELECT id, is_active FROM tracked_accounts WHERE organization_id = $1 AND creator_id = $2",
        )
        .bind(org)
        .bind(creator_id)
        .fetch_optional(&mut *tx)
        .await?;
        let (account_id, is_reactivation) = match account {
            None => {
                let id = Uuid::now_v7();
                D::query(
                    "INSERT INTO tracked_accounts
                       (id, organization_id, creator_id, is_active, initial_videos_count,
                        last_scraped_at, discovered_since, next_discovery_at, created_at, updated_at)
                     VALUES ($1, $2, $3, TRUE, $4, $5, $5, $6, $5, $5)",
                )
                .bind(id)
                .bind(org)
                .bind(creator_id)
                .bind(initial)
                .bind(success.now)
                .bind(success.next_discovery_at)
                .execute(&mut *tx)
                .await?;
                (id, false)
            }
            Some((id, was_active)) => {
                D::query(
                    "UPDATE tracked_accounts SET is_active = TRUE, initial_videos_count = $2,
                       last_scraped_at = $3, discovered_since = $3, next_discovery_at = $4,
                       discovery_note = NULL, updated_at = $3
                     WHERE id = $1",
                )
                .bind(id)
                .bind(initial)
                .bind(success.now)
                .bind(success.next_discovery_at)
                .execute(&mut *tx)
                .await?;
                (id, !was_active)
            }
        };
        let batch = creator_batch(
            OrgId(org),
            api_key_id,
            request_id,
            &success.backfill,
            success.now,
        );
        let batch = with_account_defaults(&mut tx, batch, account_id).await?;
        let (videos_tracked, videos_skipped) =
            track_what_fits(&mut tx, &batch, "creator_backfill").await?;
        D::query(
            "UPDATE creator_jobs SET status = 'succeeded', completed_at = $2, lease_until = NULL,
               lease_token = NULL, tracked_account_id = $3, is_reactivation = $4
             WHERE id = $1",
        )
        .bind(success.job_id)
        .bind(success.now)
        .bind(account_id)
        .bind(is_reactivation)
        .execute(&mut *tx)
        .await?;
        let (platform, username): (String, String) =
            D::query("SELECT platform, username FROM creator_jobs WHERE id = $1")
                .bind(success.job_id)
                .fetch_one(&mut *tx)
                .await?;
        Subscribers::of(&mut tx, org, EventType::CreatorJobSucceeded)
            .await?
            .emit(
                &mut tx,
                json!({
                    "job_id": success.job_id,
                    "platform": platform,
                    "username": username,
                    "tracked_account_id": account_id,
                    "is_reactivation": is_reactivation,
                    "videos_tracked": videos_tracked,
                    "videos_skipped": videos_skipped,
                }),
                success.now,
            )
            .await?;
        tx.commit().await?;
        Ok(Some(JobFinished {
            tracked_account_id: account_id,
            is_reactivation,
            videos_tracked,
            videos_skipped,
        }))
    }

    async fn fail_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        code: &str,
        message: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_tx().await?;
        let failed: Option<FailedJob> = D::query(
            "UPDATE creator_jobs SET status = 'error', error_code = $3, error_message = $4,
               completed_at = $5, lease_until = NULL, lease_token = NULL
             WHERE id = $1 AND lease_token = $2 AND status = 'processing'
             RETURNING id, organization_id, platform, username",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(code)
        .bind(message)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(job) = &failed {
            announce_failure(&mut tx, job, code, message, now).await?;
        }
        tx.commit().await?;
        Ok(failed.is_some())
    }

    async fn retry_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        retry_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = D::query(
            "UPDATE creator_jobs SET lease_until = $3, lease_token = NULL
             WHERE id = $1 AND lease_token = $2 AND status = 'processing'",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(retry_at)
        .execute(&mut *self.write().await?)
        .await?;
        Ok(done == 1)
    }

    async fn sweep_creator_jobs(
        &self,
        now: DateTime<Utc>,
        timeout: Duration,
    ) -> Result<u64, StoreError> {
        let mut tx = self.write_tx().await?;
        let message = timeout_message(timeout);
        let failed: Vec<FailedJob> = D::query(
            "UPDATE creator_jobs SET status = 'error', error_code = $3, error_message = $4,
               completed_at = $1, lease_until = NULL, lease_token = NULL
             WHERE (status = 'processing' AND started_at <= $2)
                OR (status = 'queued' AND created_at <= $2)
             RETURNING id, organization_id, platform, username",
        )
        .bind(now)
        .bind(now - timeout)
        .bind(JOB_TIMEOUT)
        .bind(&message)
        .fetch_all(&mut *tx)
        .await?;
        for job in &failed {
            announce_failure(&mut tx, job, JOB_TIMEOUT, &message, now).await?;
        }
        tx.commit().await?;
        Ok(failed.len() as u64)
    }

    async fn tracked_account_by_username(
        &self,
        org: OrgId,
        platform: Option<Platform>,
        username: &Handle,
    ) -> Result<Option<TrackedAccount>, StoreError> {
        let row = D::query(AssertSqlSafe(format!(
            "SELECT {ACCOUNT_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = $1 AND c.username_key = $2
               AND ({platform} IS NULL OR c.platform = $3)
             ORDER BY ta.is_active DESC, ta.created_at DESC LIMIT 1",
            platform = D::typed("$3", "TEXT")
        )))
        .bind(org.0)
        .bind(username.key())
        .bind(platform.map(|p| p.id()))
        .fetch_optional::<AccountRow>(&mut *self.read().await?)
        .await?;
        Ok(match row {
            Some(r) => r.into_account()?,
            None => None,
        })
    }

    async fn tracked_account(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
    ) -> Result<Option<TrackedAccount>, StoreError> {
        let row = D::query(AssertSqlSafe(format!(
            "SELECT {ACCOUNT_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.id = $1 AND ta.organization_id = $2"
        )))
        .bind(tracked_account_id)
        .bind(org.0)
        .fetch_optional::<AccountRow>(&mut *self.read().await?)
        .await?;
        Ok(match row {
            Some(r) => r.into_account()?,
            None => None,
        })
    }

    async fn set_account_active(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        active: bool,
        now: DateTime<Utc>,
    ) -> Result<AccountChange, StoreError> {
        let mut tx = self.write_tx().await?;
        let change = set_active::<D>(&mut tx, org, tracked_account_id, active, now).await?;
        if change == AccountChange::Done {
            tx.commit().await?;
            Ok(change)
        } else {
            rollback_with(tx, Ok(change)).await
        }
    }

    async fn ask_discovery(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        now: DateTime<Utc>,
        cooldown: Duration,
        lease: Duration,
    ) -> Result<DiscoveryAsk, StoreError> {
        refresh::ask(self, org, tracked_account_id, now, cooldown, lease).await
    }

    async fn save_manual_discovery(
        &self,
        read: &ManualDiscovery,
    ) -> Result<Option<DiscoveryOutcome>, StoreError> {
        refresh::save(self, read).await
    }

    async fn release_discovery(
        &self,
        tracked_account_id: Uuid,
        lease_token: Uuid,
    ) -> Result<(), StoreError> {
        refresh::release(self, tracked_account_id, lease_token).await
    }

    async fn claim_due_discoveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDiscovery>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        D::query(AssertSqlSafe(format!(
            "UPDATE tracked_accounts SET discovery_lease_until = $2, discovery_lease_token = $3
             WHERE id IN (
               SELECT id FROM tracked_accounts
               WHERE is_active AND next_discovery_at IS NOT NULL AND next_discovery_at <= $1
                 AND (discovery_lease_until IS NULL OR discovery_lease_until <= $1)
               ORDER BY next_discovery_at LIMIT $4 {claim_lock})",
            claim_lock = D::CLAIM_LOCK
        )))
        .bind(now)
        .bind(now + lease)
        .bind(token)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        let due = claimed_discoveries(&mut tx, token).await?;
        tx.commit().await?;
        Ok(due)
    }

    async fn finish_discovery(
        &self,
        result: &DiscoveryResult,
    ) -> Result<DiscoveryOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let claimed: Option<Uuid> = D::query(AssertSqlSafe(format!(
            "SELECT organization_id FROM tracked_accounts
             WHERE id = $1 AND discovery_lease_token = $2 {row_lock}",
            row_lock = D::ROW_LOCK
        )))
        .bind(result.tracked_account_id)
        .bind(result.lease_token)
        .fetch_scalar_optional(&mut *tx)
        .await?;
        let Some(org) = claimed else {
            return rollback_with(tx, Ok(DiscoveryOutcome::default())).await;
        };
        let (videos_tracked, videos_skipped) = track_discovered(
            &mut tx,
            OrgId(org),
            result.tracked_account_id,
            result.profile.as_ref(),
            &result.new_videos,
            (None, format!("discovery:{}", result.tracked_account_id)),
            result.now,
        )
        .await?;
        let note = discovery_note(result.note.as_deref(), videos_skipped, result.now);
        let listed = result.profile.is_some();
        D::query(AssertSqlSafe(format!(
            "UPDATE tracked_accounts SET
               last_scraped_at = CASE WHEN {p3_bool} THEN $2 ELSE last_scraped_at END,
               discovered_since = CASE WHEN {p3_bool} THEN $2 ELSE discovered_since END,
               next_discovery_at = $4, discovery_note = $5,
               discovery_lease_until = NULL, discovery_lease_token = NULL, updated_at = $2
             WHERE id = $1",
            p3_bool = D::typed("$3", "BOOLEAN")
        )))
        .bind(result.tracked_account_id)
        .bind(result.now)
        .bind(listed)
        .bind(result.next_discovery_at)
        .bind(note)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(DiscoveryOutcome {
            videos_tracked,
            videos_skipped,
        })
    }

    async fn tracked_accounts(
        &self,
        org: OrgId,
        query: &AccountQuery,
    ) -> Result<Page<TrackedAccount>, StoreError> {
        listing::tracked_accounts(self, org, query).await
    }

    async fn creator_totals(
        &self,
        org: OrgId,
        tracked_account_ids: &[Uuid],
        today: NaiveDate,
    ) -> Result<HashMap<Uuid, CreatorTotals>, StoreError> {
        listing::creator_totals(self, org, tracked_account_ids, today).await
    }

    async fn follower_gains(
        &self,
        creator_ids: &[Uuid],
        today: NaiveDate,
    ) -> Result<HashMap<Uuid, FollowerGains>, StoreError> {
        followers::follower_gains(self, creator_ids, today).await
    }

    async fn follower_history(
        &self,
        org: OrgId,
        tracked_account_id: Uuid,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Option<Vec<FollowerDay>>, StoreError> {
        followers::follower_history(self, org, tracked_account_id, from, to).await
    }
}

/// A creator job that has just failed.
#[derive(sqlx::FromRow)]
struct FailedJob {
    id: Uuid,
    organization_id: Uuid,
    platform: String,
    username: String,
}

/// Writes `creator.job.failed` for `job` (in the failure's transaction).
async fn announce_failure<D: Dialect>(
    tx: &mut Tx<D>,
    job: &FailedJob,
    code: &str,
    message: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    Subscribers::of(tx, job.organization_id, EventType::CreatorJobFailed)
        .await?
        .emit(
            tx,
            json!({
                "job_id": job.id,
                "platform": job.platform,
                "username": job.username,
                "error": { "code": code, "message": message },
            }),
            now,
        )
        .await?;
    Ok(())
}

fn job_sql() -> String {
    format!(
        "SELECT {JOB_COLUMNS}, {ACCOUNT_COLUMNS} FROM creator_jobs j
         LEFT JOIN tracked_accounts ta ON ta.id = j.tracked_account_id
         LEFT JOIN creators c ON c.id = ta.creator_id
         WHERE j.id = $1 AND j.organization_id = $2"
    )
}

async fn load_job<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<CreatorJob>, StoreError> {
    let row = D::query(AssertSqlSafe(job_sql()))
        .bind(id)
        .bind(org.0)
        .fetch_optional::<JobRow>(&mut **tx)
        .await?;
    row.map(CreatorJob::try_from).transpose()
}

/// Tracks what the quota allows; returns (newly tracked, skipped).
async fn track_what_fits<D: ScopeDialect>(
    tx: &mut Tx<D>,
    batch: &TrackBatch,
    reason: &str,
) -> Result<(usize, usize), StoreError> {
    match track_in(tx, batch, reason, QuotaPolicy::WhatFits).await? {
        TrackOutcome::Tracked(results) => Ok((
            results.iter().filter(|r| r.newly_tracked).count(),
            batch.videos.len().saturating_sub(results.len()),
        )),
        TrackOutcome::QuotaExceeded { .. } => Ok((0, batch.videos.len())),
    }
}

/// Records what a discovery of organization `org`'s tracked `account` read
/// at `now`: the `profile` (when the read succeeded) and the `videos` found,
/// tracked as the quota allows and charged to `asker` (the API key, if any,
/// and the request id of the ledger); (newly tracked, skipped).
pub(super) async fn track_discovered<D: ScopeDialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    account: Uuid,
    profile: Option<&CreatorProfile>,
    videos: &CreatorVideos,
    asker: (Option<Uuid>, String),
    now: DateTime<Utc>,
) -> Result<(usize, usize), StoreError> {
    if let Some(profile) = profile {
        upsert_creator(tx, profile, now).await?;
    }
    let (key, request_id) = asker;
    let batch = creator_batch(org, key, request_id, videos, now);
    let batch = with_account_defaults(tx, batch, account).await?;
    track_what_fits(tx, &batch, "creator_discovery").await
}

/// `batch` with the tracked account's campaign and budget per video, which
/// the videos it tracks take.
async fn with_account_defaults<D: Dialect>(
    tx: &mut Tx<D>,
    mut batch: crate::videos::TrackBatch,
    account: Uuid,
) -> Result<crate::videos::TrackBatch, StoreError> {
    let (campaign, budget): (Option<String>, Option<i64>) =
        D::query("SELECT campaign, budget_per_video FROM tracked_accounts WHERE id = $1")
            .bind(account)
            .fetch_one(&mut **tx)
            .await?;
    batch.campaign = campaign;
    batch.budget = budget;
    batch.account = Some(account);
    Ok(batch)
}

/// The tracked accounts a discovery claim under lease `token` holds, with
/// their creators: what the claim hands to the worker (or to an ask).
pub(super) async fn claimed_discoveries<D: Dialect>(
    tx: &mut Tx<D>,
    token: Uuid,
) -> Result<Vec<DueDiscovery>, StoreError> {
    let rows = D::query(AssertSqlSafe(format!(
        "SELECT {DUE_DISCOVERY_COLUMNS} FROM tracked_accounts ta
         JOIN creators c ON c.id = ta.creator_id
         WHERE ta.discovery_lease_token = $1"
    )))
    .bind(token)
    .fetch_all::<DueDiscoveryRow>(&mut **tx)
    .await?;
    rows.into_iter().map(DueDiscovery::try_from).collect()
}
