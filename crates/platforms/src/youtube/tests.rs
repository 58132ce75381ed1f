//! The YouTube adapter against a mock Data API: fixtures under
//! `fixtures/youtube-*.json`, quota, retries, redaction, malformed answers.

use serde_json::json;
use vidpulse_domain::{Counters, ObservationSource};
use wiremock::matchers::{path, query_param};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::*;
use crate::source::{VideoMeta, VideoSnapshot};

const KEY: &str = "AIzaTestKey-123";
const YT: Platform = Platform::YouTube;

/// The fixture `youtube-{name}.json` with `status`.
fn reply(status: u16, name: &str) -> ResponseTemplate {
    let file = format!(
        "{}/fixtures/youtube-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    ResponseTemplate::new(status).set_body_string(std::fs::read_to_string(file).unwrap())
}

fn body(status: u16, body: impl Into<String>) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_string(body.into())
}

/// Serves `r` at `/youtube/v3/{at}` to queries with `params`, `n` times or more.
async fn mock(
    s: &MockServer,
    at: &str,
    params: &[(&str, &str)],
    r: impl Respond + 'static,
    n: u64,
) {
    let mut m = Mock::given(path(format!("/youtube/v3/{at}")));
    for (k, v) in params {
        m = m.and(query_param(*k, *v));
    }
    m.respond_with(r).expect(n..).mount(s).await;
}

fn source_at(base: &str) -> YoutubeSource {
    let mut c = YoutubeConfig::new(KEY);
    c.base_url = Url::parse(base).unwrap();
    (c.timeout, c.retry_backoff) = (Duration::from_millis(300), Duration::from_millis(1));
    YoutubeSource::new(c).unwrap()
}

async fn setup() -> (MockServer, YoutubeSource) {
    let server = MockServer::start().await;
    let source = source_at(&format!("{}/youtube/v3", server.uri()));
    (server, source)
}

async fn read(yt: &YoutubeSource, ids: &[&str]) -> Result<Vec<ReadOutcome>, SourceError> {
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let got = yt.read_videos(YT, &ids).await?;
    assert_eq!(
        got.iter().map(|(id, _)| id).collect::<Vec<_>>(),
        ids.iter().collect::<Vec<_>>()
    );
    Ok(got.into_iter().map(|(_, o)| o).collect())
}

