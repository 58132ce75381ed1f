//! The settings of the live platform adapters (`--upstream live`): which
//! adapter serves each platform, their credentials, base addresses, daily
//! quotas and the yt-dlp subprocess.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use secrecy::SecretString;
use url::Url;

use super::secrets::parse_secret;

/// Settings of the live platform adapters (`--upstream live`).
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// Adapter for YouTube videos: the Data API (needs a key) or yt-dlp.
    #[arg(long, env = "VIDPULSE_YOUTUBE_ADAPTER", value_enum, default_value_t = YoutubeAdapter::Api)]
    pub youtube_adapter: YoutubeAdapter,
    /// Key of the YouTube Data API v3.
    #[arg(long, env = "VIDPULSE_YOUTUBE_API_KEY", hide_env_values = true, value_parser = parse_secret)]
    pub youtube_api_key: Option<SecretString>,
    /// Base address of the YouTube Data API.
    #[arg(long, env = "VIDPULSE_YOUTUBE_API_BASE", default_value = "https://www.googleapis.com/youtube/v3", value_parser = parse_base_url)]
    pub youtube_api_base: Url,
    /// YouTube quota units per day (resets at midnight Pacific time).
    #[arg(long, env = "VIDPULSE_YOUTUBE_DAILY_QUOTA", default_value_t = 10_000)]
    pub youtube_daily_quota: u64,
    /// Adapter for TikTok videos and creators: yt-dlp (no credentials) or the Research API.
    #[arg(long, env = "VIDPULSE_TIKTOK_ADAPTER", value_enum, default_value_t = TiktokAdapter::Ytdlp)]
    pub tiktok_adapter: TiktokAdapter,
    /// Client key of the TikTok Research API (also enables TikTok trend search).
    #[arg(long, env = "VIDPULSE_TIKTOK_CLIENT_KEY", hide_env_values = true, value_parser = parse_secret)]
    pub tiktok_client_key: Option<SecretString>,
    /// Client secret of the TikTok Research API.
    #[arg(long, env = "VIDPULSE_TIKTOK_CLIENT_SECRET", hide_env_values = true, value_parser = parse_secret)]
    pub tiktok_client_secret: Option<SecretString>,
    /// Base address of the TikTok APIs.
    #[arg(long, env = "VIDPULSE_TIKTOK_API_BASE", default_value = "https://open.tiktokapis.com", value_parser = parse_base_url)]
    pub tiktok_api_base: Url,
    /// Research API requests per day (resets at midnight UTC).
    #[arg(long, env = "VIDPULSE_TIKTOK_DAILY_REQUESTS", default_value_t = 1000)]
    pub tiktok_daily_requests: u64,
    /// Access token of the Instagram Graph API (business discovery, for creators).
    #[arg(long, env = "VIDPULSE_INSTAGRAM_ACCESS_TOKEN", hide_env_values = true, value_parser = parse_secret)]
    pub instagram_access_token: Option<SecretString>,
    /// The Instagram Business account id the Graph API calls are made as.
    #[arg(long, env = "VIDPULSE_INSTAGRAM_USER_ID")]
    pub instagram_user_id: Option<String>,
    /// Base address of the Instagram Graph API.
    #[arg(long, env = "VIDPULSE_INSTAGRAM_GRAPH_BASE", default_value = "https://graph.facebook.com/v25.0", value_parser = parse_base_url)]
    pub instagram_graph_base: Url,
    /// Path of the yt-dlp executable.
    #[arg(long, env = "VIDPULSE_YTDLP_PATH", default_value = "yt-dlp")]
    pub ytdlp_path: PathBuf,
    /// yt-dlp processes running at once.
    #[arg(long, env = "VIDPULSE_YTDLP_CONCURRENCY", default_value_t = 4)]
    pub ytdlp_concurrency: usize,
    /// Longest a yt-dlp call may take, in seconds.
    #[arg(long, env = "VIDPULSE_YTDLP_TIMEOUT_SECS", default_value_t = 60)]
    pub ytdlp_timeout_secs: u64,
    /// A cookies file for yt-dlp (Instagram often needs one).
    #[arg(long, env = "VIDPULSE_YTDLP_COOKIES")]
    pub ytdlp_cookies: Option<PathBuf>,
}

/// Adapters for YouTube videos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum YoutubeAdapter {
    /// The YouTube Data API v3.
    Api,
    /// yt-dlp.
    Ytdlp,
}

/// Adapters for TikTok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TiktokAdapter {
    /// yt-dlp.
    Ytdlp,
    /// The TikTok Research API.
    Research,
}

/// Parses a base address and gives it a trailing slash, so paths join below it.
fn parse_base_url(s: &str) -> Result<Url, String> {
    let mut url = Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must be an http or https URL".into());
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

impl LiveArgs {
    /// Checks that the chosen adapters have their settings; the error names the missing one.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.youtube_adapter == YoutubeAdapter::Api && self.youtube_api_key.is_none() {
            anyhow::bail!(
                "VIDPULSE_YOUTUBE_API_KEY is required for live YouTube through the Data API (or set VIDPULSE_YOUTUBE_ADAPTER=ytdlp)"
            );
        }
        if self.tiktok_adapter == TiktokAdapter::Research {
            if self.tiktok_client_key.is_none() {
                anyhow::bail!(
                    "VIDPULSE_TIKTOK_CLIENT_KEY is required with VIDPULSE_TIKTOK_ADAPTER=research"
                );
            }
            if self.tiktok_client_secret.is_none() {
                anyhow::bail!(
                    "VIDPULSE_TIKTOK_CLIENT_SECRET is required with VIDPULSE_TIKTOK_ADAPTER=research"
                );
            }
        }
        if self.tiktok_client_key.is_some() != self.tiktok_client_secret.is_some() {
            anyhow::bail!(
                "VIDPULSE_TIKTOK_CLIENT_KEY and VIDPULSE_TIKTOK_CLIENT_SECRET must be set together"
            );
        }
        if self.instagram_access_token.is_some() != self.instagram_user_id.is_some() {
            anyhow::bail!(
                "VIDPULSE_INSTAGRAM_ACCESS_TOKEN and VIDPULSE_INSTAGRAM_USER_ID must be set together"
            );
        }
        if self.ytdlp_concurrency == 0 {
            anyhow::bail!("VIDPULSE_YTDLP_CONCURRENCY must be at least 1");
        }
        if self.ytdlp_timeout_secs == 0 {
            anyhow::bail!("VIDPULSE_YTDLP_TIMEOUT_SECS must be at least 1");
        }
        Ok(())
    }
}
