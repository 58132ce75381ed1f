//! Alert rules evaluated and their messages sent (docs/api.md, "Alerts").
//! Every minute each enabled rule is evaluated over the readings the
//! organization sees; a rule looks only at readings made after it was
//! created, so a threshold passed before it existed never fires. A firing
//! is recorded first (one per rule, subject and threshold: the store's
//! UNIQUE constraint decides, even with several workers), with one send
//! per e-mail recipient and chat URL, and the `alert.triggered` webhook
//! event when the rule has the webhooks channel. Sends are then claimed
//! under a lease and tried up to [`MAX_ATTEMPTS`] times (1 min, 10 min and
//! 1 h apart) before they are recorded as failed.

use std::collections::HashMap;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use vidpulse_notify::ChatKind;
use vidpulse_store::StoreError;
use vidpulse_store::alerts::{AlertRule, AlertVideo, DueAlertSend, NewAlertEvent};

use crate::{NotifyContext, Tick};

/// Time between two passes.
pub const INTERVAL: StdDuration = StdDuration::from_secs(60);
/// Most attempts of one send.
pub const MAX_ATTEMPTS: i64 = 4;
/// Sends claimed per pass.
const BATCH: i64 = 50;
/// How long a claimed send is left to one worker.
fn lease() -> Duration {
    Duration::minutes(2)
}

/// When a send is tried again after its `attempts`-th failure; `None`:
/// it has failed for good.
pub fn retry_after(attempts: i64) -> Option<Duration> {
    match attempts {
        1 => Some(Duration::minutes(1)),
        2 => Some(Duration::minutes(10)),
        3 => Some(Duration::hours(1)),
        _ => None,
    }
}

/// One pass: every enabled rule evaluated, then the sends due made. What
/// was done (firings recorded and sends attempted).
pub async fn tick(ctx: &NotifyContext) -> Result<Tick, StoreError> {
    let mut done = 0;
    for rule in ctx.store.enabled_alert_rules().await? {
        let now = ctx.clock.now();
        for event in evaluate(ctx, &rule, now).await? {
            if ctx.store.fire_alert(event, now).await?.is_some() {
                done += 1;
            }
        }
        ctx.store.alert_rule_evaluated(rule.id, now).await?;
    }
    done += deliver(ctx).await?;
    Ok(if done == 0 {
        Tick::Idle
    } else {
        Tick::Worked(done)
    })
}

/// Runs a pass at start and every [`INTERVAL`] until `shutdown`.
pub async fn run(ctx: NotifyContext, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        if let Err(e) = tick(&ctx).await {
            tracing::warn!(error = %e, "alert pass failed; retried in a minute");
        }
        tokio::select! {
            _ = tokio::time::sleep(INTERVAL) => {}
            _ = shutdown.cancelled() => {}
        }
    }
}

/// A condition met, before its recipients are added.
struct Firing {
    subject: String,
    threshold_key: String,
    what: String,
    lines: Vec<String>,
    details: Value,
}

/// Readings written this long after they were made (a read in flight
/// while a pass ran) are still looked at by the next pass.
const WRITE_LAG: Duration = Duration::minutes(15);

/// The videos a pass looks at are those with a reading since this instant:
/// the rule's last pass (less [`WRITE_LAG`]), never before its creation, so
/// a pass costs what was read since the last one, not the whole catalog.
fn candidates_since(rule: &AlertRule) -> DateTime<Utc> {
    rule.evaluated_at
        .map_or(rule.created_at, |at| (at - WRITE_LAG).max(rule.created_at))
}

