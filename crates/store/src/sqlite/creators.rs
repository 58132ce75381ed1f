//! Creators and their jobs on SQLite. Writers are serialised by
//! `BEGIN IMMEDIATE`, so the checks of a method and its writes see the same
//! state; the in-flight unique index backs the job rule all the same.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sqlx::{AssertSqlSafe, Sqlite, Transaction};
use uuid::Uuid;
use vidpulse_domain::plan::Limits;
use vidpulse_domain::{OrgId, Plan, Platform};

use super::SqliteStore;
use super::videos::{track_in, videos_in_use};
use crate::StoreError;
use crate::bloggers::account_setup_impl;
use crate::creators::{
    AccountSetup, ClaimedJob, CreatorJob, CreatorProfile, CreatorStore, DiscoveryOutcome,
    DiscoveryResult, DueDiscovery, JOB_TIMEOUT, JobFinished, JobSuccess, NewCreatorJob, StartJob,
    TrackedAccount, creator_batch, discovery_note, timeout_message,
};
use crate::rows::{
    ACCOUNT_COLUMNS, AccountRow, ClaimedJobRow, DUE_DISCOVERY_COLUMNS, DueDiscoveryRow,
    JOB_COLUMNS, JobRow,
};
use crate::videos::{QuotaPolicy, TrackBatch, TrackOutcome};

const IN_FLIGHT: &str = "status IN ('queued', 'processing')";

