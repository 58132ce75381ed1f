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
    AcceptOutcome, Backend, DeclineOutcome, Invitation, InvitationPassword, InviteResult,
    InviteStatus, MemberChange, NewInvite, PendingOutcome, Store,
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

/// `email` to invite as `role`, with a random token hash.
fn to_invite(email: &str, role: Role) -> NewInvite {
    NewInvite {
        email: email.into(),
        role,
        token_hash: Uuid::new_v4().as_bytes().to_vec(),
    }
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
        .create_invitations(org, by, &[to_invite(email, role)], expires_at, t0())
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
                to_invite("New@Example.com", Role::Editor),
                to_invite("member@example.com", Role::Admin),
                to_invite("ADMIN@example.com", Role::Viewer),
                to_invite("new@example.com", Role::Viewer),
                to_invite("other@example.com", Role::Admin),
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
                &[to_invite("NEW@example.com", Role::Admin)],
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
            &[to_invite("bob@example.com", Role::Admin)],
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

/// Invites `email` to `org` with the token hash `token`.
async fn invite_with(
    store: &Arc<dyn Store>,
    org: OrgId,
    by: UserId,
    email: &str,
    token: &[u8],
    expires_at: DateTime<Utc>,
) -> Invitation {
    let got = store
        .create_invitations(
            org,
            by,
            &[NewInvite {
                email: email.into(),
                role: Role::Editor,
                token_hash: token.to_vec(),
            }],
            expires_at,
            t0(),
        )
        .await
        .unwrap();
    match got.as_slice() {
        [InviteResult::Created(i)] => i.clone(),
        other => panic!("{other:?}"),
    }
}

#[rstest]
#[tokio::test]
async fn the_token_finds_its_pending_invitation_and_the_invitee_sees_it_by_id(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    let inv = invite_with(&store, org, admin, "Ann@Example.com", b"tok-ann", expires).await;

    let found = store
        .invitation_by_token(b"tok-ann", t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.invitation, inv);
    assert_eq!(found.organization_name, "Acme");
    assert_eq!(found.invited_by.as_deref(), Some("admin@example.com"));
    assert_eq!(found.status, InviteStatus::Pending);
    assert_eq!(
        store.invitation_by_token(b"tok-other", t0()).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .invitation_by_token(b"tok-ann", expires)
            .await
            .unwrap(),
        None,
        "expired"
    );

    // By id, for the invited address only (in any ASCII case).
    let mine = store
        .invitation_for(inv.id, "ann@example.com", t0())
        .await
        .unwrap();
    assert_eq!(mine, Some(found));
    assert_eq!(
        store
            .invitation_for(inv.id, "admin@example.com", t0())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .invitation_for(Uuid::new_v4(), "ann@example.com", t0())
            .await
            .unwrap(),
        None
    );
    let later = store
        .invitation_for(inv.id, "ann@example.com", expires)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(later.status, InviteStatus::Expired);

    // Answered: the token is spent, the invitee sees what became of it.
    store
        .decline_invitation(inv.id, "ann@example.com", t0())
        .await
        .unwrap();
    assert_eq!(
        store.invitation_by_token(b"tok-ann", t0()).await.unwrap(),
        None
    );
    let declined = store
        .invitation_for(inv.id, "ann@example.com", t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(declined.status, InviteStatus::Declined);
}

#[rstest]
#[tokio::test]
async fn an_invitation_token_sets_a_first_password_once_and_only_for_who_cannot_sign_in(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let expires = t0() + WEEK;
    // Kim has a password; Lee an unused set-password link; Ida an
    // identity; Old a link that expired unused; New nothing at all.
    let kim = store.user_by_email("kim@example.com", t0()).await.unwrap();
    store
        .create_password_link(kim.id, b"kim-link", t0(), t0() + WEEK)
        .await
        .unwrap();
    store
        .use_password_link(b"kim-link", "$kim", t0())
        .await
        .unwrap()
        .unwrap();
    let lee = store.user_by_email("lee@example.com", t0()).await.unwrap();
    store
        .create_password_link(lee.id, b"lee-link", t0(), t0() + WEEK)
        .await
        .unwrap();
    user(&store, "ida@example.com").await;
    let old = store.user_by_email("old@example.com", t0()).await.unwrap();
    store
        .create_password_link(old.id, b"old-link", t0() - WEEK, t0() - Duration::hours(1))
        .await
        .unwrap();
    for email in ["kim", "lee", "ida", "old", "new"] {
        let address = format!("{email}@example.com");
        invite_with(&store, org, admin, &address, address.as_bytes(), expires).await;
    }

    assert_eq!(
        store
            .set_password_by_invitation(b"unknown", "$x", t0())
            .await
            .unwrap(),
        InvitationPassword::UnknownToken
    );
    for email in ["kim", "lee", "ida"] {
        let address = format!("{email}@example.com");
        assert_eq!(
            store
                .set_password_by_invitation(address.as_bytes(), "$attacker", t0())
                .await
                .unwrap(),
            InvitationPassword::CanSignIn,
            "{address}"
        );
        // Nothing written: the token still reads its invitation.
        assert!(
            store
                .invitation_by_token(address.as_bytes(), t0())
                .await
                .unwrap()
                .is_some()
        );
    }
    assert_eq!(
        store
            .password_of("kim@example.com")
            .await
            .unwrap()
            .unwrap()
            .1
            .as_deref(),
        Some("$kim")
    );
    for email in ["lee@example.com", "ida@example.com"] {
        assert_eq!(store.password_of(email).await.unwrap().unwrap().1, None);
    }
    // Lee's own link still works.
    assert!(
        store
            .use_password_link(b"lee-link", "$lee", t0())
            .await
            .unwrap()
            .is_some()
    );

    // An expired link leaves no way in; nor does having no user at all.
    let InvitationPassword::Set(set) = store
        .set_password_by_invitation(b"old@example.com", "$old", t0())
        .await
        .unwrap()
    else {
        panic!("the old address gets its password")
    };
    assert_eq!(set.id, old.id);
    let InvitationPassword::Set(created) = store
        .set_password_by_invitation(b"new@example.com", "$new", t0())
        .await
        .unwrap()
    else {
        panic!("the new address gets its password")
    };
    assert_eq!(
        (created.email.as_str(), created.subject),
        ("new@example.com", None)
    );
    let (found, hash) = store.password_of("NEW@example.com").await.unwrap().unwrap();
    assert_eq!((found.id, hash.as_deref()), (created.id, Some("$new")));
    // Once: the token is spent, though the invitation stays pending.
    assert_eq!(
        store
            .set_password_by_invitation(b"new@example.com", "$again", t0())
            .await
            .unwrap(),
        InvitationPassword::UnknownToken
    );
    assert_eq!(store.pending_invitations(org, t0()).await.unwrap(), 5);
    // An expired invitation's token sets nothing.
    let late = invite_with(
        &store,
        org,
        admin,
        "late@example.com",
        b"late",
        t0() + Duration::hours(1),
    )
    .await;
    assert_eq!(
        store
            .set_password_by_invitation(b"late", "$late", t0() + Duration::hours(1))
            .await
            .unwrap(),
        InvitationPassword::UnknownToken
    );
    assert_eq!(store.password_of("late@example.com").await.unwrap(), None);
    assert_eq!(late.email, "late@example.com");
}

#[rstest]
#[tokio::test]
async fn admins_cancel_and_renew_pending_invitations_of_their_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let (org, admin) = acme(&store).await;
    let other = store
        .register_organization(admin, "Other", t0())
        .await
        .unwrap();
    let expires = t0() + WEEK;
    let ann = invite_with(&store, org, admin, "ann@example.com", b"ann-1", expires).await;
    let bob = invite_with(&store, org, admin, "bob@example.com", b"bob-1", expires).await;

    for outcome in [
        store.pending_invitation(other, ann.id, t0()).await.unwrap(),
        store.cancel_invitation(other, ann.id, t0()).await.unwrap(),
        store
            .renew_invitation(other, ann.id, b"x", expires, t0())
            .await
            .unwrap(),
        store
            .pending_invitation(org, Uuid::new_v4(), t0())
            .await
            .unwrap(),
    ] {
        assert_eq!(outcome, PendingOutcome::NotFound);
    }
    assert_eq!(
        store.pending_invitation(org, ann.id, t0()).await.unwrap(),
        PendingOutcome::Found(ann.clone())
    );

    // Renewed: a new token and expiry; the old token finds nothing.
    let renewed_until = expires + Duration::days(1);
    let at = t0() + Duration::days(1);
    let PendingOutcome::Found(renewed) = store
        .renew_invitation(org, ann.id, b"ann-2", renewed_until, at)
        .await
        .unwrap()
    else {
        panic!("renewed")
    };
    assert_eq!(renewed.expires_at, renewed_until);
    assert_eq!(store.invitation_by_token(b"ann-1", at).await.unwrap(), None);
    let found = store
        .invitation_by_token(b"ann-2", expires)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.invitation, renewed);

    // Cancelled: its token finds nothing, accept refuses, and a second
    // cancel or renew finds it no longer pending.
    assert_eq!(
        store.cancel_invitation(org, ann.id, at).await.unwrap(),
        PendingOutcome::Found(renewed)
    );
    assert_eq!(store.invitation_by_token(b"ann-2", at).await.unwrap(), None);
    let ann_user = user(&store, "ann@example.com").await.id;
    assert_eq!(
        store
            .accept_invitation(ann.id, ann_user, "ann@example.com", at)
            .await
            .unwrap(),
        AcceptOutcome::NotPending
    );
    assert_eq!(
        store.cancel_invitation(org, ann.id, at).await.unwrap(),
        PendingOutcome::NotPending
    );
    assert_eq!(
        store
            .renew_invitation(org, ann.id, b"ann-3", renewed_until, at)
            .await
            .unwrap(),
        PendingOutcome::NotPending
    );
    assert_eq!(
        store
            .invitation_for(ann.id, "ann@example.com", at)
            .await
            .unwrap()
            .unwrap()
            .status,
        InviteStatus::Cancelled
    );
    assert_eq!(store.pending_invitations(org, at).await.unwrap(), 1);
    // The address may be invited again.
    invite(&store, org, admin, "ann@example.com", Role::Viewer, expires).await;

    // Lapsed: neither renewed nor cancelled, and marked expired.
    assert_eq!(
        store
            .renew_invitation(org, bob.id, b"bob-2", expires + WEEK, expires)
            .await
            .unwrap(),
        PendingOutcome::Expired
    );
    assert_eq!(
        store.cancel_invitation(org, bob.id, expires).await.unwrap(),
        PendingOutcome::Expired
    );
    assert_eq!(
        store.invitation_by_token(b"bob-1", t0()).await.unwrap(),
        None
    );
}
