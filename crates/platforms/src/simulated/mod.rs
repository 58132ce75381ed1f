//! The simulated source: offline, deterministic video statistics, creator
//! accounts and trend searches, the default upstream for demos and for every
//! test of the service.
//!
//! Every parameter of a video comes from the SHA-256 of `"{platform}:{external id}"`,
//! so the same (platform, id, instant) always gives the same reading, in any
//! process and from any instance; nothing is stored.
//!
//! **Growth.** With `a` the age in whole seconds (0 before publishing), views are
//! `V·(1 − e^(−a/τ)) + V·r·T·ln(1 + a/T)`: a fast rise with time constant τ
//! (2 hours to 4 days) towards a ceiling V (log-uniform, 1,000 to 20,000,000),
//! plus a long tail that starts at r = 0.03–0.2 % of V a day and fades over
//! months (T = 30 days), so an old video still gains a little between readings.
//!
//! **Ratios.** Likes = views × 2–12 %, comments = likes × 1–5 %, reposts =
//! likes × 2–10 %, saves = likes × 5–20 %, fixed per video. Every counter is
//! floored from a non-decreasing one, so none ever decreases. YouTube and
//! Instagram report no reposts or saves (docs/platforms.md).
//!
//! **Publish time.** An id that carries a creation time between 2016-01-01 and
//! now + 1 day was created then: a TikTok id's `id >> 32` (real TikTok ids
//! encode it), or a YouTube id or Instagram shortcode *stamped* by this source
//! (11 characters holding the Unix time in the high 32 of 64 bits, and a 20-bit
//! SHA-256 tag over the rest and over what listed it, a channel or the trend
//! search, so about two real ids in a million are taken as stamped). Any other video is published at a hashed instant between
//! 2025-01-01 and 2026-10-31. Caveat: an id whose time is further ahead
//! switches from the hashed time to its own once the clock gets within a day of
//! it, the one case where counters can drop.
//!
//! **Authors.** The world agrees with itself: a URL's handle is its video's
//! author, a creator's videos are that creator's, and short links resolve to
//! full page URLs. A read cannot see the URL or the channel a video came
//! from (a username cannot be recovered from an id), so it names an author
//! only where nothing else can: never on TikTok, whose page URLs carry the
//! handle (`/@user/video/…`), and not for ids a channel listed; tracking
//! records the URL's handle or the creator's username, and a read that names
//! none keeps it. Any other YouTube or Instagram video, and every trend
//! result, has the author hashed from its id (the trend search shows that
//! one, and the offline short-link resolver puts it in the TikTok URL).
//!
//! **Creators** (`channels.rs`): `resolve_channel` derives an account from
//! `"{platform}:{lower-case username}"`; usernames starting with `unknown` or
//! `notfound` (any case), those in [`SimulatedConfig::unknown_usernames`] and
//! those invalid on the platform are not found. Each account publishes on a
//! hashed schedule from 2025-01-01, one video every 12–72 hours, with ids
//! stamped as a channel's, so `read_videos` of a listed id reports the listed
//! publish time and title, and no author.
//!
//! **Trends** (`trends.rs`, TikTok and YouTube): a keyword, region and day
//! window select up to 20–200 stamped videos (none for keywords starting with
//! `empty`), most plays first, in pages whose cursor is `sim:{offset}`.
//!
//! **Faults**, all off by default (see [`SimulatedConfig`]): latency per call
//! (plus an extra latency for resolving channels), whole calls failing at a
//! rate (decided per call and clock minute, for every operation), videos gone
//! at a rate (decided per id), explicit gone or failing ids, and
//! [`SimulatedSource::set_gone`] at run time. Ids that cannot exist on the
//! platform are reported gone.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use vidpulse_domain::{Clock, Counters, ObservationSource, Platform};

use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, VideoMeta,
    VideoSnapshot,
};

mod channels;
mod trends;

/// Faults and latency of the simulated source, all off by default.
#[derive(Debug, Clone, Default)]
pub struct SimulatedConfig {
    /// How long every call takes (slept on the tokio timer): `read_videos`,
    /// `resolve_channel`, `recent_videos` and `search_trends`.
    pub latency: Duration,
    /// Extra time `resolve_channel` takes on top of `latency`, to make a
    /// creator job slow enough for its timeout to matter.
    pub channel_latency: Duration,
    /// Probability (0.0–1.0) that a whole call fails transiently, decided from
    /// the operation, its arguments and the clock minute: a retry a minute
    /// later may succeed. Applies to every operation.
    pub fail_rate: f64,
    /// Share (0.0–1.0) of videos reported gone, decided from the id alone.
    pub gone_rate: f64,
    /// External ids reported gone (removed or private), on every platform.
    pub gone_ids: Vec<String>,
    /// External ids whose reads fail transiently; other ids of the batch succeed.
    pub failing_ids: Vec<String>,
    /// Usernames (any case, with or without `@`) that `resolve_channel` and
    /// `recent_videos` report not found, besides those starting with `unknown`
    /// or `notfound`.
    pub unknown_usernames: Vec<String>,
}

