//! Team invitations: created per address (members and pending addresses
//! skipped), counted while pending, accepted once, declined, expired when
//! their time passes. Another organization's invitations never count here.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rstest::rstest;
use uuid::Uuid;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{OrgId, UserId};
use vidpulse_store::{
    AcceptOutcome, Backend, DeclineOutcome, Invitation, InviteResult, MemberChange, Store,
};

use crate::users::user;
use crate::{store, t0};

const WEEK: Duration = Duration::days(7);

/// An organization "Acme" registered by its admin; returns both.
async fn acme(store: &Arc<dyn Store>) -> (OrgId, UserId) {
    let admin = user(store, "admin@example.com").await.id;
    let org = store
        .register_organization(admin, "Acme", t0())
        .await
        .unwrap();
    (org, admin)
}

/// Invites `email` as `role` to `org`, expiring at `expires_at`; expects a new invitation.
async fn invite(
    store: &Arc<dyn Store>,
    org: OrgId,
    by: UserId,
    email: &str,
    role: Role,
    expires_at: DateTime<Utc>,
) -> Invitation {
    let got = store
        .create_invitations(org, by, &[(email.into(), role)], expires_at, t0())
        .await
        .unwrap();
    match got.as_slice() {
        [InviteResult::Created(i)] => i.clone(),
        other => panic!("{other:?}"),
    }
}

#[rstest]
#[tokio::test]
async fn invitations_are_created_per_address_skipping_members_and_pending_ones(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let member = user(&store, "Member@Example.com").await.id;
    store
        .add_member(org, member, Role::Viewer, t0())
        .await
        .unwrap();
    let expires = t0() + WEEK;
    let got = store
        .create_invitations(
            org,
            admin,
            &[
                ("New@Example.com".into(), Role::Editor),
                ("member@example.com".into(), Role::Admin),
                ("ADMIN@example.com".into(), Role::Viewer),
                ("new@example.com".into(), Role::Viewer),
                ("other@example.com".into(), Role::Admin),
            ],
            expires,
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(got.len(), 5);
    let InviteResult::Created(new) = &got[0] else {
        panic!("{got:?}")
    };
    assert_eq!(
        (
            new.organization_id,
            new.email.as_str(),
            new.role,
            new.expires_at
        ),
        (org, "New@Example.com", Role::Editor, expires)
    );
    assert_eq!(
        got[1..4],
        [
            InviteResult::AlreadyMember,
            InviteResult::AlreadyMember,
            InviteResult::AlreadyInvited,
        ]
    );
    let InviteResult::Created(other) = &got[4] else {
        panic!("{got:?}")
    };
    assert_ne!(other.id, new.id);
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 2);
    // Asked again: pending already.
    assert_eq!(
        store
            .create_invitations(
                org,
                admin,
                &[("NEW@example.com".into(), Role::Admin)],
                expires,
                t0()
            )
            .await
            .unwrap(),
        [InviteResult::AlreadyInvited]
    );
    // The same address to another organization is another invitation, and
    // counts there only.
    let bob = user(&store, "bob@example.com").await.id;
    let theirs = store
        .register_organization(bob, "Other", t0())
        .await
        .unwrap();
    invite(
        &store,
        theirs,
        bob,
        "new@example.com",
        Role::Viewer,
        expires,
    )
    .await;
    assert_eq!(store.pending_invitations(theirs, t0()).await.unwrap(), 1);
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 2);
    assert_eq!(
        store.pending_invitations(OrgId::new(), t0()).await.unwrap(),
        0
    );
}

#[rstest]
#[tokio::test]
async fn an_invitation_expires_when_its_time_comes_and_the_address_may_be_invited_again(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    let first = invite(&store, org, admin, "ann@example.com", Role::Editor, expires).await;
    assert_eq!(
        store
            .pending_invitations(org, expires - Duration::seconds(1))
            .await
            .unwrap(),
        1
    );
    // At its expiry it is no longer pending.
    assert_eq!(store.pending_invitations(org, expires).await.unwrap(), 0);
    let ann = user(&store, "ann@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(first.id, ann, "ann@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::Expired,
        "marked expired by the count, whatever the clock says now"
    );
    // Inviting again creates a new invitation (the expired one is marked
    // by the create itself).
    let other = invite(&store, org, admin, "bob@example.com", Role::Viewer, expires).await;
    let later = expires + Duration::days(1);
    let again = store
        .create_invitations(
            org,
            admin,
            &[("bob@example.com".into(), Role::Admin)],
            later + WEEK,
            later,
        )
        .await
        .unwrap();
    let [InviteResult::Created(again)] = again.as_slice() else {
        panic!("{again:?}")
    };
    assert_ne!(again.id, other.id);
    assert_eq!(store.pending_invitations(org, later).await.unwrap(), 1);
    let bob = user(&store, "bob@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(other.id, bob, "bob@example.com", later)
            .await
            .unwrap(),
        AcceptOutcome::Expired
    );
    assert_eq!(
        store
            .decline_invitation(other.id, "bob@example.com", later)
            .await
            .unwrap(),
        DeclineOutcome::Expired
    );
    assert_eq!(
        store
            .accept_invitation(again.id, bob, "bob@example.com", later)
            .await
            .unwrap(),
        AcceptOutcome::Joined(org, "Acme".into())
    );
    assert_eq!(
        store.membership_role(bob, org).await.unwrap(),
        Some(Role::Admin)
    );
}

