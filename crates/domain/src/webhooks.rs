//! Webhooks' rules: the events an endpoint can subscribe to, the view
//! milestones and when a failed delivery is tried again. Which addresses a
//! delivery may reach is [`crate::ip_scope`]'s rule.

use std::fmt;
use std::str::FromStr;

use std::net::IpAddr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::Duration;
use rand::Rng;

use crate::ip_scope::not_global;

/// What happened, as a delivery's `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    /// An organization started tracking a video.
    VideoTracked,
    /// A tracked video's views reached a milestone.
    VideoMilestone,
    /// A video's tracking window ended.
    VideoTrackingCompleted,
    /// The platform reports a tracked video removed or private.
    VideoUnavailable,
    /// A creator-tracking job succeeded.
    CreatorJobSucceeded,
    /// A creator-tracking job failed (or timed out).
    CreatorJobFailed,
    /// The daily discovery of a tracked creator tracked a new video of theirs.
    CreatorVideoDiscovered,
    /// An alert rule fired.
    AlertTriggered,
    /// A test event, sent on request to one endpoint.
    WebhookTest,
}

impl EventType {
    /// Every event an endpoint can subscribe to.
    pub const SUBSCRIBABLE: [EventType; 8] = [
        EventType::VideoTracked,
        EventType::VideoMilestone,
        EventType::VideoTrackingCompleted,
        EventType::VideoUnavailable,
        EventType::CreatorJobSucceeded,
        EventType::CreatorJobFailed,
        EventType::CreatorVideoDiscovered,
        EventType::AlertTriggered,
    ];

    /// The name a delivery's `type` carries.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::VideoTracked => "video.tracked",
            EventType::VideoMilestone => "video.milestone",
            EventType::VideoTrackingCompleted => "video.tracking_completed",
            EventType::VideoUnavailable => "video.unavailable",
            EventType::CreatorJobSucceeded => "creator.job.succeeded",
            EventType::CreatorJobFailed => "creator.job.failed",
            EventType::CreatorVideoDiscovered => "creator.video_discovered",
            EventType::AlertTriggered => "alert.triggered",
            EventType::WebhookTest => "webhook.test",
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventType {
    type Err = String;

    /// A subscribable event's name (`webhook.test` is sent, never subscribed).
    fn from_str(s: &str) -> Result<Self, String> {
        EventType::SUBSCRIBABLE
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| format!("unknown event `{s}`"))
    }
}

/// The views a `video.milestone` is sent for.
pub const MILESTONES: [i64; 5] = [1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// The milestones a reading of `after` views reached when the reading
/// before had `before`. A video's first reading (no `before`) sets where it
/// starts and reaches none; a reading without views reaches none.
pub fn milestones_reached(before: Option<i64>, after: Option<i64>) -> Vec<i64> {
    match (before, after) {
        (Some(before), Some(after)) => MILESTONES
            .into_iter()
            .filter(|&m| before < m && m <= after)
            .collect(),
        _ => Vec::new(),
    }
}

/// When a delivery is tried again after its `attempts`-th failed attempt,
/// before jitter: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (the Standard
/// Webhooks schedule: attempts over 27 hours). `None` after the eighth:
/// the delivery has failed.
pub fn retry_after(attempts: u32) -> Option<Duration> {
    const SCHEDULE: [i64; 7] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
    let index = usize::try_from(attempts).ok()?.checked_sub(1)?;
    SCHEDULE.get(index).map(|&s| Duration::seconds(s))
}

/// Most attempts of one delivery.
pub const MAX_ATTEMPTS: u32 = 8;

/// How long an event is kept (for replays and the delivery log) once none
/// of its deliveries is pending.
pub fn event_retention() -> Duration {
    Duration::days(30)
}

/// How long an endpoint may fail every delivery before it is disabled.
pub fn disable_after() -> Duration {
    Duration::days(5)
}

/// Why `url` may not be posted to before any connection: not http(s), or
/// an address written in it that is not global (unless allowed).
pub fn refused_url(url: &str, allow_private: bool) -> Option<String> {
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => return Some(format!("not a URL: {e}")),
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Some("only http and https URLs are delivered to".into());
    }
    let ip = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
        Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
            return (!allow_private).then(|| "localhost is refused".to_owned());
        }
        Some(url::Host::Domain(_)) => return None,
        None => return Some("the URL has no host".into()),
    };
    if allow_private {
        return None;
    }
    not_global(ip).map(|block| format!("{ip} is not a global address ({block}); refused"))
}

/// A new signing secret: `whsec_` and 24 random bytes in base64.
pub fn new_secret() -> String {
    let mut key = [0u8; 24];
    rand::rng().fill(&mut key);
    format!("whsec_{}", BASE64.encode(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in EventType::SUBSCRIBABLE {
            assert_eq!(e.as_str().parse::<EventType>(), Ok(e));
        }
        assert!("webhook.test".parse::<EventType>().is_err());
        assert!("video.*".parse::<EventType>().is_err());
    }

    #[test]
    fn milestones_are_reached_once() {
        assert_eq!(milestones_reached(None, Some(5_000_000)), Vec::<i64>::new());
        assert_eq!(milestones_reached(Some(999), Some(1_000)), vec![1_000]);
        assert_eq!(
            milestones_reached(Some(1_000), Some(9_999)),
            Vec::<i64>::new()
        );
        assert_eq!(
            milestones_reached(Some(500), Some(150_000)),
            vec![1_000, 10_000, 100_000]
        );
        assert_eq!(
            milestones_reached(Some(2_000), Some(1_500)),
            Vec::<i64>::new()
        );
        assert_eq!(milestones_reached(Some(20), None), Vec::<i64>::new());
    }

    #[test]
    fn retries_span_more_than_a_day() {
        let total: i64 = (1..MAX_ATTEMPTS)
            .map(|n| retry_after(n).unwrap().num_seconds())
            .sum();
        assert!(total > 24 * 3600, "{total}");
        assert_eq!(retry_after(MAX_ATTEMPTS), None);
        assert_eq!(retry_after(0), None);
        assert_eq!(retry_after(1), Some(Duration::seconds(5)));
    }

    #[test]
    fn private_urls_are_refused_unless_allowed() {
        for url in [
            "http://127.0.0.1:9000/hook",
            "http://[::1]/hook",
            "http://10.0.0.5/hook",
            "http://169.254.169.254/latest/meta-data",
            "http://[::7f00:1]/hook",
            "http://[::ffff:0:7f00:1]/hook",
            "http://[::ffff:169.254.169.254]/hook",
            "http://[2002:7f00:1::]/hook",
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook",
            "http://[64:ff9b::7f00:1]/hook",
            "http://[fd00::1]:8080/hook",
            "http://localhost:8080/",
            "ftp://example.com/",
            "not a url",
        ] {
            assert!(refused_url(url, false).is_some(), "{url}");
        }
        assert_eq!(
            refused_url("https://hooks.example.com/vidpulse", false),
            None
        );
        assert_eq!(refused_url("https://93.184.216.34/x", false), None);
        assert_eq!(refused_url("https://[2606:4700::1111]/x", false), None);
        let why = refused_url("http://[::ffff:0:7f00:1]/hook", false).unwrap_or_default();
        assert!(why.contains("(IPv4-translated); refused"), "{why}");
        assert_eq!(refused_url("http://127.0.0.1:9000/hook", true), None);
        assert!(refused_url("ftp://example.com/", true).is_some());
    }

    #[test]
    fn secrets_are_new_each_time() {
        let (a, b) = (new_secret(), new_secret());
        assert!(a.starts_with("whsec_") && a != b);
    }
}