/// The simulated source; clones share the ids made gone with [`Self::set_gone`].
#[derive(Debug, Clone)]
pub struct SimulatedSource {
    clock: Arc<dyn Clock>,
    config: SimulatedConfig,
    gone: Arc<Mutex<HashSet<String>>>,
}

const GONE_REASON: &str = "video removed or private (simulated)";
const FAILURE: &str = "simulated upstream failure";
const DAY: i64 = 86_400;
/// 2016-01-01T00:00:00Z: the earliest creation time read from a TikTok id.
const MIN_ID_TIME: i64 = 1_451_606_400;
/// 2025-01-01T00:00:00Z and 2026-10-31T00:00:00Z: the range of hashed publish times.
const HASHED_FROM: i64 = 1_735_689_600;
const HASHED_TO: i64 = 1_793_404_800;
/// How many days the long tail takes to fade to half its initial rate.
const TAIL_FADE_DAYS: f64 = 30.0;

impl SimulatedSource {
    /// A simulated source reading time from `clock`.
    pub fn new(config: SimulatedConfig, clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            config,
            gone: Arc::default(),
        }
    }

    /// Makes `external_id` gone (or back) on every platform, for this source and its clones.
    pub fn set_gone(&self, external_id: &str, gone: bool) {
        let mut set = self.gone.lock().unwrap_or_else(|e| e.into_inner());
        if gone {
            set.insert(external_id.to_owned());
        } else {
            set.remove(external_id);
        }
    }

    /// The fault-free reading of a video at `at`; `None` if the id cannot exist.
    pub fn snapshot_at(
        platform: Platform,
        external_id: &str,
        at: DateTime<Utc>,
    ) -> Option<VideoSnapshot> {
        Model::new(platform, external_id).map(|m| m.snapshot(at))
    }

    fn read_one(&self, platform: Platform, external_id: &str, now: DateTime<Utc>) -> ReadOutcome {
        let Some(model) = Model::new(platform, external_id) else {
            let reason = format!(
                "no such video: `{external_id}` is not a valid {} video id (simulated)",
                platform.display_name()
            );
            return ReadOutcome::Gone { reason };
        };
        let listed = self.config.gone_ids.iter().any(|g| g == external_id);
        let set = self.gone.lock().unwrap_or_else(|e| e.into_inner());
        if listed || set.contains(external_id) || model.gone_draw < self.config.gone_rate {
            let reason = GONE_REASON.to_owned();
            return ReadOutcome::Gone { reason };
        }
        drop(set);
        if self.config.failing_ids.iter().any(|f| f == external_id) {
            return ReadOutcome::Failed(SourceError::Transient(FAILURE.to_owned()));
        }
        ReadOutcome::Found(model.snapshot(now))
    }

    /// Whether this call fails as a whole: a draw over its arguments and the clock minute.
    fn call_fails<S: AsRef<str>>(&self, platform: Platform, ids: &[S], now: DateTime<Utc>) -> bool {
        if self.config.fail_rate <= 0.0 {
            return false;
        }
        let mut hasher = Sha256::new();
        hasher.update(platform.id().as_bytes());
        hasher.update(now.timestamp().div_euclid(60).to_be_bytes());
        for id in ids {
            hasher.update(id.as_ref().as_bytes());
            hasher.update(b",");
        }
        unit_of(&hasher.finalize()) < self.config.fail_rate
    }

    /// The common part of the account and trend operations: waits `latency`
    /// plus `extra`, then fails the call at `fail_rate` (a draw over `args`
    /// and the clock minute). Answers the clock's now.
    async fn call(
        &self,
        platform: Platform,
        extra: Duration,
        args: &[&str],
    ) -> Result<DateTime<Utc>, SourceError> {
        let wait = self.config.latency.saturating_add(extra);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        let now = self.clock.now();
        if self.call_fails(platform, args, now) {
            return Err(SourceError::Transient(FAILURE.to_owned()));
        }
        Ok(now)
    }
}

#[async_trait]
impl Source for SimulatedSource {
    fn max_batch(&self, platform: Platform) -> usize {
        match platform {
            Platform::YouTube => 50,
            Platform::TikTok => 20,
            Platform::Instagram => 10,
        }
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        if external_ids.is_empty() {
            return Ok(Vec::new());
        }
        if !self.config.latency.is_zero() {
            tokio::time::sleep(self.config.latency).await;
        }
        let now = self.clock.now();
        if self.call_fails(platform, external_ids, now) {
            return Err(SourceError::Transient(FAILURE.to_owned()));
        }
        let read = |id: &String| (id.clone(), self.read_one(platform, id, now));
        Ok(external_ids.iter().map(read).collect())
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        let args = ["resolve_channel", username];
        let now = self
            .call(platform, self.config.channel_latency, &args)
            .await?;
        let account = channels::Account::find(platform, username, &self.config.unknown_usernames)?;
        Ok(account.channel(now))
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        let limit_arg = limit.to_string();
        let args = [
            "recent_videos",
            channel.username.as_str(),
            limit_arg.as_str(),
        ];
        let now = self.call(channel.platform, Duration::ZERO, &args).await?;
        let unknown = &self.config.unknown_usernames;
        let account = channels::Account::find(channel.platform, &channel.username, unknown)?;
        Ok(account.recent_videos(limit, now))
    }

