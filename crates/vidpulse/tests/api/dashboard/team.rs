//! The team: organization settings, the user's language, members and their
//! removal.

use rstest::rstest;
use serde_json::json;
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use super::{call, member, register, registered};
use crate::helpers::{TestApp, assert_nested_error};

#[rstest]
#[tokio::test]
async fn team_settings_language_and_roles(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, admin_id) = member(&app, "zed-admin@example.com").await;
    let (editor, editor_id) = member(&app, "Bea@example.com").await;
    let (viewer, viewer_id) = member(&app, "al@example.com").await;
    let (outsider, _) = member(&app, "out@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    let now = app.clock.now();
    assert!(
        app.store
            .add_member(org_id, editor_id, Role::Editor, now)
            .await
            .unwrap()
    );
    assert!(
        app.store
            .add_member(org_id, viewer_id, Role::Viewer, now)
            .await
            .unwrap()
    );
    assert!(
        !app.store
            .add_member(org_id, viewer_id, Role::Admin, now)
            .await
            .unwrap()
    );

    // Settings: any member; the header is required and checked.
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        a.body["data"],
        json!({"id": org, "name": "Acme", "logo_url": null, "currency": "USD"})
    );
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        None,
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    assert_eq!(a.body["error"]["field"], "X-Organization-ID");
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some("nope"),
        None,
    )
    .await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    // Another organization's id answers like an unknown one.
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &outsider,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let unknown = uuid::Uuid::new_v4().to_string();
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &admin,
        Some(&unknown),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");

    // Members sorted by e-mail, case-insensitively.
    let a = call(
        &app,
        Method::GET,
        "/organizations/team/members",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    let emails: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["email"].as_str().unwrap())
        .collect();
    assert_eq!(
        emails,
        ["al@example.com", "Bea@example.com", "zed-admin@example.com"]
    );
    assert_eq!(a.body["data"][0]["id"], viewer_id.0.to_string());

    // Language: per user, validated.
    let a = call(
        &app,
        Method::GET,
        "/organizations/user/language",
        &viewer,
        None,
        None,
    )
    .await;
    assert_eq!(a.body["data"], json!({"language": "en"}));
    let a = call(
        &app,
        Method::PUT,
        "/organizations/user/language",
        &viewer,
        None,
        Some(&json!({"language": "pt-BR"})),
    )
    .await;
    assert_eq!(a.body["data"], json!({"language": "pt-BR"}), "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/organizations/user/language",
        &viewer,
        None,
        None,
    )
    .await;
    assert_eq!(a.body["data"]["language"], "pt-BR");
    for bad in [
        json!({}),
        json!({"language": 3}),
        json!({"language": "english!"}),
    ] {
        let a = call(
            &app,
            Method::PUT,
            "/organizations/user/language",
            &viewer,
            None,
            Some(&bad),
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
        assert_eq!(a.body["error"]["field"], "language");
    }

    // Removal: admins only, not yourself, not the last admin.
    let remove = |t: &str, id: &str| {
        let body = json!({"user_id": id});
        let (app, org, t) = (&app, org.clone(), t.to_owned());
        async move {
            call(
                app,
                Method::POST,
                "/organizations/team/members/remove",
                &t,
                Some(&org),
                Some(&body),
            )
            .await
        }
    };
    let a = remove(&editor, &viewer_id.0.to_string()).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let a = remove(&admin, &admin_id.0.to_string()).await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = remove(&admin, &uuid::Uuid::new_v4().to_string()).await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    let a = remove(&admin, "not-a-uuid").await;
    assert_nested_error(&a, 400, "VALIDATION_ERROR");
    let a = remove(&admin, &viewer_id.0.to_string()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let a = call(
        &app,
        Method::GET,
        "/organizations/settings",
        &viewer,
        Some(&org),
        None,
    )
    .await;
    assert_nested_error(&a, 404, "NOT_FOUND");
    // Promote the editor to admin, who then cannot remove the last other admin
    // after that one is gone: the store refuses to empty the admins.
    app.store
        .remove_member(org_id, Role::Owner, editor_id)
        .await
        .unwrap();
    assert!(
        app.store
            .add_member(org_id, editor_id, Role::Admin, now)
            .await
            .unwrap()
    );
    let a = remove(&editor, &admin_id.0.to_string()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    assert_eq!(
        app.store
            .remove_member(org_id, Role::Owner, editor_id)
            .await
            .unwrap(),
        vidpulse_store::MemberChange::LastAdmin
    );
    // An owner cannot remove the only admin either: the organization keeps
    // a member whose role is admin.
    let (owner, owner_id) = member(&app, "own@example.com").await;
    assert!(
        app.store
            .add_member(org_id, owner_id, Role::Owner, now)
            .await
            .unwrap()
    );
    let a = remove(&owner, &editor_id.0.to_string()).await;
    assert_nested_error(&a, 409, "LAST_ADMIN");
    assert_eq!(
        app.store.membership_role(editor_id, org_id).await.unwrap(),
        Some(Role::Admin)
    );
}

#[rstest]
#[tokio::test]
async fn admins_set_roles_only_owners_touch_owners_and_an_admin_remains(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, admin_id) = member(&app, "admin@example.com").await;
    let (owner, owner_id) = member(&app, "owner@example.com").await;
    let (editor, editor_id) = member(&app, "ed@example.com").await;
    let org = registered(
        &app,
        &admin,
        &[(owner_id, Role::Owner), (editor_id, Role::Editor)],
    )
    .await;
    let set = |token: &str, user: vidpulse_domain::UserId, role: &str| {
        let body = json!({"user_id": user.0, "role": role});
        let token = token.to_owned();
        let org = org.clone();
        let app = &app;
        async move {
            call(
                app,
                Method::POST,
                "/organizations/team/members/role",
                &token,
                Some(&org),
                Some(&body),
            )
            .await
        }
    };
    let role_of = |email: &'static str| {
        let org = org.clone();
        let admin = admin.clone();
        let app = &app;
        async move {
            let members = call(
                app,
                Method::GET,
                "/organizations/team/members",
                &admin,
                Some(&org),
                None,
            )
            .await;
            members.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["email"] == email)
                .map(|m| m["role"].as_str().unwrap().to_owned())
        }
    };

    // Editors cannot; admins can, but not make or unmake owners.
    assert_nested_error(
        &set(&editor, editor_id, "admin").await,
        403,
        "INSUFFICIENT_PERMISSIONS",
    );
    assert_nested_error(
        &set(&admin, editor_id, "owner").await,
        403,
        "INSUFFICIENT_PERMISSIONS",
    );
    assert_nested_error(
        &set(&admin, owner_id, "viewer").await,
        403,
        "INSUFFICIENT_PERMISSIONS",
    );
    let made = set(&admin, editor_id, "viewer").await;
    assert_eq!(made.status, 200, "{:?}", made.body);
    assert_eq!(role_of("ed@example.com").await.as_deref(), Some("viewer"));

    // The last admin stays admin, even at an owner's hand; with a second
    // admin, the first may step down.
    assert_nested_error(&set(&owner, admin_id, "editor").await, 409, "LAST_ADMIN");
    assert_eq!(set(&owner, editor_id, "admin").await.status, 200);
    assert_eq!(set(&owner, admin_id, "editor").await.status, 200);
    assert_eq!(
        role_of("admin@example.com").await.as_deref(),
        Some("editor")
    );

    // Bad input writes nothing.
    for body in [
        json!({"user_id": editor_id.0, "role": "boss"}),
        json!({"user_id": "nope", "role": "viewer"}),
        json!({"role": "viewer"}),
        json!([]),
    ] {
        let a = call(
            &app,
            Method::POST,
            "/organizations/team/members/role",
            &owner,
            Some(&org),
            Some(&body),
        )
        .await;
        assert_nested_error(&a, 400, "VALIDATION_ERROR");
    }
    let stranger = set(
        &owner,
        vidpulse_domain::UserId(uuid::Uuid::new_v4()),
        "viewer",
    )
    .await;
    assert_nested_error(&stranger, 404, "NOT_FOUND");
    assert_eq!(role_of("ed@example.com").await.as_deref(), Some("admin"));
}