/// The firings `rule` owes at `now`.
async fn evaluate(
    ctx: &NotifyContext,
    rule: &AlertRule,
    now: DateTime<Utc>,
) -> Result<Vec<NewAlertEvent>, StoreError> {
    let firings = match rule.kind.as_str() {
        "followers_milestone" => followers(ctx, rule).await?,
        _ => {
            let mut firings = Vec::new();
            let videos = ctx
                .store
                .alert_videos(
                    rule.organization_id,
                    rule.campaign_id,
                    candidates_since(rule),
                )
                .await?;
            for video in &videos {
                firings.extend(video_firings(ctx, rule, video, now).await?);
            }
            firings
        }
    };
    if firings.is_empty() {
        return Ok(Vec::new());
    }
    let sends = recipients(ctx, rule).await?;
    let webhooks = rule
        .channels
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "webhooks"));
    Ok(firings
        .into_iter()
        .map(|f| {
            let title = format!("[vidpulse] {}: {}", rule.name, f.what);
            let message = format!("{title}\n\n{}\n", f.lines.join("\n"));
            NewAlertEvent {
                rule_id: rule.id,
                organization_id: rule.organization_id,
                webhook: webhooks.then(|| {
                    json!({
                        "rule_id": rule.id,
                        "rule_name": rule.name,
                        "kind": rule.kind,
                        "subject": f.subject,
                        "threshold": f.threshold_key,
                        "message": message,
                        "details": f.details,
                    })
                }),
                subject: f.subject,
                threshold_key: f.threshold_key,
                title,
                message,
                details: f.details,
                sends: sends.clone(),
            }
        })
        .collect())
}

