//! Short-link resolution: turns a [`ShortLink`] (vm.tiktok.com, vt.tiktok.com,
//! tiktok.com/t/, instagram.com/share/) into the [`VideoRef`] it points at.
//!
//! Resolving means fetching a URL a user gave us, so this is where a request
//! could be steered to an arbitrary host (SSRF). The policy here keeps it on
//! the platforms' own hosts: start only from the platform's short-link host
//! over https; follow redirects ourselves (the HTTP client never does); accept
//! a hop only to that platform's hosts ([`is_platform_host`]: never an IP
//! address, credentials or an explicit port); bound the hop count and the
//! total time. The HTTP exchange sits behind [`HopFetcher`], so the policy is
//! tested without a network. No request path reaches an arbitrary host;
//! docs/platforms.md for how the platforms redirect.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::LOCATION;
use reqwest::{Method, StatusCode};
use sha2::{Digest, Sha256};
use url::{Host, Url};
use vidpulse_domain::video_url::{UrlError, canonical_url, is_platform_host, is_short_link_host};
use vidpulse_domain::{ParsedUrl, Platform, ShortLink, VideoRef, parse_video_url};

/// Why a short link could not be resolved. The message is shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The link is not one of the platforms' short links (checked again here).
    #[error("not a short link this service can resolve: `{0}`")]
    NotAShortLink(String),
    /// A redirect pointed outside the platform's own hosts.
    #[error(
        "the short link redirected to `{0}`, outside the platform's own hosts; it was not followed"
    )]
    ForbiddenHost(String),
    /// Too many redirects without reaching a video.
    #[error("the short link redirected more than {0} times without reaching a video")]
    TooManyHops(usize),
    /// The whole resolution took too long.
    #[error("the short link could not be resolved within {0:?}")]
    Timeout(Duration),
    /// The link leads to a page that is not a video (photo post, profile...).
    #[error("the short link was resolved, but it is {0}")]
    NotAVideo(String),
    /// The link did not lead to a video.
    #[error("could not resolve the short link: {0}")]
    Unresolved(String),
    /// The platform failed or refused to answer; worth retrying later.
    #[error("the platform did not answer the short-link request: {0}")]
    Upstream(String),
    /// The HTTP client could not be set up.
    #[error("the short-link resolver could not be set up: {0}")]
    Setup(String),
}

impl ResolveError {
    /// What a client is told: the transport's details (proxy tunnels, TLS,
    /// connection errors) stay in the log, where [`std::fmt::Display`]
    /// shows them.
    pub fn client_message(&self) -> String {
        match self {
            ResolveError::Upstream(_) => {
                "the platform did not answer the short-link request; try again later".to_owned()
            }
            ResolveError::Setup(_) => "the short link could not be resolved right now".to_owned(),
            other => other.to_string(),
        }
    }

    /// Whether trying again later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, ResolveError::Timeout(_) | ResolveError::Upstream(_))
    }

    fn login_page(platform: Platform) -> Self {
        ResolveError::Unresolved(format!(
            "it led to the {} login page; the video may be private or deleted",
            platform.display_name()
        ))
    }

    fn home_page(platform: Platform) -> Self {
        ResolveError::Unresolved(format!(
            "it led to the {} home page; the link may have expired",
            platform.display_name()
        ))
    }

    fn no_redirect(status: u16) -> Self {
        ResolveError::Unresolved(format!(
            "the platform answered HTTP {status} without redirecting to a video"
        ))
    }
}

/// Limits of a live resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortLinkConfig {
    /// Time bound of the whole resolution, every hop included.
    pub timeout: Duration,
    /// Most redirects followed.
    pub max_hops: usize,
    /// User-Agent sent (TikTok only redirects some agents, see docs/platforms.md).
    pub user_agent: String,
}

impl Default for ShortLinkConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            max_hops: 3,
            user_agent: "facebookexternalhit/1.1".to_owned(),
        }
    }
}

/// One HTTP answer, as far as redirects go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The HTTP status code.
    pub status: u16,
    /// The raw `Location` header, if any (may be relative).
    pub location: Option<String>,
}

