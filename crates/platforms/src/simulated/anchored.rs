//! Continuing a video from its anchor: the latest reading imported for it
//! (docs/platforms.md, "The simulated platforms").
//!
//! At the anchor's instant every counter the anchor has equals the anchor's.
//! From there each one grows by one factor, the same for all of them:
//!
//! - along the model's own curve when the model's video has views at the
//!   anchor's instant: times `(D + v(t) − v(a)) / D`, with `v` the model's
//!   views, `a` the anchor's instant and `D` the larger of `v(a)` and the
//!   model's ceiling. A video past its rise (`v(a)` above the ceiling) is
//!   the model's curve scaled through the anchor; one still rising in the
//!   model gains what the model gains, scaled down, so it at most about
//!   doubles instead of jumping by the ratio of two young counts;
//! - by the model's long tail (its rate, fading over 30 days) when the model
//!   publishes the video after the anchor's instant: modest growth, as the
//!   model has no curve there to follow.
//!
//! A counter the anchor lacks follows from the one it derives from in the
//! model (likes from views, the others from likes); views the anchor lacks
//! follow from its likes or comments by the model's ratios, else from the
//! model's own views at the anchor's instant. The factor only grows with
//! time, so no counter ever decreases, and it depends on nothing but the id,
//! the anchor and the instant.

use chrono::{DateTime, Utc};
use vidpulse_domain::{Counters, Observation, Platform};

use super::{DAY, Model, TAIL_FADE_DAYS, scale};

/// How an anchored counter grows from the anchor's instant to a read's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Growth {
    /// Along the model's curve: times `num / den` (`num = den` at the anchor).
    Curve {
        /// The numerator, at least 0.
        num: i64,
        /// The denominator, at least 1.
        den: i64,
    },
    /// By the model's long tail since the anchor: times `1 + tail`.
    Tail(f64),
}

impl Growth {
    /// `value` (at least 0) grown, rounded down, exact at the anchor.
    fn apply(self, value: i64) -> i64 {
        let value = value.max(0);
        match self {
            Growth::Curve { num, den } => {
                let grown = i128::from(value) * i128::from(num) / i128::from(den);
                i64::try_from(grown).unwrap_or(i64::MAX)
            }
            Growth::Tail(tail) => value.saturating_add((value as f64 * tail).floor() as i64),
        }
    }
}

