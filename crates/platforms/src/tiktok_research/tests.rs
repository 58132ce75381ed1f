//! The TikTok Research adapter against a mock API: fixtures under
//! `fixtures/tiktok-*.json`, tokens, windows, cursors, caps, malformed answers.

use chrono::DateTime;
use vidpulse_domain::Counters;
use wiremock::matchers::{body_partial_json, body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

use super::*;

const SECRET: &str = "s3cr3t-research";
const TOKEN: &str = "clt.8e2f4a9c7b1d3e5f6a0b2c4d6e8f0a1bR7kQp2WmXz9LvN4tYc3HsD6g!6120";
const TT: Platform = Platform::TikTok;

/// The fixture `tiktok-{name}.json` with `status`.
fn reply(status: u16, name: &str) -> ResponseTemplate {
    let file = format!("{}/fixtures/tiktok-{name}.json", env!("CARGO_MANIFEST_DIR"));
    ResponseTemplate::new(status).set_body_string(std::fs::read_to_string(file).unwrap())
}

fn body(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_string(body.to_string())
}

fn token_reply(token: &str) -> ResponseTemplate {
    body(
        200,
        json!({"access_token": token, "expires_in": 7200, "token_type": "Bearer"}),
    )
}

/// Serves `r` to POSTs of `/{at}` carrying `bearer`, `n` times or more.
async fn mock(s: &MockServer, at: &str, bearer: &str, r: impl Respond + 'static, n: u64) {
    let auth = format!("Bearer {bearer}");
    let m = Mock::given(method("POST"))
        .and(path(format!("/{at}")))
        .and(header("authorization", auth));
    m.respond_with(r).expect(n..).mount(s).await;
}

async fn mock_token(s: &MockServer, r: ResponseTemplate, n: u64) {
    let m = Mock::given(method("POST")).and(path("/v2/oauth/token/"));
    let m = m.and(body_string_contains("grant_type=client_credentials"));
    m.and(body_string_contains("client_key=ck"))
        .respond_with(r)
        .expect(n)
        .mount(s)
        .await;
}

async fn setup() -> (MockServer, TiktokResearchSource) {
    let server = MockServer::start().await;
    let mut c = TiktokResearchConfig::new("ck", SECRET);
    c.base_url = Url::parse(&server.uri()).unwrap();
    (c.timeout, c.retry_backoff) = (Duration::from_millis(300), Duration::from_millis(1));
    (server, TiktokResearchSource::new(c).unwrap())
}

async fn sent_bodies(server: &MockServer, at: &str) -> Vec<Value> {
    let requests = server.received_requests().await.unwrap();
    let mine = requests.iter().filter(|r| r.url.path() == format!("/{at}"));
    mine.map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn day(ymd: &str) -> NaiveDate {
    NaiveDate::parse_from_str(ymd, "%Y%m%d").unwrap()
}

#[tokio::test]
async fn reads_videos_by_id_within_their_creation_window() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    mock(
        &server,
        VIDEO_QUERY,
        TOKEN,
        reply(200, "research-video-query"),
        2,
    )
    .await;
    let missing = "7704741832294412345";
    let asked = strings(&[
        "7704802802882512932",
        "7702548411371955982",
        missing,
        "not-an-id",
        "7703483974019743696",
    ]);
    let got = tt.read_videos(TT, &asked).await.unwrap();
    assert_eq!(
        got.iter().map(|(id, _)| id).collect::<Vec<_>>(),
        asked.iter().collect::<Vec<_>>()
    );
    let ReadOutcome::Found(first) = &got[0].1 else {
        panic!("{got:?}")
    };
    let counters = Counters {
        views: Some(2_318_774),
        likes: Some(301_552),
        comments: Some(2_840),
        reposts: Some(15_407),
        saves: Some(41_230),
    };
    let meta = VideoMeta {
        title: Some("the garlic trick nobody told you about #cooking #kitchenhacks #fyp".into()),
        thumbnail_url: None,
        author_username: Some("mira.cooks".into()),
        author_display_name: None,
        published_at: DateTime::from_timestamp(1_793_914_202, 0),
        canonical_url: Some("https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into()),
    };
    let source = ObservationSource::TiktokResearch;
    assert_eq!(
        first,
        &VideoSnapshot {
            counters,
            meta,
            source
        }
    );
    // Omitted counters on a returned video are zeros (the documented exception).
    let ReadOutcome::Found(third) = &got[1].1 else {
        panic!("{got:?}")
    };
    let zeros = Counters {
        views: Some(0),
        likes: Some(0),
        comments: Some(0),
        reposts: Some(0),
        saves: Some(0),
    };
    assert_eq!(third.counters, zeros);
    let not_returned = ReadOutcome::Failed(SourceError::Transient(NOT_RETURNED.into()));
    assert_eq!(got[2].1, not_returned);
    assert!(matches!(
        &got[3].1,
        ReadOutcome::Failed(SourceError::Permanent(_))
    ));
    assert!(matches!(&got[4].1, ReadOutcome::Found(s) if s.counters.views == Some(88_213)));
    // One query for ids created within 28 days: window = their days ± 1.
    let sent = &sent_bodies(&server, VIDEO_QUERY).await[0];
    let ids = json!([
        "7702548411371955982",
        "7703483974019743696",
        "7704802802882512932",
        missing
    ]);
    assert_eq!(
        sent["query"]["and"][0],
        json!({"operation": "IN", "field_name": "video_id", "field_values": ids})
    );
    assert_eq!(
        (&sent["start_date"], &sent["end_date"], &sent["max_count"]),
        (&json!("20261029"), &json!("20261106"), &json!(100))
    );
    let requests = server.received_requests().await.unwrap();
    let fields = requests[1]
        .url
        .query_pairs()
        .find(|(k, _)| k == "fields")
        .unwrap()
        .1;
    assert_eq!(fields, VIDEO_FIELDS);
    // The token is cached: the second read fetches none.
    tt.read_videos(TT, &asked[..1]).await.unwrap();
    assert_eq!(tt.max_batch(TT), 50);
}

#[test]
fn ids_spread_over_months_split_into_windows_of_at_most_30_days() {
    let mk = |secs: u64| ((secs << 32) + 7).to_string();
    let ids: Vec<String> = [1_790_000_000, 1_790_100_000, 1_793_000_000, 1_780_000_000]
        .map(mk)
        .to_vec();
    let with_days: Vec<(&str, NaiveDate)> = ids
        .iter()
        .map(|id| (id.as_str(), id_day(id.parse().unwrap())))
        .collect();
    let got = batches(&with_days);
    assert_eq!(got.len(), 3);
    for (batch, (start, end)) in &got {
        assert!(!batch.is_empty() && (*end - *start).num_days() <= 30 && start <= end);
    }
    assert_eq!(got[1].0, [ids[0].as_str(), ids[1].as_str()]);
    assert_eq!(got[1].1, (day("20260920"), day("20260923")));
}

#[tokio::test]
async fn credentials_refused_are_permanent_without_the_secret() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(401, "oauth-token-error"), 1).await;
    let e = tt
        .read_videos(TT, &strings(&["7704802802882512932"]))
        .await
        .unwrap_err();
    let SourceError::Permanent(m) = &e else {
        panic!("{e:?}")
    };
    assert!(m.contains("invalid_client") && !m.contains(SECRET), "{m}");
}

