//! The Instagram Graph adapter against a mock Graph API: fixtures under
//! `fixtures/instagram-*.json`, paging, errors, redaction, malformed answers.

use serde_json::json;
use wiremock::matchers::{path, query_param};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

use super::*;

const TOKEN: &str = "EAAGtestToken/with+chars";
const ME: &str = "17841463220957118";
const IG: Platform = Platform::Instagram;
const AFTER: &str = "QVFIUkE4dzFCM1dJZAWxPQXNKdHd0QTlyZAEFxbThpN0VBbXFwaG9ZAWmVX";

/// The fixture `instagram-{name}.json` with `status`.
fn reply(status: u16, name: &str) -> ResponseTemplate {
    let file = format!(
        "{}/fixtures/instagram-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    ResponseTemplate::new(status).set_body_string(std::fs::read_to_string(file).unwrap())
}

fn body(status: u16, body: impl Into<String>) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_string(body.into())
}

fn fields(user: &str, media: &str) -> String {
    format!("business_discovery.username({user}){{{PROFILE_FIELDS}{media}}}")
}

fn media(edge: &str) -> String {
    format!(",{edge}{{{MEDIA_FIELDS}}}")
}

/// Serves `r` to discovery calls whose `fields` is `f` (any when empty), `n` times or more.
async fn mock(s: &MockServer, f: &str, r: impl Respond + 'static, n: u64) {
    let mut m = Mock::given(path(format!("/v25.0/{ME}"))).and(query_param("access_token", TOKEN));
    if !f.is_empty() {
        m = m.and(query_param("fields", f));
    }
    m.respond_with(r).expect(n..).mount(s).await;
}

fn source_at(base: &str) -> InstagramGraphSource {
    let mut c = InstagramGraphConfig::new(TOKEN, ME);
    c.base_url = Url::parse(base).unwrap();
    (c.timeout, c.retry_backoff) = (Duration::from_millis(300), Duration::from_millis(1));
    InstagramGraphSource::new(c).unwrap()
}

async fn setup() -> (MockServer, InstagramGraphSource) {
    let server = MockServer::start().await;
    let source = source_at(&format!("{}/v25.0", server.uri()));
    (server, source)
}

fn channel() -> Channel {
    Channel {
        platform: IG,
        channel_id: "17841452019384476".into(),
        username: "miracooks".into(),
        display_name: None,
        avatar_url: None,
        follower_count: None,
    }
}

/// A second page: one reel and no further cursor.
fn last_page() -> String {
    json!({"business_discovery": {"id": "1", "username": "miracooks", "media": {"data": [{
        "id": "4", "permalink": "https://www.instagram.com/reel/DPold1234Ab/",
        "media_type": "VIDEO", "comments_count": 3, "timestamp": "2026-10-01T08:00:00+0000"
    }]}}, "id": ME})
    .to_string()
}

#[tokio::test]
async fn resolves_business_accounts() {
    let (server, ig) = setup().await;
    mock(
        &server,
        &fields("miracooks", ""),
        reply(200, "business-discovery"),
        1,
    )
    .await;
    let c = ig.resolve_channel(IG, "@miracooks").await.unwrap();
    let avatar = "https://scontent-iad3-1.xx.fbcdn.net/v/t51.2885-15/412389457_1189472365421867_8453120973341026611_n.jpg?_nc_cat=109&ccb=1-7&_nc_sid=7d201b&_nc_ohc=Hq3xY7mK2pAQ7kNvwE1aB9c&_nc_ht=scontent-iad3-1.xx&oh=00_AfB7c2Xk9Lm0pQ4rS8tU1vW5yZ3aB6cD&oe=6733F2A1";
    let want = Channel {
        display_name: Some("Mira Cooks".into()),
        avatar_url: Some(avatar.into()),
        follower_count: Some(392_184),
        ..channel()
    };
    assert_eq!(c, want);
    let e = ig.resolve_channel(IG, "bad){id}").await.unwrap_err();
    assert!(matches!(e, SourceError::NotFound(_)), "{e:?}");
    let e = ig
        .read_videos(IG, &["DQx7kLmN2pA".into()])
        .await
        .unwrap_err();
    assert!(matches!(e, SourceError::Unsupported(_)), "{e:?}");
    let query = crate::TrendQuery {
        keyword: "k".into(),
        region: None,
        days: None,
        cursor: None,
        page_size: 5,
    };
    let e = ig.search_trends(IG, &query).await.unwrap_err();
    assert!(matches!(e, SourceError::Unsupported(_)), "{e:?}");
}

