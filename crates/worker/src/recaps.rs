//! Scheduled recaps (README, "Recaps"): every minute, queues the send of
//! each subscription's last finished period and sends what is due, by
//! e-mail (in the member's language) or to a team chat.
//!
//! Periods are UTC days: a daily recap covers the day before and is sent
//! from [`SEND_HOUR`]:00 UTC; a weekly one covers Monday to Sunday and is
//! sent on Monday from that hour. A subscription gets the periods whose
//! sending time comes after its creation. Each send is one row keyed by
//! (subscription, first day of the period), inserted once whichever worker
//! comes first and claimed under a lease: with several workers, a recap is
//! still sent once. A failed send is tried again after 1 minute, 10 minutes
//! and 1 hour, then recorded as failed.

mod text;

use std::time::Duration as StdDuration;

use chrono::{DateTime, Datelike, Duration, NaiveTime, Utc};
use tokio_util::sync::CancellationToken;
use vidpulse_domain::analytics::{AnalyticsQuery, Baseline, DateRange, GroupBy, Metric};
use vidpulse_notify::ChatKind;
use vidpulse_store::{DueRecap, Frequency, RecapOutcome, StoreError, TopVideo, TopVideosQuery};

use crate::{NotifyContext, Tick};

pub use text::{Message, RecapFigures, Spend, compose};

/// The hour (UTC) from which a period's recap is sent.
pub const SEND_HOUR: u32 = 6;

/// Time between two ticks when nothing was due.
pub const IDLE_POLL: StdDuration = StdDuration::from_secs(60);

/// Sends claimed by one tick.
const CLAIM_BATCH: i64 = 20;

/// How long a claimed send is held before another worker may take it.
const LEASE: Duration = Duration::minutes(10);

/// How long after each failed attempt the next one is made; after the last,
/// the send is recorded as failed.
const RETRY_AFTER: [Duration; 3] = [
    Duration::minutes(1),
    Duration::minutes(10),
    Duration::hours(1),
];

/// How many videos the recap ranks.
const TOP_VIDEOS: i64 = 5;

/// The last period of `frequency` whose sending time has come at `now`,
/// and that time.
pub fn due_period(frequency: Frequency, now: DateTime<Utc>) -> (DateRange, DateTime<Utc>) {
    let day = (now - Duration::hours(i64::from(SEND_HOUR))).date_naive();
    let (from, to, send_day) = match frequency {
        Frequency::Daily => (day - Duration::days(1), day - Duration::days(1), day),
        Frequency::Weekly => {
            let monday = day - Duration::days(i64::from(day.weekday().num_days_from_monday()));
            (
                monday - Duration::days(7),
                monday - Duration::days(1),
                monday,
            )
        }
    };
    let send_at = send_day
        .and_time(NaiveTime::from_hms_opt(SEND_HOUR, 0, 0).unwrap_or(NaiveTime::MIN))
        .and_utc();
    (DateRange { from, to }, send_at)
}

/// Queues the due periods' sends, then claims and sends what is due.
pub async fn tick(ctx: &NotifyContext) -> Result<Tick, StoreError> {
    let now = ctx.clock.now();
    for frequency in [Frequency::Daily, Frequency::Weekly] {
        let (period, send_at) = due_period(frequency, now);
        ctx.store
            .schedule_recaps(frequency, period, send_at, now)
            .await?;
    }
    let due = ctx.store.claim_recaps(now, CLAIM_BATCH, LEASE).await?;
    if due.is_empty() {
        return Ok(Tick::Idle);
    }
    for recap in &due {
        let outcome = send(ctx, recap).await;
        ctx.store
            .finish_recap(
                recap.subscription_id,
                recap.period.from,
                recap.lease_token,
                outcome,
                ctx.clock.now(),
            )
            .await?;
    }
    Ok(Tick::Worked(due.len()))
}