#[tokio::test]
async fn a_refused_token_is_renewed_once() {
    let (server, tt) = setup().await;
    let first = Mock::given(path("/v2/oauth/token/")).respond_with(token_reply("clt.old"));
    first.up_to_n_times(1).expect(1).mount(&server).await;
    mock_token(&server, token_reply("clt.new"), 1).await;
    let invalid = json!({"data": {}, "error": {"code": "access_token_invalid", "message": "expired", "log_id": "1"}});
    mock(
        &server,
        VIDEO_QUERY,
        "clt.old",
        body(401, invalid.clone()),
        1,
    )
    .await;
    mock(
        &server,
        VIDEO_QUERY,
        "clt.new",
        reply(200, "research-video-query"),
        1,
    )
    .await;
    let got = tt
        .read_videos(TT, &strings(&["7704802802882512932"]))
        .await
        .unwrap();
    assert!(matches!(got[0].1, ReadOutcome::Found(_)), "{got:?}");
    // Debug shows neither the secret nor the token kept.
    let shown = format!("{tt:?} {:?}", TiktokResearchConfig::new("ck", SECRET));
    assert!(
        !shown.contains(SECRET) && !shown.contains("clt.new"),
        "{shown}"
    );

    // Still refused after the renewal: permanent, and no third token.
    let (server, tt) = setup().await;
    let tokens = Mock::given(path("/v2/oauth/token/")).respond_with(reply(200, "oauth-token"));
    tokens.expect(2).mount(&server).await;
    mock(&server, VIDEO_QUERY, TOKEN, body(401, invalid), 2).await;
    let e = tt
        .read_videos(TT, &strings(&["7704802802882512932"]))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, SourceError::Status { status: 401, transient: false, message: m }
            if m.contains("access_token_invalid")),
        "{e:?}"
    );
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_transient_and_retried() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let limited = reply(429, "research-error-rate-limit");
    mock(&server, "v2/research/user/info/", TOKEN, limited, 3).await;
    let e = tt.resolve_channel(TT, "mira.cooks").await.unwrap_err();
    assert!(
        matches!(&e, SourceError::Status { status: 429, transient: true, message: m }
            if m.contains("rate_limit_exceeded")),
        "{e:?}"
    );

    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let internal = json!({"error": {"code": "internal_error", "message": "", "log_id": "2"}});
    let failing = Mock::given(path(format!("/{VIDEO_QUERY}"))).respond_with(body(500, internal));
    failing.up_to_n_times(1).expect(1).mount(&server).await;
    mock(
        &server,
        VIDEO_QUERY,
        TOKEN,
        reply(200, "research-video-query"),
        1,
    )
    .await;
    let got = tt
        .read_videos(TT, &strings(&["7704802802882512932"]))
        .await
        .unwrap();
    assert!(matches!(got[0].1, ReadOutcome::Found(_)));

    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let slow = reply(200, "research-video-query").set_delay(Duration::from_secs(2));
    mock(&server, VIDEO_QUERY, TOKEN, slow, 1).await;
    let e = tt
        .read_videos(TT, &strings(&["7704802802882512932"]))
        .await
        .unwrap_err();
    assert!(e.is_transient(), "{e:?}");
}

