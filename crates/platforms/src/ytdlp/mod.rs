//! The yt-dlp adapter: video statistics of TikTok, YouTube and Instagram read
//! by running [yt-dlp](https://github.com/yt-dlp/yt-dlp) (docs/platforms.md).
//!
//! It covers reading videos by id on all three platforms, resolving TikTok and
//! YouTube creators and listing their recent videos. It has no keyword search
//! and no Instagram profiles (yt-dlp's profile extractor does not work).
//!
//! yt-dlp is a Python program that keeps up with the platforms' page changes
//! far faster than any client we could write, so it runs as a subprocess: one
//! URL per call, no shell, the URL after `--`, stdin closed, stdout capped,
//! a timeout per call that kills the child, and a semaphore bounding how many
//! run at once across the whole source.
//!
//! Failures: a missing binary fails the whole call with
//! [`SourceError::Unsupported`] (see [`YtDlpSource::probe`]); everything else
//! is per video. Exit 1 prints `ERROR: [extractor] id: message` on stderr:
//! YouTube's "removed"/"private" messages are reliable and mean
//! [`ReadOutcome::Gone`]; TikTok's and Instagram's are not (status codes move
//! around, logged-out reads get blocked), so they are transient failures the
//! service gives up on after a few in a row. Rate limits, login walls, bot
//! checks, timeouts and unreadable output are transient; exit 2 (bad options)
//! is permanent.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use vidpulse_domain::video_url::canonical_url;
use vidpulse_domain::{Counters, ObservationSource, Platform};

use crate::http::UpstreamSnapshot;
use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery, VideoMeta,
    VideoSnapshot,
};

/// The most stdout read from one call; more is "unexpected output".
const MAX_STDOUT: usize = 16 * 1024 * 1024;
/// The most stderr kept from one call (the rest is read and dropped).
const MAX_STDERR: usize = 64 * 1024;
/// Ids read per [`Source::read_videos`] call (each is its own subprocess).
const MAX_BATCH: usize = 10;
/// The longest error message passed on.
const MAX_MESSAGE: usize = 400;
const INSTALL_HINT: &str = "install it with `pip install yt-dlp curl_cffi` \
    or set VIDPULSE_YTDLP_PATH to its location";

/// How to run yt-dlp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YtDlpConfig {
    /// The executable: a path, or a name looked up on `PATH` (default `yt-dlp`).
    pub path: PathBuf,
    /// The longest one call may run before it is killed (default 60 s).
    pub timeout: Duration,
    /// How many yt-dlp processes may run at once (default 4; 0 counts as 1).
    pub concurrency: usize,
    /// yt-dlp's `--socket-timeout`, in seconds (default 15).
    pub socket_timeout_secs: u32,
    /// A Netscape cookies file passed as `--cookies` (helps with Instagram).
    pub cookies_file: Option<PathBuf>,
}

impl Default for YtDlpConfig {
    fn default() -> Self {
        Self {
            path: PathBuf::from("yt-dlp"),
            timeout: Duration::from_secs(60),
            concurrency: 4,
            socket_timeout_secs: 15,
            cookies_file: None,
        }
    }
}

/// A [`Source`] that runs yt-dlp. Clones share the concurrency bound and counters.
#[derive(Debug, Clone)]
pub struct YtDlpSource {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: YtDlpConfig,
    permits: Semaphore,
    calls: AtomicU64,
    failures: AtomicU64,
}

/// What one finished yt-dlp process left.
struct RunOutput {
    /// The exit code; `None` when killed by a signal.
    code: Option<i32>,
    stdout: Vec<u8>,
    /// Whether stdout went past [`MAX_STDOUT`] (the child was then killed).
    stdout_overflow: bool,
    stderr: String,
}

/// Why a yt-dlp process gave no [`RunOutput`].
enum RunError {
    /// No usable yt-dlp at the configured path: the whole call fails.
    Missing(String),
    /// Anything else (spawn failure, I/O error, timeout): this item fails.
    Failed(SourceError),
}

impl From<RunError> for SourceError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Missing(m) => SourceError::Unsupported(m),
            RunError::Failed(e) => e,
        }
    }
}

fn transient(message: impl Into<String>) -> SourceError {
    SourceError::Transient(message.into())
}

fn unexpected_output() -> SourceError {
    transient("unexpected yt-dlp output")
}

