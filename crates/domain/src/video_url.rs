//! Video URLs of each platform: parse once into a [`ParsedUrl`], then trust it.
//!
//! The parser accepts only the exact hosts of TikTok, Instagram and YouTube
//! (no suffix matching), only `http`/`https`, no credentials and no explicit
//! port, so a [`ShortLink`] it returns is safe to fetch. [`is_platform_host`]
//! tells the short-link resolver where a redirect may land.
//!
//! The accepted shapes and ids: docs/platforms.md, "Video URLs and ids".

use url::{Host, Url};

use crate::platform::Platform;

/// A video on a platform, identified the way the platform does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VideoRef {
    /// The platform.
    pub platform: Platform,
    /// The platform's id of the video (TikTok: decimal digits; YouTube: 11
    /// characters; Instagram: the shortcode).
    pub external_id: String,
    /// The canonical page URL of the video.
    pub canonical_url: String,
}

impl VideoRef {
    /// The author's handle the canonical URL names, without `@`: TikTok's
    /// `/@user/video/…` (`None` when empty, as for `m.tiktok.com/v/…`
    /// links). YouTube and Instagram URLs name none.
    pub fn handle(&self) -> Option<&str> {
        if self.platform != Platform::TikTok {
            return None;
        }
        let rest = self
            .canonical_url
            .strip_prefix("https://www.tiktok.com/@")?;
        let (user, _) = rest.split_once("/video/")?;
        (!user.is_empty() && is_tiktok_username(user)).then_some(user)
    }
}

/// A short link that must be followed to find the video it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortLink {
    /// The platform whose short-link host this is.
    pub platform: Platform,
    /// The short link, normalised to `https`.
    pub url: Url,
}

/// What a video URL turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedUrl {
    /// A URL that names a video directly.
    Video(VideoRef),
    /// A short link on one of the platforms' own short-link hosts.
    ShortLink(ShortLink),
}

/// The longest input accepted, in bytes.
pub const MAX_URL_LEN: usize = 2048;

/// Why a string is not a trackable video URL. The message is shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Nothing but whitespace.
    #[error("empty URL: paste the link of a TikTok, Instagram or YouTube video")]
    Empty,
    /// Longer than [`MAX_URL_LEN`].
    #[error("URL too long: at most {MAX_URL_LEN} characters are accepted")]
    TooLong,
    /// Not a URL at all.
    #[error("not a valid URL: {0}")]
    Malformed(String),
    /// A scheme other than `http` or `https`.
    #[error("unsupported URL scheme `{0}`: use an https link")]
    UnsupportedScheme(String),
    /// A user name or password before the host.
    #[error("URLs with a user name or password are not accepted")]
    Credentials,
    /// An explicit, non-default port.
    #[error("URLs with an explicit port (`:{0}`) are not accepted")]
    Port(u16),
    /// A host of no supported platform (or a lookalike of one).
    #[error("unsupported host `{0}`: supported platforms are TikTok, Instagram and YouTube")]
    UnsupportedHost(String),
    /// A TikTok or Instagram profile page.
    #[error("not a video URL: this is a {} profile, not a video", .0.display_name())]
    Profile(Platform),
    /// A YouTube channel page.
    #[error("not a video URL: this is a YouTube channel, not a video")]
    Channel,
    /// A YouTube playlist without a video in it.
    #[error("not a video URL: this is a YouTube playlist; link one of its videos instead")]
    Playlist,
    /// A TikTok photo (slideshow) post.
    #[error("not a video: this TikTok link is a photo post")]
    PhotoPost,
    /// Another page of a platform (home, search, login...).
    #[error("not a video URL: this {} link does not point at a video", .0.display_name())]
    NotAVideo(Platform),
    /// The video id has the wrong shape for its platform.
    #[error("invalid {} video id `{id}`: expected {expected}", .platform.display_name())]
    InvalidId {
        /// The platform.
        platform: Platform,
        /// The id as found (clipped).
        id: String,
        /// What a valid id looks like.
        expected: &'static str,
    },
    /// The code of a short link has the wrong shape.
    #[error("invalid {} short link code `{code}`: expected {expected}", .platform.display_name())]
    InvalidShortLink {
        /// The platform.
        platform: Platform,
        /// The code as found (clipped).
        code: String,
        /// What a valid code looks like.
        expected: &'static str,
    },
    /// The user name in a TikTok video URL has the wrong shape.
    #[error("invalid {} user name `{name}` in the URL", .platform.display_name())]
    InvalidUsername {
        /// The platform.
        platform: Platform,
        /// The user name as found (clipped).
        name: String,
    },
}

const TIKTOK_ID: &str = "15 to 20 digits";
const YOUTUBE_ID: &str = "11 letters, digits, `-` or `_`";
const INSTAGRAM_CODE: &str = "5 to 60 letters, digits, `-` or `_`";
const TIKTOK_CODE: &str = "5 to 20 letters, digits or `_`";

