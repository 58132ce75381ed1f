//! The live platform source, built from the settings (`--upstream live`):
//! which adapter serves each platform and operation (docs/platforms.md).
//!
//! | platform  | videos                      | creators                          | trends              |
//! |-----------|-----------------------------|-----------------------------------|---------------------|
//! | YouTube   | Data API, or yt-dlp         | Data API with a key, else yt-dlp  | Data API (key)      |
//! | TikTok    | yt-dlp, or the Research API | same adapter as videos            | Research API (keys) |
//! | Instagram | yt-dlp                      | Graph API (token)                 | not offered         |
//!
//! yt-dlp is probed once at start: when it is missing, the routes that need
//! it are reported unavailable and the service starts without them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use secrecy::ExposeSecret;
use vidpulse_domain::Platform;
use vidpulse_platforms::instagram_graph::{InstagramGraphConfig, InstagramGraphSource};
use vidpulse_platforms::live::{LiveSource, PlatformRoutes, Route};
use vidpulse_platforms::tiktok_research::{TiktokResearchConfig, TiktokResearchSource};
use vidpulse_platforms::youtube::{YoutubeConfig, YoutubeSource};
use vidpulse_platforms::ytdlp::{YtDlpConfig, YtDlpSource};
use vidpulse_platforms::{ShortLinkConfig, ShortLinkResolver, Source};

use crate::config::{LiveArgs, TiktokAdapter, YoutubeAdapter};

/// Builds the live source and the short-link resolver. Adapters with
/// settings that cannot work (a bad base URL) are an error; a missing
/// yt-dlp only makes its routes unavailable, each logged at start.
pub async fn live_sources(args: &LiveArgs) -> anyhow::Result<(LiveSource, ShortLinkResolver)> {
    vidpulse_platforms::http::install_crypto_provider();
    let ytdlp = ytdlp_route(args).await;

    let youtube_api: Option<Arc<dyn Source>> = match &args.youtube_api_key {
        Some(key) => {
            let mut config = YoutubeConfig::new(key.expose_secret().to_owned());
            config.base_url = args.youtube_api_base.clone();
            config.daily_quota = args.youtube_daily_quota;
            let source = YoutubeSource::new(config)
                .map_err(|e| anyhow::anyhow!("{e}"))
                .context("cannot set up the YouTube Data API adapter")?;
            Some(Arc::new(source))
        }
        None => None,
    };
    let tiktok_research: Option<Arc<dyn Source>> =
        match (&args.tiktok_client_key, &args.tiktok_client_secret) {
            (Some(key), Some(secret)) => {
                let mut config = TiktokResearchConfig::new(
                    key.expose_secret().to_owned(),
                    secret.expose_secret().to_owned(),
                );
                config.base_url = args.tiktok_api_base.clone();
                config.daily_requests = args.tiktok_daily_requests;
                let source = TiktokResearchSource::new(config)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .context("cannot set up the TikTok Research API adapter")?;
                Some(Arc::new(source))
            }
            _ => None,
        };
    let instagram_graph: Option<Arc<dyn Source>> =
        match (&args.instagram_access_token, &args.instagram_user_id) {
            (Some(token), Some(user)) => {
                let mut config =
                    InstagramGraphConfig::new(token.expose_secret().to_owned(), user.clone());
                config.base_url = args.instagram_graph_base.clone();
                let source = InstagramGraphSource::new(config)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .context("cannot set up the Instagram Graph API adapter")?;
                Some(Arc::new(source))
            }
            _ => None,
        };

    let api_or = |api: &Option<Arc<dyn Source>>, otherwise: Route| match api {
        Some(s) => Route::Via(s.clone()),
        None => otherwise,
    };
    let youtube = PlatformRoutes {
        videos: match args.youtube_adapter {
            YoutubeAdapter::Api => api_or(&youtube_api, missing("VIDPULSE_YOUTUBE_API_KEY")),
            YoutubeAdapter::Ytdlp => ytdlp.clone(),
        },
        channels: api_or(&youtube_api, ytdlp.clone()),
        trends: api_or(
            &youtube_api,
            missing("VIDPULSE_YOUTUBE_API_KEY (YouTube search needs the Data API)"),
        ),
    };
    let tiktok_videos = match args.tiktok_adapter {
        TiktokAdapter::Ytdlp => ytdlp.clone(),
        TiktokAdapter::Research => api_or(
            &tiktok_research,
            missing("VIDPULSE_TIKTOK_CLIENT_KEY and VIDPULSE_TIKTOK_CLIENT_SECRET"),
        ),
    };
    let tiktok = PlatformRoutes {
        channels: tiktok_videos.clone(),
        videos: tiktok_videos,
        trends: api_or(
            &tiktok_research,
            missing(
                "VIDPULSE_TIKTOK_CLIENT_KEY and VIDPULSE_TIKTOK_CLIENT_SECRET \
                 (TikTok search needs the Research API)",
            ),
        ),
    };
    let instagram = PlatformRoutes {
        videos: ytdlp.clone(),
        channels: api_or(
            &instagram_graph,
            missing("VIDPULSE_INSTAGRAM_ACCESS_TOKEN and VIDPULSE_INSTAGRAM_USER_ID"),
        ),
        trends: Route::Unavailable("Instagram has no trend search".into()),
    };
    let source = LiveSource::new(BTreeMap::from([
        (Platform::YouTube, youtube),
        (Platform::TikTok, tiktok),
        (Platform::Instagram, instagram),
    ]));
    let resolver = ShortLinkResolver::http(ShortLinkConfig::default())
        .map_err(|e| anyhow::anyhow!("cannot set up the short-link resolver: {e}"))?;
    Ok((source, resolver))
}

/// A route that needs settings nobody gave.
fn missing(settings: &str) -> Route {
    Route::Unavailable(format!("not configured: set {settings}"))
}

/// The yt-dlp adapter if its executable answers `--version`, else why not.
async fn ytdlp_route(args: &LiveArgs) -> Route {
    let source = YtDlpSource::new(YtDlpConfig {
        path: args.ytdlp_path.clone(),
        timeout: Duration::from_secs(args.ytdlp_timeout_secs),
        concurrency: args.ytdlp_concurrency,
        cookies_file: args.ytdlp_cookies.clone(),
        ..YtDlpConfig::default()
    });
    match source.probe().await {
        Ok(version) => {
            tracing::info!(%version, path = %args.ytdlp_path.display(), "yt-dlp found");
            Route::Via(Arc::new(source))
        }
        Err(e) => Route::Unavailable(format!("yt-dlp is unavailable: {e}")),
    }
}