#[tokio::test]
async fn resolves_users_and_unknown_ones_are_not_found() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let info = Mock::given(path("/v2/research/user/info/"))
        .and(body_partial_json(json!({"username": "mira.cooks"})));
    info.respond_with(reply(200, "research-user-info"))
        .expect(1)
        .mount(&server)
        .await;
    let unknown = json!({"data": {}, "error": {"code": "invalid_params", "message": "user not found", "log_id": "3"}});
    mock(
        &server,
        "v2/research/user/info/",
        TOKEN,
        body(400, unknown),
        1,
    )
    .await;
    let c = tt.resolve_channel(TT, "@mira.cooks").await.unwrap();
    let want = Channel {
        platform: TT,
        channel_id: "mira.cooks".into(),
        username: "mira.cooks".into(),
        display_name: Some("Mira Cooks".into()),
        avatar_url: Some("https://p16-sign-va.tiktokcdn.com/tos-maliva-avt-0068/3f9a1c7e2b5d4e8f9a0b1c2d3e4f5a6b~tplv-tiktokx-cropcenter:1080:1080.jpeg?dr=14579&x-expires=1794216600&x-signature=Q2h9r%2Bk1mT0vX4bN7cL3pW8sZ6E%3D".into()),
        follower_count: Some(874_210),
    };
    assert_eq!(c, want);
    let e = tt.resolve_channel(TT, "nobody.here").await.unwrap_err();
    assert!(matches!(e, SourceError::NotFound(_)), "{e:?}");
}

#[tokio::test]
async fn recent_videos_walk_back_through_windows_newest_first() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let today = today();
    let older = json!({"data": {"videos": [{"id": 7600000000000000001u64, "create_time": 1_790_000_000, "username": "mira.cooks"}], "has_more": false}, "error": {"code": "ok"}});
    let window1 = Mock::given(body_partial_json(
        json!({"end_date": ymd(days_before(today, 30))}),
    ));
    window1
        .respond_with(body(200, older))
        .expect(1)
        .mount(&server)
        .await;
    let page2 = Mock::given(body_partial_json(
        json!({"cursor": 100, "search_id": "7705113947226113031"}),
    ));
    page2
        .respond_with(body(
            200,
            json!({"data": {"videos": [], "has_more": false}}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    mock(
        &server,
        VIDEO_QUERY,
        TOKEN,
        reply(200, "research-video-query"),
        1,
    )
    .await;
    let channel = Channel {
        platform: TT,
        channel_id: "mira.cooks".into(),
        username: "mira.cooks".into(),
        display_name: None,
        avatar_url: None,
        follower_count: None,
    };
    let got = tt.recent_videos(&channel, 4).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|v| v.external_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "7704802802882512932",
            "7703483974019743696",
            "7702548411371955982",
            "7600000000000000001"
        ]
    );
    let first = ChannelVideo {
        external_id: "7704802802882512932".into(),
        canonical_url: "https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into(),
        published_at: DateTime::from_timestamp(1_793_914_202, 0),
        title: Some("the garlic trick nobody told you about #cooking #kitchenhacks #fyp".into()),
    };
    assert_eq!(got[0], first);
    let sent = sent_bodies(&server, VIDEO_QUERY).await;
    assert_eq!(sent.len(), 3);
    let by_user =
        json!({"operation": "EQ", "field_name": "username", "field_values": ["mira.cooks"]});
    assert_eq!(sent[0]["query"]["and"][0], by_user);
    assert_eq!(
        (&sent[0]["start_date"], &sent[0]["end_date"]),
        (&json!(ymd(days_before(today, 29))), &json!(ymd(today)))
    );
}

