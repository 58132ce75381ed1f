//! A deterministic dataset for the analytics benchmark: one organization
//! tracking `n` videos whose tracking started at even steps over the 30 days
//! before `now`, each read at the default refresh schedule (every 15 minutes
//! on the first day, hourly to day 7, every 6 hours after) until `now`.
//!
//! The generator simulates every scheduled reading (up to about 330 per
//! video): they are written as the video's observations (its history, which
//! video reads return), with the daily closes they produce (the first and
//! last reading of each UTC day, which analytics reads).
//!
//! Videos come from `n / 50` creators, each on one platform; 70% of videos
//! carry one of 20 campaigns.
//!
//! Randomness is a SplitMix64 hash of the video's index: the same `n` and
//! `now` give the same rows on any machine and any version of any crate.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use vidpulse_domain::schedule::RefreshSchedule;

/// One catalog video and the organization's tracking of it.
#[derive(Debug, Clone)]
pub struct Video {
    /// Catalog id (1-based).
    pub id: i64,
    /// `tiktok`, `instagram` or `youtube`.
    pub platform: &'static str,
    /// The platform's id.
    pub external_id: String,
    /// Title: three words of [`TITLE_WORDS`] and `#` the video's number.
    pub title: String,
    /// Creator handle.
    pub author: String,
    /// Campaign tag, when any.
    pub campaign: Option<String>,
    /// Publish time.
    pub published_at: DateTime<Utc>,
    /// Tracking start.
    pub started_at: DateTime<Utc>,
    /// Every reading, oldest first.
    pub readings: Vec<Reading>,
    /// The closes, by day ascending.
    pub closes: Vec<Close>,
}

/// The first and last reading of one day.
#[derive(Debug, Clone)]
pub struct Close {
    /// The UTC day.
    pub day: NaiveDate,
    /// First reading.
    pub first: Reading,
    /// Last reading.
    pub last: Reading,
}

/// Counters at an instant; `None` where the platform does not report them.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// When.
    pub at: DateTime<Utc>,
    /// Views.
    pub views: i64,
    /// Likes.
    pub likes: i64,
    /// Comments.
    pub comments: i64,
    /// Reposts (not on YouTube).
    pub reposts: Option<i64>,
    /// Saves (not on YouTube).
    pub saves: Option<i64>,
}

/// SplitMix64: a well-known, stable 64-bit mixer.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A uniform number in `[0, 1)` from stream `k` of video `i`.
fn unit(i: u64, k: u64) -> f64 {
    (mix(i.wrapping_mul(0x1000_0000_01B3) ^ k) >> 11) as f64 / (1u64 << 53) as f64
}

/// How many distinct creators `n` videos come from (50 videos each).
pub fn creators(n: usize) -> usize {
    (n / 50).max(1)
}

/// Video `i` (0-based) of a dataset of `n` generated at `now`.
/// Title words: each title is three of them and the video's number.
const TITLE_WORDS: [&str; 100] = [
    "garlic",
    "noodles",
    "summer",
    "travel",
    "morning",
    "routine",
    "kitchen",
    "budget",
    "makeup",
    "skincare",
    "workout",
    "dance",
    "challenge",
    "prank",
    "unboxing",
    "review",
    "tutorial",
    "recipe",
    "street",
    "food",
    "coffee",
    "pasta",
    "ramen",
    "sushi",
    "pizza",
    "burger",
    "salad",
    "smoothie",
    "breakfast",
    "dinner",
    "vlog",
    "family",
    "puppy",
    "kitten",
    "garden",
    "camping",
    "hiking",
    "beach",
    "sunset",
    "city",
    "night",
    "market",
    "fashion",
    "haul",
    "outfit",
    "sneakers",
    "thrift",
    "vintage",
    "gaming",
    "setup",
    "keyboard",
    "camera",
    "drone",
    "edit",
    "music",
    "guitar",
    "piano",
    "cover",
    "remix",
    "karaoke",
    "comedy",
    "sketch",
    "story",
    "week",
    "life",
    "hacks",
    "cleaning",
    "organizing",
    "minimal",
    "decor",
    "bedroom",
    "studio",
    "apartment",
    "moving",
    "college",
    "exam",
    "study",
    "focus",
    "reading",
    "books",
    "poetry",
    "art",
    "painting",
    "drawing",
    "pottery",
    "knitting",
    "baking",
    "bread",
    "cookies",
    "chocolate",
    "birthday",
    "wedding",
    "party",
    "holiday",
    "winter",
    "snow",
    "rain",
    "autumn",
    "spring",
    "road",
];

pub fn video(i: usize, n: usize, now: DateTime<Utc>) -> Video {
    let schedule = RefreshSchedule::default();
    let k = i as u64;
    // A creator handle lives on one platform: the platform is the creator's.
    let creator = (unit(k, 2) * creators(n) as f64) as usize;
    let platform = match unit(creator as u64, 1) {
        u if u < 0.55 => "tiktok",
        u if u < 0.80 => "instagram",
        _ => "youtube",
    };
    let external_id = match platform {
        "tiktok" => format!("{}", 7_000_000_000_000_000_000u64 + k),
        "instagram" => format!("C{k:010}"),
        _ => format!("v{k:010}"),
    };
    let campaign =
        (unit(k, 3) < 0.7).then(|| format!("Campaign {:02}", (unit(k, 4) * 20.0) as u32));
    // Starts spread evenly over the window: a steady flow of new videos.
    let span = schedule.window.num_seconds();
    let started_at = now - schedule.window + Duration::seconds(span * i as i64 / n as i64);
    let published_at = started_at - Duration::minutes((unit(k, 5) * 72.0 * 60.0) as i64);
    // Views level off at 100 .. 1,000,000 with a 12–72 hour time constant.
    let final_views = 10f64.powf(2.0 + 4.0 * unit(k, 6));
    let tau_hours = 12.0 + 60.0 * unit(k, 7);
    let like_rate = 0.03 + 0.07 * unit(k, 8);
    let comment_rate = 0.002 + 0.008 * unit(k, 9);
    let repost_rate = 0.001 + 0.004 * unit(k, 10);
    let save_rate = 0.002 + 0.008 * unit(k, 11);
    let read = |at: DateTime<Utc>| {
        let age_hours = (at - published_at).num_seconds() as f64 / 3600.0;
        let views = final_views * (1.0 - (-age_hours / tau_hours).exp());
        let of = |rate: f64| (views * rate) as i64;
        Reading {
            at,
            views: views as i64,
            likes: of(like_rate),
            comments: of(comment_rate),
            reposts: (platform != "youtube").then(|| of(repost_rate)),
            saves: (platform != "youtube").then(|| of(save_rate)),
        }
    };

    let mut readings: Vec<Reading> = Vec::new();
    let mut closes: Vec<Close> = Vec::new();
    let mut at = started_at;
    let ends = started_at + schedule.window;
    while at <= now && at < ends {
        let r = read(at);
        readings.push(r);
        match closes.last_mut() {
            Some(c) if c.day == at.date_naive() => c.last = r,
            _ => closes.push(Close {
                day: at.date_naive(),
                first: r,
                last: r,
            }),
        }
        match schedule.interval_at(at - started_at) {
            Some(every) => at += every,
            None => break,
        }
    }
    Video {
        id: k as i64 + 1,
        platform,
        external_id,
        title: {
            let word = |salt: u64| TITLE_WORDS[(unit(k, salt) * 100.0) as usize % 100];
            format!("{} {} {} #{k}", word(12), word(13), word(14))
        },
        author: format!("creator{creator:05}"),
        campaign,
        published_at,
        started_at,
        readings,
        closes,
    }
}