impl YtDlpSource {
    /// A source running yt-dlp as `config` says. Nothing is run until asked.
    pub fn new(config: YtDlpConfig) -> Self {
        let permits = Semaphore::new(config.concurrency.max(1));
        let (calls, failures) = (AtomicU64::new(0), AtomicU64::new(0));
        let inner = Inner {
            config,
            permits,
            calls,
            failures,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Runs `yt-dlp --version` and returns the version, for the start-up
    /// report. A missing or broken yt-dlp is [`SourceError::Unsupported`]
    /// saying how to install it; a hang is [`SourceError::Transient`].
    pub async fn probe(&self) -> Result<String, SourceError> {
        let out = self.inner.run(vec!["--version".into()]).await?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let version = stdout.lines().next().unwrap_or("").trim();
        if out.code != Some(0) || version.is_empty() || version.len() > 64 {
            return Err(SourceError::Unsupported(format!(
                "`{} --version` failed ({}); reinstall yt-dlp: {INSTALL_HINT}",
                self.inner.config.path.display(),
                error_message(&out)
            )));
        }
        Ok(version.to_owned())
    }

    /// Runs a channel listing; a failure becomes the call's error.
    async fn run_channel(&self, extra: &[&str], url: &str) -> Result<RunOutput, SourceError> {
        let out = self.inner.run(self.inner.args(extra, url)).await?;
        if out.stdout_overflow {
            return Err(unexpected_output());
        } else if out.code == Some(0) {
            return Ok(out);
        }
        let message = error_message(&out);
        Err(if out.code == Some(2) {
            SourceError::Permanent(format!("yt-dlp rejected its arguments: {message}"))
        } else if matches_any(&message.to_ascii_lowercase(), NOT_FOUND) {
            SourceError::NotFound(message)
        } else {
            transient(message)
        })
    }
}

impl Inner {
    /// `extra`, the common options, `--`, then `url`.
    fn args(&self, extra: &[&str], url: &str) -> Vec<OsString> {
        let mut args: Vec<OsString> = extra.iter().map(OsString::from).collect();
        let timeout = self.config.socket_timeout_secs.to_string();
        args.extend(["--no-warnings", "--socket-timeout", &timeout].map(OsString::from));
        if let Some(cookies) = &self.config.cookies_file {
            args.extend(["--cookies".into(), cookies.into()]);
        }
        args.extend(["--".into(), url.into()]);
        args
    }

    /// Runs yt-dlp once, within the concurrency bound and the timeout.
    async fn run(&self, args: Vec<OsString>) -> Result<RunOutput, RunError> {
        let closed = |_| RunError::Failed(transient("yt-dlp is shutting down"));
        let _permit = self.permits.acquire().await.map_err(closed)?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        let result = self.spawn_and_wait(args).await;
        if !matches!(&result, Ok(out) if out.code == Some(0)) {
            self.failures.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    async fn spawn_and_wait(&self, args: Vec<OsString>) -> Result<RunOutput, RunError> {
        let path = self.config.path.display();
        let mut command = Command::new(&self.config.path);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| match e.kind() {
                ErrorKind::NotFound => RunError::Missing(format!(
                    "yt-dlp is not installed at `{path}`: {INSTALL_HINT}"
                )),
                ErrorKind::PermissionDenied => RunError::Missing(format!(
                    "yt-dlp at `{path}` is not executable: {INSTALL_HINT}"
                )),
                _ => RunError::Failed(transient(format!("cannot start yt-dlp at `{path}`: {e}"))),
            })?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(RunError::Failed(transient("yt-dlp pipes missing")));
        };
        let io = async {
            let out = async {
                let read = read_capped(stdout, MAX_STDOUT, true).await;
                if matches!(read, Ok((_, true))) {
                    // Too much output: stop the child rather than drain it.
                    let _ = child.start_kill();
                }
                read
            };
            let (out, err) = tokio::join!(out, read_capped(stderr, MAX_STDERR, false));
            let status = child.wait().await?;
            let ((stdout, stdout_overflow), (stderr, _)) = (out?, err?);
            let stderr = String::from_utf8_lossy(&stderr).into_owned();
            Ok::<_, std::io::Error>(RunOutput {
                code: status.code(),
                stdout,
                stdout_overflow,
                stderr,
            })
        };
        match tokio::time::timeout(self.config.timeout, io).await {
            Ok(Ok(out)) => Ok(out),
            Ok(Err(e)) => Err(RunError::Failed(transient(format!(
                "reading yt-dlp output failed: {e}"
            )))),
            Err(_) => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                let timeout = self.config.timeout;
                Err(RunError::Failed(transient(format!(
                    "yt-dlp timed out after {timeout:?} and was killed"
                ))))
            }
        }
    }

    /// Reads one video; `Err` only when yt-dlp is missing.
    async fn read_one(&self, platform: Platform, id: &str) -> Result<ReadOutcome, SourceError> {
        if !is_name(id, b"-_") {
            let name = platform.display_name();
            let e = SourceError::Permanent(format!("invalid {name} video id `{}`", clip(id)));
            return Ok(ReadOutcome::Failed(e));
        }
        let url = canonical_url(platform, id, None);
        let mut extra = vec!["-j", "--skip-download", "--no-playlist"];
        if platform == Platform::Instagram {
            // Keeps the metadata of image posts; it would also hide YouTube's
            // "Video unavailable", hence Instagram only.
            extra.push("--ignore-no-formats-error");
        }
        let out = match self.run(self.args(&extra, &url)).await {
            Ok(out) => out,
            Err(RunError::Missing(m)) => return Err(SourceError::Unsupported(m)),
            Err(RunError::Failed(e)) => return Ok(ReadOutcome::Failed(e)),
        };
        if out.stdout_overflow {
            return Ok(ReadOutcome::Failed(unexpected_output()));
        } else if out.code != Some(0) {
            return Ok(classify_video_error(
                platform,
                out.code,
                &error_message(&out),
            ));
        }
        // A carousel prints one line per item: the first stands for the post.
        let first = lines(&out).next().and_then(parse_object);
        Ok(match first {
            Some(obj) => ReadOutcome::Found(snapshot(platform, &obj, url)),
            None => ReadOutcome::Failed(unexpected_output()),
        })
    }
}

#[async_trait]
impl Source for YtDlpSource {
    fn max_batch(&self, _platform: Platform) -> usize {
        MAX_BATCH
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        let mut tasks = JoinSet::new();
        for (index, id) in external_ids.iter().enumerate() {
            let (inner, id) = (Arc::clone(&self.inner), id.clone());
            tasks.spawn(async move { (index, inner.read_one(platform, &id).await) });
        }
        let lost = ReadOutcome::Failed(transient("yt-dlp task failed"));
        let mut answers: Vec<_> = external_ids
            .iter()
            .map(|id| (id.clone(), lost.clone()))
            .collect();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                // Dropping `tasks` aborts the other calls and kills their children.
                Ok((_, Err(e))) => return Err(e),
                Ok((index, Ok(outcome))) => {
                    if let Some(slot) = answers.get_mut(index) {
                        slot.1 = outcome;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "a yt-dlp task did not finish"),
            }
        }
        Ok(answers)
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        let handle = valid_username(platform, username)?;
        let url = profile_url(platform, handle)?;
        let out = self
            .run_channel(&["-J", "--flat-playlist", "-I", "0"], &url)
            .await?;
        let obj = lines(&out).next().and_then(parse_object);
        let obj = obj.ok_or_else(unexpected_output)?;
        // TikTok: playlist id = secUid, title = handle; YouTube: channel fields.
        let (id_keys, name_key) = match platform {
            Platform::YouTube => (["channel_id", "id"], "uploader_id"),
            _ => (["id", "channel_id"], "title"),
        };
        let channel_id = id_keys
            .iter()
            .find_map(|k| text(&obj, k))
            .ok_or_else(unexpected_output)?;
        let username = text(&obj, name_key)
            .map(|u| u.trim_start_matches('@').to_owned())
            .filter(|u| is_name(u, b"-_."))
            .unwrap_or_else(|| handle.to_owned());
        Ok(Channel {
            platform,
            channel_id,
            username,
            display_name: text(&obj, "channel"),
            avatar_url: avatar(&obj),
            // yt-dlp gives no TikTok followers.
            follower_count: count(&obj, "channel_follower_count")
                .filter(|_| platform == Platform::YouTube),
        })
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        let platform = channel.platform;
        let handle = valid_username(platform, &channel.username)?;
        let url = profile_url(platform, handle)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let range = format!("1:{limit}");
        let out = self
            .run_channel(&["-j", "--flat-playlist", "-I", &range], &url)
            .await?;
        let rows: Vec<&[u8]> = lines(&out).collect();
        let video = |obj: Map<String, Value>| {
            let id = text(&obj, "id").filter(|id| is_name(id, b"-_"))?;
            Some(ChannelVideo {
                canonical_url: canonical_url(platform, &id, Some(handle)),
                published_at: timestamp(&obj),
                title: text(&obj, "title").or_else(|| text(&obj, "description")),
                external_id: id,
            })
        };
        let videos: Vec<_> = rows
            .iter()
            .filter_map(|l| parse_object(l))
            .filter_map(video)
            .take(limit)
            .collect();
        if videos.is_empty() && !rows.is_empty() {
            return Err(unexpected_output());
        }
        Ok(videos)
    }