#[tokio::test]
async fn trends_page_with_an_opaque_cursor() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    mock(
        &server,
        VIDEO_QUERY,
        TOKEN,
        reply(200, "research-video-query"),
        2,
    )
    .await;
    let query = TrendQuery {
        keyword: "kitchen".into(),
        region: Some("us".into()),
        days: Some(90),
        cursor: None,
        page_size: 3,
    };
    let page = tt.search_trends(TT, &query).await.unwrap();
    let (end, start) = (today(), days_before(today(), 30));
    let cursor = format!("100:7705113947226113031:{}:{}", ymd(start), ymd(end));
    assert_eq!(
        (page.cursor.as_deref(), page.has_more),
        (Some(cursor.as_str()), true)
    );
    let first = TrendVideo {
        id: "7704802802882512932".into(),
        url: "https://www.tiktok.com/@mira.cooks/video/7704802802882512932".into(),
        cover: None,
        plays: Some(2_318_774),
        likes: Some(301_552),
        comments: Some(2_840),
        shares: Some(15_407),
        author_username: Some("mira.cooks".into()),
        author_cover: None,
    };
    assert_eq!(page.videos[0], first);
    let plays: Vec<_> = page.videos.iter().map(|v| v.plays).collect();
    assert_eq!(plays, [Some(2_318_774), Some(88_213), Some(0)]);
    let next = TrendQuery {
        cursor: Some(cursor),
        ..query.clone()
    };
    tt.search_trends(TT, &next).await.unwrap();
    let sent = sent_bodies(&server, VIDEO_QUERY).await;
    let conditions = json!([
        {"operation": "EQ", "field_name": "keyword", "field_values": ["kitchen"]},
        {"operation": "IN", "field_name": "region_code", "field_values": ["US"]}
    ]);
    assert_eq!(
        (&sent[0]["query"]["and"], &sent[0]["max_count"]),
        (&conditions, &json!(3))
    );
    assert_eq!(
        (&sent[1]["cursor"], &sent[1]["search_id"]),
        (&json!(100), &json!("7705113947226113031"))
    );
    assert_eq!(sent[1]["start_date"], json!(ymd(start)));
    for bad in [
        "garbage",
        "1:2:3",
        "x:1:20261101:20261102",
        "1:1:20260101:20260301",
        "1:a-b:20261101:20261102",
    ] {
        let q = TrendQuery {
            cursor: Some(bad.into()),
            ..query.clone()
        };
        assert_eq!(
            tt.search_trends(TT, &q).await,
            Err(SourceError::Permanent("invalid cursor".into())),
            "{bad}"
        );
    }
}

#[tokio::test]
async fn malformed_answers_never_panic() {
    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let videos = json!({"data": {"videos": [
        {"id": 7704802802882512932u64, "view_count": "lots"},
        {"id": {"nested": 1}},
        {"id": "7703483974019743696", "view_count": "12", "username": 5},
        {"id": 7702548411371955982u64, "view_count": 9}
    ]}, "error": {"code": "ok"}});
    mock(&server, VIDEO_QUERY, TOKEN, body(200, videos), 1).await;
    let asked = strings(&[
        "7704802802882512932",
        "7703483974019743696",
        "7702548411371955982",
    ]);
    let got = tt.read_videos(TT, &asked).await.unwrap();
    assert!(
        matches!(&got[0].1, ReadOutcome::Failed(SourceError::Permanent(_))),
        "{got:?}"
    );
    assert!(
        matches!(&got[1].1, ReadOutcome::Failed(SourceError::Permanent(_))),
        "{got:?}"
    );
    assert!(
        matches!(&got[2].1, ReadOutcome::Found(s) if s.counters.views == Some(9)),
        "{got:?}"
    );

    let (server, tt) = setup().await;
    mock_token(&server, reply(200, "oauth-token"), 1).await;
    let html = ResponseTemplate::new(200).set_body_string("<html>maintenance</html>");
    mock(&server, VIDEO_QUERY, TOKEN, html, 1).await;
    let huge = ResponseTemplate::new(200).set_body_string("x".repeat(9 << 20));
    mock(&server, "v2/research/user/info/", TOKEN, huge, 1).await;
    let e = tt.read_videos(TT, &asked).await.unwrap_err();
    assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
    let e = tt.resolve_channel(TT, "mira.cooks").await.unwrap_err();
    assert!(matches!(e, SourceError::Permanent(_)), "{e:?}");
}
