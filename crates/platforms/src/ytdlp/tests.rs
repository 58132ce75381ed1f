//! Tests of the parent module.

use super::*;
use std::time::Instant;

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake-ytdlp/yt-dlp");
const UNEXPECTED: &str = "unexpected yt-dlp output";

fn source(timeout_ms: u64, cookies: Option<&str>) -> YtDlpSource {
    let (path, timeout) = (FAKE.into(), Duration::from_millis(timeout_ms));
    let cookies_file = cookies.map(PathBuf::from);
    YtDlpSource::new(YtDlpConfig {
        path,
        timeout,
        cookies_file,
        ..Default::default()
    })
}

fn fake() -> YtDlpSource {
    source(20_000, None)
}

async fn read(src: &YtDlpSource, platform: Platform, ids: &[&str]) -> Vec<ReadOutcome> {
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let out = src.read_videos(platform, &ids).await.unwrap();
    let (got, outcomes): (Vec<String>, Vec<ReadOutcome>) = out.into_iter().unzip();
    assert_eq!(got, ids, "answers in request order");
    outcomes
}

async fn found(src: &YtDlpSource, platform: Platform, id: &str) -> VideoSnapshot {
    match read(src, platform, &[id]).await.remove(0) {
        ReadOutcome::Found(s) => s,
        other => panic!("expected Found, got {other:?}"),
    }
}

/// The counters, -1 standing for `None`.
fn counts(s: &VideoSnapshot) -> [i64; 5] {
    s.counters.as_array().map(|c| c.unwrap_or(-1))
}

/// Title, author username, display name, canonical URL and thumbnail.
fn texts(m: &VideoMeta) -> [&str; 5] {
    let fields = [&m.title, &m.author_username, &m.author_display_name];
    let [a, b, c] = fields.map(|f| f.as_deref().unwrap_or("-"));
    let [d, e] = [&m.canonical_url, &m.thumbnail_url].map(|f| f.as_deref().unwrap_or("-"));
    [a, b, c, d, e]
}

fn at(ts: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp(ts, 0)
}

fn transient(o: &ReadOutcome) -> &str {
    match o {
        ReadOutcome::Failed(SourceError::Transient(m)) => m,
        other => panic!("expected a transient failure, got {other:?}"),
    }
}

#[tokio::test]
async fn ytdlp_maps_tiktok_youtube_and_instagram_fields() {
    let src = fake();
    let tt = found(&src, Platform::TikTok, "7704802802882512932").await;
    assert_eq!(counts(&tt), [2_318_774, 301_552, 2840, 15_407, 41_230]);
    assert_eq!(
        (tt.source, tt.meta.published_at),
        (ObservationSource::YtDlp, at(1_793_914_202))
    );
    let expected = [
        "the garlic trick nobody told you about #cooking #kitchenhacks #fyp",
        "mira.cooks",
        "Mira Cooks",
        "https://www.tiktok.com/@mira.cooks/video/7704802802882512932",
        "https://p16-sign-va.tiktokcdn.com/obj/tos-maliva-p-0068/oQx4AfE7BnIeGkD0ZcLyW2mtNh8AJgTRaPfCq1?lk3s=81f88b70&x-expires=1794216600&x-signature=vK2n%2F8bT1qX5cZ9mL4pW0sR7yE3%3D",
    ];
    assert_eq!(texts(&tt.meta), expected);

    let yt = found(&src, Platform::YouTube, "aZ3kQm9TfLw").await;
    assert_eq!(counts(&yt), [1_843_207, 61_544, 2391, -1, -1]);
    assert_eq!(yt.meta.published_at, at(1_793_286_007));
    let expected = [
        "I tried every viral kitchen gadget so you don't have to",
        "miracooks",
        "Mira Cooks",
        "https://www.youtube.com/watch?v=aZ3kQm9TfLw",
        "https://i.ytimg.com/vi/aZ3kQm9TfLw/maxresdefault.jpg",
    ];
    assert_eq!(texts(&yt.meta), expected);

    let ig = found(&src, Platform::Instagram, "DQx7kLmN2pA").await;
    assert_eq!(counts(&ig), [-1, 28_761, 412, -1, -1]);
    assert_eq!(ig.meta.published_at, at(1_793_914_458));
    let expected = [
        "the garlic trick nobody told you about 🧄 #cooking #kitchenhacks",
        "miracooks",
        "Mira Cooks",
        "https://www.instagram.com/reel/DQx7kLmN2pA/",
        "https://scontent-iad3-2.cdninstagram.com/v/t51.71878-15/467120934_560129873345182_6641029384751029384_n.jpg?stp=dst-jpg_e15_tt6&_nc_ht=scontent-iad3-2.cdninstagram.com&oh=00_AfA1b2C3&oe=6733D1E0",
    ];
    assert_eq!(texts(&ig.meta), expected);
}

