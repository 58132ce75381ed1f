//! Live mode end to end: the server built from `--upstream live` settings,
//! its adapters pointed at local stubs (a YouTube Data API stub on a random
//! port, a fake `yt-dlp` for TikTok and Instagram). Videos of each platform
//! are tracked, read, refreshed, survive an outage and recover.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use chrono::Duration;
use rstest::rstest;
use serde_json::{Value, json};
use vidpulse::config::{Cli, Command, LiveArgs};
use vidpulse::live::live_sources;
use vidpulse_domain::Plan;
use vidpulse_platforms::Source;
use vidpulse_store::Backend;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::helpers::{TestApp, TestConfig, assert_nested_error};

const YT_URL: &str = "https://www.youtube.com/watch?v=aZ3kQm9TfLw";
const TT_URL: &str = "https://www.tiktok.com/@mira.cooks/video/7704802802882512932";
const IG_URL: &str = "https://www.instagram.com/reel/DQx7kLmN2pA/";

/// The YouTube Data API `videos.list`: echoes the ids asked for, with views
/// growing by 1,000 per call; answers 503 `backendError` while `down`.
#[derive(Default)]
struct YoutubeStub {
    calls: AtomicU64,
    down: AtomicBool,
}

/// The stub as mounted (shared with the test, which flips `down`).
struct Shared(Arc<YoutubeStub>);

impl Respond for Shared {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if self.0.down.load(Ordering::SeqCst) {
            return ResponseTemplate::new(503).set_body_json(json!({"error": {
                "code": 503, "message": "The service is currently unavailable.",
                "errors": [{"message": "The service is currently unavailable.",
                            "domain": "global", "reason": "backendError"}]}}));
        }
        let n = self.0.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let ids = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "id")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let items: Vec<Value> = ids
            .split(',')
            .map(|id| {
                json!({
                    "kind": "youtube#video", "id": id,
                    "snippet": {"publishedAt": "2026-11-01T10:00:00Z", "channelId": "UCx",
                                "title": format!("Video {id}"), "channelTitle": "Mira Cooks"},
                    "statistics": {"viewCount": (n * 1000).to_string(), "likeCount": "40",
                                   "commentCount": "5"}
                })
            })
            .collect();
        ResponseTemplate::new(200)
            .set_body_json(json!({"kind": "youtube#videoListResponse", "items": items}))
    }
}

/// A fake yt-dlp in `dir`: prints a video whose views grow by 1,000 per
/// call, and fails like yt-dlp behind a 503 while `dir/down` exists.
fn fake_ytdlp(dir: &Path) -> PathBuf {
    let script = format!(
        r#"#!/bin/sh
state="{state}"
url=""; seen=0
for arg in "$@"; do
  if [ "$seen" = 1 ]; then url="$arg"; fi
  case "$arg" in --version) echo "2026.08.19"; exit 0 ;; --) seen=1 ;; esac
