//! The creator loops (docs/glossary.md, "Creators"): the job runner moves creator-track
//! jobs from `queued` to `succeeded` or `error`, the sweep closes jobs that
//! run past the timeout, and daily discovery tracks the new videos of every
//! active creator and refreshes its follower count.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::Duration;
use futures::StreamExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use vidpulse_domain::{Clock, VideoRef};
use vidpulse_platforms::{Channel, ChannelVideo, Source, SourceError, discover_channel};
use vidpulse_store::{
    ClaimedJob, CreatorProfile, CreatorVideos, DiscoveryResult, DueDiscovery, JobSuccess, Store,
    StoreError,
};

use crate::Tick;

/// Job error code: the platform has no such account.
pub const PLATFORM_NOT_FOUND: &str = "PLATFORM_NOT_FOUND";
/// Job error code: the platform failed (after retries) or is not available.
pub const EXTERNAL_API_ERROR: &str = "EXTERNAL_API_ERROR";

/// Tuning of the creator loops.
#[derive(Debug, Clone)]
pub struct CreatorConfig {
    /// A job running (or waiting) longer than this is closed with `JOB_TIMEOUT`.
    pub job_timeout: Duration,
    /// How often the timeout sweep runs.
    pub sweep_interval: StdDuration,
    /// How long a claim holds; a dead worker's job is retaken after it.
    pub lease: Duration,
    /// Claims of one job before a transient failure becomes its error.
    pub max_attempts: i64,
    /// Jobs and discoveries worked on at once.
    pub concurrency: usize,
    /// Time between two discoveries of one creator.
    pub discovery_interval: Duration,
    /// New videos tracked per discovery when the account sets no count.
    pub default_daily_videos: i64,
    /// Credits per newly tracked video (backfill and discovery).
    pub credits_per_video: i64,
    /// How long a video is tracked.
    pub tracking_window: Duration,
    /// Longest wait between two looks at the queue when idle.
    pub idle_poll: StdDuration,
}

impl Default for CreatorConfig {
    fn default() -> Self {
        Self {
            job_timeout: Duration::hours(1),
            sweep_interval: StdDuration::from_secs(3600),
            lease: Duration::minutes(5),
            max_attempts: 3,
            concurrency: 4,
            discovery_interval: Duration::days(1),
            default_daily_videos: vidpulse_domain::plan::DEFAULT_DAILY_VIDEOS,
            credits_per_video: 30,
            tracking_window: Duration::days(30),
            idle_poll: StdDuration::from_secs(2),
        }
    }
}

/// What the creator loops work with.
#[derive(Debug, Clone)]
pub struct CreatorContext {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The platform source.
    pub source: Arc<dyn Source>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Tuning.
    pub config: CreatorConfig,
    /// Notified when a job is queued, so it starts at once.
    pub wake: Arc<Notify>,
    /// Notified when videos are tracked (the refresh loop's wake-up).
    pub refresh_wake: Arc<Notify>,
}

/// Claims up to `concurrency` jobs and runs them.
pub async fn tick_jobs(ctx: &CreatorContext) -> Result<Tick, StoreError> {
    let mut claimed = Vec::new();
    for _ in 0..ctx.config.concurrency.max(1) {
        match ctx
            .store
            .claim_creator_job(ctx.clock.now(), ctx.config.lease)
            .await?
        {
            Some(job) => claimed.push(job),
            None => break,
        }
    }
    if claimed.is_empty() {
        return Ok(Tick::Idle);
    }
    let n = claimed.len();
    let results: Vec<Result<(), StoreError>> =
        futures::future::join_all(claimed.into_iter().map(|job| run_job(ctx, job))).await;
    results.into_iter().collect::<Result<(), _>>()?;
    Ok(Tick::Worked(n))
}

