//! The refresh scheduler: claims due catalog videos, reads them from the
//! platform source in the largest batches it takes, and saves observations
//! and the next read time (docs/api.md, "Videos": refreshing).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use futures::StreamExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use vidpulse_domain::schedule::{RefreshSchedule, retry_after_failure};
use vidpulse_domain::{Anchor, Clock, Platform};
use vidpulse_platforms::{ReadOutcome, Source, SourceError};
use vidpulse_store::{DueVideo, RefreshWrite, Store, StoreError};

use crate::Tick;

/// Tuning of the refresh loop.
#[derive(Debug, Clone)]
pub struct RefreshConfig {
    /// Videos claimed per tick.
    pub claim_batch: i64,
    /// How long a claim holds; a worker that dies frees its videos after this.
    pub lease: Duration,
    /// Upstream calls in flight at once.
    pub concurrency: usize,
    /// Longest wait between two looks at the queue when idle.
    pub idle_poll: StdDuration,
    /// The schedule.
    pub schedule: RefreshSchedule,
    /// Observations older than this are deleted by the housekeeping
    /// (`None`: kept forever).
    pub observation_retention: Option<Duration>,
    /// Scheduled reads per organization per UTC day (`None`: no cap); see
    /// [`vidpulse_store::RefreshStore::cap_reads`].
    pub read_cap: Option<i64>,
}

impl Default for RefreshConfig {
    fn default() -> Self {
        Self {
            claim_batch: 500,
            lease: Duration::minutes(5),
            concurrency: 4,
            idle_poll: StdDuration::from_secs(2),
            schedule: RefreshSchedule::default(),
            observation_retention: None,
            read_cap: None,
        }
    }
}

/// What the refresh loop works with.
#[derive(Debug, Clone)]
pub struct RefreshContext {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The platform source.
    pub source: Arc<dyn Source>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Tuning.
    pub config: RefreshConfig,
    /// Notified when videos are tracked, so first reads happen at once.
    pub wake: Arc<Notify>,
}

/// Claims the videos due now, reads them and saves the results.
pub async fn tick(ctx: &RefreshContext) -> Result<Tick, StoreError> {
    let now = ctx.clock.now();
    let due = ctx
        .store
        .claim_due_videos(now, ctx.config.claim_batch, ctx.config.lease)
        .await?;
    if due.is_empty() {
        return Ok(Tick::Idle);
    }
    let claimed = due.len();
    let due = match ctx.config.read_cap {
        Some(cap) => {
            let read = ctx.store.cap_reads(due, now, cap).await?;
            let skipped = claimed - read.len();
            if skipped > 0 {
                metrics::counter!("vidpulse_refresh_reads_skipped_total").increment(skipped as u64);
            }
            read
        }
        None => due,
    };
    if due.is_empty() {
        return Ok(Tick::Worked(claimed));
    }
    let mut anchors = load_anchors(&*ctx.store, &*ctx.source, &due).await?;
    let mut per_platform: BTreeMap<Platform, Vec<DueVideo>> = BTreeMap::new();
    for video in due {
        per_platform.entry(video.platform).or_default().push(video);
    }
    let mut calls = Vec::new();
    for (platform, videos) in per_platform {
        let size = ctx.source.max_batch(platform).max(1);
        for chunk in videos.chunks(size) {
            let chunk_anchors = anchors_of(chunk, &mut anchors);
            calls.push((platform, chunk.to_vec(), chunk_anchors));
        }
    }
    // Reads must finish well inside the lease, or another worker may take over.
    let deadline = (ctx.config.lease / 2)
        .to_std()
        .unwrap_or(StdDuration::from_secs(60));
    let writes: Vec<RefreshWrite> = futures::stream::iter(calls)
        .map(|(platform, videos, anchors)| read_batch(ctx, platform, videos, anchors, deadline))
        .buffer_unordered(ctx.config.concurrency.max(1))
        .flat_map(futures::stream::iter)
        .collect()
        .await;
    let saved = ctx.store.save_refreshes(&writes).await?;
    tracing::debug!(claimed, saved, "refresh tick");
    Ok(Tick::Worked(claimed))
}

/// The anchors of the claimed `videos` (by catalog id) when the source
/// continues videos from them; nothing, and no query, for any other source
/// (every live adapter). Every read of claimed videos passes them: the
/// scheduled ticks and a manual refresh.
pub async fn load_anchors(
    store: &dyn Store,
    source: &dyn Source,
    videos: &[DueVideo],
) -> Result<BTreeMap<i64, Anchor>, StoreError> {
    if !source.wants_anchors() || videos.is_empty() {
        return Ok(BTreeMap::new());
    }
    let ids: Vec<i64> = videos.iter().map(|v| v.id).collect();
    store.video_anchors(&ids).await
}

/// The anchors of `videos` taken out of `anchors`, by external id, as
/// [`Source::read_anchored`] takes them.
pub fn anchors_of(
    videos: &[DueVideo],
    anchors: &mut BTreeMap<i64, Anchor>,
) -> HashMap<String, Anchor> {
    videos
        .iter()
        .filter_map(|v| Some((v.external_id.clone(), anchors.remove(&v.id)?)))
        .collect()
}