done
id=${{url##*[=/]}}
[ -z "$id" ] && {{ id=${{url%/}}; id=${{id##*/}}; }}
if [ -e "$state/down" ]; then
  echo "ERROR: [generic] $id: Unable to download webpage: HTTP Error 503: Service Unavailable" >&2
  exit 1
fi
echo x >> "$state/calls-$id"
n=$(wc -l < "$state/calls-$id")
printf '{{"id": "%s", "_type": "video", "title": "Video %s", "view_count": %d, "like_count": 50, "comment_count": 4, "repost_count": 2, "uploader": "creator", "timestamp": 1762000000}}\n' "$id" "$id" $((n * 1000))
"#,
        state = dir.display()
    );
    let path = dir.join("yt-dlp");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The live settings exactly as `vidpulse serve` parses them.
fn live_args(extra: &[&str]) -> LiveArgs {
    let mut argv = vec!["vidpulse", "serve", "--upstream", "live"];
    argv.extend_from_slice(extra);
    let cli = <Cli as clap::Parser>::try_parse_from(argv).unwrap();
    let Command::Serve(serve) = cli.command else {
        unreachable!()
    };
    let settings = serve.runtime.settings().unwrap();
    settings.live
}

struct LiveStubs {
    youtube: Arc<YoutubeStub>,
    _server: MockServer,
    dir: tempfile::TempDir,
    source: Arc<dyn Source>,
}

impl LiveStubs {
    async fn start() -> Self {
        let server = MockServer::start().await;
        let youtube = Arc::new(YoutubeStub::default());
        Mock::given(path("/youtube/v3/videos"))
            .respond_with(Shared(youtube.clone()))
            .mount(&server)
            .await;
        let dir = tempfile::tempdir().unwrap();
        let ytdlp = fake_ytdlp(dir.path());
        let base = format!("{}/youtube/v3", server.uri());
        let args = live_args(&[
            "--youtube-api-key",
            "test-key",
            "--youtube-api-base",
            &base,
            "--ytdlp-path",
            ytdlp.to_str().unwrap(),
        ]);
        let (source, _) = live_sources(&args).await.unwrap();
        Self {
            youtube,
            _server: server,
            dir,
            source: Arc::new(source),
        }
    }

    fn set_down(&self, down: bool) {
        self.youtube.down.store(down, Ordering::SeqCst);
        let flag = self.dir.path().join("down");
        if down {
            std::fs::write(flag, "").unwrap();
        } else {
            std::fs::remove_file(flag).unwrap();
        }
    }
}

/// Latest views and number of points in the views history, per platform.
async fn views(app: &TestApp, key: &str) -> Vec<(String, Option<i64>, usize)> {
    let a = app.get("/v1/videos/stats?limit=100", Some(key)).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let mut out: Vec<_> = a.body["data"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["platform"].as_str().unwrap().to_owned(),
                v["views"].as_i64(),
                v["stats"]["views"].as_object().map_or(0, |m| m.len()),
            )
        })
        .collect();
    out.sort();
    out
}

#[rstest]
#[tokio::test]
async fn live_videos_are_read_refreshed_and_survive_an_outage(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let stubs = LiveStubs::start().await;
    let config = TestConfig {
        source: Some(stubs.source.clone()),
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let t = app.track(&key, &[YT_URL, TT_URL, IG_URL]).await;
    assert_eq!(t["meta"]["summary"]["tracked"], 3, "{t}");

    assert_eq!(app.run_worker_until_idle().await, 3);
    let first = views(&app, &key).await;
    assert_eq!(
        first,
        vec![
            ("Instagram".into(), Some(1000), 1),
            ("TikTok".into(), Some(1000), 1),
            ("YouTube".into(), Some(1000), 1),
        ]
    );

    // The next scheduled read sees the counters grow.
    app.advance(Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 3);
    let grown = views(&app, &key).await;
    assert!(
        grown.iter().all(|(_, v, n)| *v == Some(2000) && *n == 2),
        "{grown:?}"
    );

    // Every upstream goes down: reads fail, nothing stored is lost or changed.
    stubs.set_down(true);
    app.advance(Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 3);
    assert_eq!(
        views(&app, &key).await,
        grown,
        "history survives the outage"
    );
    let a = app.get("/v1/videos/stats", Some(&key)).await;
    assert_eq!(a.status.as_u16(), 200);

    // The failed reads are retried within minutes, not at the next regular slot.
    stubs.set_down(false);
    app.advance(Duration::minutes(2));
    assert_eq!(app.run_worker_until_idle().await, 3);
    let recovered = views(&app, &key).await;
    assert!(
        recovered
            .iter()
            .all(|(_, v, n)| *v == Some(3000) && *n == 3),
        "{recovered:?}"
    );
}

#[rstest]
#[tokio::test]
async fn refreshing_a_thousand_youtube_videos_takes_twenty_calls(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let stubs = LiveStubs::start().await;
    let config = TestConfig {
        source: Some(stubs.source.clone()),
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Business).await;
    // 20 requests of 50: exactly the per-minute limits of video tracking.
    for chunk in 0..20 {
        let urls: Vec<String> = (0..50)
            .map(|i| format!("https://youtu.be/v{:010}", chunk * 50 + i))
            .collect();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        let t = app.track(&key, &urls).await;
        assert_eq!(t["meta"]["summary"]["tracked"], 50);
    }
    assert_eq!(app.run_worker_until_idle().await, 1000);
    assert_eq!(stubs.youtube.calls.load(Ordering::SeqCst), 20);

    app.advance(Duration::minutes(15));
    assert_eq!(app.run_worker_until_idle().await, 1000);
    assert_eq!(stubs.youtube.calls.load(Ordering::SeqCst), 40);
    let snapshot = stubs
        .source
        .upstream_stats()
        .into_iter()
        .find(|s| s.name == "youtube")
        .unwrap();
    assert_eq!(snapshot.calls, 40);
    assert_eq!(snapshot.quota_used, 40, "videos.list costs 1 unit a call");
}

/// What the failing YouTube stub says: words of the platform's, which go to
/// the log and never to a client.
const UPSTREAM_WORDS: &str =
    "Project 4242 lacks permission; ask quota-admin@corp.internal (backend yt-db-7.internal)";

#[rstest]
#[tokio::test]
async fn an_upstream_error_reaches_clients_as_its_platform_and_status_only(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    // Every YouTube call answers 403 with an error body of its own words.
    let server = MockServer::start().await;
    let refusal = json!({"error": {"code": 403, "message": UPSTREAM_WORDS, "errors": [
        {"message": UPSTREAM_WORDS, "domain": "global", "reason": "insufficientPermissions"}]}});
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(403).set_body_json(refusal))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let ytdlp = fake_ytdlp(dir.path());
    let base = format!("{}/youtube/v3", server.uri());
    let args = live_args(&[
        "--youtube-api-key",
        "test-key",
        "--youtube-api-base",
        &base,
        "--ytdlp-path",
        ytdlp.to_str().unwrap(),
    ]);
    let (source, _) = live_sources(&args).await.unwrap();
    let config = TestConfig {
        source: Some(Arc::new(source)),
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let (_, key) = app.org_with_key(Plan::Pro).await;
    let quoted = |body: &Value| body.to_string().contains("4242");

    // A trend search.
    let a = app
        .get(
            "/v1/trends/search?platform=youtube&keyword=garlic",
            Some(&key),
        )
        .await;
    assert_nested_error(&a, 502, "EXTERNAL_API_ERROR");
    assert_eq!(
        a.body["error"]["message"], "The YouTube search failed: YouTube answered HTTP 403",
        "{}",
        a.body
    );
    assert!(!quoted(&a.body));

    // A manual refresh.
    let tracked = app.track(&key, &[YT_URL]).await;
    let id = tracked["data"]["results"][0]["video_id"].as_str().unwrap();
    let a = app
        .post(&format!("/v1/videos/by-id/{id}/refresh"), &key, &json!({}))
        .await;
    assert_nested_error(&a, 502, "EXTERNAL_API_ERROR");
    assert_eq!(
        a.body["error"]["message"],
        "The YouTube read failed: YouTube answered HTTP 403; nothing was charged",
        "{}",
        a.body
    );
    assert!(!quoted(&a.body));

    // A creator job.
    let a = app
        .post(
            "/v1/bloggers/track",
            &key,
            &json!({"platform": "youtube", "username": "miracooks"}),
        )
        .await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.body);
    let job = a.body["data"]["job_id"].as_str().unwrap().to_owned();
    assert_eq!(app.run_jobs_until_idle().await, 1);
    let a = app
        .get(&format!("/v1/bloggers/jobs/{job}"), Some(&key))
        .await;
    assert_eq!(a.body["data"]["status"], "error", "{}", a.body);
    assert_eq!(
        a.body["data"]["error"],
        json!({"code": "EXTERNAL_API_ERROR",
               "message": "The YouTube request failed: YouTube answered HTTP 403"}),
        "{}",
        a.body
    );
    assert!(!quoted(&a.body));
}
