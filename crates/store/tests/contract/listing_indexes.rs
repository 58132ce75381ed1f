//! The listing's indexed copies follow the catalog: the titles' trigram
//! and bigram indexes (title search) and each tracked video's copy of the
//! publish time (publish-day filter and sort), whatever writes the catalog
//! row, for every organization tracking it, tracked before or after the
//! change.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use rstest::rstest;
use vidpulse_domain::{Counters, OrgId, Plan};
use vidpulse_store::{Backend, ListQuery, SortKey, SortOrder, Store, VideoMeta};

use crate::{org, save_reads, store, t0, track, yt};

/// Reads every due video at `at`, giving each the title and publish time
/// `meta(external id)` says.
async fn read_all(
    store: &Arc<dyn Store>,
    at: DateTime<Utc>,
    meta: impl Fn(&str) -> (Option<&'static str>, Option<DateTime<Utc>>),
) {
    let saved = save_reads(store, at, at + Duration::hours(1), |d| {
        let (title, published_at) = meta(&d.external_id);
        Some((
            Counters {
                views: Some(10),
                ..Counters::default()
            },
            VideoMeta {
                title: title.map(str::to_owned),
                published_at,
                ..VideoMeta::default()
            },
        ))
    })
    .await;
    assert!(saved > 0);
}

/// The external ids the listing `query` finds for `org`, in its order,
/// and its count.
async fn found(store: &Arc<dyn Store>, org: OrgId, query: &ListQuery) -> (Vec<String>, i64) {
    let page = store.list_videos(org, query, t0()).await.unwrap();
    let stamps = store.list_stamps(org, query, t0()).await.unwrap();
    assert_eq!(stamps.total, page.total, "the stamps' page counts the same");
    assert_eq!(
        stamps.items.iter().map(|s| s.video_id).collect::<Vec<_>>(),
        page.items.iter().map(|r| r.video_id).collect::<Vec<_>>(),
        "the stamps' page lists the same videos"
    );
    (
        page.items.into_iter().map(|r| r.external_id).collect(),
        page.total,
    )
}

fn search(text: &str) -> ListQuery {
    ListQuery {
        title: Some(text.to_owned()),
        sort: SortKey::CreatedAt,
        order: SortOrder::Asc,
        ..ListQuery::all(t0().date_naive())
    }
}

fn published(from: Option<DateTime<Utc>>, before: Option<DateTime<Utc>>) -> ListQuery {
    ListQuery {
        published_from: from,
        published_before: before,
        sort: SortKey::PublishedAt,
        order: SortOrder::Desc,
        ..ListQuery::all(t0().date_naive())
    }
}

fn day(d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, d, 12, 0, 0).unwrap()
}

fn ids(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[rstest]
#[tokio::test]
async fn title_search_and_publish_days_follow_the_catalog_for_every_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b) = (org(&store, Plan::Pro).await, org(&store, Plan::Pro).await);
    track(&store, a, t0(), vec![yt(1), yt(2), yt(3)]).await;
    track(&store, b, t0(), vec![yt(1)]).await;
    read_all(&store, t0(), |id| match id {
        "vid00000001" => (Some("Ça Marche Déjà"), Some(day(3))),
        "vid00000002" => (Some(r#"Garlic "quoted" noodles"#), Some(day(5))),
        _ => (None, None),
    })
    .await;
    let (one, two) = ("vid00000001", "vid00000002");

    // Any case, Unicode too; short searches (two characters from the
    // bigram index, one compared title by title); quotes, `%` and `_` are
    // text.
    for (text, expected) in [
        ("marche", ids(&[one])),
        ("ÇA MARCHE", ids(&[one])),
        ("déjà", ids(&[one])),
        ("ga", ids(&[two])),
        ("GA", ids(&[two])),
        ("ma", ids(&[one])),
        ("c ", ids(&[two])),
        ("a%", ids(&[])),
        ("_", ids(&[])),
        ("e", ids(&[one, two])),
        (r#""quoted""#, ids(&[two])),
        ("quoted noodles", ids(&[])),
        ("garlic noodles", ids(&[])),
    ] {
        let n = expected.len() as i64;
        assert_eq!(
            found(&store, a, &search(text)).await,
            (expected, n),
            "{text}"
        );
    }
    assert_eq!(found(&store, b, &search("marche")).await, (ids(&[one]), 1));
    // Another organization's titles are not searched.
    for text in ["garlic", "ga", "n"] {
        assert_eq!(
            found(&store, b, &search(text)).await,
            (ids(&[]), 0),
            "{text}"
        );
    }

    // Publish days, and the sort, from the tracked videos' copies; a video
    // without a publish time sorts last.
    assert_eq!(
        found(&store, a, &published(Some(day(4)), None)).await,
        (ids(&[two]), 1)
    );
    assert_eq!(
        found(&store, a, &published(None, Some(day(4)))).await,
        (ids(&[one]), 1)
    );
    assert_eq!(
        found(&store, a, &published(None, None)).await,
        (ids(&[two, one, "vid00000003"]), 3)
    );

    // The catalog changes: the title and publish time of video 1 move for
    // both organizations, and an organization tracking it afterwards starts
    // from the new ones.
    read_all(&store, t0() + Duration::hours(1), |id| match id {
        "vid00000001" => (Some("Another title"), Some(day(9))),
        "vid00000002" => (Some(r#"Garlic "quoted" noodles"#), Some(day(5))),
        _ => (None, None),
    })
    .await;
    let c = org(&store, Plan::Pro).await;
    track(&store, c, t0(), vec![yt(1)]).await;
    for o in [a, b, c] {
        assert_eq!(found(&store, o, &search("marche")).await, (ids(&[]), 0));
        assert_eq!(found(&store, o, &search("other")).await, (ids(&[one]), 1));
        // Two characters (the bigram index) follow the new title too.
        assert_eq!(found(&store, o, &search("ma")).await, (ids(&[]), 0));
        assert_eq!(found(&store, o, &search("ti")).await, (ids(&[one]), 1));
        assert_eq!(
            found(&store, o, &published(Some(day(8)), None)).await,
            (ids(&[one]), 1)
        );
    }
    assert_eq!(
        found(&store, a, &published(None, None)).await,
        (ids(&[one, two, "vid00000003"]), 3)
    );
}

#[rstest]
#[tokio::test]
async fn records_by_id_are_the_organizations_own(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (a, b) = (org(&store, Plan::Pro).await, org(&store, Plan::Pro).await);
    let mine: Vec<_> = track(&store, a, t0(), vec![yt(1), yt(2)])
        .await
        .into_iter()
        .map(|v| v.video_id)
        .collect();
    let theirs = track(&store, b, t0(), vec![yt(1)]).await[0].video_id;
    let mut asked = mine.clone();
    asked.push(theirs);
    let mut got: Vec<_> = store
        .videos_by_id(a, &asked, t0())
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.video_id)
        .collect();
    got.sort();
    let mut expected = mine.clone();
    expected.sort();
    assert_eq!(got, expected, "another organization's id is absent");
    assert!(store.videos_by_id(a, &[], t0()).await.unwrap().is_empty());
    // Each record is the single read's.
    for id in mine {
        let one = store
            .video(a, &vidpulse_store::VideoLookup::Id(id), t0())
            .await
            .unwrap()
            .unwrap();
        let listed = store.videos_by_id(a, &[id], t0()).await.unwrap();
        assert_eq!(listed, vec![one]);
    }
}