/// Resolves the channel, lists its recent videos and records the outcome.
async fn run_job(ctx: &CreatorContext, job: ClaimedJob) -> Result<(), StoreError> {
    let started = ctx.clock.now();
    let read = within_lease(ctx, async {
        let channel = ctx
            .source
            .resolve_channel(job.platform, &job.username)
            .await?;
        let limit = usize::try_from(job.initial_videos_count).unwrap_or(0);
        let videos = if limit > 0 {
            ctx.source.recent_videos(&channel, limit).await?
        } else {
            Vec::new()
        };
        Ok((channel, videos))
    })
    .await;
    let now = ctx.clock.now();
    let name = job.platform.display_name();
    match read {
        Ok((channel, videos)) => {
            let success = JobSuccess {
                job_id: job.id,
                lease_token: job.lease_token,
                profile: profile(&channel),
                backfill: creator_videos(ctx, &channel, videos),
                now,
                next_discovery_at: now + ctx.config.discovery_interval,
            };
            match ctx.store.finish_creator_job(&success).await? {
                Some(done) => {
                    tracing::info!(
                        job = %job.id, %name, username = %job.username,
                        tracked = done.videos_tracked, skipped = done.videos_skipped,
                        reactivation = done.is_reactivation, "creator job succeeded"
                    );
                    if done.videos_tracked > 0 {
                        ctx.refresh_wake.notify_one();
                    }
                }
                None => {
                    tracing::warn!(job = %job.id, "creator job finished after losing its claim")
                }
            }
        }
        Err(SourceError::NotFound(_)) => {
            let message = format!("No {name} account named @{} was found", job.username);
            ctx.store
                .fail_creator_job(job.id, job.lease_token, PLATFORM_NOT_FOUND, &message, now)
                .await?;
        }
        Err(e) if e.is_transient() && job.attempts < ctx.config.max_attempts => {
            let retry_at = now + retry_delay(job.attempts);
            tracing::warn!(job = %job.id, error = %e, %retry_at, "creator job will be retried");
            ctx.store
                .retry_creator_job(job.id, job.lease_token, retry_at)
                .await?;
        }
        Err(e) => {
            tracing::warn!(job = %job.id, error = %e, elapsed_ms = (now - started).num_milliseconds(), "creator job failed");
            // Clients read this message: the platform's own words stay in the log above.
            let message = format!(
                "The {name} request failed: {}",
                e.client_message(job.platform)
            );
            ctx.store
                .fail_creator_job(job.id, job.lease_token, EXTERNAL_API_ERROR, &message, now)
                .await?;
        }
    }
    Ok(())
}

/// Runs platform calls within half the lease, so a claim is never outlived.
async fn within_lease<T>(
    ctx: &CreatorContext,
    work: impl Future<Output = Result<T, SourceError>>,
) -> Result<T, SourceError> {
    let limit = (ctx.config.lease / 2)
        .to_std()
        .unwrap_or(StdDuration::from_secs(60));
    tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
        Err(SourceError::Transient(format!(
            "the platform did not answer within {limit:?}"
        )))
    })
}

/// 30 s, 60 s, 120 s… after the first, second, third failed attempt.
fn retry_delay(attempts: i64) -> Duration {
    Duration::seconds(30 << attempts.clamp(1, 6).saturating_sub(1))
}

fn profile(c: &Channel) -> CreatorProfile {
    CreatorProfile {
        platform: c.platform,
        channel_id: c.channel_id.clone(),
        username: c.username.clone(),
        display_name: c.display_name.clone(),
        avatar_url: c.avatar_url.clone(),
        follower_count: c.follower_count,
    }
}

fn creator_videos(ctx: &CreatorContext, c: &Channel, videos: Vec<ChannelVideo>) -> CreatorVideos {
    CreatorVideos {
        videos: videos
            .into_iter()
            .map(|v| VideoRef {
                platform: c.platform,
                external_id: v.external_id,
                canonical_url: v.canonical_url,
            })
            .collect(),
        window: ctx.config.tracking_window,
        credits_per_video: ctx.config.credits_per_video,
    }
}

/// Closes jobs past the timeout; returns how many.
pub async fn sweep(ctx: &CreatorContext) -> Result<u64, StoreError> {
    let closed = ctx
        .store
        .sweep_creator_jobs(ctx.clock.now(), ctx.config.job_timeout)
        .await?;
    if closed > 0 {
        tracing::warn!(closed, "creator jobs closed by the timeout sweep");
    }
    Ok(closed)
}

/// Runs the discoveries that are due.
pub async fn tick_discovery(ctx: &CreatorContext) -> Result<Tick, StoreError> {
    let due = ctx
        .store
        .claim_due_discoveries(ctx.clock.now(), 50, ctx.config.lease)
        .await?;
    if due.is_empty() {
        return Ok(Tick::Idle);
    }
    let n = due.len();
    let results: Vec<Result<usize, StoreError>> = futures::stream::iter(due)
        .map(|d| discover(ctx, d))
        .buffer_unordered(ctx.config.concurrency.max(1))
        .collect()
        .await;
    let tracked: usize = results.into_iter().sum::<Result<usize, _>>()?;
    if tracked > 0 {
        ctx.refresh_wake.notify_one();
    }
    Ok(Tick::Worked(n))
}