#[rstest]
#[tokio::test]
async fn accepting_joins_once_for_the_invited_address(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    let inv = invite(&store, org, admin, "Ann@Example.com", Role::Editor, expires).await;
    let ann = user(&store, "ann@example.com").await.id;
    let eve = user(&store, "eve@example.com").await.id;

    assert_eq!(
        store
            .accept_invitation(Uuid::new_v4(), ann, "ann@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::NotFound
    );
    assert_eq!(
        store
            .accept_invitation(inv.id, eve, "eve@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::WrongEmail
    );
    assert_eq!(store.membership_role(eve, org).await.unwrap(), None);
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 1);

    // The address in any ASCII case.
    let at = t0() + Duration::hours(1);
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ANN@example.com", at)
            .await
            .unwrap(),
        AcceptOutcome::Joined(org, "Acme".into())
    );
    assert_eq!(
        store.membership_role(ann, org).await.unwrap(),
        Some(Role::Editor)
    );
    assert_eq!(store.pending_invitations(org, at).await.unwrap(), 0);
    // Again, even after it would have expired: a member already.
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ann@example.com", expires + WEEK)
            .await
            .unwrap(),
        AcceptOutcome::AlreadyMember(org, "Acme".into())
    );
    assert_eq!(
        store
            .decline_invitation(inv.id, "ann@example.com", at)
            .await
            .unwrap(),
        DeclineOutcome::NotPending
    );
    // Removed since: the accepted invitation does not bring her back.
    assert_eq!(
        store.remove_member(org, Role::Owner, ann).await.unwrap(),
        MemberChange::Done
    );
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ann@example.com", at)
            .await
            .unwrap(),
        AcceptOutcome::NotPending
    );
    assert_eq!(store.membership_role(ann, org).await.unwrap(), None);
    // A new invitation may then be sent.
    invite(&store, org, admin, "ann@example.com", Role::Viewer, expires).await;
}

#[rstest]
#[tokio::test]
async fn a_member_accepting_a_pending_invitation_keeps_their_role(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let inv = invite(
        &store,
        org,
        admin,
        "ann@example.com",
        Role::Admin,
        t0() + WEEK,
    )
    .await;
    // Added directly after the invitation went out.
    let ann = user(&store, "ann@example.com").await.id;
    store
        .add_member(org, ann, Role::Viewer, t0())
        .await
        .unwrap();
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ann@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::AlreadyMember(org, "Acme".into())
    );
    assert_eq!(
        store.membership_role(ann, org).await.unwrap(),
        Some(Role::Viewer)
    );
    assert_eq!(
        store.pending_invitations(org, t0()).await.unwrap(),
        0,
        "the invitation is used"
    );
}

#[rstest]
#[tokio::test]
async fn concurrent_accepts_join_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let inv = invite(
        &store,
        org,
        admin,
        "ann@example.com",
        Role::Editor,
        t0() + WEEK,
    )
    .await;
    let ann = user(&store, "ann@example.com").await.id;
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .accept_invitation(inv.id, ann, "ann@example.com", t0())
                    .await
            })
        })
        .collect();
    let mut joined = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            AcceptOutcome::Joined(o, _) => {
                assert_eq!(o, org);
                joined += 1;
            }
            AcceptOutcome::AlreadyMember(o, _) => assert_eq!(o, org),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(joined, 1);
    assert_eq!(store.members(org).await.unwrap().len(), 2);
}

#[rstest]
#[tokio::test]
async fn declining_is_for_the_invited_address_and_final(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    let inv = invite(&store, org, admin, "ann@example.com", Role::Editor, expires).await;
    assert_eq!(
        store
            .decline_invitation(Uuid::new_v4(), "ann@example.com", t0())
            .await
            .unwrap(),
        DeclineOutcome::NotFound
    );
    assert_eq!(
        store
            .decline_invitation(inv.id, "eve@example.com", t0())
            .await
            .unwrap(),
        DeclineOutcome::WrongEmail
    );
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 1);
    assert_eq!(
        store
            .decline_invitation(inv.id, " Ann@Example.com", t0())
            .await
            .unwrap(),
        DeclineOutcome::Declined
    );
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 0);
    assert_eq!(
        store
            .decline_invitation(inv.id, "ann@example.com", t0())
            .await
            .unwrap(),
        DeclineOutcome::NotPending
    );
    let ann = user(&store, "ann@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ann@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::NotPending
    );
    assert_eq!(store.membership_role(ann, org).await.unwrap(), None);

    // Past its expiry, declining finds it expired (and marks it so).
    let late = invite(&store, org, admin, "bob@example.com", Role::Viewer, expires).await;
    assert_eq!(
        store
            .decline_invitation(late.id, "bob@example.com", expires)
            .await
            .unwrap(),
        DeclineOutcome::Expired
    );
    let bob = user(&store, "bob@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(late.id, bob, "bob@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::Expired
    );
}

#[rstest]
#[tokio::test]
async fn a_deleted_invitation_is_gone(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    let inv = invite(&store, org, admin, "ann@example.com", Role::Editor, expires).await;
    let keep = invite(&store, org, admin, "bob@example.com", Role::Editor, expires).await;
    store.delete_invitation(inv.id).await.unwrap();
    store.delete_invitation(Uuid::new_v4()).await.unwrap();
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 1);
    let ann = user(&store, "ann@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(inv.id, ann, "ann@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::NotFound
    );
    // The address may be invited again at once.
    invite(&store, org, admin, "ann@example.com", Role::Viewer, expires).await;
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 2);
    let bob = user(&store, "bob@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(keep.id, bob, "bob@example.com", t0())
            .await
            .unwrap(),
        AcceptOutcome::Joined(org, "Acme".into())
    );
}