    async fn search_trends(
        &self,
        platform: Platform,
        query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        trends::supported(platform)?;
        let days = query.days.unwrap_or(0).to_string();
        let page_size = query.page_size.to_string();
        let args = [
            "search_trends",
            query.keyword.as_str(),
            query.region.as_deref().unwrap_or(""),
            days.as_str(),
            query.cursor.as_deref().unwrap_or(""),
            page_size.as_str(),
        ];
        let now = self.call(platform, Duration::ZERO, &args).await?;
        trends::search(platform, query, now)
    }
}

/// The author the simulated world gives a video nobody attributed: hashed
/// from `"{platform}:{external id}"`, as the trend search shows it. `None`
/// if the id cannot exist. The offline short-link resolver names it in the
/// TikTok URL it answers.
pub(crate) fn hashed_author(platform: Platform, external_id: &str) -> Option<String> {
    Model::new(platform, external_id).map(|m| m.hashed_author().0)
}

/// What a video's hash decides, computed once per id.
struct Model<'a> {
    platform: Platform,
    external_id: &'a str,
    seed: [u8; 32],
    /// The creation time the id carries (TikTok, or stamped), when it is 2016 or later.
    id_time: Option<i64>,
    hashed_time: i64,
    ceiling: f64,
    tau_secs: f64,
    tail_per_day: f64,
    like_ratio: f64,
    comment_ratio: f64,
    repost_ratio: f64,
    save_ratio: f64,
    gone_draw: f64,
}

impl<'a> Model<'a> {
    fn new(platform: Platform, external_id: &'a str) -> Option<Self> {
        if !valid_id(platform, external_id) {
            return None;
        }
        let seed: [u8; 32] =
            Sha256::digest(format!("{}:{external_id}", platform.id()).as_bytes()).into();
        let draw = |label: &str| unit(&seed, label);
        let id_time = carried_time(platform, external_id).filter(|t| *t >= MIN_ID_TIME);
        let span = (HASHED_TO - HASHED_FROM) as f64;
        Some(Self {
            platform,
            external_id,
            id_time,
            hashed_time: HASHED_FROM + (draw("published") * span) as i64,
            ceiling: 1_000.0 * 20_000f64.powf(draw("ceiling")),
            tau_secs: 7_200.0 * 48f64.powf(draw("tau")),
            tail_per_day: 0.0003 + 0.0017 * draw("tail"),
            like_ratio: 0.02 + 0.10 * draw("likes"),
            comment_ratio: 0.01 + 0.04 * draw("comments"),
            repost_ratio: 0.02 + 0.08 * draw("reposts"),
            save_ratio: 0.05 + 0.15 * draw("saves"),
            gone_draw: draw("gone"),
            seed,
        })
    }

    /// The publish instant (Unix seconds) as seen at `now`.
    fn published(&self, now: DateTime<Utc>) -> i64 {
        match self.id_time {
            Some(t) if t <= now.timestamp() + DAY => t,
            _ => self.hashed_time,
        }
    }

    fn views(&self, now: DateTime<Utc>) -> i64 {
        let age = now.timestamp() - self.published(now);
        if age <= 0 {
            return 0;
        }
        let age = age as f64;
        let rise = -(-age / self.tau_secs).exp_m1();
        let age_days = age / DAY as f64;
        let tail = self.tail_per_day * TAIL_FADE_DAYS * (age_days / TAIL_FADE_DAYS).ln_1p();
        (self.ceiling * (rise + tail)).floor() as i64
    }

    fn counters(&self, now: DateTime<Utc>) -> Counters {
        let views = self.views(now);
        let likes = scale(views, self.like_ratio);
        let all_five = self.platform == Platform::TikTok;
        Counters {
            views: Some(views),
            likes: Some(likes),
            comments: Some(scale(likes, self.comment_ratio)),
            reposts: all_five.then(|| scale(likes, self.repost_ratio)),
            saves: all_five.then(|| scale(likes, self.save_ratio)),
        }
    }

    fn snapshot(&self, now: DateTime<Utc>) -> VideoSnapshot {
        VideoSnapshot {
            counters: self.counters(now),
            meta: self.meta(now),
            source: ObservationSource::Simulated,
        }
    }

    /// The author hashed from the id: its handle and display name.
    fn hashed_author(&self) -> (String, String) {
        let (niche, _, _) = TOPICS[self.index("topic", TOPICS.len())];
        let name = NAMES[self.index("name", NAMES.len())];
        let separator = [".", "_", ""][self.index("separator", 3)];
        let display = format!("{} {}", capitalize(name), capitalize(niche));
        (format!("{name}{separator}{niche}"), display)
    }