/// Writes and sends one recap; how it ended.
async fn send(ctx: &NotifyContext, recap: &DueRecap) -> RecapOutcome {
    if recap.member_left {
        return RecapOutcome::Failed {
            error: "the member has left the organization".into(),
        };
    }
    let delivered = match figures(ctx, recap).await {
        Ok(figures) => deliver(ctx, recap, &figures).await,
        Err(e) => Err(format!("cannot read the figures: {e}")),
    };
    match delivered {
        Ok(()) => RecapOutcome::Sent,
        Err(error) => {
            tracing::warn!(subscription = %recap.subscription_id, %error, "recap not sent");
            let attempt = usize::try_from(recap.attempts.max(1) - 1).unwrap_or(usize::MAX);
            match RETRY_AFTER.get(attempt) {
                Some(wait) => RecapOutcome::Retry {
                    error,
                    at: ctx.clock.now() + *wait,
                },
                None => RecapOutcome::Failed { error },
            }
        }
    }
}

/// Sends the recap of `figures` to its e-mail or chat.
async fn deliver(
    ctx: &NotifyContext,
    recap: &DueRecap,
    figures: &RecapFigures,
) -> Result<(), String> {
    let message = compose(recap, figures, &ctx.dashboard_url);
    if let Some(chat) = &recap.chat {
        let kind: ChatKind = chat.kind.parse()?;
        return ctx.chat.post(kind, &chat.url, &message.body).await;
    }
    let to = recap
        .email
        .as_deref()
        .ok_or_else(|| "the member has no address".to_owned())?;
    ctx.mailer.send(to, message.subject, message.body).await
}

/// The numbers of `recap`'s period, read from the store.
async fn figures(ctx: &NotifyContext, recap: &DueRecap) -> Result<RecapFigures, StoreError> {
    let campaign = recap.campaign.as_ref().map(|(_, name)| name.clone());
    let window = recap.period;
    let totals = ctx
        .store
        .analytics_totals(
            recap.org,
            &AnalyticsQuery {
                window,
                group_by: GroupBy::None,
                published: None,
                tracked: None,
                campaign: campaign.clone(),
                platform: None,
                author: None,
                baseline: Baseline::Tracking,
            },
        )
        .await?;
    let top: Vec<TopVideo> = ctx
        .store
        .top_videos(
            recap.org,
            &TopVideosQuery {
                window,
                baseline: Baseline::Tracking,
                metric: Metric::Views,
                platform: None,
                campaign: campaign.clone(),
                author: None,
                limit: TOP_VIDEOS,
            },
        )
        .await?;
    Ok(RecapFigures {
        views_gained: totals.first().map_or(0, |row| row.metrics.views),
        top: top.into_iter().filter(|v| v.gains.views > 0).collect(),
        new_videos: ctx
            .store
            .new_videos_in(recap.org, campaign.as_deref(), window)
            .await?,
        alerts_fired: ctx
            .store
            .alerts_fired_in(
                recap.org,
                recap.campaign.as_ref().map(|(id, _)| *id),
                window,
            )
            .await?,
        spend: spend(ctx, recap, window).await?,
    })
}

/// A campaign recap's spend against its budget up to the period's end
/// (the campaign report's money rules); `None` for an organization recap.
async fn spend(
    ctx: &NotifyContext,
    recap: &DueRecap,
    window: DateRange,
) -> Result<Option<Spend>, StoreError> {
    let Some((id, name)) = &recap.campaign else {
        return Ok(None);
    };
    let Some(campaign) = ctx.store.campaign(recap.org, *id).await? else {
        return Ok(None);
    };
    let videos = ctx
        .store
        .campaign_video_figures(recap.org, name, window, Baseline::Tracking)
        .await?;
    Ok(Some(Spend {
        spend: videos.iter().filter_map(|v| v.cost()).sum(),
        budget: campaign.budget,
        currency: campaign.currency,
    }))
}

/// Ticks every [`IDLE_POLL`] (at once again while there is work) until
/// `shutdown`; a store failure is logged and retried at the next poll.
pub async fn run(ctx: NotifyContext, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        let wait = match tick(&ctx).await {
            Ok(Tick::Worked(_)) => continue,
            Ok(Tick::Idle) => IDLE_POLL,
            Err(e) => {
                tracing::warn!(error = %e, "recap tick failed; retried in a minute");
                IDLE_POLL
            }
        };
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}