/// Parses a video URL of any supported platform.
pub fn parse_video_url(input: &str) -> Result<ParsedUrl, UrlError> {
    let url = parse_web_url(input)?;
    let host = match url.host() {
        Some(Host::Domain(domain)) => domain.to_ascii_lowercase(),
        Some(other) => return Err(UrlError::UnsupportedHost(other.to_string())),
        None => return Err(UrlError::Malformed("the URL has no host".to_owned())),
    };
    // Empty segments come from trailing or doubled slashes: ignore them.
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    let Some(kind) = host_kind(&host) else {
        return Err(UrlError::UnsupportedHost(clip(&host)));
    };
    match kind {
        HostKind::TikTokWeb
        | HostKind::TikTokMobile
        | HostKind::TikTokV
        | HostKind::TikTokShort => parse_tiktok(kind, &host, &segments),
        HostKind::Instagram => parse_instagram(&segments),
        HostKind::YouTube | HostKind::YouTubeNoCookie | HostKind::YouTuBe => {
            parse_youtube(kind, &url, &segments)
        }
    }
}

/// The canonical page URL of a video known only by its id. Instagram gets the
/// `/p/` form; a TikTok `username` is used only if it is a valid user name.
pub fn canonical_url(platform: Platform, external_id: &str, username: Option<&str>) -> String {
    match platform {
        Platform::TikTok => {
            let user = username
                .map(|u| u.strip_prefix('@').unwrap_or(u))
                .filter(|u| is_tiktok_username(u))
                .unwrap_or("");
            tiktok_canonical(user, external_id)
        }
        Platform::Instagram => instagram_canonical("p", external_id),
        Platform::YouTube => youtube_canonical(external_id),
    }
}

/// Whether a redirect of `platform` may land on `host` (exact names, any case;
/// TikTok also allows every subdomain of `tiktok.com`).
pub fn is_platform_host(platform: Platform, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    match platform {
        Platform::TikTok => {
            host == "tiktok.com"
                || host.strip_suffix(".tiktok.com").is_some_and(is_dns_labels)
                || host == "tiktokv.com"
                || host == "www.tiktokv.com"
        }
        Platform::Instagram => matches!(host_kind(&host), Some(HostKind::Instagram)),
        Platform::YouTube => matches!(
            host_kind(&host),
            Some(HostKind::YouTube | HostKind::YouTubeNoCookie | HostKind::YouTuBe)
        ),
    }
}

/// Whether short links of `platform` live on `host` (where resolution may start).
pub fn is_short_link_host(platform: Platform, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    match platform {
        Platform::TikTok => matches!(
            host.as_str(),
            "vm.tiktok.com" | "vt.tiktok.com" | "www.tiktok.com" | "tiktok.com"
        ),
        Platform::Instagram => matches!(host_kind(&host), Some(HostKind::Instagram)),
        Platform::YouTube => false,
    }
}

const IG_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Instagram's numeric media pk of a shortcode (base 64, `A`=0 ... `_`=63);
/// `None` if the shortcode has other characters or overflows.
pub fn instagram_shortcode_to_pk(shortcode: &str) -> Option<u128> {
    let bytes = shortcode.as_bytes();
    // Private posts append 28 characters that are not part of the pk.
    let digits = if bytes.len() > 28 {
        bytes.get(..bytes.len() - 28)?
    } else {
        bytes
    };
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u128, |acc, &b| {
        let digit = IG_ALPHABET.iter().position(|&c| c == b)?;
        acc.checked_mul(64)?
            .checked_add(u128::try_from(digit).ok()?)
    })
}

/// The shortcode of an Instagram media pk (inverse of [`instagram_shortcode_to_pk`]).
pub fn instagram_pk_to_shortcode(mut pk: u128) -> String {
    let mut out = Vec::new();
    loop {
        out.push(IG_ALPHABET[(pk % 64) as usize]);
        pk /= 64;
        if pk == 0 {
            break;
        }
    }
    out.iter().rev().map(|&b| char::from(b)).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HostKind {
    TikTokWeb,
    TikTokMobile,
    TikTokV,
    TikTokShort,
    Instagram,
    YouTube,
    YouTubeNoCookie,
    YouTuBe,
}

fn host_kind(host: &str) -> Option<HostKind> {
    Some(match host {
        "www.tiktok.com" | "tiktok.com" => HostKind::TikTokWeb,
        "m.tiktok.com" => HostKind::TikTokMobile,
        "www.tiktokv.com" | "tiktokv.com" => HostKind::TikTokV,
        "vm.tiktok.com" | "vt.tiktok.com" => HostKind::TikTokShort,
        "www.instagram.com" | "instagram.com" => HostKind::Instagram,
        "www.youtube.com" | "youtube.com" | "m.youtube.com" | "music.youtube.com" => {
            HostKind::YouTube
        }
        "www.youtube-nocookie.com" | "youtube-nocookie.com" => HostKind::YouTubeNoCookie,
        "youtu.be" => HostKind::YouTuBe,
        _ => return None,
    })
}

/// `a.b-c` style labels: non-empty, letters, digits and inner hyphens.
fn is_dns_labels(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// Trims, adds a missing `https://`, and keeps only plain http(s) URLs.
fn parse_web_url(input: &str) -> Result<Url, UrlError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(UrlError::Empty);
    }
    if input.len() > MAX_URL_LEN {
        return Err(UrlError::TooLong);
    }
    let url = match Url::parse(input) {
        // `www.tiktok.com:443/...` parses with the "scheme" `www.tiktok.com`;
        // a real scheme has no dot, so such input lacks its scheme.
        Ok(url) if !url.scheme().contains('.') => url,
        Ok(_) | Err(url::ParseError::RelativeUrlWithoutBase) => {
            let with_scheme = if input.starts_with("//") {
                format!("https:{input}")
            } else {
                format!("https://{input}")
            };
            Url::parse(&with_scheme).map_err(|e| UrlError::Malformed(e.to_string()))?
        }
        Err(e) => return Err(UrlError::Malformed(e.to_string())),
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlError::UnsupportedScheme(clip(url.scheme())));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlError::Credentials);
    }
    if let Some(port) = url.port() {
        return Err(UrlError::Port(port));
    }
    Ok(url)
}

