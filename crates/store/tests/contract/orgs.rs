use rstest::rstest;
use vidpulse_domain::api_key::Scopes;
use vidpulse_domain::identity::Role;
use vidpulse_domain::{OrgId, Plan};
use vidpulse_store::{Backend, Membership, NewApiKey, NewOrganization, StoreError};

use crate::{org, store, t0};

#[rstest]
#[tokio::test]
async fn organizations_and_plans(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let (_db, store) = store(backend).await;
    let id = org(&store, Plan::Free).await;
    let o = store.organization(id).await.unwrap().unwrap();
    assert_eq!(
        (o.name.as_str(), o.plan, o.created_at),
        ("Acme", Plan::Free, t0())
    );
    assert_eq!(o.limits().video_quota, 100);

    let o = store
        .set_plan(id, Plan::Pro, Some(5), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (o.plan, o.limits().video_quota, o.limits().creator_cap),
        (Plan::Pro, 5, 200)
    );
    let o = store
        .set_plan(id, Plan::Business, None, Some(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((o.limits().video_quota, o.limits().creator_cap), (5000, 1));

    assert!(
        store
            .set_plan(OrgId::new(), Plan::Pro, None, None)
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.organization(OrgId::new()).await.unwrap().is_none());
}

#[rstest]
#[tokio::test]
async fn owner_email_may_own_several_organizations(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let mut orgs = Vec::new();
    for (name, email) in [("Two", "Owner@Example.com"), ("One", " owner@example.COM")] {
        let o = store
            .create_organization(NewOrganization {
                name: name.into(),
                plan: Plan::Pro,
                owner_email: Some(email.into()),
                owner_subject: Some("local|abc".into()),
                now: t0(),
            })
            .await
            .unwrap();
        orgs.push(o.id);
    }
    // One user (the address as first written) owns both, listed by name.
    let owner = store
        .user_for_identity("local|abc", "owner@example.com", t0())
        .await
        .unwrap();
    assert_eq!(
        (owner.subject.as_deref(), owner.email.as_str()),
        (Some("local|abc"), "Owner@Example.com")
    );
    assert_eq!(
        store.memberships(owner.id).await.unwrap(),
        [
            Membership {
                organization_id: orgs[1],
                name: "One".into(),
                role: Role::Owner,
            },
            Membership {
                organization_id: orgs[0],
                name: "Two".into(),
                role: Role::Owner,
            },
        ]
    );
    for id in orgs {
        let members = store.members(id).await.unwrap();
        assert_eq!(members.len(), 1);
        assert_eq!(
            (members[0].user_id, members[0].role),
            (owner.id, Role::Owner)
        );
    }
}

#[rstest]
#[tokio::test]
async fn api_keys_are_found_by_prefix_with_their_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let id = org(&store, Plan::Pro).await;
    let secret = vidpulse_domain::api_key::generate();
    let key = store
        .create_api_key(NewApiKey {
            organization_id: id,
            name: Some("ci".into()),
            prefix: secret.prefix.clone(),
            key_hash: secret.hash.to_vec(),
            scopes: Scopes::READ_ONLY,
            now: t0(),
        })
        .await
        .unwrap();
    assert_eq!(key.organization_id, id);
    assert_eq!(key.key_hash, secret.hash.to_vec());
    assert_eq!(key.scopes, Scopes::READ_ONLY);

    let found = store.api_keys_by_prefix(&secret.prefix).await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].key.id, key.id);
    assert_eq!(found[0].key.scopes, Scopes::READ_ONLY, "scopes are kept");
    assert_eq!(found[0].organization.plan, Plan::Pro);
    assert!(
        store
            .api_keys_by_prefix("vpk_nothing1")
            .await
            .unwrap()
            .is_empty()
    );

    let err = store
        .create_api_key(NewApiKey {
            organization_id: OrgId::new(),
            name: None,
            prefix: "vpk_x".into(),
            key_hash: vec![1; 32],
            scopes: Scopes::FULL,
            now: t0(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound), "{err:?}");
}