/// `(channel, target)` of each send of `rule`'s channels: e-mail to the
/// recipients who are still members, each chat URL.
async fn recipients(
    ctx: &NotifyContext,
    rule: &AlertRule,
) -> Result<Vec<(String, String)>, StoreError> {
    let members: HashMap<String, String> = ctx
        .store
        .members(rule.organization_id)
        .await?
        .into_iter()
        .map(|m| (m.user_id.0.to_string(), m.email))
        .collect();
    let mut out = Vec::new();
    for channel in rule.channels.as_array().into_iter().flatten() {
        match channel["type"].as_str() {
            Some("email") => {
                for id in channel["to"].as_array().into_iter().flatten() {
                    if let Some(email) = id.as_str().and_then(|id| members.get(id)) {
                        out.push(("email".to_owned(), email.clone()));
                    }
                }
            }
            Some(kind @ ("slack" | "discord")) => {
                if let Some(url) = channel["url"].as_str() {
                    out.push((kind.to_owned(), url.to_owned()));
                }
            }
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Thousands separated by commas.
fn number(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// The lines every video message starts with.
fn video_lines(ctx: &NotifyContext, video: &AlertVideo) -> Vec<String> {
    vec![
        format!("Video: {}", video.title.as_deref().unwrap_or(&video.url)),
        format!(
            "Creator: {}",
            video
                .author
                .as_deref()
                .map_or("unknown".to_owned(), |a| format!("@{a}"))
        ),
        format!("Platform: {}", video.platform),
    ]
    .into_iter()
    .chain([format!(
        "Open: {}/videos/{}",
        ctx.dashboard_url, video.video_id
    )])
    .collect()
}

/// The video fields of a firing's details.
fn video_details(ctx: &NotifyContext, video: &AlertVideo) -> Value {
    json!({
        "video_id": video.video_id,
        "title": video.title,
        "author": video.author,
        "platform": video.platform,
        "url": video.url,
        "link": format!("{}/videos/{}", ctx.dashboard_url, video.video_id),
    })
}

/// Adds `extra` to `details`.
fn with(mut details: Value, extra: Value) -> Value {
    if let (Value::Object(d), Value::Object(e)) = (&mut details, extra) {
        d.extend(e);
    }
    details
}

/// What `video` owes `rule` (a video kind) at `now`.
async fn video_firings(
    ctx: &NotifyContext,
    rule: &AlertRule,
    video: &AlertVideo,
    now: DateTime<Utc>,
) -> Result<Vec<Firing>, StoreError> {
    let org = rule.organization_id;
    let subject = video.video_id.to_string();
    if rule.kind == "video_unavailable" {
        let gone = video.gone_at.filter(|g| *g > rule.created_at);
        return Ok(gone
            .map(|at| Firing {
                subject,
                threshold_key: "unavailable".into(),
                what: "a video is no longer available".into(),
                lines: [
                    vec![format!(
                        "The platform reports it removed or private since {}.",
                        at.format("%Y-%m-%d %H:%M UTC")
                    )],
                    video_lines(ctx, video),
                ]
                .concat(),
                details: with(video_details(ctx, video), json!({"gone_at": at})),
            })
            .into_iter()
            .collect());
    }
    let Some((latest_at, latest)) = ctx.store.alert_views_before(org, video, now).await? else {
        return Ok(Vec::new());
    };
    if latest_at <= rule.created_at {
        return Ok(Vec::new());
    }
    let params = &rule.params;
    match rule.kind.as_str() {
        "views_milestone" => {
            let base = match ctx
                .store
                .alert_views_before(org, video, rule.created_at)
                .await?
            {
                Some(b) => Some(b),
                None => ctx.store.alert_first_views(org, video).await?,
            };
            let Some((_, base)) = base else {
                return Ok(Vec::new());
            };
            Ok(params["thresholds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_i64)
                .filter(|t| base < *t && *t <= latest)
                .map(|t| Firing {
                    subject: subject.clone(),
                    threshold_key: t.to_string(),
                    what: format!("a video passed {} views", number(t)),
                    lines: [
                        vec![format!(
                            "Views: {} (milestone {})",
                            number(latest),
                            number(t)
                        )],
                        video_lines(ctx, video),
                    ]
                    .concat(),
                    details: with(
                        video_details(ctx, video),
                        json!({"threshold": t, "views": latest, "read_at": latest_at}),
                    ),
                })
                .collect())
        }
        "velocity" => {
            let (views, hours) = (
                params["views"].as_i64().unwrap_or(i64::MAX),
                params["hours"].as_i64().unwrap_or(24),
            );
            let start = latest_at - Duration::hours(hours);
            let from = match ctx.store.alert_views_before(org, video, start).await? {
                Some(f) => Some(f),
                None => ctx.store.alert_first_views(org, video).await?,
            };
            let Some((from_at, from)) = from.filter(|(at, _)| *at < latest_at) else {
                return Ok(Vec::new());
            };
            let gained = latest - from;
            if gained < views {
                return Ok(Vec::new());
            }
            Ok(vec![Firing {
                subject,
                threshold_key: "velocity".into(),
                what: format!("a video gained {} views within {hours} h", number(gained)),
                lines: [
                    vec![format!(
                        "Views: {} → {} (+{}) between {} and {}",
                        number(from),
                        number(latest),
                        number(gained),
                        from_at.format("%Y-%m-%d %H:%M UTC"),
                        latest_at.format("%Y-%m-%d %H:%M UTC")
                    )],
                    video_lines(ctx, video),
                ]
                .concat(),
                details: with(
                    video_details(ctx, video),
                    json!({"gained": gained, "hours": hours, "views": latest,
                           "from": from_at, "to": latest_at}),
                ),
            }])
        }
        "outlier" => outlier(ctx, rule, video, (latest_at, latest)).await,
        _ => Ok(Vec::new()),
    }
}

/// When `video` was published (else when its tracking started): ages count from it.
fn born(video: &AlertVideo) -> DateTime<Utc> {
    video.published_at.unwrap_or(video.tracking_started_at)
}

/// The median of `values` (sorted here).
fn median(values: &mut [i64]) -> Option<f64> {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => None,
        _ if !n.is_multiple_of(2) => Some(values[n / 2] as f64),
        _ => Some((values[n / 2 - 1] + values[n / 2]) as f64 / 2.0),
    }
}

/// An outlier: `video`'s views at its age reach `factor` × the median of
/// its creator's other tracked videos at the same age (at least
/// `min_videos` of them read by then).
async fn outlier(
    ctx: &NotifyContext,
    rule: &AlertRule,
    video: &AlertVideo,
    (latest_at, latest): (DateTime<Utc>, i64),
) -> Result<Vec<Firing>, StoreError> {
    let org = rule.organization_id;
    let factor = rule.params["factor"].as_f64().unwrap_or(f64::MAX);
    let min_videos = rule.params["min_videos"].as_u64().unwrap_or(5) as usize;
    let Some(author) = video.author.as_deref() else {
        return Ok(Vec::new());
    };
    let age = latest_at - born(video);
    let mut others = Vec::new();
    for other in ctx
        .store
        .alert_creator_videos(org, &video.platform, author)
        .await?
    {
        if other.video_id == video.video_id {
            continue;
        }
        let at = born(&other) + age;
        if let Some((_, views)) = ctx.store.alert_views_before(org, &other, at).await? {
            others.push(views);
        }
    }
    if others.len() < min_videos {
        return Ok(Vec::new());
    }
    let compared = others.len();
    let Some(median) = median(&mut others) else {
        return Ok(Vec::new());
    };
    if latest <= 0 || (latest as f64) < factor * median {
        return Ok(Vec::new());
    }
    let hours = age.num_hours();
    Ok(vec![Firing {
        subject: video.video_id.to_string(),
        threshold_key: "outlier".into(),
        what: format!("a video is outperforming its creator ({factor}×)"),
        lines: [
            vec![format!(
                "Views: {} at {hours} h old; the median of the creator's {compared} other videos at that age: {}",
                number(latest),
                number(median.round() as i64)
            )],
            video_lines(ctx, video),
        ]
        .concat(),
        details: with(
            video_details(ctx, video),
            json!({"views": latest, "age_hours": hours, "median": median,
                   "compared_videos": compared, "factor": factor}),
        ),
    }])
}

/// The follower milestones `rule` owes: a creator's latest follower count
/// read after the rule's creation reaching a threshold its count then
/// (or at its first reading) was below.
async fn followers(ctx: &NotifyContext, rule: &AlertRule) -> Result<Vec<Firing>, StoreError> {
    let creators = ctx
        .store
        .alert_creators(rule.organization_id, rule.campaign_id, rule.created_at)
        .await?;
    let thresholds: Vec<i64> = rule.params["thresholds"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    let mut out = Vec::new();
    for c in creators {
        let base = c.base_followers.unwrap_or(c.latest_followers);
        for t in thresholds
            .iter()
            .filter(|t| base < **t && **t <= c.latest_followers)
        {
            out.push(Firing {
                subject: c.creator_id.to_string(),
                threshold_key: t.to_string(),
                what: format!("@{} passed {} followers", c.username, number(*t)),
                lines: vec![
                    format!("Creator: @{} ({})", c.username, c.platform),
                    format!(
                        "Followers: {} (milestone {})",
                        number(c.latest_followers),
                        number(*t)
                    ),
                    format!("Open: {}/creators", ctx.dashboard_url),
                ],
                details: json!({"creator_id": c.creator_id, "username": c.username,
                                "platform": c.platform, "threshold": t,
                                "followers": c.latest_followers, "read_at": c.latest_at}),
            });
        }
    }
    Ok(out)
}

/// Makes the sends due; how many were attempted.
async fn deliver(ctx: &NotifyContext) -> Result<usize, StoreError> {
    let due = ctx
        .store
        .claim_alert_sends(ctx.clock.now(), BATCH, lease())
        .await?;
    for send in &due {
        let outcome = send_one(ctx, send).await;
        let now = ctx.clock.now();
        let outcome = outcome.map_err(|error| {
            let next = retry_after(send.attempts + 1).map(|d| now + d);
            (error, next)
        });
        if let Err((error, next)) = &outcome {
            tracing::warn!(channel = %send.channel, error = %error, retry = next.is_some(), "alert send failed");
        }
        ctx.store.finish_alert_send(send, outcome, now).await?;
    }
    Ok(due.len())
}

/// One send: an e-mail or a chat post.
async fn send_one(ctx: &NotifyContext, send: &DueAlertSend) -> Result<(), String> {
    match send.channel.as_str() {
        "email" => {
            ctx.mailer
                .send(&send.target, send.title.clone(), send.message.clone())
                .await
        }
        chat => {
            let kind: ChatKind = chat.parse()?;
            ctx.chat.post(kind, &send.target, &send.message).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_medians() {
        assert_eq!(number(1_234_567), "1,234,567");
        assert_eq!(number(999), "999");
        assert_eq!(median(&mut [5, 1, 3]), Some(3.0));
        assert_eq!(median(&mut [4, 1, 3, 2]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }

    #[test]
    fn sends_are_retried_three_times() {
        assert_eq!(retry_after(1), Some(Duration::minutes(1)));
        assert_eq!(retry_after(3), Some(Duration::hours(1)));
        assert_eq!(retry_after(MAX_ATTEMPTS), None);
    }
}