    async fn search_trends(
        &self,
        platform: Platform,
        _query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        let name = platform.display_name();
        Err(SourceError::Unsupported(format!(
            "trend search on {name} is not available through yt-dlp"
        )))
    }

    fn upstream_stats(&self) -> Vec<UpstreamSnapshot> {
        vec![UpstreamSnapshot {
            name: "yt_dlp",
            calls: self.inner.calls.load(Ordering::Relaxed),
            failures: self.inner.failures.load(Ordering::Relaxed),
            quota_used: 0,
            quota_limit: None,
            circuit_open: false,
        }]
    }
}

// Patterns matched in the lowercased message, `|`-separated (yt-dlp's `ERROR:` lines).
/// YouTube: gone for good (YouTube's messages are reliable).
const YOUTUBE_GONE: &str = "video unavailable|removed by the uploader|private video|\
    this video has been removed|account associated with this video has been terminated";
/// YouTube: starts like "Video unavailable" but is a block, not a removal.
const YOUTUBE_NOT_GONE: &str = "try again later|country|sign in to confirm|rate-limit|rate limit";
/// TikTok and Instagram: may mean removed or private, but not reliably.
const MAYBE_GONE: &str = "video not available|do not have permission to view this post|\
    this content is only available|there is no video in this post|this post is unavailable";
