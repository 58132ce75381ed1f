//! Thumbnails, stored: the one implementation of [`ThumbnailStore`] for both
//! backends.

use async_trait::async_trait;
use vidpulse_domain::{UserId, VideoId};

use super::{ThumbnailSource, ThumbnailStore};
use crate::StoreError;
use crate::error::parse_platform;
use crate::sql::{Dialect, SqlStore};

#[async_trait]
impl<D: Dialect> ThumbnailStore for SqlStore<D> {
    async fn thumbnail_source(
        &self,
        user: UserId,
        video: VideoId,
    ) -> Result<Option<ThumbnailSource>, StoreError> {
        let row: Option<(String, Option<String>)> = D::query(
            "SELECT pv.platform, pv.thumbnail_url FROM tracked_videos tv
             JOIN memberships m ON m.organization_id = tv.organization_id AND m.user_id = $2
             JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.id = $1",
        )
        .bind(video.0)
        .bind(user.0)
        .fetch_optional(&mut *self.read().await?)
        .await?;
        row.map(|(platform, thumbnail_url)| {
            Ok(ThumbnailSource {
                platform: parse_platform(&platform)?,
                thumbnail_url,
            })
        })
        .transpose()
    }
}
