//! Dashboard users: identities, organizations registered from the dashboard,
//! memberships and their removal policy, settings, API keys as admins manage
//! them. Another organization's ids answer nothing.

use std::sync::Arc;

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::identity::{Role, dev_subject};
use vidpulse_domain::{ApiKeyId, OrgId, Plan, UserId};
use vidpulse_store::{
    Backend, Member, MemberChange, Membership, NewApiKey, NewOrganization, OrgSettings, Store,
    StoreError, User,
};

use crate::{org, store, t0};

/// The user the development identity signs in as `email`.
pub async fn user(store: &Arc<dyn Store>, email: &str) -> User {
    store
        .user_for_identity(&dev_subject(email), email, t0())
        .await
        .unwrap()
}

/// An organization with `members` (user, role), registered by nobody.
async fn team(store: &Arc<dyn Store>, members: &[(UserId, Role)]) -> OrgId {
    let id = org(store, Plan::Pro).await;
    for (user, role) in members {
        assert!(store.add_member(id, *user, *role, t0()).await.unwrap());
    }
    id
}

#[rstest]
#[tokio::test]
async fn a_subject_is_one_user_and_an_address_belongs_to_one_subject(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = store
        .user_for_identity("idp|ann", "Ann@Example.com", t0())
        .await
        .unwrap();
    assert_eq!(
        (
            ann.subject.as_deref(),
            ann.email.as_str(),
            ann.language.as_str()
        ),
        (Some("idp|ann"), "Ann@Example.com", "en")
    );
    // Found by subject first: the address the token carries now changes nothing.
    let again = store
        .user_for_identity("idp|ann", "ann.new@example.com", t0())
        .await
        .unwrap();
    assert_eq!(again, ann);
    // The address (any ASCII case, spaces trimmed) belongs to that subject.
    for email in ["ann@example.com", " ANN@EXAMPLE.COM "] {
        let err = store
            .user_for_identity("idp|other", email, t0())
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    }
    // Equal only under Unicode case folding: another address, another user.
    let kelvin = store
        .user_for_identity("idp|k", "\u{212A}ate@example.com", t0())
        .await
        .unwrap();
    let kate = store
        .user_for_identity("idp|kate", "kate@example.com", t0())
        .await
        .unwrap();
    assert_ne!(kelvin.id, kate.id);
    assert_ne!(kelvin.id, ann.id);
}

#[rstest]
#[tokio::test]
async fn an_owner_made_without_a_subject_or_with_the_placeholder_takes_the_first_token(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let mut orgs = Vec::new();
    for (email, subject) in [
        ("bare@example.com", None),
        (
            "placeholder@example.com",
            Some(dev_subject("placeholder@example.com")),
        ),
        ("held@example.com", Some("idp|held".to_owned())),
    ] {
        let o = store
            .create_organization(NewOrganization {
                name: email.into(),
                plan: Plan::Pro,
                owner_email: Some(email.into()),
                owner_subject: subject,
                now: t0(),
            })
            .await
            .unwrap();
        orgs.push(o.id);
    }
    // No subject yet, or the development placeholder: the first verified
    // token with the address takes the user, and its organization with it.
    for (i, email) in ["Bare@example.com", "placeholder@example.com"]
        .into_iter()
        .enumerate()
    {
        let subject = format!("idp|{i}");
        let u = store
            .user_for_identity(&subject, email, t0())
            .await
            .unwrap();
        assert_eq!(u.subject.as_deref(), Some(subject.as_str()));
        assert_eq!(u.email, email.to_ascii_lowercase(), "as first written");
        assert_eq!(
            store.membership_role(u.id, orgs[i]).await.unwrap(),
            Some(Role::Owner)
        );
        // From then on it is that subject's: another one is refused ...
        let err = store
            .user_for_identity("idp|late", email, t0())
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
        // ... and the first is still the same user.
        let again = store
            .user_for_identity(&subject, email, t0())
            .await
            .unwrap();
        assert_eq!(again.id, u.id);
    }
    // A real subject given by the command does not yield.
    let err = store
        .user_for_identity("idp|other", "held@example.com", t0())
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    let held = store
        .user_for_identity("idp|held", "held@example.com", t0())
        .await
        .unwrap();
    assert_eq!(
        store.membership_role(held.id, orgs[2]).await.unwrap(),
        Some(Role::Owner)
    );
}

