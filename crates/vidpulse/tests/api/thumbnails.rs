//! `GET /thumbnails/{video_id}`: every thumbnail the app shows comes from
//! this origin. Members of the organization tracking the video get the
//! platform's picture (fetched only from the platforms' image CDNs; here a
//! local stub stands in for one) or a placeholder drawn by the server;
//! anyone else gets 404.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use reqwest::Method;
use rstest::rstest;
use serde_json::json;
use vidpulse_api::ApiConfig;
use vidpulse_api::thumbnails::ThumbnailConfig;
use vidpulse_domain::{Clock, Platform};
use vidpulse_platforms::{ReadOutcome, SimulatedSource, Source, SourceError};
use vidpulse_store::Backend;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::dashboard::{team, token};
use crate::helpers::{Answer, TestApp, TestConfig, YOUTUBE, assert_nested_error, youtube};

/// The simulated platforms, with the pictures of some videos at addresses
/// the test chooses (a platform CDN's stand-in).
#[derive(Debug)]
struct Pictured {
    inner: SimulatedSource,
    pictures: HashMap<String, String>,
}

#[async_trait]
impl Source for Pictured {
    fn max_batch(&self, platform: Platform) -> usize {
        self.inner.max_batch(platform)
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        let mut read = self.inner.read_videos(platform, external_ids).await?;
        for (id, outcome) in &mut read {
            if let (ReadOutcome::Found(snapshot), Some(url)) = (outcome, self.pictures.get(id)) {
                snapshot.meta.thumbnail_url = Some(url.clone());
            }
        }
        Ok(read)
    }
}

/// `GET /thumbnails/{id}` as `token` (none: signed out).
async fn thumbnail(app: &TestApp, token: Option<&str>, id: &str) -> Answer {
    let mut req = app
        .client
        .request(Method::GET, app.url(&format!("/thumbnails/{id}")));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let response = req.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let body = match String::from_utf8(bytes.to_vec()) {
        Ok(text) => serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        Err(_) => json!({"bytes": bytes.to_vec()}),
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn header<'a>(a: &'a Answer, name: &str) -> &'a str {
    a.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// The answer is the placeholder tile of `initial`'s platform.
fn assert_placeholder(a: &Answer, initial: char) {
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(header(a, "content-type"), "image/svg+xml");
    assert_eq!(header(a, "x-content-type-options"), "nosniff");
    assert_eq!(
        header(a, "content-security-policy"),
        "default-src 'none'; sandbox"
    );
    assert_eq!(header(a, "cache-control"), "private, max-age=86400");
    let svg = a.body.as_str().unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(&format!(">{initial}<")), "{svg}");
}

/// The video id of the organization's first video.
fn video_id(tracked: &serde_json::Value, n: usize) -> String {
    tracked["results"][n]["video_id"]
        .as_str()
        .or_else(|| tracked["data"]["results"][n]["video_id"].as_str())
        .unwrap_or_else(|| panic!("no video id in {tracked}"))
        .to_owned()
}

#[rstest]
#[tokio::test]
async fn members_get_a_placeholder_for_simulated_videos_and_others_404(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let team = team(&app).await;
    let tracked = app.track(&team.key, &[YOUTUBE]).await;
    let id = video_id(&tracked, 0);
    // Before the first reading: no picture yet.
    assert_placeholder(&thumbnail(&app, Some(&team.viewer), &id).await, 'Y');
    // The simulated platforms' pictures point at another host: never
    // fetched, the placeholder stands in.
    app.run_worker_until_idle().await;
    let record = app
        .get(&format!("/v1/videos/by-id/{id}"), Some(&team.key))
        .await;
    let stored = record.body["data"]["data"]["thumbnail_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        stored.starts_with("https://picsum.photos/"),
        "{}",
        record.body
    );
    assert_placeholder(&thumbnail(&app, Some(&team.editor), &id).await, 'Y');

    // Signed out: 401. Another organization's member, an unknown or
    // malformed id: the same 404.
    assert_nested_error(&thumbnail(&app, None, &id).await, 401, "MISSING_AUTH");
    let stranger = token(&app, "stranger@example.com", None).await;
    assert_nested_error(
        &thumbnail(&app, Some(&stranger), &id).await,
        404,
        "NOT_FOUND",
    );
    let other = team_of_another_org(&app).await;
    assert_nested_error(&thumbnail(&app, Some(&other), &id).await, 404, "NOT_FOUND");
    for bad in [
        uuid::Uuid::new_v4().to_string(),
        "not-a-uuid".into(),
        "%00".into(),
    ] {
        assert_nested_error(
            &thumbnail(&app, Some(&team.viewer), &bad).await,
            404,
            "NOT_FOUND",
        );
    }
}