/// One creator's discovery: its profile again, and its videos published
/// since the last run (newest first, up to the daily count).
async fn discover(ctx: &CreatorContext, d: DueDiscovery) -> Result<usize, StoreError> {
    let daily = d
        .daily_videos_count
        .unwrap_or(ctx.config.default_daily_videos)
        .max(0);
    let read = within_lease(
        ctx,
        discover_channel(
            ctx.source.as_ref(),
            d.profile.platform,
            &d.profile.username,
            d.discovered_since,
            daily,
        ),
    )
    .await;
    let now = ctx.clock.now();
    let result = match read {
        Ok((channel, fresh)) => DiscoveryResult {
            tracked_account_id: d.tracked_account_id,
            lease_token: d.lease_token,
            profile: Some(profile(&channel)),
            new_videos: creator_videos(ctx, &channel, fresh),
            now,
            next_discovery_at: now + ctx.config.discovery_interval,
            note: None,
        },
        Err(e) => {
            let (note, next) = match e {
                SourceError::NotFound(_) => (
                    format!(
                        "the account was not found on the platform on {}",
                        now.date_naive()
                    ),
                    now + ctx.config.discovery_interval,
                ),
                other => {
                    // The note is shown to clients: the platform's own words stay in the log.
                    tracing::warn!(account = %d.tracked_account_id, error = %other, "discovery failed upstream");
                    let told = other.client_message(d.profile.platform);
                    (
                        format!("discovery failed on {}: {told}", now.date_naive()),
                        now + Duration::hours(1),
                    )
                }
            };
            tracing::warn!(account = %d.tracked_account_id, %note, "discovery skipped");
            DiscoveryResult {
                tracked_account_id: d.tracked_account_id,
                lease_token: d.lease_token,
                profile: None,
                new_videos: CreatorVideos {
                    videos: Vec::new(),
                    window: ctx.config.tracking_window,
                    credits_per_video: ctx.config.credits_per_video,
                },
                now,
                next_discovery_at: next,
                note: Some(note),
            }
        }
    };
    Ok(ctx.store.finish_discovery(&result).await?.videos_tracked)
}

/// Runs jobs, discoveries and the timeout sweep until `shutdown`; the work
/// in progress when shutdown comes finishes, and nothing more is claimed.
/// The sweep keeps its own schedule: a job hanging on its platform is
/// closed on time, whatever the job loop is waiting for.
pub async fn run(ctx: CreatorContext, shutdown: CancellationToken) {
    tokio::join!(run_sweep(&ctx, &shutdown), run_work(&ctx, &shutdown));
    tracing::info!("creator loop stopped");
}

/// Sweeps overdue jobs every `sweep_interval`, from the start on.
async fn run_sweep(ctx: &CreatorContext, shutdown: &CancellationToken) {
    let mut ticks = tokio::time::interval(ctx.config.sweep_interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.cancelled() => return,
        }
        if let Err(e) = sweep(ctx).await {
            tracing::error!(error = %e, "creator job sweep failed");
        }
    }
}

/// Claims and runs jobs and discoveries, backing off when the store fails.
async fn run_work(ctx: &CreatorContext, shutdown: &CancellationToken) {
    let mut backoff = StdDuration::from_secs(1);
    while !shutdown.is_cancelled() {
        let step = async {
            let jobs = tick_jobs(ctx).await?;
            let discoveries = tick_discovery(ctx).await?;
            Ok::<bool, StoreError>(jobs != Tick::Idle || discoveries != Tick::Idle)
        };
        match step.await {
            Ok(true) => {
                backoff = StdDuration::from_secs(1);
                tokio::task::yield_now().await;
            }
            Ok(false) => {
                backoff = StdDuration::from_secs(1);
                tokio::select! {
                    _ = tokio::time::sleep(ctx.config.idle_poll) => {}
                    _ = ctx.wake.notified() => {}
                    _ = shutdown.cancelled() => {}
                }
            }
            Err(e) => {
                tracing::error!(error = %e, retry_in = ?backoff, "creator loop failed");
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = shutdown.cancelled() => {}
                }
                backoff = (backoff * 2).min(StdDuration::from_secs(30));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off() {
        assert_eq!(retry_delay(1), Duration::seconds(30));
        assert_eq!(retry_delay(2), Duration::seconds(60));
        assert_eq!(retry_delay(3), Duration::seconds(120));
        assert_eq!(retry_delay(100), Duration::seconds(960));
    }
}
