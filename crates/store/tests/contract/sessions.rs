//! Signing in: passwords, sessions (found by token hash, expiring, listed
//! and ended by their own user only) and one-time password links.

use chrono::Duration;
use rstest::rstest;
use vidpulse_store::{Backend, NewSession};

use crate::users::user;
use crate::{store, t0};

fn session(token: &[u8], user: vidpulse_domain::UserId, days: i64) -> NewSession<'_> {
    NewSession {
        token_hash: token,
        user,
        user_agent: Some("Test/1.0"),
        now: t0(),
        expires_at: t0() + Duration::days(days),
    }
}

#[rstest]
#[tokio::test]
async fn a_user_found_by_address_has_no_password_until_a_link_sets_one(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    assert_eq!(store.password_of("kim@example.com").await.unwrap(), None);
    let kim = store
        .user_by_email(" Kim@Example.com ", t0())
        .await
        .unwrap();
    assert_eq!((kim.email.as_str(), kim.subject), ("Kim@Example.com", None));
    // The same address in another case is the same user.
    let again = store.user_by_email("kim@example.com", t0()).await.unwrap();
    assert_eq!(again.id, kim.id);
    let (found, hash) = store.password_of("KIM@example.com").await.unwrap().unwrap();
    assert_eq!((found.id, hash), (kim.id, None));

    store
        .create_password_link(kim.id, b"link-1", t0(), t0() + Duration::hours(1))
        .await
        .unwrap();
    // Unknown and expired links set nothing.
    assert_eq!(
        store
            .use_password_link(b"other", "$h1", t0())
            .await
            .unwrap(),
        None
    );
    let late = t0() + Duration::hours(2);
    assert_eq!(
        store
            .use_password_link(b"link-1", "$h1", late)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .password_of("kim@example.com")
            .await
            .unwrap()
            .unwrap()
            .1,
        None
    );
    // A valid link sets the password once.
    let used = store
        .use_password_link(b"link-1", "$h1", t0())
        .await
        .unwrap();
    assert_eq!(used.map(|u| u.id), Some(kim.id));
    assert_eq!(
        store
            .use_password_link(b"link-1", "$h2", t0())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .password_of("kim@example.com")
            .await
            .unwrap()
            .unwrap()
            .1
            .as_deref(),
        Some("$h1")
    );
}

#[rstest]
#[tokio::test]
async fn sessions_are_found_by_token_until_they_expire_or_end(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let bob = user(&store, "bob@example.com").await;
    let first = store
        .start_session(session(b"tok-1", ann.id, 30))
        .await
        .unwrap();
    let second = store
        .start_session(session(b"tok-2", ann.id, 1))
        .await
        .unwrap();
    let bobs = store
        .start_session(session(b"tok-3", bob.id, 30))
        .await
        .unwrap();

    let (found, who) = store.session(b"tok-1", t0()).await.unwrap().unwrap();
    assert_eq!((found.id, who.id), (first, ann.id));
    assert_eq!(found.user_agent.as_deref(), Some("Test/1.0"));
    assert_eq!(store.session(b"nope", t0()).await.unwrap(), None);

    // Use is noted, to the minute.
    let later = t0() + Duration::minutes(5);
    let (seen, _) = store.session(b"tok-1", later).await.unwrap().unwrap();
    assert_eq!(seen.last_seen_at, later);
    let listed = store.sessions(ann.id, later).await.unwrap();
    assert_eq!(
        listed.iter().map(|s| s.id).collect::<Vec<_>>(),
        vec![first, second],
        "most recently used first"
    );

    // Expired: not found, not listed.
    let in_two_days = t0() + Duration::days(2);
    assert_eq!(store.session(b"tok-2", in_two_days).await.unwrap(), None);
    assert_eq!(store.sessions(ann.id, in_two_days).await.unwrap().len(), 1);

    // A user ends only their own sessions.
    assert!(!store.end_session(ann.id, bobs).await.unwrap());
    assert!(store.session(b"tok-3", t0()).await.unwrap().is_some());
    assert!(store.end_session(ann.id, first).await.unwrap());
    assert!(!store.end_session(ann.id, first).await.unwrap());
    assert_eq!(store.session(b"tok-1", t0()).await.unwrap(), None);
    // Signing out ends the session its token names.
    assert!(store.end_session_by_token(b"tok-3").await.unwrap());
    assert!(!store.end_session_by_token(b"tok-3").await.unwrap());
    assert_eq!(store.session(b"tok-3", t0()).await.unwrap(), None);
}

#[rstest]
#[tokio::test]
async fn setting_a_password_by_link_ends_every_session(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    store
        .start_session(session(b"tok-a", ann.id, 30))
        .await
        .unwrap();
    store
        .start_session(session(b"tok-b", ann.id, 30))
        .await
        .unwrap();
    store
        .create_password_link(ann.id, b"reset", t0(), t0() + Duration::hours(1))
        .await
        .unwrap();
    store
        .use_password_link(b"reset", "$new", t0())
        .await
        .unwrap()
        .unwrap();
    assert!(store.sessions(ann.id, t0()).await.unwrap().is_empty());
    assert_eq!(store.session(b"tok-a", t0()).await.unwrap(), None);
}
