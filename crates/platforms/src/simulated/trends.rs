//! Simulated trend search (TikTok and YouTube).
//!
//! A keyword (trimmed, any case) and region select a stream of videos from the
//! SHA-256 of `"trends:{platform}:{keyword}:{region or *}"`: 1–24 videos a day
//! from 2025-01-01 on a hashed schedule, with stamped ids (see the parent
//! module), so `read_videos` of a result agrees with it. The result set is the
//! S most recent videos out at or before the search instant, S = 20–200 from
//! the hash (0 for keywords starting with `empty`), and with `days` > 0 only
//! those published in the last `days` days; sorted by plays at that instant,
//! most first (ties by id).
//!
//! The search instant is the clock's now for a first page; the cursor of the
//! next page, `sim:{offset}:{unix seconds}`, carries it on, so following
//! cursors pages through one unchanging set even while the clock moves (the
//! later pages show the counters of that instant). A cursor `sim:{offset}`
//! without the instant is also accepted and means "as of now".

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use vidpulse_domain::Platform;
use vidpulse_domain::video_url::canonical_url;

use super::{DAY, HASHED_FROM, Minter, Model, Schedule, avatar_url, unit};
use crate::source::{SourceError, TrendPage, TrendQuery, TrendVideo};

/// Keywords starting with this (any case) find nothing.
const EMPTY_PREFIX: &str = "empty";
/// What a cursor starts with; then the offset and the search instant in base 10.
const CURSOR_PREFIX: &str = "sim:";

/// Trend search is simulated for TikTok and YouTube only.
pub(super) fn supported(platform: Platform) -> Result<(), SourceError> {
    match platform {
        Platform::TikTok | Platform::YouTube => Ok(()),
        Platform::Instagram => Err(SourceError::Unsupported(format!(
            "trend search on {} is not supported by the simulated source",
            platform.display_name()
        ))),
    }
}

/// One page of the search `query` as of `now`.
pub(super) fn search(
    platform: Platform,
    query: &TrendQuery,
    now: DateTime<Utc>,
) -> Result<TrendPage, SourceError> {
    supported(platform)?;
    let keyword = query.keyword.trim().to_lowercase();
    if keyword.is_empty() {
        return Err(SourceError::Permanent("empty keyword".to_owned()));
    }
    let region = match query.region.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(r) if r.len() == 2 && r.bytes().all(|b| b.is_ascii_alphabetic()) => {
            Some(r.to_ascii_uppercase())
        }
        Some(_) => return Err(SourceError::Permanent("invalid region".to_owned())),
    };
    let (offset, at) = match query.cursor.as_deref() {
        None => (0, now),
        Some(cursor) => parse_cursor(cursor, now)?,
    };
    let results = results(platform, &keyword, region.as_deref(), query.days, at);
    let page_size = query.page_size.max(1);
    let end = offset.saturating_add(page_size).min(results.len());
    let videos = results
        .get(offset..end)
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    let has_more = end < results.len();
    Ok(TrendPage {
        videos,
        cursor: has_more.then(|| format!("{CURSOR_PREFIX}{end}:{}", at.timestamp())),
        has_more,
    })
}

/// `sim:{offset}:{unix seconds}` or `sim:{offset}`, in plain base-10 digits:
/// the offset and the search instant (`now` when absent).
fn parse_cursor(cursor: &str, now: DateTime<Utc>) -> Result<(usize, DateTime<Utc>), SourceError> {
    let number = |digits: &str| {
        let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        plain.then(|| digits.parse::<u64>().ok()).flatten()
    };
    let parsed = cursor.strip_prefix(CURSOR_PREFIX).and_then(|rest| {
        let (offset, at) = match rest.split_once(':') {
            Some((offset, at)) => {
                let at = i64::try_from(number(at)?).ok()?;
                (offset, DateTime::from_timestamp(at, 0)?)
            }
            None => (rest, now),
        };
        Some((usize::try_from(number(offset)?).ok()?, at))
    });
    parsed.ok_or_else(|| SourceError::Permanent("invalid cursor".to_owned()))
}

