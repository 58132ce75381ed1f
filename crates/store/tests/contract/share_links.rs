//! Share links: made only for the organization's own campaign, found by
//! their token's hash while they open (not revoked, not expired), a view
//! counted only when asked, revoked once (the first time stays), listed
//! newest first with the revoked ones, and gone with their campaign.

use std::sync::Arc;

use chrono::Duration;
use rstest::rstest;
use vidpulse_domain::{CampaignId, OrgId, Plan};
use vidpulse_store::{Backend, NewCampaign, NewShareLink, Store};

use crate::{campaign, org, store, t0};

/// A campaign of `org` named `name`.
async fn made(store: &Arc<dyn Store>, org: OrgId, name: &str) -> CampaignId {
    let new = NewCampaign {
        name: campaign(name),
        client: None,
        starts_on: None,
        ends_on: None,
        budget: None,
        currency: None,
        target_views: None,
        notes: None,
    };
    store
        .create_campaign(org, new, t0())
        .await
        .unwrap()
        .unwrap()
        .id
}

fn link(campaign: CampaignId, hash: &str) -> NewShareLink {
    NewShareLink {
        campaign_id: campaign,
        token_hash: hash.into(),
        label: Some("Client".into()),
        show_spend: false,
        expires_at: None,
        created_by: None,
    }
}

#[rstest]
#[tokio::test]
async fn a_link_opens_until_revoked_or_expired(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (_db, store) = store(backend).await;
    let acme = org(&store, Plan::Pro).await;
    let other = org(&store, Plan::Pro).await;
    let summer = made(&store, acme, "Summer").await;
    let theirs = made(&store, other, "Summer").await;

    // Only for the organization's own campaign.
    assert!(
        store
            .create_share_link(acme, link(theirs, "h0"), t0())
            .await
            .unwrap()
            .is_none()
    );
    let first = store
        .create_share_link(acme, link(summer, "h1"), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((first.organization_id, first.campaign_id), (acme, summer));
    assert_eq!((first.views, first.last_viewed_at), (0, None));
    assert!(first.is_active(t0()));
    let mut expiring = link(summer, "h2");
    expiring.expires_at = Some(t0() + Duration::hours(1));
    expiring.show_spend = true;
    let second = store
        .create_share_link(acme, expiring, t0() + Duration::seconds(1))
        .await
        .unwrap()
        .unwrap();
    assert!(second.show_spend);

    // Reading counts nothing; opening the page counts a view.
    let later = t0() + Duration::minutes(10);
    let read = store
        .open_share_link("h1", later, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.views, 0);
    let viewed = store
        .open_share_link("h1", later, true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((viewed.views, viewed.last_viewed_at), (1, Some(later)));
    assert!(
        store
            .open_share_link("nope", later, true)
            .await
            .unwrap()
            .is_none()
    );

    // Expired: opens nothing, counts nothing.
    let past = t0() + Duration::hours(2);
    assert!(
        store
            .open_share_link("h2", past, true)
            .await
            .unwrap()
            .is_none()
    );
    // Newest first, for this organization only.
    let listed = store.share_links(acme, summer).await.unwrap();
    assert_eq!(
        listed.iter().map(|l| (l.id, l.views)).collect::<Vec<_>>(),
        vec![(second.id, 0), (first.id, 1)]
    );
    assert!(store.share_links(other, summer).await.unwrap().is_empty());

    // Revoked: by its organization and campaign only; the first time stays.
    assert!(
        store
            .revoke_share_link(other, summer, first.id, past)
            .await
            .unwrap()
            .is_none()
    );
    let revoked = store
        .revoke_share_link(acme, summer, first.id, past)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(revoked.revoked_at, Some(past));
    let again = store
        .revoke_share_link(acme, summer, first.id, past + Duration::hours(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.revoked_at, Some(past));
    assert!(
        store
            .open_share_link("h1", past, false)
            .await
            .unwrap()
            .is_none()
    );

    // A token's hash is one link's.
    assert!(
        store
            .create_share_link(acme, link(summer, "h1"), past)
            .await
            .is_err()
    );
    // Gone with the campaign.
    assert!(store.delete_campaign(acme, summer, past).await.unwrap());
    assert!(store.share_links(acme, summer).await.unwrap().is_empty());
}