/// Fetches one URL without following redirects.
#[async_trait]
pub trait HopFetcher: Send + Sync + Debug {
    /// Requests `url` once and reports its status and `Location`.
    async fn fetch(&self, url: &Url) -> Result<Hop, ResolveError>;
}

/// The production [`HopFetcher`]: reqwest, redirects disabled, `HEAD` first.
#[derive(Debug, Clone)]
pub struct ReqwestFetcher {
    client: reqwest::Client,
    timeout: Duration,
}

impl ReqwestFetcher {
    /// A fetcher with `config`'s timeout and User-Agent that never follows
    /// redirects itself.
    pub fn new(config: &ShortLinkConfig) -> Result<Self, ResolveError> {
        let builder = reqwest::Client::builder()
            // The resolver checks every hop; the client must not follow any.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.timeout)
            .timeout(config.timeout)
            .user_agent(config.user_agent.clone());
        crate::http::install_crypto_provider();
        let client = builder
            .build()
            .map_err(|e| ResolveError::Setup(error_chain(&e)))?;
        Ok(Self {
            client,
            timeout: config.timeout,
        })
    }

    async fn send(&self, method: Method, url: &Url) -> Result<reqwest::Response, ResolveError> {
        self.client
            .request(method, url.as_str())
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    ResolveError::Timeout(self.timeout)
                } else {
                    ResolveError::Upstream(error_chain(&e.without_url()))
                }
            })
    }
}

#[async_trait]
impl HopFetcher for ReqwestFetcher {
    async fn fetch(&self, url: &Url) -> Result<Hop, ResolveError> {
        let mut response = self.send(Method::HEAD, url).await?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            response = self.send(Method::GET, url).await?;
        }
        // The body is never read: only the status and Location matter.
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Ok(Hop {
            status: response.status().as_u16(),
            location,
        })
    }
}

/// Resolves short links to the video they point at.
#[derive(Debug, Clone)]
pub struct ShortLinkResolver {
    live: Option<Live>,
}

#[derive(Debug, Clone)]
struct Live {
    fetcher: Arc<dyn HopFetcher>,
    config: ShortLinkConfig,
}

impl ShortLinkResolver {
    /// A resolver that answers offline, deterministically (simulated mode).
    pub fn offline() -> Self {
        Self { live: None }
    }

    /// A resolver that follows links over HTTP (live mode).
    pub fn http(config: ShortLinkConfig) -> Result<Self, ResolveError> {
        let fetcher = ReqwestFetcher::new(&config)?;
        Ok(Self::with_fetcher(Arc::new(fetcher), config))
    }

    /// A live resolver fetching through `fetcher` (tests script the hops).
    pub fn with_fetcher(fetcher: Arc<dyn HopFetcher>, config: ShortLinkConfig) -> Self {
        Self {
            live: Some(Live { fetcher, config }),
        }
    }

    /// Whether this resolver never touches the network.
    pub fn is_offline(&self) -> bool {
        self.live.is_none()
    }

    /// Follows `link` to the video it points at.
    pub async fn resolve(&self, link: &ShortLink) -> Result<VideoRef, ResolveError> {
        let start = checked_start(link)?;
        let Some(live) = &self.live else {
            return offline_resolve(link.platform, &start);
        };
        let timeout = live.config.timeout;
        let follow = follow(
            live.fetcher.as_ref(),
            live.config.max_hops,
            link.platform,
            start,
        );
        tokio::time::timeout(timeout, follow)
            .await
            .map_err(|_| ResolveError::Timeout(timeout))?
    }
}

/// `ShortLink`'s fields are public, so anything may arrive: re-parse it and
/// start only from the platform's own short-link host, over https.
fn checked_start(link: &ShortLink) -> Result<Url, ResolveError> {
    let refused = || ResolveError::NotAShortLink(clip(link.url.as_str()));
    if link.url.scheme() != "https"
        || !link
            .url
            .host_str()
            .is_some_and(|h| is_short_link_host(link.platform, h))
    {
        return Err(refused());
    }
    match parse_video_url(link.url.as_str()) {
        Ok(ParsedUrl::ShortLink(parsed)) if parsed.platform == link.platform => Ok(parsed.url),
        _ => Err(refused()),
    }
}