#[tokio::test]
async fn ytdlp_null_and_odd_values_are_none_never_zero() {
    let s = found(&fake(), Platform::YouTube, "nUllCounts0").await;
    assert_eq!(counts(&s), [-1, 12, -1, -1, -1]);
    // No title: the description; no webpage_url: the URL asked for.
    let url = "https://www.youtube.com/watch?v=nUllCounts0";
    assert_eq!(
        texts(&s.meta),
        ["only a description", "someone", "-", url, "-"]
    );
    assert_eq!(s.meta.published_at, None);
}

#[tokio::test]
async fn ytdlp_passes_arguments_after_double_dash() {
    let src = source(20_000, Some("/etc/vidpulse/cookies.txt"));
    let yt = found(&src, Platform::YouTube, "aRgsEcho000").await;
    let expected = "-j --skip-download --no-playlist --no-warnings --socket-timeout 15 \
        --cookies /etc/vidpulse/cookies.txt -- https://www.youtube.com/watch?v=aRgsEcho000";
    assert_eq!(yt.meta.title.as_deref(), Some(expected));
    let ig = found(&src, Platform::Instagram, "aRgsEcho000").await;
    let ig = ig.meta.title.unwrap_or_default();
    assert!(
        ig.contains("--no-playlist --ignore-no-formats-error --no-warnings"),
        "{ig}"
    );
    assert!(
        ig.ends_with(" -- https://www.instagram.com/p/aRgsEcho000/"),
        "{ig}"
    );
}

#[tokio::test]
async fn ytdlp_classifies_gone_and_transient() {
    let src = fake();
    let ids = ["dEl3t3dVid0", "pR1vAtEvId0", "b0tCheck000", "bAdOpt00000"];
    let yt = read(&src, Platform::YouTube, &ids).await;
    let reason = "Video unavailable. This video has been removed by the uploader".into();
    assert_eq!(yt[0], ReadOutcome::Gone { reason });
    let private = |r: &str| r.starts_with("Private video. Sign in if");
    assert!(matches!(&yt[1], ReadOutcome::Gone { reason } if private(reason)));
    assert!(transient(&yt[2]).starts_with("blocked or rate-limited: Sign in to confirm"));
    let bad = "yt-dlp rejected its arguments: yt-dlp: error: no such option: --frobnicate";
    assert_eq!(
        yt[3],
        ReadOutcome::Failed(SourceError::Permanent(bad.into()))
    );

    let ids = ["7700000000000010204", "7700000000000010216"];
    let tt = read(&src, Platform::TikTok, &ids).await;
    let maybe = "possibly removed or private: ";
    let status = format!("{maybe}Video not available, status code 10204");
    assert_eq!(transient(&tt[0]), status);
    assert!(transient(&tt[1]).starts_with(&format!("{maybe}You do not have permission")));

    let ig = read(&src, Platform::Instagram, &["RateLimit01", "bad/id"]).await;
    assert!(transient(&ig[0]).starts_with("blocked or rate-limited: Requested content"));
    assert!(matches!(
        &ig[1],
        ReadOutcome::Failed(SourceError::Permanent(_))
    ));
}

#[tokio::test]
async fn ytdlp_malformed_output_is_transient() {
    // hUgeOutput0 prints forever: read up to the cap, then killed.
    let ids = ["gArBaGe0000", "tRuncated00", "eMpty000000", "hUgeOutput0"];
    for outcome in read(&fake(), Platform::YouTube, &ids).await {
        assert_eq!(transient(&outcome), UNEXPECTED);
    }
}

#[tokio::test]
async fn ytdlp_timeout_kills_the_call_and_the_batch_answers() {
    let (src, started) = (source(500, None), Instant::now());
    let ids = ["aZ3kQm9TfLw", "hAngForever", "dEl3t3dVid0"];
    let out = read(&src, Platform::YouTube, &ids).await;
    // The fake sleeps 30 s: finishing early means it was killed.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(out[0], ReadOutcome::Found(_)));
    assert!(transient(&out[1]).contains("timed out after 500ms"));
    assert!(matches!(out[2], ReadOutcome::Gone { .. }));
    let s = &src.upstream_stats()[0];
    assert_eq!(
        (s.name, s.calls, s.failures, s.quota_limit),
        ("yt_dlp", 3, 2, None)
    );
}