/// A member of another organization that tracks the same video.
async fn team_of_another_org(app: &TestApp) -> String {
    let (org, key) = app.org_with_key(vidpulse_domain::Plan::Free).await;
    app.track(&key, &[YOUTUBE]).await;
    let (t, user) = crate::dashboard::member(app, "other@example.com").await;
    app.store
        .add_member(
            vidpulse_domain::OrgId(org),
            user,
            vidpulse_domain::identity::Role::Owner,
            app.clock_now(),
        )
        .await
        .unwrap();
    t
}

/// A PNG's first bytes: enough for the signature check.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRpretend-the-rest";

#[rstest]
#[tokio::test]
async fn live_pictures_come_through_a_cached_same_origin_proxy(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let cdn = MockServer::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pic.png"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(PNG, "image/png"))
        // Once for its own address, once at the end of a redirect.
        .expect(2)
        .mount(&cdn)
        .await;
    Mock::given(path("/page.html"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html><script>x</script>", "text/html"),
        )
        .expect(1)
        .mount(&cdn)
        .await;
    Mock::given(path("/huge.png"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw([PNG, &[0u8; 4096]].concat(), "image/png"),
        )
        .mount(&cdn)
        .await;
    Mock::given(path("/gone.png"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&cdn)
        .await;
    let away = format!("{}/pic.png", elsewhere.uri());
    Mock::given(path("/moved.png"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", away.as_str()))
        .mount(&cdn)
        .await;
    Mock::given(path("/moved-here.png"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", "/pic.png"))
        .mount(&cdn)
        .await;
    // Nothing may reach another host, whatever a stored address says.
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(PNG, "image/png"))
        .expect(0)
        .mount(&elsewhere)
        .await;

    let cases = [
        ("pic", format!("{}/pic.png", cdn.uri())),
        ("page", format!("{}/page.html", cdn.uri())),
        ("huge", format!("{}/huge.png", cdn.uri())),
        ("gone", format!("{}/gone.png", cdn.uri())),
        ("moved", format!("{}/moved.png", cdn.uri())),
        ("here", format!("{}/moved-here.png", cdn.uri())),
        ("elsewhere", away.clone()),
        (
            "private",
            "https://169.254.169.254/latest/meta-data".to_owned(),
        ),
    ];
    let pictures: HashMap<String, String> = cases
        .iter()
        .enumerate()
        .map(|(n, (_, url))| (format!("yt{n:09}"), url.clone()))
        .collect();
    let clock: Arc<dyn Clock> = Arc::new(vidpulse_domain::ManualClock::new(chrono::Utc::now()));
    let source = Pictured {
        inner: SimulatedSource::new(Default::default(), clock),
        pictures,
    };
    let config = TestConfig {
        api: ApiConfig {
            thumbnails: ThumbnailConfig {
                max_bytes: 1024,
                extra_origin: Some(cdn.uri().parse().unwrap()),
                ..ThumbnailConfig::default()
            },
            ..ApiConfig::default()
        },
        source: Some(Arc::new(source)),
        ..TestConfig::default()
    };
    let app = TestApp::spawn_with(backend, config).await;
    let team = team(&app).await;
    let urls: Vec<String> = (0..cases.len()).map(youtube).collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let tracked = app.track(&team.key, &urls).await;
    app.run_worker_until_idle().await;

    for (n, (case, _)) in cases.iter().enumerate() {
        let id = video_id(&tracked, n);
        let a = thumbnail(&app, Some(&team.viewer), &id).await;
        match *case {
            "pic" | "here" => {
                assert_eq!(a.status.as_u16(), 200, "{case}");
                assert_eq!(header(&a, "content-type"), "image/png", "{case}");
                assert_eq!(header(&a, "x-content-type-options"), "nosniff");
                assert_eq!(header(&a, "cache-control"), "private, max-age=86400");
                assert_eq!(a.body["bytes"], json!(PNG), "{case}");
            }
            _ => assert_placeholder(&a, 'Y'),
        }
    }
    // Asked again: answered from what this node keeps (the stub counts the
    // fetches of the picture and of the page that was not an image).
    for n in [0, 1] {
        let id = video_id(&tracked, n);
        let _ = thumbnail(&app, Some(&team.editor), &id).await;
    }
    cdn.verify().await;
    elsewhere.verify().await;
}