    /// Whether a read names the author: never on TikTok, whose URLs name it
    /// (`/@user/video/…`) and whose ids cannot tell which URL named them, nor
    /// for an id a creator's channel listed (the creator's); otherwise the
    /// hashed author, which the trend search shows too.
    fn reports_author(&self) -> bool {
        self.platform != Platform::TikTok
            && minted_by(self.platform, self.external_id) != Some(Minter::Channel)
    }

    fn meta(&self, now: DateTime<Utc>) -> VideoMeta {
        let (_, tags, subjects) = TOPICS[self.index("topic", TOPICS.len())];
        let subject = subjects[self.index("subject", subjects.len())];
        let n = (3 + self.index("number", 13)).to_string();
        let template = TEMPLATES[self.index("template", TEMPLATES.len())];
        let mut title = capitalize(&template.replace("{s}", subject).replace("{n}", &n));
        if self.platform != Platform::YouTube {
            title = format!("{title} {tags}");
        }
        let (p, id) = (self.platform.id(), self.external_id);
        // A TikTok page URL holds its author: the tracked one stays.
        let url = match self.platform {
            Platform::TikTok => None,
            Platform::YouTube => Some(format!("https://www.youtube.com/watch?v={id}")),
            Platform::Instagram => Some(format!("https://www.instagram.com/reel/{id}/")),
        };
        let (author_username, author_display_name) = if self.reports_author() {
            let (username, display) = self.hashed_author();
            (Some(username), Some(display))
        } else {
            (None, None)
        };
        // Portrait covers for the short-video platforms, landscape for YouTube.
        let size = if self.platform == Platform::YouTube {
            "640/360"
        } else {
            "480/854"
        };
        VideoMeta {
            title: Some(title),
            thumbnail_url: Some(format!("https://picsum.photos/seed/{p}-{id}/{size}")),
            author_display_name,
            author_username,
            published_at: DateTime::from_timestamp(self.published(now), 0),
            canonical_url: url,
        }
    }

    fn index(&self, label: &str, len: usize) -> usize {
        pick(&self.seed, label, len)
    }
}

/// A draw in `0..len` labelled `label`, derived from a seed.
fn pick(seed: &[u8; 32], label: &str, len: usize) -> usize {
    ((unit(seed, label) * len as f64) as usize).min(len.saturating_sub(1))
}

/// The base64url alphabet of YouTube ids and Instagram shortcodes.
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// The low bits of a stamped YouTube or Instagram id that hold its tag.
const TAG_BITS: u32 = 20;

/// What listed a stamped video: it decides who the video's author is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Minter {
    /// A creator's channel: the video is that creator's, a name its id
    /// cannot carry, so reads leave the author to the tracking.
    Channel,
    /// The trend search: the video's author is the one hashed from its id.
    Trends,
}

/// A video id of `platform` that carries its publish time (Unix seconds, 2016
/// to 2106): TikTok `(published << 32) | (salt & 0xffff_ffff)`; YouTube and
/// Instagram 11 base64url characters of `published << 32 | (salt & 0xfff) << 20
/// | tag`, the tag a hash of the rest and of the `minter`.
fn stamped_id(platform: Platform, minter: Minter, published: i64, salt: u64) -> String {
    let time = (published as u64) & 0xffff_ffff;
    match platform {
        Platform::TikTok => ((time << 32) | (salt & 0xffff_ffff)).to_string(),
        Platform::YouTube | Platform::Instagram => {
            let head = (time << 32) | ((salt & 0xfff) << TAG_BITS);
            encode_64(head | stamp_tag(platform, minter, head))
        }
    }
}

/// The creation time an id carries: a TikTok id's `id >> 32`, or the time of a
/// stamped YouTube or Instagram id; `None` for any other id.
fn carried_time(platform: Platform, id: &str) -> Option<i64> {
    match platform {
        Platform::TikTok => id.parse::<u64>().ok().map(|n| (n >> 32) as i64),
        Platform::YouTube | Platform::Instagram => {
            minted_by(platform, id)?;
            decode_64(id).map(|bits| (bits >> 32) as i64)
        }
    }
}

/// Which listing stamped a YouTube or Instagram id; `None` for any other id
/// (TikTok ids carry no tag: every one of them carries a time).
fn minted_by(platform: Platform, id: &str) -> Option<Minter> {
    if platform == Platform::TikTok {
        return None;
    }
    let bits = decode_64(id)?;
    let head = bits & !((1 << TAG_BITS) - 1);
    [Minter::Trends, Minter::Channel]
        .into_iter()
        .find(|m| bits - head == stamp_tag(platform, *m, head))
}

fn stamp_tag(platform: Platform, minter: Minter, head: u64) -> u64 {
    let domain = match minter {
        Minter::Trends => "vidpulse-stamp",
        Minter::Channel => "vidpulse-channel-stamp",
    };
    let digest = Sha256::digest(format!("{domain}:{}:{head}", platform.id()).as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes) >> (64 - TAG_BITS)
}

