//! Simulated creator accounts and their uploads.
//!
//! An account is derived from the SHA-256 of `"channel:{platform}:{username}"`
//! (lower case, without `@`): its id, display name, followers and publishing
//! schedule. It publishes from 2025-01-01, one video every 12–72 hours, each id
//! stamped with its publish time and as a channel's (see the parent module),
//! so the listing and `read_videos` agree on publish time and title, and a
//! read names no other author than the channel.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use vidpulse_domain::Platform;
use vidpulse_domain::video_url::canonical_url;

use super::{
    B64, DAY, HASHED_FROM, Minter, Model, NAMES, Schedule, TOPICS, avatar_url, capitalize, unit,
};
use crate::source::{Channel, ChannelVideo, SourceError};

/// What an unknown username answers.
pub(super) const NO_SUCH_ACCOUNT: &str = "no such account (simulated)";
/// Usernames starting with these (any case) are not found.
const UNKNOWN_PREFIXES: [&str; 2] = ["unknown", "notfound"];

/// An account that exists on the platform.
pub(super) struct Account {
    platform: Platform,
    /// Lower case, without `@`.
    username: String,
    seed: [u8; 32],
}

impl Account {
    /// The account of `username` (any case, a leading `@` allowed), or
    /// [`SourceError::NotFound`] when the name is invalid on the platform,
    /// starts with `unknown` or `notfound`, or is listed in `unknown`.
    pub(super) fn find(
        platform: Platform,
        username: &str,
        unknown: &[String],
    ) -> Result<Self, SourceError> {
        let name = username.strip_prefix('@').unwrap_or(username);
        if !valid_username(platform, name) {
            let shown: String = name.chars().take(40).collect();
            let platform = platform.display_name();
            let reason = format!("`{shown}` is not a valid {platform} username (simulated)");
            return Err(SourceError::NotFound(reason));
        }
        let username = name.to_ascii_lowercase();
        let listed = |u: &String| u.strip_prefix('@').unwrap_or(u).eq_ignore_ascii_case(name);
        if UNKNOWN_PREFIXES.iter().any(|p| username.starts_with(p)) || unknown.iter().any(listed) {
            return Err(SourceError::NotFound(NO_SUCH_ACCOUNT.to_owned()));
        }
        let key = format!("channel:{}:{username}", platform.id());
        let seed = Sha256::digest(key.as_bytes()).into();
        Ok(Self {
            platform,
            username,
            seed,
        })
    }

    /// The account as the platform shows it at `now`.
    pub(super) fn channel(&self, now: DateTime<Utc>) -> Channel {
        Channel {
            platform: self.platform,
            channel_id: self.channel_id(),
            username: self.username.clone(),
            display_name: Some(self.display_name()),
            avatar_url: Some(avatar_url(self.platform, &self.username)),
            follower_count: Some(self.followers(now)),
        }
    }