#[tokio::test]
async fn ytdlp_bounds_concurrency() {
    // Each call sleeps 500 ms: 8 calls through 4 permits take 2 rounds.
    let ids: Vec<String> = (1..=8).map(|i| format!("sLow000000{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let started = Instant::now();
    let out = read(&fake(), Platform::YouTube, &ids).await;
    let elapsed = started.elapsed();
    assert!(
        out.iter().all(|o| matches!(o, ReadOutcome::Found(_))),
        "{out:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(1000),
        "under 2 rounds: {elapsed:?}"
    );
    assert!(
        elapsed < Duration::from_millis(2000),
        "4 rounds or more: {elapsed:?}"
    );
}

#[tokio::test]
async fn ytdlp_missing_binary_is_unsupported() {
    let path = "/nonexistent/yt-dlp".into();
    let src = YtDlpSource::new(YtDlpConfig {
        path,
        ..Default::default()
    });
    let ids = ["aZ3kQm9TfLw".to_owned()];
    let Err(SourceError::Unsupported(m)) = src.read_videos(Platform::YouTube, &ids).await else {
        panic!("expected Unsupported");
    };
    assert!(
        m.starts_with("yt-dlp is not installed at `/nonexistent/yt-dlp`"),
        "{m}"
    );
    assert!(m.contains("pip install yt-dlp curl_cffi"), "{m}");
    assert_eq!(src.probe().await, Err(SourceError::Unsupported(m)));
    assert_eq!(fake().probe().await, Ok("2026.08.19".to_owned()));
}

#[tokio::test]
async fn ytdlp_resolves_channels() {
    let src = fake();
    let yt = src
        .resolve_channel(Platform::YouTube, "@miracooks")
        .await
        .unwrap();
    assert_eq!(yt.channel_id, "UCq8Xz4LmNp2Rt6Vw0Yb3KcA");
    assert_eq!(
        (yt.username.as_str(), yt.display_name.as_deref()),
        ("miracooks", Some("Mira Cooks"))
    );
    let avatar = "https://yt3.googleusercontent.com/aV8tR2pQ9wL=s0";
    assert_eq!(
        (yt.avatar_url.as_deref(), yt.follower_count),
        (Some(avatar), Some(1_240_000))
    );

    let tt = src
        .resolve_channel(Platform::TikTok, "mira.cooks")
        .await
        .unwrap();
    let sec_uid = "MS4wLjABAAAA575yx8xm5MslfY5ubiheyEd7P4zDL_ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQ";
    assert_eq!(
        (tt.channel_id.as_str(), tt.username.as_str()),
        (sec_uid, "mira.cooks")
    );
    assert_eq!(
        (tt.display_name, tt.avatar_url, tt.follower_count),
        (None, None, None)
    );

    let missing = [(Platform::YouTube, "nobody"), (Platform::TikTok, "nobody")];
    for (platform, name) in missing.into_iter().chain([(Platform::TikTok, "a/b")]) {
        let r = src.resolve_channel(platform, name).await;
        assert!(matches!(r, Err(SourceError::NotFound(_))), "{name}: {r:?}");
    }
    let r = src.resolve_channel(Platform::TikTok, "throttled").await;
    assert!(matches!(r, Err(SourceError::Transient(_))), "{r:?}");
    let r = src.resolve_channel(Platform::YouTube, "garbled").await;
    assert_eq!(r, Err(SourceError::Transient(UNEXPECTED.into())));
    let r = src.resolve_channel(Platform::Instagram, "miracooks").await;
    assert!(matches!(r, Err(SourceError::Unsupported(_))), "{r:?}");
}

#[tokio::test]
async fn ytdlp_lists_recent_videos() {
    let src = fake();
    let yt = src
        .resolve_channel(Platform::YouTube, "miracooks")
        .await
        .unwrap();
    let videos = src.recent_videos(&yt, 10).await.unwrap();
    let ids: Vec<&str> = videos.iter().map(|v| v.external_id.as_str()).collect();
    assert_eq!(ids, ["Qw7x2bYpR0s", "aZ3kQm9TfLw"]);
    let url = "https://www.youtube.com/watch?v=Qw7x2bYpR0s";
    assert_eq!(videos[0].canonical_url, url);
    assert_eq!(
        videos[0].title.as_deref(),
        Some("30-second garlic trick #shorts")
    );
    assert_eq!(videos[1].published_at, None);

    let tt = src
        .resolve_channel(Platform::TikTok, "mira.cooks")
        .await
        .unwrap();
    let videos = src.recent_videos(&tt, 2).await.unwrap();
    assert_eq!(videos.len(), 2);
    let url = "https://www.tiktok.com/@mira.cooks/video/7705113345678901234";
    assert_eq!(
        (
            videos[0].external_id.as_str(),
            videos[0].canonical_url.as_str()
        ),
        ("7705113345678901234", url)
    );
    assert_eq!(videos[0].published_at, at(1_793_986_512));
    assert_eq!(
        videos[0].title.as_deref(),
        Some("pasta water is liquid gold #cooking")
    );
    let all = src.recent_videos(&tt, 50).await.unwrap();
    assert_eq!((all.len(), all[2].title.as_deref()), (3, None));
    assert_eq!(src.recent_videos(&tt, 0).await, Ok(Vec::new()));

    let ig = Channel {
        platform: Platform::Instagram,
        ..tt
    };
    let r = src.recent_videos(&ig, 5).await;
    assert!(matches!(r, Err(SourceError::Unsupported(_))), "{r:?}");
    let query = TrendQuery {
        keyword: "x".into(),
        region: None,
        days: None,
        cursor: None,
        page_size: 10,
    };
    let r = src.search_trends(Platform::TikTok, &query).await;
    assert!(matches!(r, Err(SourceError::Unsupported(_))), "{r:?}");
}