/// 64 bits as 11 base64url characters, most significant first; the last
/// character carries 4 bits (as in real YouTube ids).
fn encode_64(bits: u64) -> String {
    let mut out: String = (0..10)
        .map(|k| char::from(B64[((bits >> (58 - 6 * k)) & 63) as usize]))
        .collect();
    out.push(char::from(B64[((bits & 15) << 2) as usize]));
    out
}

/// The inverse of [`encode_64`]; `None` for any other string.
fn decode_64(id: &str) -> Option<u64> {
    let bytes = id.as_bytes();
    if bytes.len() != 11 {
        return None;
    }
    let value = |b: u8| B64.iter().position(|c| *c == b).map(|v| v as u64);
    let mut bits = 0u64;
    for b in &bytes[..10] {
        bits = (bits << 6) | value(*b)?;
    }
    let last = value(bytes[10])?;
    (last & 3 == 0).then_some((bits << 4) | (last >> 2))
}

/// The first 8 bytes of the SHA-256 of `parts`, as a number.
fn hash64(parts: &[&[u8]]) -> u64 {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    let digest = hasher.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

/// Where a simulated account's avatar is.
fn avatar_url(platform: Platform, username: &str) -> String {
    format!(
        "https://picsum.photos/seed/{}-{username}-avatar/200/200",
        platform.id()
    )
}

/// A publishing schedule: video `i` goes out at `start + i·period + jitter(i)`,
/// the jitter hashed in `[0, period / 2)`, so consecutive videos are between
/// half and one and a half periods apart.
struct Schedule {
    seed: [u8; 32],
    start: i64,
    /// Seconds, at least 2.
    period: i64,
}

impl Schedule {
    /// When video `i` goes out (Unix seconds).
    fn published(&self, i: u64) -> i64 {
        let jitter = unit(&self.seed, &format!("jitter:{i}")) * (self.period / 2) as f64;
        self.start + i as i64 * self.period + jitter as i64
    }

    /// The salt of video `i`'s id.
    fn salt(&self, i: u64) -> u64 {
        hash64(&[&self.seed[..], b"video:", &i.to_be_bytes()])
    }

    /// The last video out at or before `now`, if any.
    fn latest(&self, now: i64) -> Option<u64> {
        if now < self.start {
            return None;
        }
        let n = ((now - self.start) / self.period) as u64;
        if self.published(n) <= now {
            Some(n)
        } else {
            n.checked_sub(1)
        }
    }
}

/// Whether `id` has the shape of a video id of `platform` (docs/platforms.md).
fn valid_id(platform: Platform, id: &str) -> bool {
    let url_safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    match platform {
        Platform::TikTok => id.bytes().all(|b| b.is_ascii_digit()) && id.parse::<u64>().is_ok(),
        Platform::YouTube => id.len() == 11 && id.chars().all(url_safe),
        Platform::Instagram => (1..=64).contains(&id.len()) && id.chars().all(url_safe),
    }
}

/// A uniform draw in [0, 1) labelled `label`, derived from a video's seed.
fn unit(seed: &[u8; 32], label: &str) -> f64 {
    unit_of(&Sha256::digest([&seed[..], label.as_bytes()].concat()))
}

/// The first 53 bits of a digest as a number in [0, 1).
fn unit_of(digest: &[u8]) -> f64 {
    let mut bytes = [0u8; 8];
    for (b, d) in bytes.iter_mut().zip(digest) {
        *b = *d;
    }
    (u64::from_be_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

fn scale(count: i64, ratio: f64) -> i64 {
    (count as f64 * ratio).floor() as i64
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[rustfmt::skip]
const NAMES: [&str; 16] = [
    "mira", "jonas", "leo", "ana", "kai", "noor", "sam", "yuki", "tess", "omar", "lena", "ravi",
    "zoe", "felix", "ines", "theo",
];

#[rustfmt::skip]
const TEMPLATES: [&str; 8] = [
    "{s} you need to try", "I tried {s} so you don't have to", "{s}, honestly ranked",
    "POV: {s}", "day {n} of {s}", "{n} things nobody tells you about {s}",
    "the truth about {s}", "{s} in under {n} minutes",
];

/// Creator niches: the second half of a handle, its hashtags and its video subjects.
#[rustfmt::skip]
const TOPICS: [(&str, &str, [&str; 3]); 8] = [
    ("cooks", "#food #recipe", ["garlic noodles", "crispy tofu", "smash burgers"]),
    ("travels", "#travel #wanderlust", ["Lisbon on a budget", "night trains", "Tokyo ramen"]),
    ("fits", "#fashion #ootd", ["thrifted autumn outfits", "capsule wardrobes", "blazer hacks"]),
    ("lifts", "#fitness #gym", ["home workouts", "my push day", "your first 10k"]),
    ("reviews", "#tech #review", ["budget earbuds", "mechanical keyboards", "phone cameras"]),
    ("builds", "#diy #homedecor", ["floating shelves", "a tiny desk setup", "balcony gardens"]),
    ("plays", "#gaming #gamer", ["cozy farming games", "retro handhelds", "speedrun routes"]),
    ("paints", "#art #painting", ["watercolor skies", "gouache portraits", "sketchbook warmups"]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration as Span;
    use vidpulse_domain::ManualClock;

    pub(super) const NOW: &str = "2026-06-01T12:00:00Z";

    pub(super) fn t(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    pub(super) fn source(
        edit: impl FnOnce(&mut SimulatedConfig),
    ) -> (SimulatedSource, ManualClock) {
        let mut config = SimulatedConfig::default();
        edit(&mut config);
        let clock = ManualClock::new(t(NOW));
        (SimulatedSource::new(config, Arc::new(clock.clone())), clock)
    }

    fn strings(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    /// Valid ids: TikTok with a creation time (2023) and without, YouTube, Instagram.
    fn sample_ids(platform: Platform, n: u64) -> Vec<String> {
        let tiktok = |i: u64| match i % 2 {
            0 => (7_300_000_000_000_000_000 + i * 7_919).to_string(),
            _ => (1_000 + i).to_string(),
        };
        (0..n)
            .map(|i| match platform {
                Platform::TikTok => tiktok(i),
                Platform::YouTube => format!("vid{i:08}"),
                Platform::Instagram => format!("C{i:010}"),
            })
            .collect()
    }

    async fn read(src: &SimulatedSource, p: Platform, ids: &[String]) -> Vec<ReadOutcome> {
        let answer = src.read_videos(p, ids).await.unwrap();
        answer.into_iter().map(|(_, o)| o).collect()
    }

    /// One letter per outcome: Found, Gone, X for failed.
    async fn kinds(src: &SimulatedSource, p: Platform, ids: &[&str]) -> String {
        let outcomes = read(src, p, &strings(ids)).await;
        let kind = |o: &ReadOutcome| match o {
            ReadOutcome::Found(_) => 'F',
            ReadOutcome::Gone { .. } => 'G',
            ReadOutcome::Failed(e) => ['?', 'X'][usize::from(e.is_transient())],
        };
        outcomes.iter().map(kind).collect()
    }

    fn found(outcome: ReadOutcome) -> VideoSnapshot {
        match outcome {
            ReadOutcome::Found(s) => s,
            other => panic!("expected Found, got {other:?}"),
        }
    }

    async fn snapshot(src: &SimulatedSource, p: Platform, id: &str) -> VideoSnapshot {
        found(read(src, p, &strings(&[id])).await.remove(0))
    }

    #[tokio::test]
    async fn same_id_and_instant_give_the_same_reading_from_any_instance() {
        let ((a, _), (b, _)) = (source(|_| ()), source(|_| ()));
        for p in Platform::ALL {
            let ids = sample_ids(p, 10);
            let first = a.read_videos(p, &ids).await.unwrap();
            assert_eq!(first, a.read_videos(p, &ids).await.unwrap());
            assert_eq!(first, b.read_videos(p, &ids).await.unwrap());
            for (id, outcome) in first {
                let expected = SimulatedSource::snapshot_at(p, &id, t(NOW)).unwrap();
                assert_eq!(outcome, ReadOutcome::Found(expected));
            }
        }
    }

    #[test]
    fn every_counter_is_monotone_over_sixty_days_at_fifteen_minutes() {
        for p in Platform::ALL {
            for id in sample_ids(p, 24) {
                let model = Model::new(p, &id).unwrap();
                // From a day before publishing, and across the hashed publish range.
                for start in [model.published(t(NOW)) - DAY, HASHED_FROM + 200 * DAY] {
                    let mut prev = [0i64; 5];
                    for step in 0..=60 * 96 {
                        let at = DateTime::from_timestamp(start + step * 900, 0).unwrap();
                        let c = model.counters(at).as_array().map(|x| x.unwrap_or(0));
                        assert!((0..5).all(|k| c[k] >= prev[k]), "{p} {id} fell at {at}");
                        prev = c;
                    }
                }
            }
        }
    }

    #[test]
    fn old_popular_videos_still_grow_and_ceilings_are_spread() {
        let mut grew = 0;
        for id in sample_ids(Platform::YouTube, 200) {
            let model = Model::new(Platform::YouTube, &id).unwrap();
            assert!((1_000.0..=20_000_000.0).contains(&model.ceiling));
            let day60 = DateTime::from_timestamp(model.hashed_time + 60 * DAY, 0).unwrap();
            let (before, after) = (model.views(day60), model.views(day60 + Span::days(1)));
            if before >= 100_000 {
                assert!(after > before, "{id}");
                grew += 1;
            }
        }
        assert!(grew > 20, "too few large videos: {grew}");
        let ids = sample_ids(Platform::TikTok, 200);
        let ceiling = |id: &String| Model::new(Platform::TikTok, id).unwrap().ceiling;
        let ceilings = ids.iter().map(ceiling);
        let (min, max) = ceilings.fold((f64::MAX, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
        assert!(min < 10_000.0 && max > 1e6, "{min} {max}");
    }

    #[test]
    fn ratios_are_sane() {
        for p in Platform::ALL {
            for id in sample_ids(p, 40) {
                let model = Model::new(p, &id).unwrap();
                for days in [1, 7, 30, 400] {
                    let at = DateTime::from_timestamp(model.published(t(NOW)) + days * DAY, 0);
                    let c = model.counters(at.unwrap());
                    let (v, l, cm) = (c.views.unwrap(), c.likes.unwrap(), c.comments.unwrap());
                    assert!(v > 0 && l < v && l * 100 <= v * 12, "{p} {id}: {c:?}");
                    assert!(cm < l.max(1) && cm * 20 <= l, "{p} {id}: {c:?}");
                    for other in [c.reposts, c.saves].into_iter().flatten() {
                        assert!(other < l.max(1) && other * 5 <= l, "{p} {id}: {c:?}");
                    }
                }
            }
        }
    }

    #[tokio::test]
    async fn platforms_report_what_they_report() {
        let (src, _) = source(|_| ());
        for p in Platform::ALL {
            for outcome in read(&src, p, &sample_ids(p, 5)).await {
                let present = found(outcome).counters.as_array().map(|c| c.is_some());
                let tiktok = p == Platform::TikTok;
                assert_eq!(present, [true, true, true, tiktok, tiktok], "{p}");
            }
        }
        let batches = Platform::ALL.map(|p| src.max_batch(p));
        assert_eq!(batches, [20, 10, 50], "TikTok, Instagram, YouTube");
    }

    #[tokio::test]
    async fn tiktok_ids_carry_their_creation_time() {
        let (src, clock) = source(|_| ());
        let ts = t("2024-03-10T12:00:00Z");
        let id = (((ts.timestamp() as u64) << 32) | 12_345).to_string();
        let meta = snapshot(&src, Platform::TikTok, &id).await.meta;
        assert_eq!(meta.published_at, Some(ts));
        // The URL a TikTok video was tracked by names its author: the read does not.
        assert_eq!(meta.author_username, None);
        assert_eq!(meta.author_display_name, None);
        assert_eq!(meta.canonical_url, None);

        // Published in 12 hours: nothing yet; an hour after publishing: views.
        let soon = ((clock.now().timestamp() as u64 + 12 * 3_600) << 32).to_string();
        let before = snapshot(&src, Platform::TikTok, &soon).await.counters;
        assert_eq!(before.as_array(), [Some(0); 5]);
        clock.advance(Span::hours(13));
        let after = snapshot(&src, Platform::TikTok, &soon).await.counters;
        assert!(after.views.unwrap() > 0);

        // Too far in the future, or before 2016: a hashed time in 2025–2026.
        for odd in [(4_000_000_000u64 << 32).to_string(), "123".to_string()] {
            let snap = SimulatedSource::snapshot_at(Platform::TikTok, &odd, t(NOW)).unwrap();
            let at = snap.meta.published_at.unwrap().timestamp();
            assert!((HASHED_FROM..HASHED_TO).contains(&at), "{odd}");
        }
    }

    #[tokio::test]
    async fn metadata_is_believable() {
        let (src, _) = source(|_| ());
        let yt = snapshot(&src, Platform::YouTube, "aZ3kQm9TfLw").await;
        let meta = &yt.meta;
        assert_eq!(yt.source, ObservationSource::Simulated);
        assert!(!meta.title.as_deref().unwrap().contains('#'));
        let thumb = "https://picsum.photos/seed/youtube-aZ3kQm9TfLw/640/360";
        assert_eq!(meta.thumbnail_url.as_deref(), Some(thumb));
        let url = "https://www.youtube.com/watch?v=aZ3kQm9TfLw";
        assert_eq!(meta.canonical_url.as_deref(), Some(url));
        let user = meta.author_username.as_deref().unwrap();
        let display = meta.author_display_name.as_deref().unwrap().to_lowercase();
        assert_eq!(user.replace(['.', '_'], ""), display.replace(' ', ""));

        let ig = snapshot(&src, Platform::Instagram, "CDUMkliABpa").await;
        let ig = ig.meta;
        assert!(ig.title.unwrap().contains(" #") && ig.published_at.is_some());
        let url = "https://www.instagram.com/reel/CDUMkliABpa/";
        assert_eq!(ig.canonical_url.as_deref(), Some(url));
    }

    #[tokio::test]
    async fn answers_every_id_in_order_and_impossible_ids_are_gone() {
        let (src, _) = source(|_| ());
        let ids = strings(&["7300000000000000000", "abc", "7300000000000000000", "+12"]);
        let answer = src.read_videos(Platform::TikTok, &ids).await.unwrap();
        let answered: Vec<String> = answer.iter().map(|(id, _)| id.clone()).collect();
        assert_eq!(answered, ids);
        assert_eq!(answer[0].1, answer[2].1);
        let bad_tiktok = ["1", "abc", "", "+12", "99999999999999999999"];
        assert_eq!(kinds(&src, Platform::TikTok, &bad_tiktok).await, "FGGGG");
        let bad_youtube = ["too-short", "aZ3kQm9TfLw!"];
        assert_eq!(kinds(&src, Platform::YouTube, &bad_youtube).await, "GG");
        let instagram = ["has space", "a_b-C"];
        assert_eq!(kinds(&src, Platform::Instagram, &instagram).await, "GF");
        let none = src.read_videos(Platform::TikTok, &[]).await.unwrap();
        assert!(none.is_empty());
    }

    #[tokio::test]
    async fn gone_and_failing_ids_affect_only_themselves() {
        let (src, _) = source(|c| {
            c.gone_ids = strings(&["vid00000001"]);
            c.failing_ids = strings(&["vid00000002"]);
        });
        let yt = Platform::YouTube;
        let ids = ["vid00000000", "vid00000001", "vid00000002", "vid00000003"];
        assert_eq!(kinds(&src, yt, &ids).await, "FGXF");
        let reason = GONE_REASON.to_owned();
        let gone = ReadOutcome::Gone { reason };
        assert_eq!(read(&src, yt, &strings(&ids[1..2])).await, [gone]);

        // At run time, shared by clones.
        let clone = src.clone();
        clone.set_gone("vid00000000", true);
        assert_eq!(kinds(&src, yt, &ids).await, "GGXF");
        src.set_gone("vid00000000", false);
        assert_eq!(kinds(&clone, yt, &ids).await, "FGXF");
    }

    #[tokio::test]
    async fn gone_rate_is_per_id_and_fail_rate_per_call_and_minute() {
        let (ig, tt) = (Platform::Instagram, Platform::TikTok);
        let ids = sample_ids(ig, 200);
        let (all, _) = source(|c| c.gone_rate = 1.0);
        let is_gone = |o: &ReadOutcome| matches!(o, ReadOutcome::Gone { .. });
        assert!(read(&all, ig, &ids).await.iter().all(is_gone));
        let (half, _) = source(|c| c.gone_rate = 0.5);
        let out = read(&half, ig, &ids).await;
        let gone = out.iter().filter(|o| is_gone(o)).count();
        assert!((60..=140).contains(&gone), "{gone} of 200 gone");
        assert_eq!(out, read(&half, ig, &ids).await);

        let ids = sample_ids(tt, 3);
        let (always, _) = source(|c| c.fail_rate = 1.0);
        let err = always.read_videos(tt, &ids).await.unwrap_err();
        assert_eq!(err, SourceError::Transient(FAILURE.into()));
        let (half, clock) = source(|c| c.fail_rate = 0.5);
        let mut failures = 0;
        for _ in 0..100 {
            let first = half.read_videos(tt, &ids).await.is_err();
            clock.advance(Span::seconds(30));
            let again = half.read_videos(tt, &ids).await.is_err();
            assert_eq!(first, again, "same minute, same answer");
            failures += usize::from(first);
            clock.advance(Span::seconds(30));
        }
        assert!((20..=80).contains(&failures), "{failures}/100 failed");
    }

    #[test]
    fn stamped_ids_carry_their_time_and_plain_ids_rarely_look_stamped() {
        for p in Platform::ALL {
            for (k, at) in [MIN_ID_TIME, HASHED_FROM + 12_345, t(NOW).timestamp()]
                .iter()
                .enumerate()
            {
                let salt = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(k as u64 + 1);
                for minter in [Minter::Channel, Minter::Trends] {
                    let id = stamped_id(p, minter, *at, salt);
                    assert!(valid_id(p, &id), "{p} {id}");
                    assert_eq!(carried_time(p, &id), Some(*at), "{p} {id}");
                    let snap = SimulatedSource::snapshot_at(p, &id, t(NOW)).unwrap();
                    assert_eq!(snap.meta.published_at.unwrap().timestamp(), *at, "{p} {id}");
                    if p != Platform::TikTok {
                        assert_eq!(id.len(), 11);
                        assert_eq!(decode_64(&id).map(encode_64).as_deref(), Some(id.as_str()));
                        assert_eq!(minted_by(p, &id), Some(minter), "{p} {id}");
                    }
                }
            }
        }
        for p in [Platform::YouTube, Platform::Instagram] {
            let plain = ["aZ3kQm9TfLw", "CDUMkliABpa"].map(String::from).into_iter();
            let stamped = plain
                .chain(sample_ids(p, 2_000))
                .filter(|id| carried_time(p, id).is_some())
                .count();
            assert_eq!(stamped, 0, "{p}");
        }
        assert_eq!(
            decode_64("aZ3kQm9TfLx"),
            None,
            "the last character holds 4 bits"
        );
        assert_eq!(decode_64("short"), None);
    }

    #[tokio::test]
    async fn latency_is_respected() {
        let latency = Duration::from_millis(120);
        let (src, _) = source(|c| c.latency = latency);
        let started = std::time::Instant::now();
        read(&src, Platform::YouTube, &sample_ids(Platform::YouTube, 2)).await;
        assert!(started.elapsed() >= latency);
    }
}