async fn follow(
    fetcher: &dyn HopFetcher,
    max_hops: usize,
    platform: Platform,
    start: Url,
) -> Result<VideoRef, ResolveError> {
    let mut current = start;
    for _ in 0..max_hops {
        let hop = fetcher.fetch(&current).await?;
        let location = match (hop.status, hop.location) {
            (301 | 302 | 303 | 307 | 308, Some(location)) => location,
            (404 | 410, _) => {
                return Err(ResolveError::Unresolved(
                    "the link does not exist or has expired".to_owned(),
                ));
            }
            (429, _) => return Err(ResolveError::Upstream("rate limited (HTTP 429)".to_owned())),
            (status @ 500..=599, _) => {
                return Err(ResolveError::Upstream(format!("HTTP {status}")));
            }
            (status, _) => return Err(ResolveError::no_redirect(status)),
        };
        let next = current.join(&location).map_err(|_| {
            ResolveError::Unresolved(format!("invalid redirect target `{}`", clip(&location)))
        })?;
        current = checked_hop(platform, next)?;
        match parse_video_url(current.as_str()) {
            Ok(ParsedUrl::Video(video)) if video.platform == platform => return Ok(video),
            Err(
                e @ (UrlError::PhotoPost
                | UrlError::Profile(_)
                | UrlError::Channel
                | UrlError::Playlist
                | UrlError::InvalidId { .. }
                | UrlError::InvalidUsername { .. }),
            ) => return Err(ResolveError::NotAVideo(e.to_string())),
            _ => {}
        }
        let path = current.path();
        if path.starts_with("/login") || path.starts_with("/accounts/login") {
            return Err(ResolveError::login_page(platform));
        }
        if path == "/" {
            return Err(ResolveError::home_page(platform));
        }
        // Another short link or an interstitial on the platform: keep going.
    }
    Err(ResolveError::TooManyHops(max_hops))
}

/// Accepts a redirect target only on `platform`'s hosts; upgrades http to https.
fn checked_hop(platform: Platform, mut url: Url) -> Result<Url, ResolveError> {
    let on_platform =
        matches!(url.host(), Some(Host::Domain(host)) if is_platform_host(platform, host));
    let plain = url.username().is_empty() && url.password().is_none() && url.port().is_none();
    if !(on_platform && plain && matches!(url.scheme(), "https" | "http")) {
        return Err(ResolveError::ForbiddenHost(clip(url.as_str())));
    }
    // Never send the next request in clear text; the platforms all serve https.
    if url.scheme() == "http" && url.set_scheme("https").is_err() {
        return Err(ResolveError::ForbiddenHost(clip(url.as_str())));
    }
    Ok(url)
}

/// 2024-01-01T00:00:00Z and 2026-10-31T00:00:00Z: the creation times offline ids get.
const OFFLINE_FROM: u64 = 1_704_067_200;
const OFFLINE_UNTIL: u64 = 1_793_404_800;

/// The offline answer: a video derived from a SHA-256 of the short code.
fn offline_resolve(platform: Platform, start: &Url) -> Result<VideoRef, ResolveError> {
    let code = start
        .path_segments()
        .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
        .unwrap_or_default();
    let digest = Sha256::digest(code.as_bytes());
    let url = match platform {
        Platform::TikTok => {
            // A full page URL, naming the author the simulated world gives the video.
            let id = offline_tiktok_id(&digest).to_string();
            let author = crate::simulated::hashed_author(platform, &id);
            canonical_url(platform, &id, author.as_deref())
        }
        Platform::Instagram => {
            let kind = if start.path().starts_with("/share/p/") {
                "p"
            } else {
                "reel"
            };
            format!(
                "https://www.instagram.com/{kind}/{}/",
                offline_shortcode(&digest)
            )
        }
        Platform::YouTube => return Err(ResolveError::NotAShortLink(clip(start.as_str()))),
    };
    match parse_video_url(&url) {
        Ok(ParsedUrl::Video(video)) => Ok(video),
        _ => Err(ResolveError::Unresolved(format!(
            "offline id `{url}` is invalid"
        ))),
    }
}

