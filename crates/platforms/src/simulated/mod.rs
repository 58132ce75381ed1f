//! The simulated source: offline, deterministic video statistics, creator
//! accounts and trend searches, the default upstream for demos and for every
//! test of the service.
//!
//! Every parameter of a video comes from the SHA-256 of `"{platform}:{external id}"`,
//! so the same (platform, id, instant) always gives the same reading, in any
//! process and from any instance; nothing is stored. The one thing a read is
//! told is a video's [`Anchor`] (see **Anchors**).
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
//! **Anchors** (`anchored.rs`). This source stands in for the real platforms,
//! whose numbers an import copies, so it wants anchors
//! ([`Source::wants_anchors`]): for each video the refresh worker and a
//! manual refresh pass what the service was told of it, the latest reading
//! any organization imported and the author an organization gave (a URL's
//! handle, an import's channel). A read of an anchored video continues from
//! the reading: equal to it at its instant, growing from there along the
//! video's curve scaled through it (or by the long tail when the video is
//! published later here), never decreasing, and the same for the same (id,
//! anchor, instant). The anchor's author replaces the hashed one, so only
//! where a read would name one (YouTube, Instagram, not a channel's ids).
//! A publish time after the anchor's reading goes unsaid (`None`). Without
//! an anchor a read is as above.
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

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use vidpulse_domain::{Anchor, Clock, Counters, ObservationSource, Platform};

use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, VideoMeta,
    VideoSnapshot,
};

mod anchored;
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
        Model::new(platform, external_id).map(|m| m.snapshot(at, None))
    }

    /// The fault-free reading at `at` of a video continued from `anchor`;
    /// `None` if the id cannot exist.
    pub fn anchored_snapshot_at(
        platform: Platform,
        external_id: &str,
        anchor: &Anchor,
        at: DateTime<Utc>,
    ) -> Option<VideoSnapshot> {
        Model::new(platform, external_id).map(|m| m.snapshot(at, Some(anchor)))
    }

    fn read_one(
        &self,
        platform: Platform,
        external_id: &str,
        anchor: Option<&Anchor>,
        now: DateTime<Utc>,
    ) -> ReadOutcome {
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
        ReadOutcome::Found(model.snapshot(now, anchor))
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
        self.read_anchored(platform, external_ids, &HashMap::new())
            .await
    }

    fn wants_anchors(&self) -> bool {
        true
    }

    async fn read_anchored(
        &self,
        platform: Platform,
        external_ids: &[String],
        anchors: &HashMap<String, Anchor>,
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
        let read = |id: &String| {
            let outcome = self.read_one(platform, id, anchors.get(id), now);
            (id.clone(), outcome)
        };
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

    /// The reading at `now`, continued from `anchor` when there is one.
    fn snapshot(&self, now: DateTime<Utc>, anchor: Option<&Anchor>) -> VideoSnapshot {
        let reading = anchor.and_then(|a| a.reading.as_ref());
        let counters = match reading {
            Some(reading) => self.anchored_counters(reading, now),
            None => self.counters(now),
        };
        let mut meta = self.meta(now);
        // A video imported as read before the model publishes it was out
        // then: the model's later publish time goes unsaid.
        if let Some(reading) = reading
            && meta.published_at > Some(reading.captured_at)
        {
            meta.published_at = None;
        }
        if let Some(author) = anchor.and_then(|a| a.author.as_deref())
            && self.reports_author()
        {
            meta.author_username = Some(author.to_owned());
            meta.author_display_name = Some(author.to_owned());
        }
        VideoSnapshot {
            counters,
            meta,
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
mod tests;
