//! Thumbnails served from this origin, so the web app never loads a picture
//! from another host (an offline install logs no failed request).
//!
//! A platform's picture is fetched only from the platforms' own image CDNs
//! ([`upstream`]: https, an allowlist of hosts, public addresses only, a
//! size cap, images only) and kept in memory for a day; anything else (the
//! simulated platforms' addresses, a video without a picture, a failed
//! fetch) answers a placeholder drawn here ([`placeholder`]). A failed fetch
//! is remembered for a few minutes, so a broken picture is not asked for on
//! every page view. The route is `GET /thumbnails/{video_id}`
//! (`dashboard::thumbnails`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use moka::Expiry;
use moka::sync::Cache;

use crate::files::ImageKind;

pub mod placeholder;
pub mod upstream;

pub use upstream::ThumbnailConfig;

/// An image fetched from a platform, checked by its first bytes.
#[derive(Debug, Clone)]
pub struct Image {
    /// Its format (the content type it is served with).
    pub kind: ImageKind,
    /// The image.
    pub bytes: Bytes,
}

/// What the cache keeps for a picture address.
#[derive(Debug)]
enum Kept {
    /// The image.
    Image(Image),
    /// The fetch failed: answer the placeholder until this entry expires.
    Failed,
}

/// Bytes an entry costs besides its image (key, bookkeeping).
const ENTRY_OVERHEAD: usize = 256;

/// The thumbnails of one API node: the fetcher and what it fetched.
#[derive(Debug)]
pub struct Thumbnails {
    /// The fetcher; `None` when its client could not be built (logged once):
    /// every thumbnail is then the placeholder.
    fetcher: Option<upstream::Fetcher>,
    /// Fetched pictures and failures, by address.
    kept: Cache<String, Arc<Kept>>,
}

/// How long each kind of entry lives.
struct Lifetimes {
    image: Duration,
    failure: Duration,
}

impl Expiry<String, Arc<Kept>> for Lifetimes {
    fn expire_after_create(
        &self,
        _key: &String,
        value: &Arc<Kept>,
        _created_at: Instant,
    ) -> Option<Duration> {
        Some(match **value {
            Kept::Image(_) => self.image,
            Kept::Failed => self.failure,
        })
    }
}

impl Thumbnails {
    /// Thumbnails fetched and kept as `config` says.
    pub fn new(config: ThumbnailConfig) -> Self {
        let kept = Cache::builder()
            .max_capacity(config.cache_bytes)
            .weigher(|key: &String, kept: &Arc<Kept>| {
                let image = match &**kept {
                    Kept::Image(image) => image.bytes.len(),
                    Kept::Failed => 0,
                };
                u32::try_from(key.len() + image + ENTRY_OVERHEAD).unwrap_or(u32::MAX)
            })
            .expire_after(Lifetimes {
                image: config.fresh_for,
                failure: config.failure_kept_for,
            })
            .build();
        let fetcher = upstream::Fetcher::new(config)
            .inspect_err(|e| tracing::error!(error = %e, "thumbnail client: every thumbnail is a placeholder"))
            .ok();
        Self { fetcher, kept }
    }

    /// The picture at `url`, kept or fetched now; `None` when there is none
    /// to show (no address, one this server does not fetch from, or a
    /// failed fetch): the caller draws the placeholder.
    pub async fn image(&self, url: Option<&str>) -> Option<Image> {
        let url = url?;
        let fetcher = self.fetcher.as_ref()?;
        let target = fetcher.allowed(url)?;
        if let Some(kept) = self.kept.get(url) {
            return match &*kept {
                Kept::Image(image) => Some(image.clone()),
                Kept::Failed => None,
            };
        }
        let kept = match fetcher.fetch(target).await {
            Ok(image) => Kept::Image(image),
            Err(e) => {
                tracing::debug!(error = %e, "thumbnail not fetched: the placeholder stands in");
                Kept::Failed
            }
        };
        let kept = Arc::new(kept);
        self.kept.insert(url.to_owned(), kept.clone());
        match &*kept {
            Kept::Image(image) => Some(image.clone()),
            Kept::Failed => None,
        }
    }
}