/// Reads one batch of one platform and turns every answer into a write.
async fn read_batch(
    ctx: &RefreshContext,
    platform: Platform,
    videos: Vec<DueVideo>,
    anchors: HashMap<String, Anchor>,
    deadline: StdDuration,
) -> Vec<RefreshWrite> {
    let ids: Vec<String> = videos.iter().map(|v| v.external_id.clone()).collect();
    let read = ctx.source.read_anchored(platform, &ids, &anchors);
    let answer = match tokio::time::timeout(deadline, read).await {
        Ok(answer) => answer,
        Err(_) => Err(SourceError::Transient(format!(
            "read timed out after {deadline:?}"
        ))),
    };
    let read_at = ctx.clock.now();
    metrics::counter!(
        "vidpulse_upstream_reads_total",
        "platform" => platform.id(),
        "outcome" => if answer.is_ok() { "ok" } else { "failed" }
    )
    .increment(1);
    metrics::counter!("vidpulse_refresh_videos_read_total", "platform" => platform.id())
        .increment(videos.len() as u64);
    match answer {
        Ok(outcomes) => {
            let mut by_id: BTreeMap<String, ReadOutcome> = outcomes.into_iter().collect();
            videos
                .iter()
                .map(|v| {
                    let outcome = by_id.remove(&v.external_id).unwrap_or_else(|| {
                        ReadOutcome::Failed(SourceError::Transient(
                            "missing from the answer".into(),
                        ))
                    });
                    write_for(&ctx.config.schedule, v, read_at, outcome)
                })
                .collect()
        }
        Err(e) => {
            tracing::warn!(%platform, videos = videos.len(), error = %e, "platform read failed");
            videos
                .iter()
                .map(|v| {
                    write_for(
                        &ctx.config.schedule,
                        v,
                        read_at,
                        ReadOutcome::Failed(e.clone()),
                    )
                })
                .collect()
        }
    }
}

/// The write and next read time for one video's outcome.
fn write_for(
    schedule: &RefreshSchedule,
    video: &DueVideo,
    read_at: DateTime<Utc>,
    outcome: ReadOutcome,
) -> RefreshWrite {
    let regular = schedule.next_after(video.tracking_started_at, video.refresh_until, read_at);
    let next = match &outcome {
        ReadOutcome::Found(_) => regular,
        ReadOutcome::Gone { .. } => None,
        ReadOutcome::Failed(_) => regular.map(|regular_at| {
            read_at + retry_after_failure(video.failures + 1, regular_at - read_at)
        }),
    };
    let outcome = outcome.into();
    RefreshWrite {
        video_id: video.id,
        lease_token: video.lease_token,
        read_at,
        outcome,
        next_refresh_at: next,
    }
}

/// Runs the refresh loop until `shutdown`: ticks while there is work, then
/// waits for the poll interval or a wake-up. A store failure backs off
/// (1 s doubling to 30 s) instead of spinning; the tick in progress when
/// shutdown comes finishes, and no new claim is made.
pub async fn run(ctx: RefreshContext, shutdown: CancellationToken) {
    let mut backoff = StdDuration::from_secs(1);
    while !shutdown.is_cancelled() {
        match tick(&ctx).await {
            Ok(Tick::Worked(_)) => {
                backoff = StdDuration::from_secs(1);
                tokio::task::yield_now().await;
            }
            Ok(Tick::Idle) => {
                backoff = StdDuration::from_secs(1);
                tokio::select! {
                    _ = tokio::time::sleep(ctx.config.idle_poll) => {}
                    _ = ctx.wake.notified() => {}
                    _ = shutdown.cancelled() => {}
                }
            }
            Err(e) => {
                tracing::error!(error = %e, retry_in = ?backoff, "refresh tick failed");
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = shutdown.cancelled() => {}
                }
                backoff = (backoff * 2).min(StdDuration::from_secs(30));
            }
        }
    }
    tracing::info!("refresh loop stopped");
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use vidpulse_domain::Counters;
    use vidpulse_domain::ObservationSource;
    use vidpulse_platforms::{VideoMeta, VideoSnapshot};

    use super::*;

    fn due(failures: i64) -> DueVideo {
        let start = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap();
        DueVideo {
            id: 1,
            platform: Platform::YouTube,
            external_id: "x".into(),
            tracking_started_at: start,
            refresh_until: start + Duration::days(30),
            failures,
            lease_token: uuid::Uuid::nil(),
        }
    }

    #[test]
    fn found_follows_the_schedule() {
        let v = due(0);
        let at = v.tracking_started_at + Duration::hours(2);
        let snapshot = VideoSnapshot {
            counters: Counters::default(),
            meta: VideoMeta::default(),
            source: ObservationSource::Simulated,
        };
        let w = write_for(
            &RefreshSchedule::default(),
            &v,
            at,
            ReadOutcome::Found(snapshot),
        );
        assert_eq!(w.next_refresh_at, Some(at + Duration::minutes(15)));
    }

    #[test]
    fn gone_stops_and_failures_back_off() {
        let v = due(0);
        let at = v.tracking_started_at + Duration::days(10);
        let s = RefreshSchedule::default();
        let gone = write_for(
            &s,
            &v,
            at,
            ReadOutcome::Gone {
                reason: "removed".into(),
            },
        );
        assert_eq!(gone.next_refresh_at, None);
        let failed = ReadOutcome::Failed(SourceError::Transient("x".into()));
        assert_eq!(
            write_for(&s, &v, at, failed.clone()).next_refresh_at,
            Some(at + Duration::minutes(1))
        );
        assert_eq!(
            write_for(&s, &due(3), at, failed.clone()).next_refresh_at,
            Some(at + Duration::minutes(8))
        );
        assert_eq!(
            write_for(&s, &due(20), at, failed).next_refresh_at,
            Some(at + Duration::hours(6))
        );
    }

    #[test]
    fn nothing_after_the_window() {
        let v = due(0);
        let at = v.refresh_until;
        let failed = ReadOutcome::Failed(SourceError::Transient("x".into()));
        assert_eq!(
            write_for(&RefreshSchedule::default(), &v, at, failed).next_refresh_at,
            None
        );
    }
}