fn parse_tiktok(kind: HostKind, host: &str, segments: &[&str]) -> Result<ParsedUrl, UrlError> {
    let web = matches!(kind, HostKind::TikTokWeb | HostKind::TikTokMobile);
    match (kind, segments) {
        (HostKind::TikTokShort, [code]) => {
            tiktok_short_link(&format!("https://{host}/{}/", tiktok_code(code)?))
        }
        (HostKind::TikTokWeb, ["t", code]) => {
            tiktok_short_link(&format!("https://www.tiktok.com/t/{}/", tiktok_code(code)?))
        }
        (HostKind::TikTokMobile, ["v", file]) => {
            tiktok_video("", file.strip_suffix(".html").unwrap_or(file))
        }
        (HostKind::TikTokV, ["share", "video", id]) => tiktok_video("", id),
        (_, [user, "video", id]) if web && user.starts_with('@') => {
            let name = &user[1..];
            if !is_tiktok_username(name) {
                return Err(UrlError::InvalidUsername {
                    platform: Platform::TikTok,
                    name: clip(name),
                });
            }
            tiktok_video(name, id)
        }
        (_, [user, "photo", ..]) if web && user.starts_with('@') => Err(UrlError::PhotoPost),
        (_, [user, ..]) if web && user.starts_with('@') => Err(UrlError::Profile(Platform::TikTok)),
        (_, ["embed", id] | ["embed", "v2", id] | ["share", "video", id]) if web => {
            tiktok_video("", id)
        }
        _ => Err(UrlError::NotAVideo(Platform::TikTok)),
    }
}

fn tiktok_code(code: &str) -> Result<&str, UrlError> {
    let ok = (5..=20).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(code)
    } else {
        Err(UrlError::InvalidShortLink {
            platform: Platform::TikTok,
            code: clip(code),
            expected: TIKTOK_CODE,
        })
    }
}

fn tiktok_short_link(url: &str) -> Result<ParsedUrl, UrlError> {
    short_link(Platform::TikTok, url)
}

fn short_link(platform: Platform, url: &str) -> Result<ParsedUrl, UrlError> {
    let url = Url::parse(url).map_err(|e| UrlError::Malformed(e.to_string()))?;
    Ok(ParsedUrl::ShortLink(ShortLink { platform, url }))
}

fn is_tiktok_username(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn tiktok_video(user: &str, id: &str) -> Result<ParsedUrl, UrlError> {
    if !((15..=20).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit())) {
        return Err(UrlError::InvalidId {
            platform: Platform::TikTok,
            id: clip(id),
            expected: TIKTOK_ID,
        });
    }
    Ok(video(Platform::TikTok, id, tiktok_canonical(user, id)))
}

fn tiktok_canonical(user: &str, id: &str) -> String {
    format!("https://www.tiktok.com/@{user}/video/{id}")
}

fn parse_youtube(kind: HostKind, url: &Url, segments: &[&str]) -> Result<ParsedUrl, UrlError> {
    match (kind, segments) {
        (HostKind::YouTuBe, [id]) => youtube_video(id),
        (HostKind::YouTubeNoCookie, ["embed", "videoseries"]) => Err(UrlError::Playlist),
        (HostKind::YouTubeNoCookie, ["embed", id]) => youtube_video(id),
        (HostKind::YouTube, ["watch"]) => {
            let query_value = |key: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.into_owned())
            };
            match query_value("v") {
                Some(id) => youtube_video(&id),
                None if query_value("list").is_some() => Err(UrlError::Playlist),
                None => Err(UrlError::NotAVideo(Platform::YouTube)),
            }
        }
        (HostKind::YouTube, ["embed", "videoseries"] | ["playlist"]) => Err(UrlError::Playlist),
        (HostKind::YouTube, ["shorts" | "live" | "embed" | "v", id]) => youtube_video(id),
        (HostKind::YouTube, [first, ..])
            if first.starts_with('@') || matches!(*first, "channel" | "c" | "user") =>
        {
            Err(UrlError::Channel)
        }
        _ => Err(UrlError::NotAVideo(Platform::YouTube)),
    }
}

fn youtube_video(id: &str) -> Result<ParsedUrl, UrlError> {
    let ok = id.len() == 11
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err(UrlError::InvalidId {
            platform: Platform::YouTube,
            id: clip(id),
            expected: YOUTUBE_ID,
        });
    }
    Ok(video(Platform::YouTube, id, youtube_canonical(id)))
}

fn youtube_canonical(id: &str) -> String {
    format!("https://www.youtube.com/watch?v={id}")
}