fn found(outcome: &ReadOutcome) -> &VideoSnapshot {
    match outcome {
        ReadOutcome::Found(s) => s,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn reads_videos_in_request_order_with_gone_and_duplicates() {
    let (server, yt) = setup().await;
    let q = [
        ("part", "snippet,statistics,contentDetails"),
        ("id", "Qw7x2bYpR0s,aZ3kQm9TfLw,dEl3t3dVid0"),
        ("key", KEY),
    ];
    mock(&server, "videos", &q, reply(200, "videos-list"), 1).await;
    let asked = ["Qw7x2bYpR0s", "aZ3kQm9TfLw", "dEl3t3dVid0", "Qw7x2bYpR0s"];
    let got = read(&yt, &asked).await.unwrap();
    // Comments off: absent means unknown, never 0.
    let short = found(&got[0]);
    let c = Counters {
        views: Some(412_093),
        likes: Some(18_770),
        ..Default::default()
    };
    assert_eq!(short.counters, c);
    let thumb = "https://i.ytimg.com/vi/Qw7x2bYpR0s/sddefault.jpg";
    assert_eq!(short.meta.thumbnail_url.as_deref(), Some(thumb));
    let counters = Counters {
        views: Some(1_843_207),
        likes: Some(61_544),
        comments: Some(2_391),
        reposts: None,
        saves: None,
    };
    let meta = VideoMeta {
        title: Some("I tried every viral kitchen gadget so you don't have to".into()),
        thumbnail_url: Some("https://i.ytimg.com/vi/aZ3kQm9TfLw/maxresdefault.jpg".into()),
        author_username: None,
        author_display_name: Some("Mira Cooks".into()),
        published_at: Some("2026-10-29T15:00:07Z".parse().unwrap()),
        canonical_url: Some("https://www.youtube.com/watch?v=aZ3kQm9TfLw".into()),
    };
    let source = ObservationSource::YoutubeApi;
    assert_eq!(
        found(&got[1]),
        &VideoSnapshot {
            counters,
            meta,
            source
        }
    );
    let gone = ReadOutcome::Gone {
        reason: GONE_REASON.into(),
    };
    assert_eq!((&got[2], &got[3]), (&gone, &got[0]));
    assert_eq!(yt.upstream_stats()[0].quota_used, 1);
    let other = yt.read_videos(Platform::TikTok, &[]).await;
    assert!(matches!(other, Err(SourceError::Unsupported(_))));
}

/// Answers one item per requested id.
struct Echo;

impl Respond for Echo {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let (_, ids) = req.url.query_pairs().find(|(k, _)| k == "id").unwrap();
        let stats = json!({"viewCount": "7", "likeCount": 3});
        let items: Vec<Value> = ids
            .split(',')
            .map(|id| json!({"id": id, "statistics": stats}))
            .collect();
        ResponseTemplate::new(200).set_body_json(json!({ "items": items }))
    }
}

#[tokio::test]
async fn a_thousand_ids_take_twenty_calls() {
    let (server, yt) = setup().await;
    Mock::given(path("/youtube/v3/videos"))
        .respond_with(Echo)
        .expect(20)
        .mount(&server)
        .await;
    assert_eq!(yt.max_batch(YT), 50);
    let asked: Vec<String> = (0..1000).map(|i| format!("vid{i:08}")).collect();
    let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
    let got = read(&yt, &asked).await.unwrap();
    for outcome in &got {
        let c = found(outcome).counters;
        assert_eq!((c.views, c.likes), (Some(7), Some(3)));
    }
}

#[tokio::test]
async fn quota_exceeded_stops_calls_until_the_reset() {
    let (server, yt) = setup().await;
    let quota = reply(403, "error-quota");
    Mock::given(path("/youtube/v3/videos"))
        .respond_with(quota)
        .expect(1)
        .mount(&server)
        .await;
    for _ in 0..3 {
        let e = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap_err();
        // The first answer is the platform's 403; then no call is made.
        assert!(e.is_transient(), "{e:?}");
        assert!(e.to_string().contains("quota exhausted until"), "{e}");
    }
}

#[tokio::test]
async fn a_rejected_key_is_permanent_and_never_echoed() {
    let (server, yt) = setup().await;
    mock(&server, "channels", &[], reply(400, "error-key-invalid"), 1).await;
    let e = yt.resolve_channel(YT, "miracooks").await.unwrap_err();
    let SourceError::Status {
        status: 400,
        transient: false,
        message: m,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert!(
        m.starts_with("YouTube API key rejected: API key not valid"),
        "{m}"
    );
    assert!(!m.contains(KEY));
    // Nor does Debug show it, the adapter's or its settings'.
    let shown = format!("{yt:?} {:?}", YoutubeConfig::new(KEY));
    assert!(!shown.contains(KEY), "{shown}");
    // A network failure's message names the URL, key included: redacted.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let offline = source_at(&format!("http://127.0.0.1:{port}/youtube/v3/"));
    let e = read(&offline, &["aZ3kQm9TfLw"]).await.unwrap_err();
    assert!(e.is_transient() && !e.to_string().contains(KEY), "{e}");
}

#[tokio::test]
async fn resolves_channels_by_handle() {
    let (server, yt) = setup().await;
    let q = [
        ("forHandle", "@miracooks"),
        ("part", "snippet,statistics,contentDetails"),
    ];
    mock(&server, "channels", &q, reply(200, "channels-list"), 1).await;
    let q = [("forHandle", "@nobody")];
    mock(
        &server,
        "channels",
        &q,
        reply(200, "channels-list-empty"),
        1,
    )
    .await;
    let c = yt.resolve_channel(YT, "@miracooks").await.unwrap();
    let avatar =
        "https://yt3.ggpht.com/k3Xo9PqL2wR8tZ1vN6mB4cJ7hD0sF5gY=s800-c-k-c0x00ffffff-no-rj";
    let want = Channel {
        platform: YT,
        channel_id: "UCq8Xz4LmNp2Rt6Vw0Yb3KcA".into(),
        username: "miracooks".into(),
        display_name: Some("Mira Cooks".into()),
        avatar_url: Some(avatar.into()),
        follower_count: Some(1_240_000),
    };
    assert_eq!(c, want);
    let e = yt.resolve_channel(YT, "nobody").await.unwrap_err();
    assert!(matches!(e, SourceError::NotFound(_)), "{e:?}");
}

#[tokio::test]
async fn lists_uploads_across_pages() {
    let (server, yt) = setup().await;
    let page2 = json!({"items": [
        {"snippet": {"title": "old"}, "contentDetails": {"videoId": "Old0000000A"}},
        {"contentDetails": {"videoId": 42}},
        {"contentDetails": {"videoId": "Old0000000B"}}
    ]});
    let q = [
        ("playlistId", "UUq8Xz4LmNp2Rt6Vw0Yb3KcA"),
        ("maxResults", "4"),
    ];
    mock(
        &server,
        "playlistItems",
        &q,
        reply(200, "playlistitems-list"),
        1,
    )
    .await;
    let q = [
        (
            "pageToken",
            "EAAaHlBUOkNBTWlFRUkzUVVRMU1UUTRNakEzTlRjd01qQQ",
        ),
        ("maxResults", "1"),
    ];
    mock(
        &server,
        "playlistItems",
        &q,
        body(200, page2.to_string()),
        1,
    )
    .await;
    let channel = Channel {
        platform: YT,
        channel_id: "UCq8Xz4LmNp2Rt6Vw0Yb3KcA".into(),
        username: "miracooks".into(),
        display_name: None,
        avatar_url: None,
        follower_count: None,
    };
    let got = yt.recent_videos(&channel, 4).await.unwrap();
    let got_ids: Vec<&str> = got.iter().map(|v| v.external_id.as_str()).collect();
    assert_eq!(
        got_ids,
        ["Qw7x2bYpR0s", "aZ3kQm9TfLw", "Tk4rWm7Yz0A", "Old0000000A"]
    );
    let first = ChannelVideo {
        external_id: "Qw7x2bYpR0s".into(),
        canonical_url: "https://www.youtube.com/watch?v=Qw7x2bYpR0s".into(),
        published_at: Some("2026-11-03T18:22:41Z".parse().unwrap()),
        title: Some("30-second garlic trick #shorts".into()),
    };
    assert_eq!(got[0], first);
    // A missing uploads playlist is a missing channel.
    let q = [("playlistId", "UUgone")];
    mock(
        &server,
        "playlistItems",
        &q,
        reply(404, "error-playlist-not-found"),
        1,
    )
    .await;
    let gone = Channel {
        channel_id: "UCgone".into(),
        ..channel
    };
    let e = yt.recent_videos(&gone, 10).await.unwrap_err();
    assert!(
        matches!(&e, SourceError::NotFound(m) if m.contains("playlist")),
        "{e:?}"
    );
}

#[tokio::test]
async fn searches_trends_and_fills_statistics() {
    let (server, yt) = setup().await;
    let q = [
        ("q", "kitchen gadgets"),
        ("type", "video"),
        ("order", "viewCount"),
        ("maxResults", "2"),
        ("regionCode", "US"),
        ("pageToken", "CAEQAA"),
    ];
    mock(&server, "search", &q, reply(200, "search-list"), 1).await;
    let q = [("id", "aZ3kQm9TfLw,Lp0sD4fG8hJ")];
    mock(&server, "videos", &q, reply(200, "videos-list"), 1).await;
    let query = TrendQuery {
        keyword: "kitchen gadgets".into(),
        region: Some("US".into()),
        days: Some(30),
        cursor: Some("CAEQAA".into()),
        page_size: 2,
    };
    let page = yt.search_trends(YT, &query).await.unwrap();
    assert_eq!(
        (page.cursor.as_deref(), page.has_more),
        (Some("CAIQAA"), true)
    );
    let first = TrendVideo {
        id: "aZ3kQm9TfLw".into(),
        url: "https://www.youtube.com/watch?v=aZ3kQm9TfLw".into(),
        cover: Some("https://i.ytimg.com/vi/aZ3kQm9TfLw/maxresdefault.jpg".into()),
        plays: Some(1_843_207),
        likes: Some(61_544),
        comments: Some(2_391),
        shares: None,
        author_username: Some("Mira Cooks".into()),
        author_cover: None,
    };
    assert_eq!(page.videos[0], first);
    // Absent from the statistics answer: counters unknown, cover from the search.
    let second = &page.videos[1];
    assert_eq!((second.plays, second.likes), (None, None));
    assert_eq!(
        second.author_username.as_deref(),
        Some("Test Kitchen Weekly")
    );
    let cover = "https://i.ytimg.com/vi/Lp0sD4fG8hJ/hqdefault.jpg";
    assert_eq!(second.cover.as_deref(), Some(cover));
    assert_eq!(yt.upstream_stats()[0].quota_used, SEARCH_COST + 1);
    let requests = server.received_requests().await.unwrap();
    let query_pairs: HashMap<_, _> = requests[0].url.query_pairs().collect();
    let after = &query_pairs["publishedAfter"];
    assert!(after.ends_with('Z') && after.len() == 20, "{after}");
    let bad = TrendQuery {
        cursor: Some("x&key=1".into()),
        ..query
    };
    let e = yt.search_trends(YT, &bad).await;
    assert_eq!(e, Err(SourceError::Permanent("invalid cursor".into())));
}

#[tokio::test]
async fn server_errors_are_retried_and_slow_answers_time_out() {
    let (server, yt) = setup().await;
    let busy = body(503, "<html>busy</html>");
    Mock::given(path("/youtube/v3/videos"))
        .respond_with(busy)
        .up_to_n_times(1)
        .mount(&server)
        .await;
    mock(&server, "videos", &[], reply(200, "videos-list"), 1).await;
    let got = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap();
    assert_eq!(found(&got[0]).counters.views, Some(1_843_207));
    assert_eq!(yt.upstream_stats()[0].calls, 2);

    let (server, yt) = setup().await;
    let slow = reply(200, "videos-list").set_delay(Duration::from_secs(2));
    mock(&server, "videos", &[], slow, 1).await;
    let e = read(&yt, &["aZ3kQm9TfLw"]).await.unwrap_err();
    assert!(e.is_transient(), "{e:?}");
}

#[tokio::test]
async fn malformed_answers_never_panic() {
    let (server, yt) = setup().await;
    let items = json!({"items": [
        {"id": "aZ3kQm9TfLw", "statistics": {"viewCount": "12", "likeCount": "many"}},
        {"id": "Qw7x2bYpR0s", "snippet": "oops"},
        {"id": 17},
        {"statistics": {"viewCount": "1"}, "id": "Tk4rWm7Yz0A"}
    ]});
    mock(&server, "videos", &[], body(200, items.to_string()), 1).await;
    mock(
        &server,
        "channels",
        &[],
        body(200, "<html>not json</html>"),
        1,
    )
    .await;
    mock(&server, "search", &[], body(200, "x".repeat(9 << 20)), 1).await;
    let got = read(
        &yt,
        &["aZ3kQm9TfLw", "Qw7x2bYpR0s", "Tk4rWm7Yz0A", "bad id"],
    )
    .await;
    let got = got.unwrap();
    for i in [0, 1, 3] {
        let outcome = &got[i];
        assert!(
            matches!(outcome, ReadOutcome::Failed(SourceError::Permanent(_))),
            "{got:?}"
        );
    }
    assert_eq!(found(&got[2]).counters.views, Some(1));
    let e = yt.resolve_channel(YT, "miracooks").await.unwrap_err();
    assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
    let query = TrendQuery {
        keyword: "k".into(),
        region: None,
        days: None,
        cursor: None,
        page_size: 5,
    };
    let e = yt.search_trends(YT, &query).await.unwrap_err();
    assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
}