    /// YouTube `UC` + 22 base64url characters (the last one of `AQgw`, as real
    /// ids); TikTok a 19-digit user id; Instagram a 17-digit user id.
    fn channel_id(&self) -> String {
        let digest = Sha256::digest([&self.seed[..], b"channel_id"].concat());
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&digest[..8]);
        let n = u64::from_be_bytes(bytes);
        match self.platform {
            Platform::YouTube => {
                let body = digest[8..29]
                    .iter()
                    .map(|b| char::from(B64[usize::from(b & 63)]));
                let last = char::from(B64[usize::from(digest[29] & 3) << 4]);
                format!("UC{}{last}", body.collect::<String>())
            }
            Platform::TikTok => {
                (6_000_000_000_000_000_000 + n % 1_000_000_000_000_000_000).to_string()
            }
            Platform::Instagram => {
                (10_000_000_000_000_000 + n % 90_000_000_000_000_000).to_string()
            }
        }
    }

    /// `mira.cooks`, `mira_cooks` and `miracooks` are all "Mira Cooks" (the
    /// display names of the hashed video authors); any other name is its
    /// capitalized parts.
    fn display_name(&self) -> String {
        let parts: Vec<&str> = self
            .username
            .split(['.', '_', '-'])
            .filter(|p| !p.is_empty())
            .collect();
        if let [single] = parts[..] {
            for name in NAMES {
                for (niche, _, _) in TOPICS {
                    if single.strip_prefix(name) == Some(niche) {
                        return format!("{} {}", capitalize(name), capitalize(niche));
                    }
                }
            }
        }
        let words: Vec<String> = parts.iter().map(|p| capitalize(p)).collect();
        if words.is_empty() {
            // A name of separators only, like `__`.
            capitalize(&self.username)
        } else {
            words.join(" ")
        }
    }

    /// Heavy-tailed, 1,000 to 10,000,000 on 2025-01-01 (`1000 · 10^(4u²)`),
    /// then growing by a factor `1 + g·ln(1 + days / 90)`, g = 0.05–0.6, so it
    /// never decreases as the clock moves.
    fn followers(&self, now: DateTime<Utc>) -> i64 {
        let u = unit(&self.seed, "followers");
        let base = 1_000.0 * 10f64.powf(4.0 * u * u);
        let growth = 0.05 + 0.55 * unit(&self.seed, "growth");
        let days = ((now.timestamp() - HASHED_FROM).max(0) as f64) / DAY as f64;
        (base * (1.0 + growth * (days / 90.0).ln_1p())).floor() as i64
    }

    /// One video every 12–72 hours from 2025-01-01: a period of 24–48 hours.
    fn schedule(&self) -> Schedule {
        let period = DAY + (unit(&self.seed, "period") * DAY as f64) as i64;
        Schedule {
            seed: self.seed,
            start: HASHED_FROM,
            period,
        }
    }

    /// The `limit` most recent videos out at or before `now`, newest first.
    pub(super) fn recent_videos(&self, limit: usize, now: DateTime<Utc>) -> Vec<ChannelVideo> {
        let schedule = self.schedule();
        let Some(latest) = schedule.latest(now.timestamp()) else {
            return Vec::new();
        };
        let count = u64::try_from(limit).unwrap_or(u64::MAX).min(latest + 1);
        (0..count)
            .map(|k| self.video(&schedule, latest - k, now))
            .collect()
    }

    fn video(&self, schedule: &Schedule, i: u64, now: DateTime<Utc>) -> ChannelVideo {
        let published = schedule.published(i);
        let id = super::stamped_id(self.platform, Minter::Channel, published, schedule.salt(i));
        let title = Model::new(self.platform, &id).and_then(|m| m.meta(now).title);
        ChannelVideo {
            canonical_url: canonical_url(self.platform, &id, Some(&self.username)),
            external_id: id,
            published_at: DateTime::from_timestamp(published, 0),
            title,
        }
    }
}

