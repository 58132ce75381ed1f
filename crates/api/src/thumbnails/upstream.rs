//! Fetching a platform's picture: only from the platforms' image CDNs, never
//! from an address a request or a stored value could point elsewhere.
//!
//! An address is fetched when it is `https` on the default port, without
//! credentials, and its host is one of [`CDN_HOSTS`] or below one. The
//! client follows a redirect only to another such address (three at most),
//! connects only to public addresses (the webhook client's resolver), uses
//! no proxy, gives up after a timeout, reads at most `max_bytes`, and keeps
//! only a PNG, JPEG or WebP image (checked by its first bytes, whatever the
//! answer's `Content-Type` said).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use reqwest::redirect::Policy;
use url::{Host, Url};
use vidpulse_platforms::PublicOnly;

use super::Image;
use crate::files::ImageKind;

/// The hosts of the platforms' image CDNs: a picture is fetched from one of
/// these or a host below one (`i.ytimg.com`, `p16-sign-va.tiktokcdn.com`,
/// `scontent-ams2-1.cdninstagram.com`, …).
pub const CDN_HOSTS: [&str; 7] = [
    "ytimg.com",
    "ggpht.com",
    "tiktokcdn.com",
    "tiktokcdn-us.com",
    "tiktokcdn-eu.com",
    "cdninstagram.com",
    "fbcdn.net",
];

/// Redirects followed at most, each to an allowed address.
const MAX_REDIRECTS: usize = 3;

/// How thumbnails are fetched and kept.
#[derive(Debug, Clone)]
pub struct ThumbnailConfig {
    /// Largest picture read, in bytes; a larger one is the placeholder.
    pub max_bytes: usize,
    /// Longest a fetch may take, connecting included.
    pub timeout: Duration,
    /// Bytes of pictures an API node keeps in memory.
    pub cache_bytes: u64,
    /// How long a fetched picture is served before it is fetched again.
    pub fresh_for: Duration,
    /// How long a failed fetch answers the placeholder before it is tried again.
    pub failure_kept_for: Duration,
    /// Tests only: pictures are also fetched from this origin (a local stub
    /// server, over http, on any address), as the platforms' CDNs are.
    pub extra_origin: Option<Url>,
}

impl Default for ThumbnailConfig {
    fn default() -> Self {
        Self {
            max_bytes: 1 << 20,
            timeout: Duration::from_secs(5),
            cache_bytes: 64 << 20,
            fresh_for: Duration::from_secs(24 * 3600),
            failure_kept_for: Duration::from_secs(600),
            extra_origin: None,
        }
    }
}

/// Why a picture was not fetched (logged; the placeholder answers).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The request failed (connection, timeout, a refused address or redirect).
    #[error("request failed: {0}")]
    Request(#[from] reqwest::Error),
    /// The CDN answered something else than 200.
    #[error("answered {0}")]
    Status(reqwest::StatusCode),
    /// The answer is larger than the cap.
    #[error("larger than {0} bytes")]
    TooLarge(usize),
    /// The answer is not a PNG, JPEG or WebP image.
    #[error("not a PNG, JPEG or WebP image")]
    NotAnImage,
}

/// The fetcher: the allowlist and its client.
#[derive(Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    max_bytes: usize,
    extra_origin: Option<Url>,
}