#[rstest]
#[tokio::test]
async fn admins_rename_the_organization(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (viewer, viewer_id) = member(&app, "vi@example.com").await;
    let org = registered(&app, &admin, &[(viewer_id, Role::Viewer)]).await;
    let rename = |token: &str, body: serde_json::Value| {
        let (token, org, app) = (token.to_owned(), org.clone(), &app);
        async move {
            call(
                app,
                Method::PUT,
                "/organizations/settings",
                &token,
                Some(&org),
                Some(&body),
            )
            .await
        }
    };
    let by_viewer = rename(&viewer, json!({"name": "Mine"})).await;
    assert_nested_error(&by_viewer, 403, "INSUFFICIENT_PERMISSIONS");
    for body in [
        json!({"name": "  "}),
        json!({"name": 7}),
        json!({}),
        json!({"name": "x".repeat(201)}),
    ] {
        let bad = rename(&admin, body.clone()).await;
        assert_nested_error(&bad, 400, "VALIDATION_ERROR");
    }
    let done = rename(&admin, json!({"name": "  Acme Studio "})).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.body["data"]["name"], "Acme Studio");
    let listed = call(
        &app,
        Method::GET,
        "/organizations/list",
        &viewer,
        None,
        None,
    )
    .await;
    assert_eq!(listed.body["data"][0]["name"], "Acme Studio");
}