/// The whole result set, most plays first.
fn results(
    platform: Platform,
    keyword: &str,
    region: Option<&str>,
    days: Option<u32>,
    now: DateTime<Utc>,
) -> Vec<TrendVideo> {
    let key = format!(
        "trends:{}:{keyword}:{}",
        platform.id(),
        region.unwrap_or("*")
    );
    let seed: [u8; 32] = Sha256::digest(key.as_bytes()).into();
    let size = if keyword.starts_with(EMPTY_PREFIX) {
        0
    } else {
        20 + (unit(&seed, "size") * 181.0) as u64
    };
    // 1 to 24 videos a day, log-uniform.
    let per_day = 24f64.powf(unit(&seed, "rate"));
    let period = ((DAY as f64 / per_day) as i64).max(2);
    let schedule = Schedule {
        seed,
        start: HASHED_FROM,
        period,
    };
    let now_secs = now.timestamp();
    let since = match days {
        Some(d) if d > 0 => now_secs - i64::from(d) * DAY,
        _ => i64::MIN,
    };
    let Some(latest) = schedule.latest(now_secs) else {
        return Vec::new();
    };
    let mut videos: Vec<(i64, TrendVideo)> = (0..size.min(latest + 1))
        .map(|k| latest - k)
        .map(|i| (i, schedule.published(i)))
        .take_while(|(_, published)| *published >= since)
        .filter_map(|(i, published)| {
            let id = super::stamped_id(platform, Minter::Trends, published, schedule.salt(i));
            video(platform, id, now)
        })
        .collect();
    videos.sort_by(|(a, x), (b, y)| b.cmp(a).then_with(|| x.id.cmp(&y.id)));
    videos.into_iter().map(|(_, v)| v).collect()
}