impl Model<'_> {
    /// The counters at `now` of a video whose latest imported reading is `anchor`.
    pub(super) fn anchored_counters(&self, anchor: &Observation, now: DateTime<Utc>) -> Counters {
        let growth = self.growth(anchor.captured_at, now);
        let given = anchor.counters;
        let grown =
            |anchored: Option<i64>, derived: i64| anchored.map_or(derived, |v| growth.apply(v));
        let views = growth.apply(self.anchor_views(&given, anchor.captured_at));
        let likes = grown(given.likes, scale(views, self.like_ratio));
        let all_five = self.platform == Platform::TikTok;
        Counters {
            views: Some(views),
            likes: Some(likes),
            comments: Some(grown(given.comments, scale(likes, self.comment_ratio))),
            reposts: all_five.then(|| grown(given.reposts, scale(likes, self.repost_ratio))),
            saves: all_five.then(|| grown(given.saves, scale(likes, self.save_ratio))),
        }
    }

    /// The views the anchor stands for: its own, else what its likes or
    /// comments make by the model's ratios, else the model's at its instant.
    fn anchor_views(&self, given: &Counters, at: DateTime<Utc>) -> i64 {
        let from = |count: Option<i64>, ratio: f64| count.map(|c| (c.max(0) as f64 / ratio) as i64);
        given
            .views
            .or_else(|| from(given.likes, self.like_ratio))
            .or_else(|| from(given.comments, self.like_ratio * self.comment_ratio))
            .unwrap_or_else(|| self.views(at))
    }

    /// The factor from the anchor's instant `at` to `now` (see the module doc).
    fn growth(&self, at: DateTime<Utc>, now: DateTime<Utc>) -> Growth {
        let at_anchor = self.views(at);
        if at_anchor == 0 {
            let days = (now - at).num_seconds().max(0) as f64 / DAY as f64;
            let tail = self.tail_per_day * TAIL_FADE_DAYS * (days / TAIL_FADE_DAYS).ln_1p();
            return Growth::Tail(tail);
        }
        let den = at_anchor.max(self.ceiling as i64);
        Growth::Curve {
            num: den + self.views(now) - at_anchor,
            den,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use chrono::Duration as Span;
    use vidpulse_domain::Anchor;

    use super::super::tests::{NOW, sample_ids, source, t};
    use super::*;
    use crate::simulated::{HASHED_FROM, Minter, SimulatedSource, stamped_id};
    use crate::source::{ReadOutcome, Source, VideoSnapshot};

    /// An anchor read at `at`: `views`, likes a twentieth, comments a
    /// hundredth, TikTok reposts and saves a fiftieth.
    fn reading(p: Platform, at: DateTime<Utc>, views: i64) -> Observation {
        let tiktok = (p == Platform::TikTok).then_some(views / 50);
        Observation {
            captured_at: at,
            counters: Counters {
                views: Some(views),
                likes: Some(views / 20),
                comments: Some(views / 100),
                reposts: tiktok,
                saves: tiktok,
            },
        }
    }

    fn anchor(reading: Observation, author: Option<&str>) -> Anchor {
        Anchor {
            reading: Some(reading),
            author: author.map(str::to_owned),
        }
    }

    /// The reading of `id` at `at` continued from `anchor`.
    fn read_at(p: Platform, id: &str, anchor: &Anchor, at: DateTime<Utc>) -> VideoSnapshot {
        SimulatedSource::anchored_snapshot_at(p, id, anchor, at).unwrap()
    }

    /// Anchor instants: before the model publishes the video, an hour after
    /// it does (still rising), and long after; each with a count far below
    /// and far above the model's.
    fn anchors(p: Platform, id: &str) -> Vec<Anchor> {
        let published = Model::new(p, id).unwrap().published(t(NOW));
        let instants = [
            published - 40 * DAY,
            published + 3_600,
            published + 200 * DAY,
        ];
        let mut out = Vec::new();
        for at in instants.map(|s| DateTime::from_timestamp(s, 0).unwrap()) {
            for views in [1_900, 50_000_000] {
                out.push(anchor(reading(p, at, views), Some("mira")));
            }
        }
        out
    }

    #[test]
    fn the_anchors_counters_hold_at_its_instant_and_none_decreases_after() {
        for p in Platform::ALL {
            for id in sample_ids(p, 12) {
                for a in anchors(p, &id) {
                    let r = a.reading.unwrap();
                    let at_anchor = read_at(p, &id, &a, r.captured_at).counters;
                    let mut expected = r.counters;
                    if p != Platform::TikTok {
                        (expected.reposts, expected.saves) = (None, None);
                    }
                    assert_eq!(at_anchor, expected, "{p} {id}");
                    let model = Model::new(p, &id).unwrap();
                    let mut prev = [0i64; 5];
                    for step in 0..=40 * 96 {
                        let at = r.captured_at - Span::days(1) + Span::minutes(15 * step);
                        let c = model.anchored_counters(&r, at);
                        let c = c.as_array().map(|x| x.unwrap_or(0));
                        assert!((0..5).all(|k| c[k] >= prev[k]), "{p} {id} fell at {at}");
                        prev = c;
                    }
                }
            }
        }
    }

    #[test]
    fn an_anchored_video_grows_modestly_and_goes_on_growing() {
        for p in Platform::ALL {
            for id in sample_ids(p, 40) {
                for a in anchors(p, &id) {
                    let r = a.reading.unwrap();
                    let given = r.counters.views.unwrap();
                    let views = |days| {
                        let at = r.captured_at + Span::days(days);
                        read_at(p, &id, &a, at).counters.views.unwrap()
                    };
                    let (day2, day30, day60) = (views(2), views(30), views(60));
                    // Within a small factor of the anchor, never a jump.
                    assert!(day2 >= given && day30 <= given * 5 / 2, "{p} {id} {day30}");
                    assert!(day60 > day2, "{p} {id}: no growth");
                }
            }
        }
    }

    #[test]
    fn the_same_id_anchor_and_instant_give_the_same_reading() {
        let p = Platform::YouTube;
        let id = "aqz-KE-bpKQ";
        let at = t(NOW) - Span::days(2);
        let a = anchor(reading(p, at, 1_900), Some("mira"));
        let now = t(NOW) + Span::minutes(7);
        assert_eq!(read_at(p, id, &a, now), read_at(p, id, &a, now));
        let other = anchor(reading(p, at, 2_500), Some("mira"));
        assert_ne!(read_at(p, id, &a, now), read_at(p, id, &other, now));
    }

    #[tokio::test]
    async fn a_read_continues_only_the_anchored_ids() {
        let (src, _) = source(|_| ());
        let p = Platform::YouTube;
        let ids = vec!["aqz-KE-bpKQ".to_owned(), "dQw4w9WgXcQ".to_owned()];
        let a = anchor(reading(p, t(NOW) - Span::days(2), 1_900), Some("mira"));
        let anchors = HashMap::from([(ids[0].clone(), a.clone())]);
        assert!(src.wants_anchors());
        let answer = src.read_anchored(p, &ids, &anchors).await.unwrap();
        let expected = [
            read_at(p, &ids[0], &a, t(NOW)),
            SimulatedSource::snapshot_at(p, &ids[1], t(NOW)).unwrap(),
        ];
        for ((id, outcome), (asked, snapshot)) in answer.into_iter().zip(ids.iter().zip(expected)) {
            assert_eq!((&id, outcome), (asked, ReadOutcome::Found(snapshot)));
        }
        // No anchors: exactly the plain read.
        let plain = src.read_anchored(p, &ids, &HashMap::new()).await.unwrap();
        assert_eq!(plain, src.read_videos(p, &ids).await.unwrap());
    }

    #[test]
    fn the_anchors_author_replaces_only_a_hashed_one() {
        let at = t(NOW) - Span::days(2);
        let channel_id = |p| stamped_id(p, Minter::Channel, HASHED_FROM + 9 * DAY, 7);
        for p in Platform::ALL {
            let mut ids = sample_ids(p, 3);
            ids.push(channel_id(p));
            for id in ids {
                let plain = SimulatedSource::snapshot_at(p, &id, t(NOW)).unwrap();
                let given = anchor(reading(p, at, 1_900), Some("mira"));
                let meta = read_at(p, &id, &given, t(NOW)).meta;
                let hashed = plain.meta.author_username.is_some();
                assert_eq!(
                    hashed,
                    p != Platform::TikTok && id != channel_id(p),
                    "{p} {id}"
                );
                let named = hashed.then(|| "mira".to_owned());
                assert_eq!(meta.author_username, named, "{p} {id}");
                assert_eq!(meta.author_display_name, named, "{p} {id}");
                // Only an author: the counters are the model's own.
                let author_only = Anchor {
                    reading: None,
                    author: Some("mira".into()),
                };
                let snapshot = read_at(p, &id, &author_only, t(NOW));
                assert_eq!(snapshot.counters, plain.counters);
                assert_eq!(snapshot.meta.author_username, named, "{p} {id}");
            }
        }
    }

    #[test]
    fn a_video_read_before_the_model_publishes_it_has_no_publish_time() {
        for p in Platform::ALL {
            for id in sample_ids(p, 6) {
                let published = Model::new(p, &id).unwrap().published(t(NOW));
                let published = DateTime::from_timestamp(published, 0).unwrap();
                for (at, said) in [
                    (published - Span::days(40), None),
                    (published, Some(published)),
                ] {
                    let given = anchor(reading(p, at, 1_900), None);
                    let meta = read_at(p, &id, &given, published + Span::days(1)).meta;
                    assert_eq!(meta.published_at, said, "{p} {id}");
                }
            }
        }
    }

    #[test]
    fn counters_the_anchor_lacks_follow_from_those_it_has() {
        let at = t(NOW) - Span::days(2);
        let id = "C0000000007";
        let model = Model::new(Platform::Instagram, id).unwrap();
        // Instagram often hides views: the likes stand for them.
        let likes_only = Anchor {
            reading: Some(Observation {
                captured_at: at,
                counters: Counters {
                    likes: Some(300),
                    ..Counters::default()
                },
            }),
            author: None,
        };
        let c = read_at(Platform::Instagram, id, &likes_only, at).counters;
        assert_eq!(c.likes, Some(300));
        let views = c.views.unwrap();
        assert_eq!(views, (300.0 / model.like_ratio) as i64);
        assert_eq!(c.comments, Some(scale(300, model.comment_ratio)));
        assert_eq!((c.reposts, c.saves), (None, None));
    }
}