/// TikTok `[A-Za-z0-9._]{2,24}`, Instagram `[A-Za-z0-9._]{1,30}`, YouTube
/// handles `[A-Za-z0-9._-]{3,30}`.
fn valid_username(platform: Platform, name: &str) -> bool {
    let (lengths, dash) = match platform {
        Platform::TikTok => (2..=24, false),
        Platform::Instagram => (1..=30, false),
        Platform::YouTube => (3..=30, true),
    };
    let allowed =
        |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || (dash && b == b'-');
    lengths.contains(&name.len()) && name.bytes().all(allowed)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use chrono::Duration as Span;

    use super::super::tests::{NOW, source, t};
    use super::*;
    use crate::simulated::{SimulatedConfig, SimulatedSource};
    use crate::source::{ReadOutcome, Source};

    async fn resolve(src: &SimulatedSource, p: Platform, name: &str) -> Channel {
        src.resolve_channel(p, name).await.unwrap()
    }

    fn not_found(result: Result<Channel, SourceError>) -> String {
        match result {
            Err(SourceError::NotFound(reason)) => reason,
            other => panic!("expected NotFound, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn channels_are_deterministic_and_believable() {
        let ((a, _), (b, _)) = (source(|_| ()), source(|_| ()));
        for p in Platform::ALL {
            let channel = resolve(&a, p, "Mira.Cooks").await;
            assert_eq!(channel, resolve(&b, p, "mira.cooks").await);
            assert_eq!(channel, resolve(&a, p, "@MIRA.COOKS").await);
            assert_eq!(channel.platform, p);
            assert_eq!(channel.username, "mira.cooks");
            assert_eq!(channel.display_name.as_deref(), Some("Mira Cooks"));
            let avatar = format!(
                "https://picsum.photos/seed/{}-mira.cooks-avatar/200/200",
                p.id()
            );
            assert_eq!(channel.avatar_url, Some(avatar));
            let followers = channel.follower_count.unwrap();
            assert!((1_000..=30_000_000).contains(&followers), "{followers}");
            let id = &channel.channel_id;
            match p {
                Platform::YouTube => {
                    assert!(id.starts_with("UC") && id.len() == 24, "{id}");
                    let ok = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
                    assert!(id.chars().all(ok) && "AQgw".contains(&id[23..]), "{id}");
                }
                Platform::TikTok => assert!(id.len() == 19 && id.parse::<u64>().is_ok(), "{id}"),
                Platform::Instagram => {
                    assert!(id.len() == 17 && id.parse::<u64>().is_ok(), "{id}");
                }
            }
        }
        let other = resolve(&a, Platform::TikTok, "leo_travels").await;
        assert_ne!(
            other.channel_id,
            resolve(&a, Platform::TikTok, "mira.cooks").await.channel_id
        );
        assert_eq!(other.display_name.as_deref(), Some("Leo Travels"));
        let joined = resolve(&a, Platform::TikTok, "zoepaints").await;
        assert_eq!(joined.display_name.as_deref(), Some("Zoe Paints"));
        let plain = resolve(&a, Platform::YouTube, "mrbeast").await;
        assert_eq!(plain.display_name.as_deref(), Some("Mrbeast"));
    }

    #[tokio::test]
    async fn followers_are_heavy_tailed_and_never_decrease() {
        let (src, clock) = source(|_| ());
        let names: Vec<String> = (0..200).map(|i| format!("creator{i}")).collect();
        let mut previous = Vec::new();
        for name in &names {
            previous.push(
                resolve(&src, Platform::TikTok, name)
                    .await
                    .follower_count
                    .unwrap(),
            );
        }
        let small = previous.iter().filter(|f| **f < 100_000).count();
        let large = previous.iter().filter(|f| **f > 1_000_000).count();
        assert!(small > 100 && large > 5, "{small} small, {large} large");
        for _ in 0..10 {
            clock.advance(Span::days(9));
            for (name, before) in names.iter().zip(&mut previous) {
                let now = resolve(&src, Platform::TikTok, name)
                    .await
                    .follower_count
                    .unwrap();
                assert!(now >= *before, "{name}");
                *before = now;
            }
        }
    }

    #[tokio::test]
    async fn unknown_and_invalid_usernames_are_not_found() {
        let (src, _) = source(|c| c.unknown_usernames = vec!["@Gone.Creator".to_owned()]);
        for name in [
            "unknown",
            "UnknownUser",
            "notfound_123",
            "NOTFOUND.x",
            "gone.creator",
        ] {
            let reason = not_found(src.resolve_channel(Platform::TikTok, name).await);
            assert_eq!(reason, NO_SUCH_ACCOUNT, "{name}");
        }
        let invalid = [
            (Platform::TikTok, "a"),
            (Platform::TikTok, "has-dash"),
            (Platform::TikTok, "twenty_five_characters_xx"),
            (Platform::Instagram, ""),
            (Platform::Instagram, "thirty_one_characters_is_too_lo"),
            (Platform::YouTube, "ab"),
            (Platform::YouTube, "with space"),
            (Platform::YouTube, "émilie"),
        ];
        for (p, name) in invalid {
            let reason = not_found(src.resolve_channel(p, name).await);
            assert!(reason.contains("not a valid"), "{p} {name}: {reason}");
        }
        for (p, name) in [
            (Platform::TikTok, "ab"),
            (Platform::Instagram, "x"),
            (Platform::YouTube, "has-dash"),
            (Platform::TikTok, "twenty_four_characters_x"),
        ] {
            resolve(&src, p, name).await;
        }
        // A listing of an unknown account fails the same way.
        let channel = Channel {
            platform: Platform::TikTok,
            channel_id: "1".to_owned(),
            username: "gone.creator".to_owned(),
            display_name: None,
            avatar_url: None,
            follower_count: None,
        };
        let err = src.recent_videos(&channel, 5).await.unwrap_err();
        assert_eq!(err, SourceError::NotFound(NO_SUCH_ACCOUNT.to_owned()));
    }

    #[tokio::test]
    async fn channel_latency_slows_only_resolution() {
        let slow = Duration::from_millis(150);
        let (src, _) = source(|c| c.channel_latency = slow);
        let started = std::time::Instant::now();
        let channel = resolve(&src, Platform::YouTube, "mira.cooks").await;
        assert!(started.elapsed() >= slow);
        let started = std::time::Instant::now();
        src.recent_videos(&channel, 3).await.unwrap();
        assert!(started.elapsed() < slow);

        let latency = Duration::from_millis(60);
        let (src, _) = source(|c| {
            c.latency = latency;
            c.channel_latency = latency;
        });
        let started = std::time::Instant::now();
        let channel = resolve(&src, Platform::YouTube, "mira.cooks").await;
        assert!(started.elapsed() >= 2 * latency);
        let started = std::time::Instant::now();
        src.recent_videos(&channel, 3).await.unwrap();
        assert!(started.elapsed() >= latency);
    }

    #[tokio::test]
    async fn recent_videos_are_newest_first_bounded_and_readable() {
        let ((src, _), (other, _)) = (source(|_| ()), source(|_| ()));
        for p in Platform::ALL {
            let channel = resolve(&src, p, "mira.cooks").await;
            let videos = src.recent_videos(&channel, 30).await.unwrap();
            assert_eq!(videos, other.recent_videos(&channel, 30).await.unwrap());
            assert_eq!(videos.len(), 30);
            let times: Vec<i64> = videos
                .iter()
                .map(|v| v.published_at.unwrap().timestamp())
                .collect();
            assert!(times[0] <= t(NOW).timestamp());
            for pair in times.windows(2) {
                let gap = pair[0] - pair[1];
                assert!((12 * 3_600..=72 * 3_600).contains(&gap), "{p}: gap {gap}");
            }
            let fewer = src.recent_videos(&channel, 4).await.unwrap();
            assert_eq!(fewer[..], videos[..4]);
            assert!(src.recent_videos(&channel, 0).await.unwrap().is_empty());

            let ids: Vec<String> = videos.iter().map(|v| v.external_id.clone()).collect();
            let answer = src.read_videos(p, &ids).await.unwrap();
            for (video, (id, outcome)) in videos.iter().zip(answer) {
                assert_eq!(video.external_id, id);
                let url = canonical_url(p, &id, Some("mira.cooks"));
                assert_eq!(video.canonical_url, url);
                let snapshot = match outcome {
                    ReadOutcome::Found(s) => s,
                    other => panic!("{p} {id}: {other:?}"),
                };
                assert_eq!(snapshot.meta.published_at, video.published_at, "{p} {id}");
                assert_eq!(snapshot.meta.title, video.title, "{p} {id}");
                assert!(snapshot.counters.views.unwrap() > 0, "{p} {id}");
                // The video is mira.cooks's: no read names another author
                // (tracking records the creator's name).
                assert_eq!(snapshot.meta.author_username, None, "{p} {id}");
                assert_eq!(snapshot.meta.author_display_name, None, "{p} {id}");
                let parsed = vidpulse_domain::video_url::parse_video_url(&video.canonical_url);
                assert!(parsed.is_ok(), "{p} {}", video.canonical_url);
            }
            if p == Platform::TikTok {
                let id: u64 = ids[0].parse().unwrap();
                assert_eq!((id >> 32) as i64, times[0]);
            } else {
                assert!(ids.iter().all(|id| id.len() == 11));
            }
        }
    }

    #[tokio::test]
    async fn new_videos_appear_at_the_front_as_days_pass() {
        let (src, clock) = source(|_| ());
        for p in Platform::ALL {
            clock.set(t(NOW));
            let channel = resolve(&src, p, "ana_builds").await;
            let before = src.recent_videos(&channel, 10).await.unwrap();
            clock.advance(Span::days(3));
            let after = src.recent_videos(&channel, 10).await.unwrap();
            let fresh = after.iter().take_while(|v| *v != &before[0]).count();
            assert!((1..=6).contains(&fresh), "{p}: {fresh} new videos");
            assert_eq!(after[fresh..], before[..10 - fresh]);
        }
        // Before the first video (2025-01-01 plus up to a day): nothing.
        clock.set(t("2024-12-31T00:00:00Z"));
        let channel = resolve(&src, Platform::TikTok, "ana_builds").await;
        assert!(src.recent_videos(&channel, 10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn fail_rate_fails_channel_calls() {
        let (src, _) = source(|c| c.fail_rate = 1.0);
        let err = src
            .resolve_channel(Platform::TikTok, "mira.cooks")
            .await
            .unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        let (ok, _) = source(|_| ());
        let channel = resolve(&ok, Platform::TikTok, "mira.cooks").await;
        let err = src.recent_videos(&channel, 5).await.unwrap_err();
        assert!(err.is_transient(), "{err:?}");

        let config = SimulatedConfig {
            fail_rate: 0.5,
            ..SimulatedConfig::default()
        };
        let clock = vidpulse_domain::ManualClock::new(t(NOW));
        let half = SimulatedSource::new(config, Arc::new(clock.clone()));
        let mut failures = 0;
        for i in 0..60 {
            let name = format!("creator{i}");
            let first = half
                .resolve_channel(Platform::YouTube, &name)
                .await
                .is_err();
            let again = half
                .resolve_channel(Platform::YouTube, &name)
                .await
                .is_err();
            assert_eq!(first, again, "same call, same minute, same answer");
            failures += usize::from(first);
        }
        assert!((10..=50).contains(&failures), "{failures}/60 failed");
    }
}