impl Fetcher {
    /// A fetcher as `config` says.
    pub fn new(config: ThumbnailConfig) -> Result<Self, reqwest::Error> {
        vidpulse_platforms::http::install_crypto_provider();
        let extra = config.extra_origin.clone();
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .redirect(Policy::custom(move |attempt| {
                if attempt.previous().len() > MAX_REDIRECTS {
                    attempt.error("too many redirects")
                } else if is_allowed(attempt.url(), extra.as_ref()) {
                    attempt.follow()
                } else {
                    attempt.error("a redirect away from the platforms' image hosts")
                }
            }))
            .no_proxy()
            .user_agent(concat!("vidpulse-thumbnails/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(PublicOnly {
                allow_private: false,
            }))
            .build()?;
        Ok(Self {
            client,
            max_bytes: config.max_bytes,
            extra_origin: config.extra_origin,
        })
    }

    /// `raw` as an address this fetcher may fetch, or `None`.
    pub fn allowed(&self, raw: &str) -> Option<Url> {
        let url = Url::parse(raw).ok()?;
        is_allowed(&url, self.extra_origin.as_ref()).then_some(url)
    }

    /// The image at `url` (which [`Fetcher::allowed`] gave).
    pub async fn fetch(&self, url: Url) -> Result<Image, FetchError> {
        let mut answer = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "image/webp,image/jpeg,image/png")
            .send()
            .await?;
        if answer.status() != reqwest::StatusCode::OK {
            return Err(FetchError::Status(answer.status()));
        }
        if answer
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Err(FetchError::TooLarge(self.max_bytes));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = answer.chunk().await? {
            if bytes.len() + chunk.len() > self.max_bytes {
                return Err(FetchError::TooLarge(self.max_bytes));
            }
            bytes.extend_from_slice(&chunk);
        }
        let kind = ImageKind::sniff(&bytes).ok_or(FetchError::NotAnImage)?;
        Ok(Image {
            kind,
            bytes: Bytes::from(bytes),
        })
    }
}

/// Whether `url` may be fetched: https on the default port, no
/// credentials, a host on the platforms' CDNs; or, in tests, `extra`'s
/// origin.
pub fn is_allowed(url: &Url, extra: Option<&Url>) -> bool {
    if extra.is_some_and(|origin| origin.origin() == url.origin()) {
        return true;
    }
    url.scheme() == "https"
        && url.port().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        && matches!(url.host(), Some(Host::Domain(host)) if on_cdn(host))
}

/// Whether `host` (lowercase, as [`Url`] gives it) is a CDN host or below one.
fn on_cdn(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    CDN_HOSTS.iter().any(|cdn| {
        host == *cdn
            || host
                .strip_suffix(cdn)
                .is_some_and(|rest| rest.ends_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(raw: &str) -> bool {
        is_allowed(&Url::parse(raw).unwrap(), None)
    }

    #[test]
    fn only_the_platforms_image_hosts_over_https() {
        for ok in [
            "https://i.ytimg.com/vi/dQw4w9WgXcQ/maxresdefault.jpg",
            "https://I.YTIMG.COM/vi/x/hq.jpg",
            "https://yt3.ggpht.com/a/b",
            "https://p16-sign-va.tiktokcdn.com/obj/x~tplv.jpeg?x-expires=1",
            "https://p16-sign.tiktokcdn-us.com/x.webp",
            "https://scontent-ams2-1.cdninstagram.com/v/t51/x.jpg?stp=1",
            "https://scontent.xx.fbcdn.net/v/x.jpg",
            "https://i.ytimg.com./vi/x/hq.jpg",
        ] {
            assert!(allowed(ok), "{ok}");
        }
        for refused in [
            // Another host, or one that only ends like a CDN's.
            "https://picsum.photos/seed/youtube-x/640/360",
            "https://evilytimg.com/x.jpg",
            "https://ytimg.com.evil.example/x.jpg",
            "https://i.ytimg.com@evil.example/x.jpg",
            // Not https, another port, credentials, an address.
            "http://i.ytimg.com/vi/x/hq.jpg",
            "https://i.ytimg.com:8443/vi/x/hq.jpg",
            "https://user:pw@i.ytimg.com/vi/x/hq.jpg",
            "https://127.0.0.1/x.jpg",
            "https://[::1]/x.jpg",
            "https://169.254.169.254/latest",
            "file:///etc/passwd",
            "data:image/png;base64,AAAA",
        ] {
            assert!(!allowed(refused), "{refused}");
        }
    }

    #[test]
    fn a_test_origin_is_allowed_as_a_whole_origin_only() {
        let stub = Url::parse("http://127.0.0.1:4321").unwrap();
        let ok = Url::parse("http://127.0.0.1:4321/t/1.jpg").unwrap();
        let other_port = Url::parse("http://127.0.0.1:4322/t/1.jpg").unwrap();
        assert!(is_allowed(&ok, Some(&stub)));
        assert!(!is_allowed(&other_port, Some(&stub)));
        assert!(!is_allowed(&ok, None));
    }
}
