//! Tests of the parent module.

use super::*;
use chrono::Duration as Span;
use vidpulse_domain::ManualClock;

pub(super) const NOW: &str = "2026-06-01T12:00:00Z";

pub(super) fn t(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

pub(super) fn source(edit: impl FnOnce(&mut SimulatedConfig)) -> (SimulatedSource, ManualClock) {
    let mut config = SimulatedConfig::default();
    edit(&mut config);
    let clock = ManualClock::new(t(NOW));
    (SimulatedSource::new(config, Arc::new(clock.clone())), clock)
}

fn strings(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Valid ids: TikTok with a creation time (2023) and without, YouTube, Instagram.
pub(super) fn sample_ids(platform: Platform, n: u64) -> Vec<String> {
    let tiktok = |i: u64| match i % 2 {
        0 => (7_300_000_000_000_000_000 + i * 7_919).to_string(),
        _ => (1_000 + i).to_string(),
    };
    (0..n)
        .map(|i| match platform {
            Platform::TikTok => tiktok(i),
            Platform::YouTube => format!("vid{i:08}"),
            Platform::Instagram => format!("C{i:010}"),
        })
        .collect()
}

async fn read(src: &SimulatedSource, p: Platform, ids: &[String]) -> Vec<ReadOutcome> {
    let answer = src.read_videos(p, ids).await.unwrap();
    answer.into_iter().map(|(_, o)| o).collect()
}

/// One letter per outcome: Found, Gone, X for failed.
async fn kinds(src: &SimulatedSource, p: Platform, ids: &[&str]) -> String {
    let outcomes = read(src, p, &strings(ids)).await;
    let kind = |o: &ReadOutcome| match o {
        ReadOutcome::Found(_) => 'F',
        ReadOutcome::Gone { .. } => 'G',
        ReadOutcome::Failed(e) => ['?', 'X'][usize::from(e.is_transient())],
    };
    outcomes.iter().map(kind).collect()
}

fn found(outcome: ReadOutcome) -> VideoSnapshot {
    match outcome {
        ReadOutcome::Found(s) => s,
        other => panic!("expected Found, got {other:?}"),
    }
}

async fn snapshot(src: &SimulatedSource, p: Platform, id: &str) -> VideoSnapshot {
    found(read(src, p, &strings(&[id])).await.remove(0))
}

#[tokio::test]
async fn same_id_and_instant_give_the_same_reading_from_any_instance() {
    let ((a, _), (b, _)) = (source(|_| ()), source(|_| ()));
    for p in Platform::ALL {
        let ids = sample_ids(p, 10);
        let first = a.read_videos(p, &ids).await.unwrap();
        assert_eq!(first, a.read_videos(p, &ids).await.unwrap());
        assert_eq!(first, b.read_videos(p, &ids).await.unwrap());
        for (id, outcome) in first {
            let expected = SimulatedSource::snapshot_at(p, &id, t(NOW)).unwrap();
            assert_eq!(outcome, ReadOutcome::Found(expected));
        }
    }
}

#[test]
fn every_counter_is_monotone_over_sixty_days_at_fifteen_minutes() {
    for p in Platform::ALL {
        for id in sample_ids(p, 24) {
            let model = Model::new(p, &id).unwrap();
            // From a day before publishing, and across the hashed publish range.
            for start in [model.published(t(NOW)) - DAY, HASHED_FROM + 200 * DAY] {
                let mut prev = [0i64; 5];
                for step in 0..=60 * 96 {
                    let at = DateTime::from_timestamp(start + step * 900, 0).unwrap();
                    let c = model.counters(at).as_array().map(|x| x.unwrap_or(0));
                    assert!((0..5).all(|k| c[k] >= prev[k]), "{p} {id} fell at {at}");
                    prev = c;
                }
            }
        }
    }
}

#[test]
fn old_popular_videos_still_grow_and_ceilings_are_spread() {
    let mut grew = 0;
    for id in sample_ids(Platform::YouTube, 200) {
        let model = Model::new(Platform::YouTube, &id).unwrap();
        assert!((1_000.0..=20_000_000.0).contains(&model.ceiling));
        let day60 = DateTime::from_timestamp(model.hashed_time + 60 * DAY, 0).unwrap();
        let (before, after) = (model.views(day60), model.views(day60 + Span::days(1)));
        if before >= 100_000 {
            assert!(after > before, "{id}");
            grew += 1;
        }
    }
    assert!(grew > 20, "too few large videos: {grew}");
    let ids = sample_ids(Platform::TikTok, 200);
    let ceiling = |id: &String| Model::new(Platform::TikTok, id).unwrap().ceiling;
    let ceilings = ids.iter().map(ceiling);
    let (min, max) = ceilings.fold((f64::MAX, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
    assert!(min < 10_000.0 && max > 1e6, "{min} {max}");
}

#[test]
fn ratios_are_sane() {
    for p in Platform::ALL {
        for id in sample_ids(p, 40) {
            let model = Model::new(p, &id).unwrap();
            for days in [1, 7, 30, 400] {
                let at = DateTime::from_timestamp(model.published(t(NOW)) + days * DAY, 0);
                let c = model.counters(at.unwrap());
                let (v, l, cm) = (c.views.unwrap(), c.likes.unwrap(), c.comments.unwrap());
                assert!(v > 0 && l < v && l * 100 <= v * 12, "{p} {id}: {c:?}");
                assert!(cm < l.max(1) && cm * 20 <= l, "{p} {id}: {c:?}");
                for other in [c.reposts, c.saves].into_iter().flatten() {
                    assert!(other < l.max(1) && other * 5 <= l, "{p} {id}: {c:?}");
                }
            }
        }
    }
}

#[tokio::test]
async fn platforms_report_what_they_report() {
    let (src, _) = source(|_| ());
    for p in Platform::ALL {
        for outcome in read(&src, p, &sample_ids(p, 5)).await {
            let present = found(outcome).counters.as_array().map(|c| c.is_some());
            let tiktok = p == Platform::TikTok;
            assert_eq!(present, [true, true, true, tiktok, tiktok], "{p}");
        }
    }
    let batches = Platform::ALL.map(|p| src.max_batch(p));
    assert_eq!(batches, [20, 10, 50], "TikTok, Instagram, YouTube");
}

#[tokio::test]
async fn tiktok_ids_carry_their_creation_time() {
    let (src, clock) = source(|_| ());
    let ts = t("2024-03-10T12:00:00Z");
    let id = (((ts.timestamp() as u64) << 32) | 12_345).to_string();
    let meta = snapshot(&src, Platform::TikTok, &id).await.meta;
    assert_eq!(meta.published_at, Some(ts));
    // The URL a TikTok video was tracked by names its author: the read does not.
    assert_eq!(meta.author_username, None);
    assert_eq!(meta.author_display_name, None);
    assert_eq!(meta.canonical_url, None);

    // Published in 12 hours: nothing yet; an hour after publishing: views.
    let soon = ((clock.now().timestamp() as u64 + 12 * 3_600) << 32).to_string();
    let before = snapshot(&src, Platform::TikTok, &soon).await.counters;
    assert_eq!(before.as_array(), [Some(0); 5]);
    clock.advance(Span::hours(13));
    let after = snapshot(&src, Platform::TikTok, &soon).await.counters;
    assert!(after.views.unwrap() > 0);

    // Too far in the future, or before 2016: a hashed time in 2025–2026.
    for odd in [(4_000_000_000u64 << 32).to_string(), "123".to_string()] {
        let snap = SimulatedSource::snapshot_at(Platform::TikTok, &odd, t(NOW)).unwrap();
        let at = snap.meta.published_at.unwrap().timestamp();
        assert!((HASHED_FROM..HASHED_TO).contains(&at), "{odd}");
    }
}

#[tokio::test]
async fn metadata_is_believable() {
    let (src, _) = source(|_| ());
    let yt = snapshot(&src, Platform::YouTube, "aZ3kQm9TfLw").await;
    let meta = &yt.meta;
    assert_eq!(yt.source, ObservationSource::Simulated);
    assert!(!meta.title.as_deref().unwrap().contains('#'));
    let thumb = "https://picsum.photos/seed/youtube-aZ3kQm9TfLw/640/360";
    assert_eq!(meta.thumbnail_url.as_deref(), Some(thumb));
    let url = "https://www.youtube.com/watch?v=aZ3kQm9TfLw";
    assert_eq!(meta.canonical_url.as_deref(), Some(url));
    let user = meta.author_username.as_deref().unwrap();
    let display = meta.author_display_name.as_deref().unwrap().to_lowercase();
    assert_eq!(user.replace(['.', '_'], ""), display.replace(' ', ""));

    let ig = snapshot(&src, Platform::Instagram, "CDUMkliABpa").await;
    let ig = ig.meta;
    assert!(ig.title.unwrap().contains(" #") && ig.published_at.is_some());
    let url = "https://www.instagram.com/reel/CDUMkliABpa/";
    assert_eq!(ig.canonical_url.as_deref(), Some(url));
}

#[tokio::test]
async fn answers_every_id_in_order_and_impossible_ids_are_gone() {
    let (src, _) = source(|_| ());
    let ids = strings(&["7300000000000000000", "abc", "7300000000000000000", "+12"]);
    let answer = src.read_videos(Platform::TikTok, &ids).await.unwrap();
    let answered: Vec<String> = answer.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(answered, ids);
    assert_eq!(answer[0].1, answer[2].1);
    let bad_tiktok = ["1", "abc", "", "+12", "99999999999999999999"];
    assert_eq!(kinds(&src, Platform::TikTok, &bad_tiktok).await, "FGGGG");
    let bad_youtube = ["too-short", "aZ3kQm9TfLw!"];
    assert_eq!(kinds(&src, Platform::YouTube, &bad_youtube).await, "GG");
    let instagram = ["has space", "a_b-C"];
    assert_eq!(kinds(&src, Platform::Instagram, &instagram).await, "GF");
    let none = src.read_videos(Platform::TikTok, &[]).await.unwrap();
    assert!(none.is_empty());
}

#[tokio::test]
async fn gone_and_failing_ids_affect_only_themselves() {
    let (src, _) = source(|c| {
        c.gone_ids = strings(&["vid00000001"]);
        c.failing_ids = strings(&["vid00000002"]);
    });
    let yt = Platform::YouTube;
    let ids = ["vid00000000", "vid00000001", "vid00000002", "vid00000003"];
    assert_eq!(kinds(&src, yt, &ids).await, "FGXF");
    let reason = GONE_REASON.to_owned();
    let gone = ReadOutcome::Gone { reason };
    assert_eq!(read(&src, yt, &strings(&ids[1..2])).await, [gone]);

    // At run time, shared by clones.
    let clone = src.clone();
    clone.set_gone("vid00000000", true);
    assert_eq!(kinds(&src, yt, &ids).await, "GGXF");
    src.set_gone("vid00000000", false);
    assert_eq!(kinds(&clone, yt, &ids).await, "FGXF");
}

#[tokio::test]
async fn gone_rate_is_per_id_and_fail_rate_per_call_and_minute() {
    let (ig, tt) = (Platform::Instagram, Platform::TikTok);
    let ids = sample_ids(ig, 200);
    let (all, _) = source(|c| c.gone_rate = 1.0);
    let is_gone = |o: &ReadOutcome| matches!(o, ReadOutcome::Gone { .. });
    assert!(read(&all, ig, &ids).await.iter().all(is_gone));
    let (half, _) = source(|c| c.gone_rate = 0.5);
    let out = read(&half, ig, &ids).await;
    let gone = out.iter().filter(|o| is_gone(o)).count();
    assert!((60..=140).contains(&gone), "{gone} of 200 gone");
    assert_eq!(out, read(&half, ig, &ids).await);

    let ids = sample_ids(tt, 3);
    let (always, _) = source(|c| c.fail_rate = 1.0);
    let err = always.read_videos(tt, &ids).await.unwrap_err();
    assert_eq!(err, SourceError::Transient(FAILURE.into()));
    let (half, clock) = source(|c| c.fail_rate = 0.5);
    let mut failures = 0;
    for _ in 0..100 {
        let first = half.read_videos(tt, &ids).await.is_err();
        clock.advance(Span::seconds(30));
        let again = half.read_videos(tt, &ids).await.is_err();
        assert_eq!(first, again, "same minute, same answer");
        failures += usize::from(first);
        clock.advance(Span::seconds(30));
    }
    assert!((20..=80).contains(&failures), "{failures}/100 failed");
}

#[test]
fn stamped_ids_carry_their_time_and_plain_ids_rarely_look_stamped() {
    for p in Platform::ALL {
        for (k, at) in [MIN_ID_TIME, HASHED_FROM + 12_345, t(NOW).timestamp()]
            .iter()
            .enumerate()
        {
            let salt = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(k as u64 + 1);
            for minter in [Minter::Channel, Minter::Trends] {
                let id = stamped_id(p, minter, *at, salt);
                assert!(valid_id(p, &id), "{p} {id}");
                assert_eq!(carried_time(p, &id), Some(*at), "{p} {id}");
                let snap = SimulatedSource::snapshot_at(p, &id, t(NOW)).unwrap();
                assert_eq!(snap.meta.published_at.unwrap().timestamp(), *at, "{p} {id}");
                if p != Platform::TikTok {
                    assert_eq!(id.len(), 11);
                    assert_eq!(decode_64(&id).map(encode_64).as_deref(), Some(id.as_str()));
                    assert_eq!(minted_by(p, &id), Some(minter), "{p} {id}");
                }
            }
        }
    }
    for p in [Platform::YouTube, Platform::Instagram] {
        let plain = ["aZ3kQm9TfLw", "CDUMkliABpa"].map(String::from).into_iter();
        let stamped = plain
            .chain(sample_ids(p, 2_000))
            .filter(|id| carried_time(p, id).is_some())
            .count();
        assert_eq!(stamped, 0, "{p}");
    }
    assert_eq!(
        decode_64("aZ3kQm9TfLx"),
        None,
        "the last character holds 4 bits"
    );
    assert_eq!(decode_64("short"), None);
}

#[tokio::test]
async fn latency_is_respected() {
    let latency = Duration::from_millis(120);
    let (src, _) = source(|c| c.latency = latency);
    let started = std::time::Instant::now();
    read(&src, Platform::YouTube, &sample_ids(Platform::YouTube, 2)).await;
    assert!(started.elapsed() >= latency);
}