/// A channel that does not exist.
const NOT_FOUND: &str =
    "unable to find|does not exist|http error 404|404: not found|couldn't find this account";
/// A blocked or throttled client.
const THROTTLED: &str = "rate-limit|rate limit|too many requests|http error 429|blocked|captcha|\
    login|log in|sign in to confirm|not a bot";

fn matches_any(lower: &str, patterns: &str) -> bool {
    patterns.split('|').any(|p| lower.contains(p))
}

/// Classifies a yt-dlp exit other than 0 for one video (docs/platforms.md).
fn classify_video_error(platform: Platform, code: Option<i32>, message: &str) -> ReadOutcome {
    let lower = message.to_ascii_lowercase();
    let has = |patterns| matches_any(&lower, patterns);
    ReadOutcome::Failed(if code == Some(2) {
        SourceError::Permanent(format!("yt-dlp rejected its arguments: {message}"))
    } else if platform == Platform::YouTube && has(YOUTUBE_GONE) && !has(YOUTUBE_NOT_GONE) {
        return ReadOutcome::Gone {
            reason: message.to_owned(),
        };
    } else if platform != Platform::YouTube && has(MAYBE_GONE) {
        transient(format!("possibly removed or private: {message}"))
    } else if has(THROTTLED) {
        transient(format!("blocked or rate-limited: {message}"))
    } else {
        transient(message)
    })
}

/// The error message of a failed run: the `ERROR:` line without its
/// `[extractor] id: ` prefix, else the last stderr line, else the exit code.
fn error_message(out: &RunOutput) -> String {
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let message = match lines.iter().find_map(|l| l.strip_prefix("ERROR:")) {
        Some(error) => {
            let mut m = error.trim();
            if let Some((_, rest)) = m.strip_prefix('[').and_then(|r| r.split_once("] ")) {
                m = rest;
                if let Some((id, rest)) = m.split_once(": ")
                    && !id.contains(' ')
                {
                    m = rest;
                }
            }
            m.to_owned()
        }
        None => match (lines.last(), out.code) {
            (Some(last), _) => (*last).to_owned(),
            (None, Some(code)) => format!("yt-dlp exited with code {code}"),
            (None, None) => "yt-dlp was killed by a signal".to_owned(),
        },
    };
    clip(&message)
}

/// The non-empty lines of stdout.
fn lines(out: &RunOutput) -> impl Iterator<Item = &[u8]> {
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
}

fn parse_object(bytes: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(obj)) => Some(obj),
        _ => None,
    }
}