/// Issue 35, item 5: the only owner could demote themselves and leave the
/// organization without an owner. An organization always keeps one: the
/// last owner's own change is refused (409 `LAST_OWNER`), also when two
/// owners step down at once.
#[rstest]
#[tokio::test]
async fn the_last_owner_keeps_the_owner_role(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use reqwest::Method;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (owner, owner_id) = member(&app, "owner@example.com").await;
    let (second, second_id) = member(&app, "second@example.com").await;
    let org = registered(
        &app,
        &admin,
        &[(owner_id, Role::Owner), (second_id, Role::Admin)],
    )
    .await;
    let set = |token: &str, user: vidpulse_domain::UserId, role: &str| {
        let body = json!({"user_id": user.0, "role": role});
        let (token, org, app) = (token.to_owned(), org.clone(), &app);
        async move {
            call(
                app,
                Method::POST,
                "/organizations/team/members/role",
                &token,
                Some(&org),
                Some(&body),
            )
            .await
        }
    };
    let owners = || async {
        let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
        let mut owners: Vec<String> = app
            .store
            .members(org_id)
            .await
            .unwrap()
            .into_iter()
            .filter(|m| m.role == Role::Owner)
            .map(|m| m.email)
            .collect();
        owners.sort();
        owners
    };

    for role in ["admin", "editor", "viewer"] {
        let a = set(&owner, owner_id, role).await;
        assert_nested_error(&a, 409, "LAST_OWNER");
    }
    assert_eq!(owners().await, ["owner@example.com"]);

    // With a second owner, either may step down, but not both at once.
    assert_eq!(set(&owner, second_id, "owner").await.status, 200);
    let (a, b) = tokio::join!(
        set(&owner, owner_id, "admin"),
        set(&second, second_id, "admin")
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{:?} {:?}", a.body, b.body);
    let left = owners().await;
    assert_eq!(left.len(), 1, "{left:?}");
    // And demoting each other at once leaves one too (the loser is refused
    // as the last owner's demoter, or as an editor when it came second).
    let remaining = if left[0] == "owner@example.com" {
        (&owner, owner_id, &second, second_id)
    } else {
        (&second, second_id, &owner, owner_id)
    };
    let (keeper, keeper_id, other, other_id) = remaining;
    assert_eq!(set(keeper, other_id, "owner").await.status, 200);
    let (a, b) = tokio::join!(
        set(keeper, other_id, "editor"),
        set(other, keeper_id, "editor")
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert!(
        statuses == [200, 403] || statuses == [200, 409],
        "{:?} {:?}",
        a.body,
        b.body
    );
    assert_eq!(owners().await.len(), 1);
}