#[rstest]
#[tokio::test]
async fn a_burst_of_first_sign_ins_creates_one_user(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .user_for_identity("idp|burst", "burst@example.com", t0())
                    .await
            })
        })
        .collect();
    let mut ids = Vec::new();
    for t in tasks {
        ids.push(t.await.unwrap().unwrap().id);
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
}

#[rstest]
#[tokio::test]
async fn registered_organizations_are_free_with_their_user_as_admin_and_listed_by_name(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let bob = user(&store, "bob@example.com").await;
    let zeta = store
        .register_organization(ann.id, "Zeta", t0())
        .await
        .unwrap();
    let later = t0() + Duration::hours(1);
    let acme = store
        .register_organization(ann.id, "Acme", later)
        .await
        .unwrap();
    let bobs = store
        .register_organization(bob.id, "Bob's", t0())
        .await
        .unwrap();
    let o = store.organization(acme).await.unwrap().unwrap();
    assert_eq!(
        (o.name.as_str(), o.plan, o.created_at),
        ("Acme", Plan::Free, later)
    );
    assert_eq!(
        store.memberships(ann.id).await.unwrap(),
        [
            Membership {
                organization_id: acme,
                name: "Acme".into(),
                role: Role::Admin,
            },
            Membership {
                organization_id: zeta,
                name: "Zeta".into(),
                role: Role::Admin,
            },
        ]
    );
    // Same names are allowed; the id breaks the tie.
    let twin = store
        .register_organization(ann.id, "Acme", t0())
        .await
        .unwrap();
    let names: Vec<_> = store
        .memberships(ann.id)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.name, m.organization_id))
        .collect();
    let mut acmes = [acme, twin];
    acmes.sort_by_key(|o| o.0);
    assert_eq!(
        names,
        [
            ("Acme".to_owned(), acmes[0]),
            ("Acme".to_owned(), acmes[1]),
            ("Zeta".to_owned(), zeta),
        ]
    );
    assert_eq!(store.memberships(bob.id).await.unwrap().len(), 1);
    assert_eq!(
        store.membership_role(bob.id, bobs).await.unwrap(),
        Some(Role::Admin)
    );
    assert!(store.memberships(UserId::new()).await.unwrap().is_empty());
}

#[rstest]
#[tokio::test]
async fn the_first_writer_of_a_setting_wins(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    assert_eq!(
        store.setting_or_insert("k", "first").await.unwrap(),
        "first"
    );
    assert_eq!(
        store.setting_or_insert("k", "second").await.unwrap(),
        "first"
    );
    assert_eq!(
        store.setting_or_insert("j", "other").await.unwrap(),
        "other"
    );
    // Racing writers all get the one stored value.
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move { store.setting_or_insert("race", &format!("v{i}")).await })
        })
        .collect();
    let mut values = Vec::new();
    for t in tasks {
        values.push(t.await.unwrap().unwrap());
    }
    values.dedup();
    assert_eq!(values.len(), 1, "{values:?}");
    assert_eq!(
        store.setting_or_insert("race", "late").await.unwrap(),
        values[0]
    );
}

#[rstest]
#[tokio::test]
async fn settings_logo_and_language(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let bob = user(&store, "bob@example.com").await;
    let a = store
        .register_organization(ann.id, "Acme", t0())
        .await
        .unwrap();
    let b = store
        .register_organization(bob.id, "Other", t0())
        .await
        .unwrap();
    assert_eq!(
        store.organization_settings(a).await.unwrap(),
        Some(OrgSettings {
            id: a,
            name: "Acme".into(),
            logo_url: None,
            currency: "USD".into(),
        })
    );
    store
        .set_logo_url(a, "https://files.example/logo.png")
        .await
        .unwrap();
    let s = store.organization_settings(a).await.unwrap().unwrap();
    assert_eq!(
        s.logo_url.as_deref(),
        Some("https://files.example/logo.png")
    );
    store
        .set_logo_url(a, "https://files.example/new.jpg")
        .await
        .unwrap();
    let s = store.organization_settings(a).await.unwrap().unwrap();
    assert_eq!(s.logo_url.as_deref(), Some("https://files.example/new.jpg"));
    // Only that organization; an unknown one stays unknown.
    let s = store.organization_settings(b).await.unwrap().unwrap();
    assert_eq!(s.logo_url, None);
    let unknown = OrgId::new();
    store.set_logo_url(unknown, "x").await.unwrap();
    assert_eq!(store.organization_settings(unknown).await.unwrap(), None);

    store.set_language(ann.id, "pt-BR").await.unwrap();
    let signed_in = user(&store, "ann@example.com").await;
    assert_eq!(signed_in.language, "pt-BR");
    assert_eq!(user(&store, "bob@example.com").await.language, "en");
    store.set_language(UserId::new(), "de").await.unwrap();
}

