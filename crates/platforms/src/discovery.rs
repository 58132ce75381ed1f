//! What a creator's discovery reads (docs/glossary.md, "Discovery"): its
//! channel again and the videos published since its last visit. The worker's
//! daily discovery and a creator refreshed on demand read alike.

use chrono::{DateTime, Utc};
use vidpulse_domain::Platform;

use crate::{Channel, ChannelVideo, Source, SourceError};

/// Reads `username`'s channel on `platform` and, when `limit` is above 0,
/// its newest videos: those published at or after `since` (or without a
/// publish time: tracking one already tracked costs nothing), newest first,
/// at most `limit`.
pub async fn discover_channel(
    source: &dyn Source,
    platform: Platform,
    username: &str,
    since: DateTime<Utc>,
    limit: i64,
) -> Result<(Channel, Vec<ChannelVideo>), SourceError> {
    let channel = source.resolve_channel(platform, username).await?;
    let listed = if limit > 0 {
        let most = usize::try_from(limit).unwrap_or(0);
        source.recent_videos(&channel, most).await?
    } else {
        Vec::new()
    };
    Ok((channel, new_videos(listed, since, limit)))
}

/// The listed videos that are new: published at or after `since` (or with
/// no publish time), at most `limit`.
fn new_videos(listed: Vec<ChannelVideo>, since: DateTime<Utc>, limit: i64) -> Vec<ChannelVideo> {
    listed
        .into_iter()
        .filter(|v| v.published_at.is_none_or(|p| p >= since))
        .take(usize::try_from(limit).unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    fn video(id: &str, published: Option<DateTime<Utc>>) -> ChannelVideo {
        ChannelVideo {
            external_id: id.into(),
            canonical_url: format!("https://www.youtube.com/watch?v={id}"),
            published_at: published,
            title: None,
        }
    }

    #[test]
    fn new_videos_are_those_published_since_the_last_run() {
        let since = Utc.with_ymd_and_hms(2026, 11, 20, 0, 0, 0).unwrap();
        let listed = vec![
            video("a", Some(since + Duration::hours(5))),
            video("b", None),
            video("c", Some(since)),
            video("d", Some(since - Duration::seconds(1))),
        ];
        let ids = |v: Vec<ChannelVideo>| v.into_iter().map(|v| v.external_id).collect::<Vec<_>>();
        assert_eq!(ids(new_videos(listed.clone(), since, 10)), ["a", "b", "c"]);
        assert_eq!(ids(new_videos(listed.clone(), since, 2)), ["a", "b"]);
        assert!(new_videos(listed, since, 0).is_empty());
    }
}
