//! Where a tracked video's picture comes from, for a user who may see it:
//! what the thumbnail route needs, asked without an organization (a
//! browser's `<img>` sends the session cookie and nothing else).

use async_trait::async_trait;
use vidpulse_domain::{Platform, UserId, VideoId};

use crate::StoreError;

mod store;

/// A tracked video's platform and the picture address it last reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThumbnailSource {
    /// The video's platform.
    pub platform: Platform,
    /// The platform's picture of it, when it gave one.
    pub thumbnail_url: Option<String>,
}

/// Thumbnails of tracked videos.
#[async_trait]
pub trait ThumbnailStore {
    /// The platform and picture of tracked video `video` when `user` is a
    /// member of the organization that tracks it; `None` otherwise (no such
    /// video, or one of an organization `user` is not in).
    async fn thumbnail_source(
        &self,
        user: UserId,
        video: VideoId,
    ) -> Result<Option<ThumbnailSource>, StoreError>;
}