/// Maps one video's JSON (docs/platforms.md, "What each source gives"); `requested` is the URL asked for.
fn snapshot(platform: Platform, obj: &Map<String, Value>, requested: String) -> VideoSnapshot {
    let tiktok = platform == Platform::TikTok;
    let title = || text(obj, "title").or_else(|| text(obj, "description"));
    let (title, author, display) = match platform {
        Platform::TikTok => (title(), text(obj, "uploader"), text(obj, "channel")),
        Platform::YouTube => {
            let handle = text(obj, "uploader_id").map(|u| u.trim_start_matches('@').to_owned());
            (
                title(),
                handle.filter(|h| !h.is_empty()),
                text(obj, "channel"),
            )
        }
        // The title is "Video by {username}"; the caption is the description.
        Platform::Instagram => {
            let caption = text(obj, "description").or_else(|| text(obj, "title"));
            (caption, text(obj, "channel"), text(obj, "uploader"))
        }
    };
    VideoSnapshot {
        counters: Counters {
            views: count(obj, "view_count"),
            likes: count(obj, "like_count"),
            comments: count(obj, "comment_count"),
            reposts: count(obj, "repost_count").filter(|_| tiktok),
            saves: count(obj, "save_count").filter(|_| tiktok),
        },
        meta: VideoMeta {
            title,
            thumbnail_url: text(obj, "thumbnail"),
            author_username: author,
            author_display_name: display,
            published_at: timestamp(obj),
            canonical_url: Some(text(obj, "webpage_url").unwrap_or(requested)),
        },
        source: ObservationSource::YtDlp,
    }
}

/// A non-empty string value.
fn text(obj: &Map<String, Value>, key: &str) -> Option<String> {
    let s = obj.get(key)?.as_str()?.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

/// A non-negative integer (integral floats accepted); null, absent or odd is `None`.
fn count(obj: &Map<String, Value>, key: &str) -> Option<i64> {
    let v = obj.get(key)?;
    let float = || {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..9.0e18).contains(f))
    };
    v.as_i64()
        .or_else(|| float().map(|f| f as i64))
        .filter(|n| *n >= 0)
}

fn timestamp(obj: &Map<String, Value>) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp(obj.get("timestamp")?.as_i64()?, 0)
}

/// The channel avatar among the playlist's thumbnails (YouTube names it `avatar_*`).
fn avatar(obj: &Map<String, Value>) -> Option<String> {
    let thumbs = obj.get("thumbnails")?.as_array()?;
    let with_id = |want: &str| {
        let mut all = thumbs.iter().filter_map(Value::as_object);
        all.find(|t| {
            t.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.contains(want))
        })
        .and_then(|t| text(t, "url"))
    };
    with_id("avatar_uncropped").or_else(|| with_id("avatar"))
}

/// Ids and handles go into URLs: ASCII letters, digits and `extra` only.
fn is_name(s: &str, extra: &[u8]) -> bool {
    let ok = |b: u8| b.is_ascii_alphanumeric() || extra.contains(&b);
    (1..=64).contains(&s.len()) && s.bytes().all(ok)
}

/// The username without `@`, or `NotFound` when no account can have it.
fn valid_username(platform: Platform, username: &str) -> Result<&str, SourceError> {
    let handle = username.trim().trim_start_matches('@');
    if is_name(handle, b"-_.") {
        return Ok(handle);
    }
    let name = platform.display_name();
    Err(SourceError::NotFound(format!(
        "`{}` is not a valid {name} username",
        clip(username)
    )))
}

fn profile_url(platform: Platform, handle: &str) -> Result<String, SourceError> {
    match platform {
        Platform::TikTok => Ok(format!("https://www.tiktok.com/@{handle}")),
        Platform::YouTube => Ok(format!("https://www.youtube.com/@{handle}/videos")),
        Platform::Instagram => Err(SourceError::Unsupported(
            "Instagram creators are not available through yt-dlp (its profile extractor does not \
             work); use the Instagram Graph API"
                .into(),
        )),
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_MESSAGE) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    }
}

/// Reads to the end keeping at most `cap` bytes; the flag says more came.
/// With `stop`, returns as soon as the cap is passed instead of draining.
async fn read_capped<R: AsyncRead + Unpin>(
    mut reader: R,
    cap: usize,
    stop: bool,
) -> std::io::Result<(Vec<u8>, bool)> {
    let (mut buf, mut chunk, mut overflow) = (Vec::new(), vec![0u8; 64 * 1024], false);
    loop {
        let n = reader.read(&mut chunk).await?;
        let room = cap - buf.len();
        buf.extend_from_slice(&chunk[..n.min(room)]);
        overflow |= n > room;
        if n == 0 || (overflow && stop) {
            return Ok((buf, overflow));
        }
    }
}

#[cfg(test)]
mod tests;