#[tokio::test]
async fn lists_recent_videos_across_pages_skipping_images() {
    let (server, ig) = setup().await;
    let first = fields("miracooks", &media("media.limit(3)"));
    mock(&server, &first, reply(200, "business-discovery"), 1).await;
    let second = fields(
        "miracooks",
        &media(&format!("media.after({AFTER}).limit(3)")),
    );
    mock(&server, &second, body(200, last_page()), 1).await;
    let got = ig.recent_videos(&channel(), 3).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|v| v.external_id.as_str()).collect();
    assert_eq!(ids, ["DQx7kLmN2pA", "DQbN4sTq7Wz", "DPold1234Ab"]);
    let want = ChannelVideo {
        external_id: "DQx7kLmN2pA".into(),
        canonical_url: "https://www.instagram.com/reel/DQx7kLmN2pA/".into(),
        published_at: Some("2026-11-05T21:34:18Z".parse().unwrap()),
        title: Some("the garlic trick nobody told you about 🧄 #cooking #kitchenhacks".into()),
    };
    assert_eq!(got[0], want);
}

#[tokio::test]
async fn reads_owner_media_by_shortcode() {
    let (server, ig) = setup().await;
    let first = fields("miracooks", &media("media.limit(50)"));
    mock(&server, &first, reply(200, "business-discovery"), 1).await;
    let second = fields(
        "miracooks",
        &media(&format!("media.after({AFTER}).limit(50)")),
    );
    mock(&server, &second, body(200, last_page()), 1).await;
    let asked: Vec<String> = ["DQx7kLmN2pA", "DQm3bVcX9sY", "Missing0001", "DQx7kLmN2pA"]
        .map(String::from)
        .to_vec();
    let got = ig.read_owner_media("miracooks", &asked).await.unwrap();
    assert_eq!(
        got.iter().map(|(c, _)| c).collect::<Vec<_>>(),
        asked.iter().collect::<Vec<_>>()
    );
    let thumb = "https://scontent-iad3-2.cdninstagram.com/v/t51.71878-15/467120934_560129873345182_6641029384751029384_n.jpg?_nc_cat=104&ccb=1-7&_nc_sid=18de74&_nc_ohc=pX0aQ3m&_nc_ht=scontent-iad3-2.cdninstagram.com&oh=00_AfA1b2C3&oe=6733D1E0";
    let meta = VideoMeta {
        title: Some("the garlic trick nobody told you about 🧄 #cooking #kitchenhacks".into()),
        thumbnail_url: Some(thumb.into()),
        author_username: Some("miracooks".into()),
        author_display_name: Some("Mira Cooks".into()),
        published_at: Some("2026-11-05T21:34:18Z".parse().unwrap()),
        canonical_url: Some("https://www.instagram.com/reel/DQx7kLmN2pA/".into()),
    };
    // No views, reposts or saves for others' media: unknown, never 0.
    let counters = Counters {
        likes: Some(28_761),
        comments: Some(412),
        ..Counters::default()
    };
    let source = ObservationSource::InstagramGraph;
    assert_eq!(
        got[0].1,
        ReadOutcome::Found(VideoSnapshot {
            counters,
            meta,
            source
        })
    );
    // Hidden likes stay unknown.
    let ReadOutcome::Found(carousel) = &got[1].1 else {
        panic!("{got:?}")
    };
    assert_eq!(
        carousel.counters,
        Counters {
            comments: Some(87),
            ..Counters::default()
        }
    );
    let not_recent = ReadOutcome::Failed(SourceError::Transient(NOT_RECENT.into()));
    assert_eq!((&got[2].1, &got[3].1), (&not_recent, &got[0].1));
}