#[rstest]
#[tokio::test]
async fn members_are_added_once_and_listed_by_address(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let zed = user(&store, "zed@example.com").await;
    let bea = user(&store, "Bea@example.com").await;
    let al = user(&store, "al@example.com").await;
    let a = store
        .register_organization(zed.id, "Acme", t0())
        .await
        .unwrap();
    assert!(
        store
            .add_member(a, bea.id, Role::Editor, t0())
            .await
            .unwrap()
    );
    assert!(
        store
            .add_member(a, al.id, Role::Viewer, t0())
            .await
            .unwrap()
    );
    // Already a member: the role stays.
    assert!(!store.add_member(a, al.id, Role::Admin, t0()).await.unwrap());
    assert_eq!(
        store.membership_role(al.id, a).await.unwrap(),
        Some(Role::Viewer)
    );
    assert_eq!(
        store.members(a).await.unwrap(),
        [
            Member {
                user_id: al.id,
                email: "al@example.com".into(),
                role: Role::Viewer,
            },
            Member {
                user_id: bea.id,
                email: "Bea@example.com".into(),
                role: Role::Editor,
            },
            Member {
                user_id: zed.id,
                email: "zed@example.com".into(),
                role: Role::Admin,
            },
        ]
    );
    // Another organization: its own members only; no role here.
    let b = team(&store, &[(al.id, Role::Admin)]).await;
    assert_eq!(store.members(b).await.unwrap().len(), 1);
    assert_eq!(store.membership_role(bea.id, b).await.unwrap(), None);
    assert_eq!(
        store.membership_role(zed.id, OrgId::new()).await.unwrap(),
        None
    );
    assert!(store.members(OrgId::new()).await.unwrap().is_empty());
    // No such organization or user: the write is refused.
    for (o, u) in [(OrgId::new(), al.id), (a, UserId::new())] {
        let err = store
            .add_member(o, u, Role::Viewer, t0())
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    }
}

#[rstest]
#[tokio::test]
async fn removal_keeps_an_admin_and_someone_to_manage(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let admin = user(&store, "admin@example.com").await.id;
    let second = user(&store, "second@example.com").await.id;
    let owner = user(&store, "owner@example.com").await.id;
    let viewer = user(&store, "viewer@example.com").await.id;
    let a = team(
        &store,
        &[
            (admin, Role::Admin),
            (owner, Role::Owner),
            (viewer, Role::Viewer),
        ],
    )
    .await;
    // The only admin stays, owners notwithstanding.
    assert_eq!(
        store.remove_member(a, Role::Owner, admin).await.unwrap(),
        MemberChange::LastAdmin
    );
    assert_eq!(
        store.membership_role(admin, a).await.unwrap(),
        Some(Role::Admin)
    );
    // Not members, unknown users, unknown organizations: nothing to remove.
    for (o, u) in [(a, second), (a, UserId::new()), (OrgId::new(), admin)] {
        assert_eq!(
            store.remove_member(o, Role::Owner, u).await.unwrap(),
            MemberChange::NotMember
        );
    }
    assert_eq!(
        store.remove_member(a, Role::Owner, viewer).await.unwrap(),
        MemberChange::Done
    );
    assert_eq!(store.membership_role(viewer, a).await.unwrap(), None);
    assert_eq!(
        store.remove_member(a, Role::Owner, viewer).await.unwrap(),
        MemberChange::NotMember
    );
    // Only an owner removes an owner: an admin's request removes nothing.
    assert_eq!(
        store.remove_member(a, Role::Admin, owner).await.unwrap(),
        MemberChange::NeedsRole(Role::Owner)
    );
    assert_eq!(
        store.membership_role(owner, a).await.unwrap(),
        Some(Role::Owner)
    );
    // A second admin: either admin may go; the only owner stays.
    assert!(
        store
            .add_member(a, second, Role::Admin, t0())
            .await
            .unwrap()
    );
    assert_eq!(
        store.remove_member(a, Role::Owner, owner).await.unwrap(),
        MemberChange::LastOwner
    );
    assert_eq!(
        store.remove_member(a, Role::Owner, admin).await.unwrap(),
        MemberChange::Done
    );
    assert_eq!(
        store.remove_member(a, Role::Owner, second).await.unwrap(),
        MemberChange::LastAdmin
    );
    let members: Vec<UserId> = store
        .members(a)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.user_id)
        .collect();
    assert_eq!(members, [owner, second]);

    // An organization with an owner and no admin keeps its owner; with two
    // owners, one may go.
    let other_owner = user(&store, "other@example.com").await.id;
    let b = team(&store, &[(owner, Role::Owner)]).await;
    assert_eq!(
        store.remove_member(b, Role::Owner, owner).await.unwrap(),
        MemberChange::LastAdmin
    );
    store
        .add_member(b, other_owner, Role::Owner, t0())
        .await
        .unwrap();
    assert_eq!(
        store.remove_member(b, Role::Owner, owner).await.unwrap(),
        MemberChange::Done
    );
    assert_eq!(
        store
            .remove_member(b, Role::Owner, other_owner)
            .await
            .unwrap(),
        MemberChange::LastAdmin
    );
    // Another organization's member is not a member here.
    assert_eq!(
        store.remove_member(b, Role::Owner, second).await.unwrap(),
        MemberChange::NotMember
    );
    assert_eq!(
        store.membership_role(second, a).await.unwrap(),
        Some(Role::Admin)
    );
}