/// The video as the search shows it at `now`, with its plays; the same
/// counters and metadata as `read_videos` gives.
fn video(platform: Platform, id: String, now: DateTime<Utc>) -> Option<(i64, TrendVideo)> {
    let model = Model::new(platform, &id)?;
    let (counters, meta) = (model.counters(now), model.meta(now));
    // The search shows the hashed author; a read of a YouTube result names
    // the same one, and a tracked TikTok result's URL carries it.
    let author = Some(model.hashed_author().0);
    let plays = counters.views.unwrap_or(0);
    let video = TrendVideo {
        url: canonical_url(platform, &id, author.as_deref()),
        id,
        cover: meta.thumbnail_url,
        plays: counters.views,
        likes: counters.likes,
        comments: counters.comments,
        shares: counters.reposts,
        author_cover: author.as_deref().map(|a| avatar_url(platform, a)),
        author_username: author,
    };
    Some((plays, video))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use chrono::Duration as Span;

    use super::super::tests::{NOW, source, t};
    use super::*;
    use crate::simulated::SimulatedSource;
    use crate::source::{ReadOutcome, Source};
    use vidpulse_domain::ParsedUrl;

    fn query(keyword: &str) -> TrendQuery {
        TrendQuery {
            keyword: keyword.to_owned(),
            region: None,
            days: None,
            cursor: None,
            page_size: 20,
        }
    }

    /// Every page of `q`, following cursors.
    async fn all_pages(src: &SimulatedSource, p: Platform, q: &TrendQuery) -> Vec<TrendPage> {
        let mut q = q.clone();
        let mut pages = Vec::new();
        loop {
            let page = src.search_trends(p, &q).await.unwrap();
            assert_eq!(page.has_more, page.cursor.is_some());
            q.cursor = page.cursor.clone();
            pages.push(page);
            if q.cursor.is_none() {
                return pages;
            }
            assert!(pages.len() < 1_000, "runaway paging");
        }
    }

    fn everything(platform: Platform, q: &TrendQuery) -> Vec<TrendVideo> {
        results(
            platform,
            &q.keyword.to_lowercase(),
            q.region.as_deref(),
            q.days,
            t(NOW),
        )
    }

    #[tokio::test]
    async fn pages_cover_the_result_set_once() {
        let ((src, _), (other, _)) = (source(|_| ()), source(|_| ()));
        for p in [Platform::TikTok, Platform::YouTube] {
            for page_size in [1, 7, 20, 500] {
                let q = TrendQuery {
                    page_size,
                    ..query("Cooking")
                };
                let pages = all_pages(&src, p, &q).await;
                assert_eq!(pages, all_pages(&other, p, &q).await);
                let last = pages.last().unwrap();
                assert!(!last.has_more && last.cursor.is_none());
                let joined: Vec<TrendVideo> =
                    pages.iter().flat_map(|pg| pg.videos.clone()).collect();
                let all = everything(p, &q);
                assert!((20..=200).contains(&all.len()), "{}", all.len());
                assert_eq!(joined, all);
                let ids: HashSet<&str> = joined.iter().map(|v| v.id.as_str()).collect();
                assert_eq!(ids.len(), joined.len(), "pages overlap");
                for page in &pages[..pages.len() - 1] {
                    assert_eq!(page.videos.len(), page_size);
                }
            }
            let first = src.search_trends(p, &query("cats")).await.unwrap();
            let cursor = format!("sim:20:{}", t(NOW).timestamp());
            assert_eq!(first.cursor, Some(cursor));
            // Without the instant: as of now, the same page here.
            let short = TrendQuery {
                cursor: Some("sim:20".to_owned()),
                ..query("cats")
            };
            let next = src.search_trends(p, &short).await.unwrap();
            let long = TrendQuery {
                cursor: first.cursor.clone(),
                ..query("cats")
            };
            assert_eq!(next, src.search_trends(p, &long).await.unwrap());
            assert_ne!(next.videos, first.videos);
        }
    }

    #[tokio::test]
    async fn results_are_sorted_and_readable() {
        let (src, _) = source(|_| ());
        for p in [Platform::TikTok, Platform::YouTube] {
            let q = TrendQuery {
                page_size: 1_000,
                ..query("street food")
            };
            let page = src.search_trends(p, &q).await.unwrap();
            let plays: Vec<i64> = page.videos.iter().map(|v| v.plays.unwrap()).collect();
            assert!(plays.windows(2).all(|w| w[0] >= w[1]), "{plays:?}");
            let ids: Vec<String> = page.videos.iter().map(|v| v.id.clone()).collect();
            let answer = src.read_videos(p, &ids).await.unwrap();
            for (video, (_, outcome)) in page.videos.iter().zip(answer) {
                let ReadOutcome::Found(snapshot) = outcome else {
                    panic!("{p} {}: {outcome:?}", video.id);
                };
                assert_eq!(video.plays, snapshot.counters.views);
                assert_eq!(video.likes, snapshot.counters.likes);
                assert_eq!(video.comments, snapshot.counters.comments);
                assert_eq!(video.shares.is_some(), p == Platform::TikTok);
                assert_eq!(video.cover, snapshot.meta.thumbnail_url);
                let author = video.author_username.as_deref().unwrap();
                // The author the result shows is the video's: a YouTube read
                // names it; a TikTok result's URL does (reads leave it to the URL).
                let parsed = vidpulse_domain::video_url::parse_video_url(&video.url);
                match (p, parsed) {
                    (Platform::TikTok, Ok(ParsedUrl::Video(v))) => {
                        assert_eq!(v.handle(), Some(author), "{}", video.url);
                        assert_eq!(snapshot.meta.author_username, None);
                    }
                    (_, parsed) => {
                        assert!(parsed.is_ok(), "{}", video.url);
                        assert_eq!(snapshot.meta.author_username.as_deref(), Some(author));
                    }
                }
                let cover = format!(
                    "https://picsum.photos/seed/{}-{author}-avatar/200/200",
                    p.id()
                );
                assert_eq!(video.author_cover.as_deref(), Some(cover.as_str()));
                let published = snapshot.meta.published_at.unwrap();
                assert!(published <= t(NOW), "{p} {}", video.id);
            }
        }
    }

    #[tokio::test]
    async fn region_and_days_change_the_set() {
        let p = Platform::TikTok;
        let ids = |q: &TrendQuery| -> Vec<String> {
            everything(p, q).into_iter().map(|v| v.id).collect()
        };
        let all = query("dance");
        let us = TrendQuery {
            region: Some("US".to_owned()),
            ..all.clone()
        };
        let us_lower = TrendQuery {
            region: Some("us".to_owned()),
            ..all.clone()
        };
        let (src, _) = source(|_| ());
        let page = |q: TrendQuery| {
            let src = src.clone();
            async move { src.search_trends(p, &q).await.unwrap() }
        };
        assert_ne!(ids(&all), ids(&us));
        assert_eq!(page(us.clone()).await, page(us_lower).await);
        assert_eq!(
            page(all.clone()).await,
            page(TrendQuery {
                days: Some(0),
                ..all.clone()
            })
            .await
        );

        let everything_ever: HashSet<String> = ids(&all).into_iter().collect();
        let week = TrendQuery {
            days: Some(7),
            ..all.clone()
        };
        let recent = everything(p, &week);
        assert!(!recent.is_empty() && recent.len() <= everything_ever.len());
        let since = t(NOW) - Span::days(7);
        for video in &recent {
            let snapshot = SimulatedSource::snapshot_at(p, &video.id, t(NOW)).unwrap();
            assert!(snapshot.meta.published_at.unwrap() >= since);
            assert!(everything_ever.contains(&video.id), "{}", video.id);
        }
        let day = TrendQuery {
            days: Some(1),
            ..all.clone()
        };
        assert!(everything(p, &day).len() <= recent.len());
    }

    #[tokio::test]
    async fn bad_requests_and_empty_results() {
        let (src, _) = source(|_| ());
        let p = Platform::YouTube;
        let bad = [
            "garbage", "sim:", "sim:-1", "sim:1x", "20", "sim:+3", "sim:1:", "sim:1:x",
        ];
        for cursor in bad.into_iter().chain(["sim:1:2:3", "sim::5", "sim:1:-5"]) {
            let q = TrendQuery {
                cursor: Some(cursor.to_owned()),
                ..query("cooking")
            };
            let err = src.search_trends(p, &q).await.unwrap_err();
            assert_eq!(
                err,
                SourceError::Permanent("invalid cursor".to_owned()),
                "{cursor}"
            );
        }
        let past_the_end = TrendQuery {
            cursor: Some("sim:100000".to_owned()),
            ..query("cooking")
        };
        let page = src.search_trends(p, &past_the_end).await.unwrap();
        assert!(page.videos.is_empty() && !page.has_more && page.cursor.is_none());

        for keyword in ["empty", "Empty results", "emptyness"] {
            for p in [Platform::TikTok, Platform::YouTube] {
                let page = src.search_trends(p, &query(keyword)).await.unwrap();
                let nothing = TrendPage {
                    videos: Vec::new(),
                    cursor: None,
                    has_more: false,
                };
                assert_eq!(page, nothing, "{keyword}");
            }
        }
        let err = src.search_trends(p, &query("  ")).await.unwrap_err();
        assert!(matches!(err, SourceError::Permanent(_)), "{err:?}");
        let bad_region = TrendQuery {
            region: Some("USA".to_owned()),
            ..query("cooking")
        };
        let err = src.search_trends(p, &bad_region).await.unwrap_err();
        assert!(matches!(err, SourceError::Permanent(_)), "{err:?}");
        let err = src
            .search_trends(Platform::Instagram, &query("cooking"))
            .await
            .unwrap_err();
        assert!(matches!(err, SourceError::Unsupported(_)), "{err:?}");
    }

    #[tokio::test]
    async fn fail_rate_and_latency_apply() {
        let (failing, _) = source(|c| c.fail_rate = 1.0);
        let err = failing
            .search_trends(Platform::TikTok, &query("cooking"))
            .await
            .unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        let latency = std::time::Duration::from_millis(80);
        let (slow, _) = source(|c| c.latency = latency);
        let started = std::time::Instant::now();
        slow.search_trends(Platform::TikTok, &query("cooking"))
            .await
            .unwrap();
        assert!(started.elapsed() >= latency);
    }

    #[tokio::test]
    async fn cursors_keep_the_instant_of_the_first_page() {
        let (src, clock) = source(|_| ());
        let p = Platform::TikTok;
        let mut q = TrendQuery {
            page_size: 7,
            days: Some(2),
            ..query("dance")
        };
        let expected = everything(p, &q);
        let mut seen = Vec::new();
        loop {
            let page = src.search_trends(p, &q).await.unwrap();
            seen.extend(page.videos);
            // Hours pass between pages; some videos leave the 2-day window.
            clock.advance(Span::hours(5));
            q.cursor = page.cursor;
            if q.cursor.is_none() {
                break;
            }
        }
        assert_eq!(seen, expected);
        q.cursor = None;
        assert_ne!(
            src.search_trends(p, &q).await.unwrap().videos[..],
            expected[..7]
        );
    }

    #[tokio::test]
    async fn new_videos_join_as_the_clock_moves() {
        let (src, clock) = source(|_| ());
        // At most 36 hours between videos: a 3-day window always holds some.
        let q = TrendQuery {
            days: Some(3),
            page_size: 1_000,
            ..query("cooking")
        };
        let before = src
            .search_trends(Platform::TikTok, &q)
            .await
            .unwrap()
            .videos;
        assert!(!before.is_empty());
        clock.advance(Span::days(4));
        let after = src
            .search_trends(Platform::TikTok, &q)
            .await
            .unwrap()
            .videos;
        let old: HashSet<&str> = before.iter().map(|v| v.id.as_str()).collect();
        assert!(after.iter().all(|v| !old.contains(v.id.as_str())));
        assert!(!after.is_empty());
    }
}