#[async_trait]
impl CreatorStore for SqliteStore {
    async fn start_creator_job(&self, job: &NewCreatorJob) -> Result<StartJob, StoreError> {
        let mut tx = self.write_tx().await?;
        let (plan, quota, cap): (String, Option<i64>, Option<i64>) = sqlx::query_as(
            "SELECT plan, video_quota, creator_cap FROM organizations WHERE id = ?1",
        )
        .bind(job.organization_id.0)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        let plan: Plan = plan
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
        let limits = Limits::of(plan, quota, cap);
        let key = job.username.to_lowercase();

        let account: Option<(Uuid, bool)> = sqlx::query_as(
            "SELECT ta.id, ta.is_active FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = ?1 AND c.platform = ?2
               AND (c.username_key = ?3 OR c.channel_id = ?4)
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
            return Ok(StartJob::AlreadyTracked {
                tracked_account_id: id,
            });
        }
        let in_flight: Option<Uuid> = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT id FROM creator_jobs
             WHERE organization_id = ?1 AND platform = ?2 AND username_key = ?3 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .bind(job.platform.id())
        .bind(&key)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(job_id) = in_flight {
            return Ok(StartJob::InFlight {
                job_id,
                reactivation: account.is_some(),
            });
        }

        let active: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM tracked_accounts WHERE organization_id = ?1 AND is_active",
        )
        .bind(job.organization_id.0)
        .fetch_one(&mut *tx)
        .await?;
        let (pending_jobs, pending_videos): (i64, i64) = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT coalesce(sum(CASE WHEN tracked_account_id IS NULL THEN 1 ELSE 0 END), 0),
                    coalesce(sum(initial_videos_count), 0)
             FROM creator_jobs WHERE organization_id = ?1 AND {IN_FLIGHT}"
        )))
        .bind(job.organization_id.0)
        .fetch_one(&mut *tx)
        .await?;
        // Jobs of an account that exists count as that account (active), not
        // as a creator to come. A refetch tracks no new creator: only the
        // videos count against limits.
        if !refetching && active + pending_jobs + 1 > limits.creator_cap {
            return Ok(StartJob::CreatorCapReached {
                cap: limits.creator_cap,
                in_use: active + pending_jobs,
            });
        }
        let videos = videos_in_use(&mut tx, job.organization_id, job.now).await?;
        if videos + pending_videos + job.initial_videos_count > limits.video_quota {
            return Ok(StartJob::QuotaExceeded {
                quota: limits.video_quota,
                in_use: videos + pending_videos,
                requested: job.initial_videos_count,
            });
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
        sqlx::query(
            "INSERT INTO creator_jobs
               (id, organization_id, api_key_id, request_id, platform, username, username_key,
                initial_videos_count, status, created_at, tracked_account_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'queued', ?9, ?10)",
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
        let row = sqlx::query_as::<_, JobRow>(AssertSqlSafe(job_sql()))
            .bind(job_id)
            .bind(org.0)
            .fetch_optional(&mut *conn)
            .await?;
        row.map(CreatorJob::try_from).transpose()
    }

    async fn claim_creator_job(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let mut tx = self.write_tx().await?;
        let row = sqlx::query_as::<_, ClaimedJobRow>(
            "UPDATE creator_jobs SET status = 'processing', started_at = coalesce(started_at, ?1),
               lease_until = ?2, lease_token = ?3, attempts = attempts + 1
             WHERE id = (
               SELECT id FROM creator_jobs
               WHERE status = 'queued'
                  OR (status = 'processing' AND (lease_until IS NULL OR lease_until <= ?1))
               ORDER BY created_at LIMIT 1)
             RETURNING id, organization_id, api_key_id, request_id, platform, username,
                       initial_videos_count, lease_token, attempts",
        )
        .bind(now)
        .bind(now + lease)
        .bind(Uuid::new_v4())
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        row.map(ClaimedJob::try_from).transpose()
    }

    async fn finish_creator_job(
        &self,
        success: &JobSuccess,
    ) -> Result<Option<JobFinished>, StoreError> {
        let mut tx = self.write_tx().await?;
        let job: Option<(Uuid, Option<Uuid>, String, i64)> = sqlx::query_as(
            "SELECT organization_id, api_key_id, request_id, initial_videos_count FROM creator_jobs
             WHERE id = ?1 AND lease_token = ?2 AND status = 'processing'",
        )
        .bind(success.job_id)
        .bind(success.lease_token)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((org, api_key_id, request_id, initial)) = job else {
            return Ok(None);
        };
        let creator_id = upsert_creator(&mut tx, &success.profile, success.now).await?;
        let account: Option<(Uuid, bool)> = sqlx::query_as(
            "SELECT id, is_active FROM tracked_accounts WHERE organization_id = ?1 AND creator_id = ?2",
        )
        .bind(org)
        .bind(creator_id)
        .fetch_optional(&mut *tx)
        .await?;
        let (account_id, is_reactivation) = match account {
            None => {
                let id = Uuid::now_v7();
                sqlx::query(
                    "INSERT INTO tracked_accounts
                       (id, organization_id, creator_id, is_active, initial_videos_count,
                        last_scraped_at, discovered_since, next_discovery_at, created_at, updated_at)
                     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5, ?6, ?5, ?5)",
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
                sqlx::query(
                    "UPDATE tracked_accounts SET is_active = 1, initial_videos_count = ?2,
                       last_scraped_at = ?3, discovered_since = ?3, next_discovery_at = ?4,
                       discovery_note = NULL, updated_at = ?3
                     WHERE id = ?1",
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
        sqlx::query(
            "UPDATE creator_jobs SET status = 'succeeded', completed_at = ?2, lease_until = NULL,
               lease_token = NULL, tracked_account_id = ?3, is_reactivation = ?4
             WHERE id = ?1",
        )
        .bind(success.job_id)
        .bind(success.now)
        .bind(account_id)
        .bind(is_reactivation)
        .execute(&mut *tx)
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
        let done = sqlx::query(
            "UPDATE creator_jobs SET status = 'error', error_code = ?3, error_message = ?4,
               completed_at = ?5, lease_until = NULL, lease_token = NULL
             WHERE id = ?1 AND lease_token = ?2 AND status = 'processing'",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(code)
        .bind(message)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn retry_creator_job(
        &self,
        job_id: Uuid,
        lease_token: Uuid,
        retry_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE creator_jobs SET lease_until = ?3, lease_token = NULL
             WHERE id = ?1 AND lease_token = ?2 AND status = 'processing'",
        )
        .bind(job_id)
        .bind(lease_token)
        .bind(retry_at)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn sweep_creator_jobs(
        &self,
        now: DateTime<Utc>,
        timeout: Duration,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE creator_jobs SET status = 'error', error_code = ?3, error_message = ?4,
               completed_at = ?1, lease_until = NULL, lease_token = NULL
             WHERE (status = 'processing' AND started_at <= ?2)
                OR (status = 'queued' AND created_at <= ?2)",
        )
        .bind(now)
        .bind(now - timeout)
        .bind(JOB_TIMEOUT)
        .bind(timeout_message(timeout))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    async fn tracked_account_by_username(
        &self,
        org: OrgId,
        platform: Option<Platform>,
        username: &str,
    ) -> Result<Option<TrackedAccount>, StoreError> {
        let row = sqlx::query_as::<_, AccountRow>(AssertSqlSafe(format!(
            "SELECT {ACCOUNT_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.organization_id = ?1 AND c.username_key = ?2
               AND (?3 IS NULL OR c.platform = ?3)
             ORDER BY ta.is_active DESC, ta.created_at DESC LIMIT 1"
        )))
        .bind(org.0)
        .bind(username.to_lowercase())
        .bind(platform.map(|p| p.id()))
        .fetch_optional(&self.pool)
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
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE tracked_accounts SET is_active = ?3, updated_at = ?4,
               next_discovery_at = CASE WHEN ?3 THEN coalesce(next_discovery_at, ?4)
                                        ELSE next_discovery_at END
             WHERE id = ?1 AND organization_id = ?2",
        )
        .bind(tracked_account_id)
        .bind(org.0)
        .bind(active)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn claim_due_discoveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<DueDiscovery>, StoreError> {
        let mut tx = self.write_tx().await?;
        let token = Uuid::new_v4();
        sqlx::query(
            "UPDATE tracked_accounts SET discovery_lease_until = ?2, discovery_lease_token = ?3
             WHERE id IN (
               SELECT id FROM tracked_accounts
               WHERE is_active AND next_discovery_at IS NOT NULL AND next_discovery_at <= ?1
                 AND (discovery_lease_until IS NULL OR discovery_lease_until <= ?1)
               ORDER BY next_discovery_at LIMIT ?4)",
        )
        .bind(now)
        .bind(now + lease)
        .bind(token)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        let rows = sqlx::query_as::<_, DueDiscoveryRow>(AssertSqlSafe(format!(
            "SELECT {DUE_DISCOVERY_COLUMNS} FROM tracked_accounts ta
             JOIN creators c ON c.id = ta.creator_id
             WHERE ta.discovery_lease_token = ?1"
        )))
        .bind(token)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.into_iter().map(DueDiscovery::try_from).collect()
    }

    async fn finish_discovery(
        &self,
        result: &DiscoveryResult,
    ) -> Result<DiscoveryOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let claimed: Option<Uuid> = sqlx::query_scalar(
            "SELECT organization_id FROM tracked_accounts
             WHERE id = ?1 AND discovery_lease_token = ?2",
        )
        .bind(result.tracked_account_id)
        .bind(result.lease_token)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(org) = claimed else {
            return Ok(DiscoveryOutcome::default());
        };
        if let Some(profile) = &result.profile {
            upsert_creator(&mut tx, profile, result.now).await?;
        }
        let batch = creator_batch(
            OrgId(org),
            None,
            format!("discovery:{}", result.tracked_account_id),
            &result.new_videos,
            result.now,
        );
        let batch = with_account_defaults(&mut tx, batch, result.tracked_account_id).await?;
        let (videos_tracked, videos_skipped) =
            track_what_fits(&mut tx, &batch, "creator_discovery").await?;
        let note = discovery_note(result, videos_skipped);
        let listed = result.profile.is_some();
        sqlx::query(
            "UPDATE tracked_accounts SET
               last_scraped_at = CASE WHEN ?3 THEN ?2 ELSE last_scraped_at END,
               discovered_since = CASE WHEN ?3 THEN ?2 ELSE discovered_since END,
               next_discovery_at = ?4, discovery_note = ?5,
               discovery_lease_until = NULL, discovery_lease_token = NULL, updated_at = ?2
             WHERE id = ?1",
        )
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
}

fn job_sql() -> String {
    format!(
        "SELECT {JOB_COLUMNS}, {ACCOUNT_COLUMNS} FROM creator_jobs j
         LEFT JOIN tracked_accounts ta ON ta.id = j.tracked_account_id
         LEFT JOIN creators c ON c.id = ta.creator_id
         WHERE j.id = ?1 AND j.organization_id = ?2"
    )
}

async fn load_job(
    tx: &mut Transaction<'static, Sqlite>,
    org: OrgId,
    id: Uuid,
) -> Result<Option<CreatorJob>, StoreError> {
    let row = sqlx::query_as::<_, JobRow>(AssertSqlSafe(job_sql()))
        .bind(id)
        .bind(org.0)
        .fetch_optional(&mut **tx)
        .await?;
    row.map(CreatorJob::try_from).transpose()
}

/// Inserts or refreshes the catalog row of a platform account; returns its id.
async fn upsert_creator(
    tx: &mut Transaction<'static, Sqlite>,
    p: &CreatorProfile,
    now: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO creators
           (id, platform, channel_id, username, username_key, display_name, avatar_url,
            follower_count, last_fetched_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
         ON CONFLICT (platform, channel_id) DO UPDATE SET
           username = excluded.username, username_key = excluded.username_key,
           display_name = coalesce(excluded.display_name, creators.display_name),
           avatar_url = coalesce(excluded.avatar_url, creators.avatar_url),
           follower_count = coalesce(excluded.follower_count, creators.follower_count),
           last_fetched_at = excluded.last_fetched_at
         RETURNING id",
    )
    .bind(Uuid::now_v7())
    .bind(p.platform.id())
    .bind(&p.channel_id)
    .bind(&p.username)
    .bind(p.username.to_lowercase())
    .bind(&p.display_name)
    .bind(&p.avatar_url)
    .bind(p.follower_count)
    .bind(now)
    .fetch_one(&mut **tx)
    .await?)
}

/// Tracks what the quota allows; returns (newly tracked, skipped).
async fn track_what_fits(
    tx: &mut Transaction<'static, Sqlite>,
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

/// `batch` with the tracked account's campaign and budget per video, which
/// the videos it tracks take.
async fn with_account_defaults(
    tx: &mut Transaction<'static, Sqlite>,
    mut batch: crate::videos::TrackBatch,
    account: Uuid,
) -> Result<crate::videos::TrackBatch, StoreError> {
    let (campaign, budget): (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT campaign, budget_per_video FROM tracked_accounts WHERE id = ?1")
            .bind(account)
            .fetch_one(&mut **tx)
            .await?;
    batch.campaign = campaign;
    batch.budget = budget;
    batch.account = Some(account);
    Ok(batch)
}

account_setup_impl!(Sqlite, true);