/// First path segments that are Instagram pages, not user names.
const IG_RESERVED: &[&str] = &[
    "explore",
    "accounts",
    "direct",
    "stories",
    "about",
    "developer",
    "legal",
    "web",
    "share",
];

fn parse_instagram(segments: &[&str]) -> Result<ParsedUrl, UrlError> {
    let is_kind = |s: &str| matches!(s, "p" | "reel" | "reels" | "tv");
    let is_user = |s: &str| {
        (1..=30).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
            && !IG_RESERVED.contains(&s)
            && !is_kind(s)
    };
    match segments {
        ["share", kind, code] if is_kind(kind) => instagram_share(&format!("{kind}/"), code),
        ["share", code] => instagram_share("", code),
        [kind, code] if is_kind(kind) => instagram_video(kind, code),
        [user, kind, code] if is_kind(kind) && is_user(user) => instagram_video(kind, code),
        [user] | [user, "reels" | "tagged" | "saved"] if is_user(user) => {
            Err(UrlError::Profile(Platform::Instagram))
        }
        _ => Err(UrlError::NotAVideo(Platform::Instagram)),
    }
}

fn instagram_code_ok(code: &str) -> bool {
    (5..=60).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn instagram_share(kind_path: &str, code: &str) -> Result<ParsedUrl, UrlError> {
    if !instagram_code_ok(code) {
        return Err(UrlError::InvalidShortLink {
            platform: Platform::Instagram,
            code: clip(code),
            expected: INSTAGRAM_CODE,
        });
    }
    short_link(
        Platform::Instagram,
        &format!("https://www.instagram.com/share/{kind_path}{code}/"),
    )
}

fn instagram_video(kind: &str, code: &str) -> Result<ParsedUrl, UrlError> {
    if !instagram_code_ok(code) {
        return Err(UrlError::InvalidId {
            platform: Platform::Instagram,
            id: clip(code),
            expected: INSTAGRAM_CODE,
        });
    }
    let kind = if kind == "p" { "p" } else { "reel" };
    Ok(video(
        Platform::Instagram,
        code,
        instagram_canonical(kind, code),
    ))
}

fn instagram_canonical(kind: &str, code: &str) -> String {
    format!("https://www.instagram.com/{kind}/{code}/")
}

fn video(platform: Platform, id: &str, canonical_url: String) -> ParsedUrl {
    ParsedUrl::Video(VideoRef {
        platform,
        external_id: id.to_owned(),
        canonical_url,
    })
}

/// Keeps echoed user input short in error messages.
fn clip(s: &str) -> String {
    const MAX: usize = 64;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rstest::rstest;

    use super::*;

    const TT: &str = "7312345678901234567";
    const YT: &str = "aZ3kQm9TfLw";
    const IG: &str = "CWqAgUZgCku";

    fn video_of(input: &str) -> VideoRef {
        match parse_video_url(input) {
            Ok(ParsedUrl::Video(v)) => v,
            other => panic!("{input}: expected a video, got {other:?}"),
        }
    }

    #[test]
    fn a_tiktok_url_names_its_author() {
        let handle = |input: &str| video_of(input).handle().map(str::to_owned);
        let url = format!("https://www.tiktok.com/@Mira.Cooks/video/{TT}?lang=en");
        assert_eq!(handle(&url).as_deref(), Some("Mira.Cooks"));
        assert_eq!(handle(&format!("https://m.tiktok.com/v/{TT}.html")), None);
        assert_eq!(handle(&format!("https://youtu.be/{YT}")), None);
        assert_eq!(
            handle(&format!("https://www.instagram.com/reel/{IG}/")),
            None
        );
        let listed = canonical_url(Platform::TikTok, TT, Some("@ana.cooks"));
        let listed = VideoRef {
            platform: Platform::TikTok,
            external_id: TT.to_owned(),
            canonical_url: listed,
        };
        assert_eq!(listed.handle(), Some("ana.cooks"));
    }

    #[rustfmt::skip]
    #[rstest]
    // TikTok video pages
    #[case("https://www.tiktok.com/@mira.cooks/video/7312345678901234567", TT, "https://www.tiktok.com/@mira.cooks/video/7312345678901234567")]
    #[case("https://www.tiktok.com/@mira.cooks/video/7312345678901234567?is_from_webapp=1&sender_device=pc", TT, "https://www.tiktok.com/@mira.cooks/video/7312345678901234567")]
    #[case("https://tiktok.com/@mira_cooks-1/video/7312345678901234567/", TT, "https://www.tiktok.com/@mira_cooks-1/video/7312345678901234567")]
    #[case("https://www.tiktok.com/@/video/7312345678901234567", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("www.tiktok.com/@a/video/7312345678901234567", TT, "https://www.tiktok.com/@a/video/7312345678901234567")]
    #[case("tiktok.com/@a/video/7312345678901234567?_r=1&_t=8abc", TT, "https://www.tiktok.com/@a/video/7312345678901234567")]
    #[case("  http://WWW.TikTok.com/@a/video/7312345678901234567#comments \n", TT, "https://www.tiktok.com/@a/video/7312345678901234567")]
    #[case("https://www.tiktok.com:443/@a/video/7312345678901234567", TT, "https://www.tiktok.com/@a/video/7312345678901234567")]
    #[case("https://www.tiktok.com/@a/video/123456789012345", "123456789012345", "https://www.tiktok.com/@a/video/123456789012345")]
    #[case("https://www.tiktok.com/@a/video/12345678901234567890", "12345678901234567890", "https://www.tiktok.com/@a/video/12345678901234567890")]
    #[case("https://m.tiktok.com/v/7312345678901234567.html?_r=1&_t=x", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("https://m.tiktok.com/v/7312345678901234567", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("https://m.tiktok.com/@a/video/7312345678901234567", TT, "https://www.tiktok.com/@a/video/7312345678901234567")]
    #[case("https://www.tiktok.com/embed/7312345678901234567", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("https://www.tiktok.com/embed/v2/7312345678901234567?lang=en", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("https://www.tiktok.com/share/video/7312345678901234567", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    #[case("https://www.tiktokv.com/share/video/7312345678901234567/", TT, "https://www.tiktok.com/@/video/7312345678901234567")]
    // YouTube
    #[case("https://www.youtube.com/watch?v=aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://youtube.com/watch?v=aZ3kQm9TfLw&t=42s", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://m.youtube.com/watch?feature=share&v=aZ3kQm9TfLw&list=PL123", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://music.youtube.com/watch?v=aZ3kQm9TfLw&si=abc", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("youtube.com/watch?v=aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("http://www.youtube.com/watch?v=a-_9Qw7x2bY", "a-_9Qw7x2bY", "https://www.youtube.com/watch?v=a-_9Qw7x2bY")]
    #[case("https://youtu.be/aZ3kQm9TfLw?si=xyz", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("youtu.be/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://www.youtube.com/shorts/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://youtube.com/shorts/aZ3kQm9TfLw?feature=share", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://www.youtube.com/live/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://www.youtube.com/embed/aZ3kQm9TfLw?start=10", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://www.youtube.com/v/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://www.youtube-nocookie.com/embed/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    #[case("https://youtube-nocookie.com/embed/aZ3kQm9TfLw", YT, "https://www.youtube.com/watch?v=aZ3kQm9TfLw")]
    // Instagram
    #[case("https://www.instagram.com/reel/CWqAgUZgCku/", IG, "https://www.instagram.com/reel/CWqAgUZgCku/")]
    #[case("https://instagram.com/reel/CWqAgUZgCku/?igsh=MWQ1ZGUxMzBkMA==", IG, "https://www.instagram.com/reel/CWqAgUZgCku/")]
    #[case("https://www.instagram.com/reels/CWqAgUZgCku/", IG, "https://www.instagram.com/reel/CWqAgUZgCku/")]
    #[case("https://www.instagram.com/tv/CWqAgUZgCku", IG, "https://www.instagram.com/reel/CWqAgUZgCku/")]
    #[case("https://www.instagram.com/marvelskies.fc/reel/CWqAgUZgCku/", IG, "https://www.instagram.com/reel/CWqAgUZgCku/")]
    #[case("https://www.instagram.com/p/CDUMkliABpa/?utm_source=ig_web_copy_link", "CDUMkliABpa", "https://www.instagram.com/p/CDUMkliABpa/")]
    #[case("instagram.com/p/CDUMkliABpa", "CDUMkliABpa", "https://www.instagram.com/p/CDUMkliABpa/")]
    #[case("https://www.instagram.com/mira_cooks/p/CDUMkliABpa/", "CDUMkliABpa", "https://www.instagram.com/p/CDUMkliABpa/")]
    fn accepts_video_urls(#[case] input: &str, #[case] id: &str, #[case] canonical: &str) {
        let v = video_of(input);
        let platform = if canonical.contains("tiktok") {
            Platform::TikTok
        } else if canonical.contains("youtube") {
            Platform::YouTube
        } else {
            Platform::Instagram
        };
        assert_eq!(
            v,
            VideoRef {
                platform,
                external_id: id.into(),
                canonical_url: canonical.into()
            }
        );
        // The canonical URL is itself accepted, unchanged.
        assert_eq!(video_of(canonical), v);
    }

    #[rustfmt::skip]
    #[rstest]
    #[case("https://vm.tiktok.com/ZMabc1234/", Platform::TikTok, "https://vm.tiktok.com/ZMabc1234/")]
    #[case("vt.tiktok.com/ZSabc1234?_r=1", Platform::TikTok, "https://vt.tiktok.com/ZSabc1234/")]
    #[case("http://VM.tiktok.com/ZMabc1234#x", Platform::TikTok, "https://vm.tiktok.com/ZMabc1234/")]
    #[case("http://www.tiktok.com/t/ZTabc_1234/", Platform::TikTok, "https://www.tiktok.com/t/ZTabc_1234/")]
    #[case("https://tiktok.com/t/ZTabc1234", Platform::TikTok, "https://www.tiktok.com/t/ZTabc1234/")]
    #[case("https://www.instagram.com/share/reel/BAKkmdn2kz/", Platform::Instagram, "https://www.instagram.com/share/reel/BAKkmdn2kz/")]
    #[case("https://instagram.com/share/p/BAKkmdn2kz?igsh=1", Platform::Instagram, "https://www.instagram.com/share/p/BAKkmdn2kz/")]
    #[case("https://www.instagram.com/share/BAKkmdn2kz/", Platform::Instagram, "https://www.instagram.com/share/BAKkmdn2kz/")]
    fn accepts_short_links(#[case] input: &str, #[case] platform: Platform, #[case] url: &str) {
        let expected = ShortLink {
            platform,
            url: Url::parse(url).unwrap(),
        };
        assert_eq!(parse_video_url(input), Ok(ParsedUrl::ShortLink(expected)));
        assert!(is_short_link_host(
            platform,
            Url::parse(url).unwrap().host_str().unwrap()
        ));
    }

    fn bad_id(platform: Platform, id: &str) -> UrlError {
        let expected = match platform {
            Platform::TikTok => TIKTOK_ID,
            Platform::YouTube => YOUTUBE_ID,
            Platform::Instagram => INSTAGRAM_CODE,
        };
        UrlError::InvalidId {
            platform,
            id: id.into(),
            expected,
        }
    }

    fn host(h: &str) -> UrlError {
        UrlError::UnsupportedHost(h.into())
    }

    #[rustfmt::skip]
    #[rstest]
    // input
    #[case("", UrlError::Empty)]
    #[case(" \t\n", UrlError::Empty)]
    #[case("ftp://www.tiktok.com/@a/video/7312345678901234567", UrlError::UnsupportedScheme("ftp".into()))]
    #[case("javascript:alert(1)", UrlError::UnsupportedScheme("javascript".into()))]
    #[case("file:///etc/passwd", UrlError::UnsupportedScheme("file".into()))]
    #[case("data:text/html,hi", UrlError::UnsupportedScheme("data".into()))]
    #[case("https://user:pw@www.tiktok.com/@a/video/7312345678901234567", UrlError::Credentials)]
    #[case("https://www.tiktok.com@evil.com/@a/video/7312345678901234567", UrlError::Credentials)]
    #[case("https://www.tiktok.com:8443/@a/video/7312345678901234567", UrlError::Port(8443))]
    #[case("www.youtube.com:8080/watch?v=aZ3kQm9TfLw", UrlError::Port(8080))]
    // hosts
    #[case("https://vimeo.com/123456", host("vimeo.com"))]
    #[case("https://tiktok.com.evil.com/@a/video/7312345678901234567", host("tiktok.com.evil.com"))]
    #[case("https://evil-tiktok.com/@a/video/7312345678901234567", host("evil-tiktok.com"))]
    #[case("https://www.tiktok.com./@a/video/7312345678901234567", host("www.tiktok.com."))]
    #[case("https://us.tiktok.com/@a/video/7312345678901234567", host("us.tiktok.com"))]
    #[case("https://127.0.0.1/@a/video/7312345678901234567", host("127.0.0.1"))]
    #[case("https://[::1]/watch?v=aZ3kQm9TfLw", host("[::1]"))]
    #[case("https://youtube.com.evil.com/watch?v=aZ3kQm9TfLw", host("youtube.com.evil.com"))]
    #[case("https://notyoutu.be/aZ3kQm9TfLw", host("notyoutu.be"))]
    #[case("https://www.youtu.be/aZ3kQm9TfLw", host("www.youtu.be"))]
    #[case("https://m.instagram.com/reel/CWqAgUZgCku/", host("m.instagram.com"))]
    #[case("https://instagram.com.evil.com/reel/CWqAgUZgCku/", host("instagram.com.evil.com"))]
    // TikTok
    #[case("https://www.tiktok.com/@a/video/73123456789O1234567", bad_id(Platform::TikTok, "73123456789O1234567"))]
    #[case("https://www.tiktok.com/@a/video/12345678", bad_id(Platform::TikTok, "12345678"))]
    #[case("https://www.tiktok.com/@a/video/123456789012345678901", bad_id(Platform::TikTok, "123456789012345678901"))]
    #[case("https://m.tiktok.com/v/12345.html", bad_id(Platform::TikTok, "12345"))]
    #[case("https://www.tiktok.com/@mira.cooks/photo/7312345678901234567", UrlError::PhotoPost)]
    #[case("https://www.tiktok.com/@mira.cooks", UrlError::Profile(Platform::TikTok))]
    #[case("https://www.tiktok.com/@mira.cooks/?lang=en", UrlError::Profile(Platform::TikTok))]
    #[case("https://www.tiktok.com/@mira.cooks/live", UrlError::Profile(Platform::TikTok))]
    #[case("https://www.tiktok.com/@mi%20ra/video/7312345678901234567", UrlError::InvalidUsername { platform: Platform::TikTok, name: "mi%20ra".into() })]
    #[case("https://www.tiktok.com/", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://www.tiktok.com/login?redirect_url=x", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://www.tiktok.com/tag/cooking", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://www.tiktokv.com/@a/video/7312345678901234567", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://vm.tiktok.com/", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://vm.tiktok.com/a/b/", UrlError::NotAVideo(Platform::TikTok))]
    #[case("https://vm.tiktok.com/ZMa/", UrlError::InvalidShortLink { platform: Platform::TikTok, code: "ZMa".into(), expected: TIKTOK_CODE })]
    #[case("https://vt.tiktok.com/ZM-abc123/", UrlError::InvalidShortLink { platform: Platform::TikTok, code: "ZM-abc123".into(), expected: TIKTOK_CODE })]
    // YouTube
    #[case("https://www.youtube.com/watch?v=aZ3kQm9TfL", bad_id(Platform::YouTube, "aZ3kQm9TfL"))]
    #[case("https://www.youtube.com/watch?v=aZ3kQm9TfLwX", bad_id(Platform::YouTube, "aZ3kQm9TfLwX"))]
    #[case("https://www.youtube.com/watch?v=aZ3kQm9T!Lw", bad_id(Platform::YouTube, "aZ3kQm9T!Lw"))]
    #[case("https://youtu.be/aZ3kQm9TfL", bad_id(Platform::YouTube, "aZ3kQm9TfL"))]
    #[case("https://www.youtube.com/shorts/aZ3kQm9TfLwXY", bad_id(Platform::YouTube, "aZ3kQm9TfLwXY"))]
    #[case("https://www.youtube.com/@miracooks", UrlError::Channel)]
    #[case("https://www.youtube.com/@miracooks/shorts", UrlError::Channel)]
    #[case("https://www.youtube.com/channel/UCq8Xz4LmNp2Rt6Vw0Yb3KcA", UrlError::Channel)]
    #[case("https://www.youtube.com/c/MiraCooks", UrlError::Channel)]
    #[case("https://www.youtube.com/user/miracooks/videos", UrlError::Channel)]
    #[case("https://www.youtube.com/playlist?list=PLq8Xz4LmNp2Rt6Vw0Yb3KcA", UrlError::Playlist)]
    #[case("https://www.youtube.com/watch?list=PLq8Xz4LmNp2Rt6Vw0Yb3KcA", UrlError::Playlist)]
    #[case("https://www.youtube.com/embed/videoseries?list=PLq8", UrlError::Playlist)]
    #[case("https://www.youtube.com/", UrlError::NotAVideo(Platform::YouTube))]
    #[case("https://www.youtube.com/results?search_query=x", UrlError::NotAVideo(Platform::YouTube))]
    #[case("https://www.youtube-nocookie.com/watch?v=aZ3kQm9TfLw", UrlError::NotAVideo(Platform::YouTube))]
    // Instagram
    #[case("https://www.instagram.com/mira_cooks/", UrlError::Profile(Platform::Instagram))]
    #[case("https://www.instagram.com/mira_cooks/reels/", UrlError::Profile(Platform::Instagram))]
    #[case("https://www.instagram.com/", UrlError::NotAVideo(Platform::Instagram))]
    #[case("https://www.instagram.com/explore/", UrlError::NotAVideo(Platform::Instagram))]
    #[case("https://www.instagram.com/reels/audio/123456789/", UrlError::NotAVideo(Platform::Instagram))]
    #[case("https://www.instagram.com/p/abc/", bad_id(Platform::Instagram, "abc"))]
    #[case("https://www.instagram.com/reel/CWq.gUZgCku/", bad_id(Platform::Instagram, "CWq.gUZgCku"))]
    #[case("https://www.instagram.com/share/reel/ab/", UrlError::InvalidShortLink { platform: Platform::Instagram, code: "ab".into(), expected: INSTAGRAM_CODE })]
    fn rejects(#[case] input: &str, #[case] expected: UrlError) {
        assert_eq!(parse_video_url(input), Err(expected));
    }

    #[rstest]
    #[case("not a url at all")]
    #[case("https://")]
    #[case("http://exa mple.com/x")]
    fn rejects_garbage_as_malformed(#[case] input: &str) {
        assert!(
            matches!(parse_video_url(input), Err(UrlError::Malformed(_))),
            "{input}"
        );
    }

    #[test]
    fn rejects_overlong_input_and_clips_echoed_input() {
        let long = format!(
            "https://www.youtube.com/watch?v={}",
            "a".repeat(MAX_URL_LEN)
        );
        assert_eq!(parse_video_url(&long), Err(UrlError::TooLong));
        let id = "1".repeat(200);
        let Err(UrlError::InvalidId { id: echoed, .. }) =
            parse_video_url(&format!("https://www.tiktok.com/@a/video/{id}"))
        else {
            panic!("expected InvalidId");
        };
        assert_eq!(echoed.chars().count(), 65);
    }

    #[test]
    fn messages_are_sentences_for_end_users() {
        assert_eq!(
            UrlError::Profile(Platform::TikTok).to_string(),
            "not a video URL: this is a TikTok profile, not a video"
        );
        assert_eq!(
            host("vimeo.com").to_string(),
            "unsupported host `vimeo.com`: supported platforms are TikTok, Instagram and YouTube"
        );
        assert_eq!(
            bad_id(Platform::YouTube, "abc").to_string(),
            "invalid YouTube video id `abc`: expected 11 letters, digits, `-` or `_`"
        );
        assert_eq!(
            UrlError::PhotoPost.to_string(),
            "not a video: this TikTok link is a photo post"
        );
    }

    #[rustfmt::skip]
    #[rstest]
    #[case(Platform::TikTok, "www.tiktok.com", true)]
    #[case(Platform::TikTok, "tiktok.com", true)]
    #[case(Platform::TikTok, "m.tiktok.com", true)]
    #[case(Platform::TikTok, "VM.TikTok.com", true)]
    #[case(Platform::TikTok, "a.b.tiktok.com", true)]
    #[case(Platform::TikTok, "www.tiktokv.com", true)]
    #[case(Platform::TikTok, "tiktokv.com", true)]
    #[case(Platform::TikTok, ".tiktok.com", false)]
    #[case(Platform::TikTok, "a..tiktok.com", false)]
    #[case(Platform::TikTok, "evil-tiktok.com", false)]
    #[case(Platform::TikTok, "tiktok.com.evil.com", false)]
    #[case(Platform::TikTok, "www.tiktok.com.", false)]
    #[case(Platform::TikTok, "m.tiktokv.com", false)]
    #[case(Platform::TikTok, "127.0.0.1", false)]
    #[case(Platform::TikTok, "www.instagram.com", false)]
    #[case(Platform::Instagram, "www.instagram.com", true)]
    #[case(Platform::Instagram, "instagram.com", true)]
    #[case(Platform::Instagram, "l.instagram.com", false)]
    #[case(Platform::Instagram, "www.tiktok.com", false)]
    #[case(Platform::YouTube, "www.youtube.com", true)]
    #[case(Platform::YouTube, "music.youtube.com", true)]
    #[case(Platform::YouTube, "youtu.be", true)]
    #[case(Platform::YouTube, "www.youtube-nocookie.com", true)]
    #[case(Platform::YouTube, "gaming.youtube.com", false)]
    fn platform_hosts(#[case] platform: Platform, #[case] host: &str, #[case] allowed: bool) {
        assert_eq!(is_platform_host(platform, host), allowed);
    }

    #[rustfmt::skip]
    #[rstest]
    #[case(Platform::TikTok, "vm.tiktok.com", true)]
    #[case(Platform::TikTok, "vt.tiktok.com", true)]
    #[case(Platform::TikTok, "www.tiktok.com", true)]
    #[case(Platform::TikTok, "m.tiktok.com", false)]
    #[case(Platform::TikTok, "vm.tiktok.com.evil.com", false)]
    #[case(Platform::Instagram, "www.instagram.com", true)]
    #[case(Platform::YouTube, "youtu.be", false)]
    fn short_link_hosts(#[case] platform: Platform, #[case] host: &str, #[case] allowed: bool) {
        assert_eq!(is_short_link_host(platform, host), allowed);
    }

    #[test]
    fn canonical_url_by_id() {
        assert_eq!(
            canonical_url(Platform::TikTok, TT, Some("@mira.cooks")),
            "https://www.tiktok.com/@mira.cooks/video/7312345678901234567"
        );
        assert_eq!(
            canonical_url(Platform::TikTok, TT, Some("no/slashes")),
            "https://www.tiktok.com/@/video/7312345678901234567"
        );
        assert_eq!(
            canonical_url(Platform::TikTok, TT, None),
            "https://www.tiktok.com/@/video/7312345678901234567"
        );
        assert_eq!(
            canonical_url(Platform::YouTube, YT, Some("x")),
            "https://www.youtube.com/watch?v=aZ3kQm9TfLw"
        );
        assert_eq!(
            canonical_url(Platform::Instagram, IG, None),
            "https://www.instagram.com/p/CWqAgUZgCku/"
        );
    }

    #[rstest]
    #[case("aye83DjauH", 482_584_233_761_418_119)]
    #[case("CDUMkliABpa", 2_365_570_995_034_528_346)]
    fn instagram_shortcode_pk_vectors(#[case] shortcode: &str, #[case] pk: u128) {
        assert_eq!(instagram_shortcode_to_pk(shortcode), Some(pk));
        assert_eq!(instagram_pk_to_shortcode(pk), shortcode);
        // A private post's 28 extra characters are not part of the pk.
        let private = format!("{shortcode}{}", "x".repeat(28));
        assert_eq!(instagram_shortcode_to_pk(&private), Some(pk));
    }

    #[test]
    fn instagram_shortcode_pk_rejects() {
        assert_eq!(instagram_shortcode_to_pk(""), None);
        assert_eq!(instagram_shortcode_to_pk("abc.d"), None);
        assert_eq!(instagram_shortcode_to_pk(&"_".repeat(28)), None);
        assert_eq!(instagram_pk_to_shortcode(0), "A");
    }

    fn any_video() -> impl Strategy<Value = (Platform, String, Option<String>)> {
        prop_oneof![
            (
                "[0-9]{15,20}",
                proptest::option::of("@?[A-Za-z0-9_.-]{0,24}")
            )
                .prop_map(|(id, user)| (Platform::TikTok, id, user)),
            "[0-9A-Za-z_-]{11}".prop_map(|id| (Platform::YouTube, id, None)),
            "[0-9A-Za-z_-]{5,60}".prop_map(|id| (Platform::Instagram, id, None)),
        ]
    }

    proptest! {
        #[test]
        fn canonical_urls_round_trip((platform, id, user) in any_video()) {
            let url = canonical_url(platform, &id, user.as_deref());
            let v = video_of(&url);
            prop_assert_eq!(v, VideoRef { platform, external_id: id, canonical_url: url });
        }

        #[test]
        fn shortcode_pk_round_trips(pk in any::<u64>()) {
            let code = instagram_pk_to_shortcode(u128::from(pk));
            prop_assert_eq!(instagram_shortcode_to_pk(&code), Some(u128::from(pk)));
        }

        #[test]
        fn never_panics(input in "\\PC{0,80}") {
            let _ = parse_video_url(&input);
        }
    }
}
