//! The live source: routes each platform and operation to the adapter the
//! operator chose (docs/platforms.md): YouTube through the Data API,
//! TikTok through yt-dlp or the Research API, Instagram reels through yt-dlp
//! and Instagram creators through the Graph API. A route without an adapter
//! answers [`SourceError::Unsupported`] with the reason, so the service keeps
//! working for the other platforms.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use vidpulse_domain::Platform;

use crate::http::UpstreamSnapshot;
use crate::source::{
    Channel, ChannelVideo, ReadOutcome, Source, SourceError, TrendPage, TrendQuery,
};

/// An adapter for one route, or why there is none.
#[derive(Debug, Clone)]
pub enum Route {
    /// Served by this adapter.
    Via(Arc<dyn Source>),
    /// Not available, and why (shown to users and in logs).
    Unavailable(String),
}

impl Route {
    fn get(&self) -> Result<&Arc<dyn Source>, SourceError> {
        match self {
            Route::Via(s) => Ok(s),
            Route::Unavailable(why) => Err(SourceError::Unsupported(why.clone())),
        }
    }
}

/// The adapters of one platform, per operation.
#[derive(Debug, Clone)]
pub struct PlatformRoutes {
    /// Reading videos by id.
    pub videos: Route,
    /// Resolving channels and listing their videos.
    pub channels: Route,
    /// Keyword search.
    pub trends: Route,
}

/// Routes every operation to its adapter.
#[derive(Debug, Clone)]
pub struct LiveSource {
    routes: BTreeMap<Platform, PlatformRoutes>,
}

impl LiveSource {
    /// A live source with these routes; a platform without routes is unavailable.
    pub fn new(routes: BTreeMap<Platform, PlatformRoutes>) -> Self {
        Self { routes }
    }

    fn routes(&self, platform: Platform) -> Result<&PlatformRoutes, SourceError> {
        self.routes.get(&platform).ok_or_else(|| {
            SourceError::Unsupported(format!("{} is not configured", platform.display_name()))
        })
    }

    /// One line per unavailable route, for the start-up log.
    pub fn unavailable(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (platform, r) in &self.routes {
            for (what, route) in [
                ("videos", &r.videos),
                ("creators", &r.channels),
                ("trends", &r.trends),
            ] {
                if let Route::Unavailable(why) = route {
                    out.push(format!("{} {what}: {why}", platform.display_name()));
                }
            }
        }
        out
    }
}

#[async_trait]
impl Source for LiveSource {
    fn max_batch(&self, platform: Platform) -> usize {
        match self.routes(platform).and_then(|r| r.videos.get()) {
            Ok(s) => s.max_batch(platform),
            Err(_) => 1,
        }
    }

    async fn read_videos(
        &self,
        platform: Platform,
        external_ids: &[String],
    ) -> Result<Vec<(String, ReadOutcome)>, SourceError> {
        self.routes(platform)?
            .videos
            .get()?
            .read_videos(platform, external_ids)
            .await
    }

    async fn resolve_channel(
        &self,
        platform: Platform,
        username: &str,
    ) -> Result<Channel, SourceError> {
        self.routes(platform)?
            .channels
            .get()?
            .resolve_channel(platform, username)
            .await
    }

    async fn recent_videos(
        &self,
        channel: &Channel,
        limit: usize,
    ) -> Result<Vec<ChannelVideo>, SourceError> {
        self.routes(channel.platform)?
            .channels
            .get()?
            .recent_videos(channel, limit)
            .await
    }

    async fn search_trends(
        &self,
        platform: Platform,
        query: &TrendQuery,
    ) -> Result<TrendPage, SourceError> {
        self.routes(platform)?
            .trends
            .get()?
            .search_trends(platform, query)
            .await
    }

    fn upstream_stats(&self) -> Vec<UpstreamSnapshot> {
        let mut seen: BTreeMap<&'static str, UpstreamSnapshot> = BTreeMap::new();
        for r in self.routes.values() {
            for route in [&r.videos, &r.channels, &r.trends] {
                if let Route::Via(s) = route {
                    for snap in s.upstream_stats() {
                        seen.entry(snap.name).or_insert(snap);
                    }
                }
            }
        }
        seen.into_values().collect()
    }
}