#[tokio::test]
async fn graph_errors_map_to_not_found_throttled_and_token() {
    let (server, ig) = setup().await;
    mock(
        &server,
        &fields("someone", ""),
        reply(400, "error-not-business"),
        1,
    )
    .await;
    mock(
        &server,
        &fields("busy", ""),
        reply(400, "error-rate-limit"),
        1,
    )
    .await;
    let expired = json!({"error": {"message": "Error validating access token", "type": "OAuthException", "code": 190, "error_subcode": 463}});
    mock(
        &server,
        &fields("expired", ""),
        body(400, expired.to_string()),
        1,
    )
    .await;
    let e = ig.resolve_channel(IG, "someone").await.unwrap_err();
    assert!(
        matches!(&e, SourceError::NotFound(m) if m.contains("not a business or creator account")),
        "{e:?}"
    );
    let e = ig.resolve_channel(IG, "busy").await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Status { transient: true, message: m, .. } if m.contains("80002")),
        "{e:?}"
    );
    let e = ig.resolve_channel(IG, "expired").await.unwrap_err();
    assert_eq!(
        e,
        SourceError::Status {
            status: 400,
            transient: false,
            message: "Instagram access token invalid or expired".into()
        }
    );
    // A network failure's message names the URL, token included: redacted.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let offline = source_at(&format!("http://127.0.0.1:{port}/v25.0/"));
    let e = offline
        .resolve_channel(IG, "miracooks")
        .await
        .unwrap_err()
        .to_string();
    let encoded: String = url::form_urlencoded::byte_serialize(TOKEN.as_bytes()).collect();
    assert!(!e.contains(TOKEN) && !e.contains(&encoded), "{e}");
    // Nor does Debug show it, the adapter's or its settings'.
    let shown = format!("{offline:?} {:?}", InstagramGraphConfig::new(TOKEN, ME));
    assert!(!shown.contains(TOKEN), "{shown}");
}

#[tokio::test]
async fn server_errors_are_retried_and_slow_answers_time_out() {
    let (server, ig) = setup().await;
    let busy = body(
        500,
        r#"{"error":{"message":"An unknown error occurred","code":1,"is_transient":true}}"#,
    );
    Mock::given(path(format!("/v25.0/{ME}")))
        .respond_with(busy)
        .up_to_n_times(1)
        .mount(&server)
        .await;
    mock(&server, "", reply(200, "business-discovery"), 1).await;
    assert!(ig.resolve_channel(IG, "miracooks").await.is_ok());

    let (server, ig) = setup().await;
    mock(
        &server,
        "",
        reply(200, "business-discovery").set_delay(Duration::from_secs(2)),
        1,
    )
    .await;
    let e = ig.resolve_channel(IG, "miracooks").await.unwrap_err();
    assert!(e.is_transient(), "{e:?}");
}

#[tokio::test]
async fn malformed_answers_never_panic() {
    let (server, ig) = setup().await;
    let page = json!({"business_discovery": {"username": "miracooks", "media": {"data": [
        {"permalink": "https://www.instagram.com/reel/BadLikes001/", "like_count": "many"},
        {"permalink": 12, "media_type": "VIDEO"},
        {"permalink": "https://www.instagram.com/reel/GoodReel001/", "media_type": "VIDEO", "comments_count": 2}
    ]}}});
    mock(
        &server,
        &fields("miracooks", &media("media.limit(50)")),
        body(200, page.to_string()),
        1,
    )
    .await;
    mock(
        &server,
        &fields("html", ""),
        body(200, "<html>login</html>"),
        1,
    )
    .await;
    mock(
        &server,
        &fields("huge", ""),
        body(200, "x".repeat(9 << 20)),
        1,
    )
    .await;
    mock(
        &server,
        &fields("noid", ""),
        body(200, r#"{"business_discovery": {"followers_count": "1"}}"#),
        1,
    )
    .await;
    let asked = vec!["BadLikes001".to_string(), "GoodReel001".to_string()];
    let got = ig.read_owner_media("miracooks", &asked).await.unwrap();
    assert!(
        matches!(&got[0].1, ReadOutcome::Failed(SourceError::Permanent(_))),
        "{got:?}"
    );
    assert!(
        matches!(&got[1].1, ReadOutcome::Found(s) if s.counters.comments == Some(2)),
        "{got:?}"
    );
    for user in ["html", "huge", "noid"] {
        let e = ig.resolve_channel(IG, user).await.unwrap_err();
        assert!(matches!(e, SourceError::Permanent(_)), "{user}: {e:?}");
    }
}