#[rstest]
#[tokio::test]
async fn two_admins_removing_each_other_at_once_leave_one(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    for round in 0..5 {
        let x = user(&store, &format!("x{round}@example.com")).await.id;
        let y = user(&store, &format!("y{round}@example.com")).await.id;
        let o = team(&store, &[(x, Role::Admin), (y, Role::Admin)]).await;
        let (sx, sy) = (store.clone(), store.clone());
        let (rx, ry) = tokio::join!(
            tokio::spawn(async move { sx.remove_member(o, Role::Owner, x).await }),
            tokio::spawn(async move { sy.remove_member(o, Role::Owner, y).await }),
        );
        let mut outcomes = [rx.unwrap().unwrap(), ry.unwrap().unwrap()];
        outcomes.sort_by_key(|r| *r != MemberChange::Done);
        assert_eq!(
            outcomes,
            [MemberChange::Done, MemberChange::LastAdmin],
            "round {round}"
        );
        assert_eq!(store.members(o).await.unwrap().len(), 1);
    }
}

#[rstest]
#[tokio::test]
async fn api_keys_are_listed_newest_first_and_revoked_once_by_their_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let a = org(&store, Plan::Pro).await;
    let b = org(&store, Plan::Pro).await;
    let key = |o: OrgId, name: &str, minutes: i64| {
        let store = store.clone();
        let secret = vidpulse_domain::api_key::generate();
        let name = name.to_owned();
        async move {
            store
                .create_api_key(NewApiKey {
                    organization_id: o,
                    name: Some(name),
                    prefix: secret.prefix.clone(),
                    key_hash: secret.hash.to_vec(),
                    scopes: vidpulse_domain::api_key::Scopes::FULL,
                    now: t0() + Duration::minutes(minutes),
                })
                .await
                .unwrap()
        }
    };
    let old = key(a, "old", 0).await;
    let new = key(a, "new", 5).await;
    let theirs = key(b, "theirs", 1).await;
    assert_eq!(
        store.list_api_keys(a).await.unwrap(),
        [new.clone(), old.clone()]
    );
    assert_eq!(
        store.list_api_keys(b).await.unwrap(),
        std::slice::from_ref(&theirs)
    );
    assert!(store.list_api_keys(OrgId::new()).await.unwrap().is_empty());

    // Another organization's key, or an unknown one, is not revoked from here.
    let at = t0() + Duration::hours(1);
    assert!(!store.revoke_api_key(a, theirs.id, at).await.unwrap());
    assert!(!store.revoke_api_key(a, ApiKeyId::new(), at).await.unwrap());
    assert_eq!(store.list_api_keys(b).await.unwrap()[0].revoked_at, None);

    assert!(store.revoke_api_key(a, old.id, at).await.unwrap());
    assert!(
        !store
            .revoke_api_key(a, old.id, at + Duration::hours(1))
            .await
            .unwrap(),
        "revoked once"
    );
    let listed = store.list_api_keys(a).await.unwrap();
    assert_eq!(listed.len(), 2, "revoked keys stay listed");
    assert_eq!((listed[0].id, listed[0].revoked_at), (new.id, None));
    assert_eq!((listed[1].id, listed[1].revoked_at), (old.id, Some(at)));
    // A revoked key no longer authenticates.
    assert!(
        store
            .api_keys_by_prefix(&old.prefix)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.api_keys_by_prefix(&new.prefix).await.unwrap().len(),
        1
    );
}