/// A 19-digit TikTok id: `id >> 32` is a creation Unix time, as on TikTok.
fn offline_tiktok_id(digest: &[u8]) -> u64 {
    let be = |bytes: &[u8]| bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let created =
        OFFLINE_FROM + be(digest.get(..8).unwrap_or_default()) % (OFFLINE_UNTIL - OFFLINE_FROM);
    (created << 32) | be(digest.get(8..12).unwrap_or_default())
}

/// An 11-character Instagram shortcode.
fn offline_shortcode(digest: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    digest
        .iter()
        .skip(12)
        .take(11)
        .map(|&b| char::from(ALPHABET[usize::from(b & 63)]))
        .collect()
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

/// Keeps echoed URLs short in messages.
fn clip(s: &str) -> String {
    const MAX: usize = 120;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Instant;

    use rstest::rstest;
    use wiremock::matchers::{header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    const ID: &str = "7312345678901234567";
    const VIDEO: &str = "https://www.tiktok.com/@mira.cooks/video/7312345678901234567";
    const VIDEO_NO_USER: &str = "https://www.tiktok.com/@/video/7312345678901234567";

    /// Answers with `hops` in order, repeating the last one; records each URL.
    #[derive(Debug)]
    struct Scripted {
        hops: Vec<Hop>,
        seen: Mutex<Vec<String>>,
    }

    impl Scripted {
        fn new(hops: Vec<Hop>) -> Arc<Self> {
            Arc::new(Self {
                hops,
                seen: Mutex::new(Vec::new()),
            })
        }

        fn seen(&self) -> Vec<String> {
            self.seen.lock().unwrap().clone()
        }
    }

    #[async_trait]
    impl HopFetcher for Scripted {
        async fn fetch(&self, url: &Url) -> Result<Hop, ResolveError> {
            let mut seen = self.seen.lock().unwrap();
            let hop = self.hops[seen.len().min(self.hops.len() - 1)].clone();
            seen.push(url.to_string());
            Ok(hop)
        }
    }

    #[derive(Debug)]
    struct Slow;

    #[async_trait]
    impl HopFetcher for Slow {
        async fn fetch(&self, _url: &Url) -> Result<Hop, ResolveError> {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(to(301, VIDEO))
        }
    }

    fn to(status: u16, location: &str) -> Hop {
        Hop {
            status,
            location: Some(location.to_owned()),
        }
    }

    fn answer(status: u16) -> Hop {
        Hop {
            status,
            location: None,
        }
    }

    fn link(url: &str) -> ShortLink {
        match parse_video_url(url) {
            Ok(ParsedUrl::ShortLink(link)) => link,
            other => panic!("{url} is not a short link: {other:?}"),
        }
    }

    fn forbidden(url: &str) -> Result<&'static str, ResolveError> {
        Err(ResolveError::ForbiddenHost(url.to_owned()))
    }

    fn not_a_video(e: UrlError) -> Result<&'static str, ResolveError> {
        Err(ResolveError::NotAVideo(e.to_string()))
    }

    #[rustfmt::skip]
    #[rstest]
    #[case::one_hop_to_canonical("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://www.tiktok.com/@mira.cooks/video/7312345678901234567?_t=8x&_r=1")], Ok(VIDEO), 1)]
    #[case::legacy_mobile_page("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://m.tiktok.com/v/7312345678901234567.html?u_code=x&_r=1")], Ok(VIDEO_NO_USER), 1)]
    #[case::two_hops_relative_location("https://vt.tiktok.com/ZSabc1234/", vec![to(302, "https://www.tiktok.com/t/ZTdef5678/"), to(301, "/@mira.cooks/video/7312345678901234567?_r=1")], Ok(VIDEO), 2)]
    #[case::two_hops_via_interstitial_to_mobile("https://www.tiktok.com/t/ZTabc1234/", vec![to(302, "https://www.tiktok.com/link/v2?aid=1988"), to(301, "https://m.tiktok.com/v/7312345678901234567.html")], Ok(VIDEO_NO_USER), 2)]
    #[case::http_hop_upgraded("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "http://www.tiktok.com/@mira.cooks/video/7312345678901234567")], Ok(VIDEO), 1)]
    #[case::evil_host("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://evil.com/@a/video/7312345678901234567")], forbidden("https://evil.com/@a/video/7312345678901234567"), 1)]
    #[case::loopback_ip("https://vm.tiktok.com/ZMabc1234/", vec![to(302, "http://127.0.0.1:8080/admin")], forbidden("http://127.0.0.1:8080/admin"), 1)]
    #[case::metadata_ip("https://vm.tiktok.com/ZMabc1234/", vec![to(302, "http://169.254.169.254/latest/meta-data/")], forbidden("http://169.254.169.254/latest/meta-data/"), 1)]
    #[case::lookalike_suffix("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://www.tiktok.com.evil.com/")], forbidden("https://www.tiktok.com.evil.com/"), 1)]
    #[case::lookalike_prefix("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://evil-tiktok.com/")], forbidden("https://evil-tiktok.com/"), 1)]
    #[case::credentials("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://x@www.tiktok.com/@a/video/7312345678901234567")], forbidden("https://x@www.tiktok.com/@a/video/7312345678901234567"), 1)]
    #[case::explicit_port("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://www.tiktok.com:8443/")], forbidden("https://www.tiktok.com:8443/"), 1)]
    #[case::other_scheme("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "ftp://www.tiktok.com/x")], forbidden("ftp://www.tiktok.com/x"), 1)]
    #[case::protocol_relative_elsewhere("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "//evil.com/x")], forbidden("https://evil.com/x"), 1)]
    #[case::redirect_loop("https://vm.tiktok.com/ZMabc1234/", vec![to(302, "https://vm.tiktok.com/ZMabc1234/")], Err(ResolveError::TooManyHops(3)), 3)]
    #[case::ok_without_location("https://vm.tiktok.com/ZMabc1234/", vec![answer(200)], Err(ResolveError::no_redirect(200)), 1)]
    #[case::redirect_without_location("https://vm.tiktok.com/ZMabc1234/", vec![answer(301)], Err(ResolveError::no_redirect(301)), 1)]
    #[case::login_page("https://vm.tiktok.com/ZMabc1234/", vec![to(302, "https://www.tiktok.com/login?redirect_url=https%3A%2F%2Fvm.tiktok.com")], Err(ResolveError::login_page(Platform::TikTok)), 1)]
    #[case::home_page("https://vm.tiktok.com/ZMabc1234/", vec![to(302, "https://www.tiktok.com/")], Err(ResolveError::home_page(Platform::TikTok)), 1)]
    #[case::photo_post("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://www.tiktok.com/@mira.cooks/photo/7312345678901234567?_r=1")], not_a_video(UrlError::PhotoPost), 1)]
    #[case::profile("https://vm.tiktok.com/ZMabc1234/", vec![to(301, "https://www.tiktok.com/@mira.cooks")], not_a_video(UrlError::Profile(Platform::TikTok)), 1)]
    #[case::not_found("https://vm.tiktok.com/ZMabc1234/", vec![answer(404)], Err(ResolveError::Unresolved("the link does not exist or has expired".into())), 1)]
    #[case::rate_limited("https://vm.tiktok.com/ZMabc1234/", vec![answer(429)], Err(ResolveError::Upstream("rate limited (HTTP 429)".into())), 1)]
    #[case::server_error("https://vm.tiktok.com/ZMabc1234/", vec![answer(503)], Err(ResolveError::Upstream("HTTP 503".into())), 1)]
    #[case::instagram_share_to_reel("https://www.instagram.com/share/reel/BAKkmdn2kz/", vec![to(301, "https://www.instagram.com/reel/CWqAgUZgCku/?igsh=MWQ1")], Ok("https://www.instagram.com/reel/CWqAgUZgCku/"), 1)]
    #[case::instagram_share_to_login("https://www.instagram.com/share/BAKkmdn2kz/", vec![to(302, "/accounts/login/?next=%2Fshare%2FBAKkmdn2kz%2F")], Err(ResolveError::login_page(Platform::Instagram)), 1)]
    #[case::instagram_share_to_tiktok("https://www.instagram.com/share/p/BAKkmdn2kz/", vec![to(302, VIDEO)], forbidden(VIDEO), 1)]
    #[case::instagram_share_to_cdn("https://www.instagram.com/share/p/BAKkmdn2kz/", vec![to(302, "https://l.instagram.com/?u=https%3A%2F%2Fevil.com")], forbidden("https://l.instagram.com/?u=https%3A%2F%2Fevil.com"), 1)]
    #[tokio::test]
    async fn follows_redirects_only_on_platform_hosts(
        #[case] start: &str,
        #[case] hops: Vec<Hop>,
        #[case] expected: Result<&str, ResolveError>,
        #[case] fetches: usize,
    ) {
        let fetcher = Scripted::new(hops);
        let resolver = ShortLinkResolver::with_fetcher(fetcher.clone(), ShortLinkConfig::default());
        let got = resolver.resolve(&link(start)).await.map(|v| v.canonical_url);
        assert_eq!(got.as_deref().map_err(Clone::clone), expected);
        let seen = fetcher.seen();
        assert_eq!(seen.len(), fetches, "{seen:?}");
        assert_eq!(seen[0], start, "starts from the short link itself");
        assert!(seen.iter().all(|u| u.starts_with("https://")), "{seen:?}");
    }

    #[tokio::test]
    async fn resolved_video_has_platform_and_id() {
        let fetcher = Scripted::new(vec![to(301, VIDEO)]);
        let resolver = ShortLinkResolver::with_fetcher(fetcher, ShortLinkConfig::default());
        let video = resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1234/"))
            .await
            .unwrap();
        assert_eq!(
            video,
            VideoRef {
                platform: Platform::TikTok,
                external_id: ID.into(),
                canonical_url: VIDEO.into()
            }
        );
    }

    #[tokio::test]
    async fn an_http_hop_is_fetched_over_https() {
        let fetcher = Scripted::new(vec![
            to(302, "http://www.tiktok.com/t/ZTdef5678/"),
            to(301, VIDEO),
        ]);
        let resolver = ShortLinkResolver::with_fetcher(fetcher.clone(), ShortLinkConfig::default());
        resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1234/"))
            .await
            .unwrap();
        assert_eq!(fetcher.seen()[1], "https://www.tiktok.com/t/ZTdef5678/");
    }

    #[rstest]
    #[case::max_one(1, Err(ResolveError::TooManyHops(1)), 1)]
    #[case::max_two(2, Ok(VIDEO), 2)]
    #[case::max_zero(0, Err(ResolveError::TooManyHops(0)), 0)]
    #[tokio::test]
    async fn hop_bound_is_configurable(
        #[case] max_hops: usize,
        #[case] expected: Result<&str, ResolveError>,
        #[case] fetches: usize,
    ) {
        let fetcher = Scripted::new(vec![
            to(302, "https://www.tiktok.com/t/ZTdef5678/"),
            to(301, VIDEO),
        ]);
        let config = ShortLinkConfig {
            max_hops,
            ..ShortLinkConfig::default()
        };
        let resolver = ShortLinkResolver::with_fetcher(fetcher.clone(), config);
        let got = resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1234/"))
            .await;
        assert_eq!(
            got.map(|v| v.canonical_url)
                .as_deref()
                .map_err(Clone::clone),
            expected
        );
        assert_eq!(fetcher.seen().len(), fetches);
    }

    #[tokio::test]
    async fn whole_resolution_is_time_bounded() {
        let timeout = Duration::from_millis(50);
        let config = ShortLinkConfig {
            timeout,
            ..ShortLinkConfig::default()
        };
        let resolver = ShortLinkResolver::with_fetcher(Arc::new(Slow), config);
        let started = Instant::now();
        let got = resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1234/"))
            .await;
        assert_eq!(got, Err(ResolveError::Timeout(timeout)));
        assert!(got.unwrap_err().is_retryable());
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    fn raw(platform: Platform, url: &str) -> ShortLink {
        ShortLink {
            platform,
            url: Url::parse(url).unwrap(),
        }
    }

    #[rstest]
    #[case::foreign_host(raw(Platform::TikTok, "https://evil.com/ZMabc1234/"))]
    #[case::loopback(raw(Platform::TikTok, "https://127.0.0.1/ZMabc1234/"))]
    #[case::plain_http(raw(Platform::TikTok, "http://vm.tiktok.com/ZMabc1234/"))]
    #[case::wrong_platform(raw(Platform::Instagram, "https://vm.tiktok.com/ZMabc1234/"))]
    #[case::youtube(raw(Platform::YouTube, "https://youtu.be/aZ3kQm9TfLw"))]
    #[case::a_video_not_a_link(raw(Platform::TikTok, VIDEO))]
    #[case::port(raw(Platform::TikTok, "https://vm.tiktok.com:8443/ZMabc1234/"))]
    #[case::credentials(raw(Platform::TikTok, "https://a:b@vm.tiktok.com/ZMabc1234/"))]
    #[tokio::test]
    async fn starts_only_from_platform_short_links(#[case] start: ShortLink) {
        let fetcher = Scripted::new(vec![to(301, VIDEO)]);
        let live = ShortLinkResolver::with_fetcher(fetcher.clone(), ShortLinkConfig::default());
        for resolver in [live, ShortLinkResolver::offline()] {
            let got = resolver.resolve(&start).await;
            assert!(
                matches!(got, Err(ResolveError::NotAShortLink(_))),
                "{got:?}"
            );
        }
        assert!(fetcher.seen().is_empty());
    }

    #[rstest]
    #[case("https://vm.tiktok.com/ZMabc1234/")]
    #[case("https://vt.tiktok.com/ZSxyz98765/")]
    #[case("https://www.tiktok.com/t/ZT8kQm9Tf/")]
    #[tokio::test]
    async fn offline_tiktok_ids_are_deterministic_and_plausible(#[case] start: &str) {
        let resolver = ShortLinkResolver::offline();
        assert!(resolver.is_offline());
        let video = resolver.resolve(&link(start)).await.unwrap();
        assert_eq!(resolver.resolve(&link(start)).await.unwrap(), video);
        assert_eq!(video.platform, Platform::TikTok);
        assert_eq!(video.external_id.len(), 19, "{video:?}");
        let id: u64 = video.external_id.parse().unwrap();
        assert!((OFFLINE_FROM..OFFLINE_UNTIL).contains(&(id >> 32)), "{id}");
        // A full page URL with the author the simulated world gives the video.
        let author = crate::simulated::hashed_author(Platform::TikTok, &video.external_id);
        let author = author.unwrap();
        assert!(!author.is_empty());
        assert_eq!(video.handle(), Some(author.as_str()));
        assert_eq!(
            video.canonical_url,
            format!("https://www.tiktok.com/@{author}/video/{id}")
        );
    }

    #[tokio::test]
    async fn offline_ids_depend_on_the_code_only() {
        let resolver = ShortLinkResolver::offline();
        let a = resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1234/"))
            .await
            .unwrap();
        let same = resolver
            .resolve(&link("https://vt.tiktok.com/ZMabc1234?_r=1"))
            .await
            .unwrap();
        let b = resolver
            .resolve(&link("https://vm.tiktok.com/ZMabc1235/"))
            .await
            .unwrap();
        assert_eq!(a, same);
        assert_ne!(a.external_id, b.external_id);
    }

    #[rstest]
    #[case("https://www.instagram.com/share/reel/BAKkmdn2kz/", "reel")]
    #[case("https://www.instagram.com/share/BAKkmdn2kz/", "reel")]
    #[case("https://www.instagram.com/share/p/BAKkmdn2kz/", "p")]
    #[tokio::test]
    async fn offline_instagram_shares_resolve_to_shortcodes(
        #[case] start: &str,
        #[case] kind: &str,
    ) {
        let resolver = ShortLinkResolver::offline();
        let video = resolver.resolve(&link(start)).await.unwrap();
        assert_eq!(video.platform, Platform::Instagram);
        assert_eq!(video.external_id.len(), 11);
        assert_eq!(
            video.canonical_url,
            format!("https://www.instagram.com/{kind}/{}/", video.external_id)
        );
        assert_eq!(resolver.resolve(&link(start)).await.unwrap(), video);
    }

    #[test]
    fn offline_tiktok_id_range_holds_at_the_extremes() {
        for digest in [[0u8; 32], [0xff; 32]] {
            let id = offline_tiktok_id(&digest);
            assert_eq!(id.to_string().len(), 19);
            assert!((OFFLINE_FROM..OFFLINE_UNTIL).contains(&(id >> 32)));
        }
    }

    #[test]
    fn messages_and_retryability() {
        assert_eq!(
            ResolveError::ForbiddenHost("https://evil.com/".into()).to_string(),
            "the short link redirected to `https://evil.com/`, outside the platform's own hosts; it was not followed"
        );
        assert_eq!(
            ResolveError::NotAVideo(UrlError::PhotoPost.to_string()).to_string(),
            "the short link was resolved, but it is not a video: this TikTok link is a photo post"
        );
        assert!(ResolveError::Upstream("HTTP 503".into()).is_retryable());
        let tunnel = ResolveError::Upstream("tunnel error: unsuccessful".into());
        assert!(!tunnel.client_message().contains("tunnel"));
        assert!(
            tunnel.to_string().contains("tunnel"),
            "the log keeps the detail"
        );
        assert!(!ResolveError::TooManyHops(3).is_retryable());
        assert!(!ResolveError::ForbiddenHost("x".into()).is_retryable());
    }

    fn install_crypto_provider() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }

    #[tokio::test]
    async fn reqwest_fetcher_reports_a_redirect_without_following_it() {
        install_crypto_provider();
        let server = MockServer::start().await;
        Mock::given(method("HEAD"))
            .and(path("/ZMabc1234/"))
            .and(header("user-agent", "facebookexternalhit/1.1"))
            .respond_with(ResponseTemplate::new(301).insert_header("location", "/final?_r=1"))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(path("/final"))
            .respond_with(ResponseTemplate::new(200))
            .expect(0)
            .mount(&server)
            .await;
        let fetcher = ReqwestFetcher::new(&ShortLinkConfig::default()).unwrap();
        let url = Url::parse(&format!("{}/ZMabc1234/", server.uri())).unwrap();
        let hop = fetcher.fetch(&url).await.unwrap();
        assert_eq!(hop, to(301, "/final?_r=1"));
    }

    #[tokio::test]
    async fn reqwest_fetcher_falls_back_to_get_on_405() {
        install_crypto_provider();
        let server = MockServer::start().await;
        Mock::given(method("HEAD"))
            .respond_with(ResponseTemplate::new(405))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/ZMabc1234/"))
            .respond_with(ResponseTemplate::new(302).insert_header("location", VIDEO))
            .expect(1)
            .mount(&server)
            .await;
        let fetcher = ReqwestFetcher::new(&ShortLinkConfig::default()).unwrap();
        let url = Url::parse(&format!("{}/ZMabc1234/", server.uri())).unwrap();
        assert_eq!(fetcher.fetch(&url).await.unwrap(), to(302, VIDEO));
    }

    #[tokio::test]
    async fn reqwest_fetcher_reports_200_and_times_out() {
        install_crypto_provider();
        let server = MockServer::start().await;
        Mock::given(path("/ok/"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&server)
            .await;
        Mock::given(path("/slow/"))
            .respond_with(ResponseTemplate::new(301).set_delay(Duration::from_secs(5)))
            .mount(&server)
            .await;
        let timeout = Duration::from_millis(200);
        let fetcher = ReqwestFetcher::new(&ShortLinkConfig {
            timeout,
            ..ShortLinkConfig::default()
        })
        .unwrap();
        let ok = Url::parse(&format!("{}/ok/", server.uri())).unwrap();
        assert_eq!(fetcher.fetch(&ok).await.unwrap(), answer(200));
        let slow = Url::parse(&format!("{}/slow/", server.uri())).unwrap();
        assert_eq!(
            fetcher.fetch(&slow).await,
            Err(ResolveError::Timeout(timeout))
        );
    }
}
