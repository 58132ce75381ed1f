//! The record cache alone: an entry per organization and lookup, current
//! while its stamp holds and time has not ended the tracking, and sent
//! spliced between each answer's own parts.

use std::sync::Arc;

use chrono::{Duration, TimeZone, Utc};
use vidpulse_domain::{OrgId, VideoId};
use vidpulse_store::{RecordStamp, VideoLookup};

use super::RecordCache;
use super::gzip::{self, Part};

fn stamp(video: VideoId, revision: i64, catalog_revision: i64) -> RecordStamp {
    RecordStamp {
        video_id: video,
        revision,
        catalog_revision,
    }
}

#[test]
fn a_kept_answer_is_current_while_its_stamp_holds_and_its_tracking_lasts() {
    let cache = RecordCache::new(1 << 20);
    let (org, video) = (OrgId::new(), VideoId::new());
    let by_id = VideoLookup::Id(video);
    assert!(cache.get(org, &by_id).is_none());
    let now = Utc.with_ymd_and_hms(2026, 11, 2, 10, 0, 0).unwrap();
    let ends = now + Duration::days(30);
    let body = br#"{"stats":{"1":[1,2]},"video_id":"v"}"#.to_vec();
    let kept = cache
        .keep(org, by_id.clone(), stamp(video, 3, 7), Some(ends), &body)
        .unwrap();
    assert!(Arc::ptr_eq(&cache.get(org, &by_id).unwrap(), &kept));
    // Another organization, the other lookup: entries of their own.
    assert!(cache.get(OrgId::new(), &by_id).is_none());
    assert!(
        cache
            .get(org, &VideoLookup::ExternalId("v".into()))
            .is_none()
    );

    assert!(kept.is_current(&stamp(video, 3, 7), now));
    assert!(
        !kept.is_current(&stamp(video, 4, 7), now),
        "the tracking moved"
    );
    assert!(
        !kept.is_current(&stamp(video, 3, 8), now),
        "the catalog moved"
    );
    assert!(
        !kept.is_current(&stamp(VideoId::new(), 3, 7), now),
        "another video"
    );
    assert!(
        !kept.is_current(&stamp(video, 3, 7), ends),
        "the tracking ended"
    );
    let never = cache
        .keep(org, by_id.clone(), stamp(video, 3, 7), None, &body)
        .unwrap();
    assert!(never.is_current(&stamp(video, 3, 7), ends + Duration::days(999)));
    assert!(
        Arc::ptr_eq(&cache.get(org, &by_id).unwrap(), &never),
        "replaced"
    );

    // Sent between this answer's parts: the same bytes, gzip or plain.
    let (opening, meta) = (br#"{"data":["#, br#"],"meta":{"request_id":"r"}}"#);
    let whole = [opening.as_slice(), &body, b",", &body, meta].concat();
    let parts = [
        Part::Plain(opening),
        Part::Deflated(&kept.body),
        Part::Plain(b","),
        Part::Deflated(&kept.body),
        Part::Plain(meta),
    ];
    assert_eq!(gzip::plain(&parts).unwrap(), whole);
    let mut inflated = Vec::new();
    let gz = gzip::gzip(&parts);
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(gz.as_slice()),
        &mut inflated,
    )
    .unwrap();
    assert_eq!(inflated, whole);
}

#[test]
fn a_cache_of_no_bytes_keeps_nothing() {
    let cache = RecordCache::new(0);
    let (org, video) = (OrgId::new(), VideoId::new());
    let by_id = VideoLookup::Id(video);
    let kept = cache.keep(org, by_id.clone(), stamp(video, 0, 0), None, b"{}");
    assert!(kept.is_none());
    assert!(cache.get(org, &by_id).is_none());
}