#[rstest]
#[tokio::test]
async fn roles_change_as_the_policy_allows(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let bob = user(&store, "bob@example.com").await;
    let org = team(&store, &[(ann.id, Role::Admin), (bob.id, Role::Editor)]).await;
    let change = |by, who, role| {
        let store = store.clone();
        async move { store.set_member_role(org, by, who, role).await.unwrap() }
    };
    assert_eq!(
        change(Role::Admin, ann.id, Role::Viewer).await,
        MemberChange::LastAdmin
    );
    assert_eq!(
        change(Role::Admin, bob.id, Role::Owner).await,
        MemberChange::NeedsRole(Role::Owner)
    );
    assert_eq!(
        change(Role::Admin, bob.id, Role::Admin).await,
        MemberChange::Done
    );
    assert_eq!(
        change(Role::Admin, ann.id, Role::Viewer).await,
        MemberChange::Done
    );
    let roles: Vec<(String, Role)> = store
        .members(org)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.email, m.role))
        .collect();
    assert_eq!(
        roles,
        vec![
            ("ann@example.com".to_owned(), Role::Viewer),
            ("bob@example.com".to_owned(), Role::Admin)
        ]
    );
    let stranger = UserId::new();
    assert_eq!(
        change(Role::Owner, stranger, Role::Viewer).await,
        MemberChange::NotMember
    );
    let other = org_of_none(&store).await;
    assert_eq!(
        store
            .set_member_role(other, Role::Owner, bob.id, Role::Viewer)
            .await
            .unwrap(),
        MemberChange::NotMember,
        "another organization's member list does not hold bob"
    );
}

async fn org_of_none(store: &Arc<dyn Store>) -> OrgId {
    team(store, &[]).await
}

#[rstest]
#[tokio::test]
async fn the_last_owner_stays_owner_even_when_two_step_down_at_once(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let admin = user(&store, "admin@example.com").await.id;
    let owner = user(&store, "owner@example.com").await.id;
    let o = team(&store, &[(admin, Role::Admin), (owner, Role::Owner)]).await;
    for role in [Role::Admin, Role::Editor, Role::Viewer] {
        assert_eq!(
            store
                .set_member_role(o, Role::Owner, owner, role)
                .await
                .unwrap(),
            MemberChange::LastOwner
        );
    }
    assert_eq!(
        store.membership_role(owner, o).await.unwrap(),
        Some(Role::Owner)
    );
    for round in 0..5 {
        let x = user(&store, &format!("x{round}@example.com")).await.id;
        let y = user(&store, &format!("y{round}@example.com")).await.id;
        let o = team(
            &store,
            &[(admin, Role::Admin), (x, Role::Owner), (y, Role::Owner)],
        )
        .await;
        let (sx, sy) = (store.clone(), store.clone());
        let (rx, ry) = tokio::join!(
            tokio::spawn(async move { sx.set_member_role(o, Role::Owner, x, Role::Admin).await }),
            tokio::spawn(async move { sy.remove_member(o, Role::Owner, y).await }),
        );
        let mut outcomes = [rx.unwrap().unwrap(), ry.unwrap().unwrap()];
        outcomes.sort_by_key(|r| *r != MemberChange::Done);
        assert_eq!(
            outcomes,
            [MemberChange::Done, MemberChange::LastOwner],
            "round {round}"
        );
        let owners = store
            .members(o)
            .await
            .unwrap()
            .into_iter()
            .filter(|m| m.role == Role::Owner)
            .count();
        assert_eq!(owners, 1, "round {round}");
    }
}
