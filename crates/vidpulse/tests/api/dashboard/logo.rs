//! The organization's logo: uploaded by admins, checked by content and size,
//! served from `/files/`.

use rstest::rstest;
use serde_json::{Value, json};
use vidpulse_domain::Clock;
use vidpulse_store::Backend;

use super::{call, member, register};
use crate::helpers::{TestApp, assert_nested_error};

async fn upload(
    app: &TestApp,
    token: &str,
    org: &str,
    field: &str,
    bytes: Vec<u8>,
) -> crate::helpers::Answer {
    let form = reqwest::multipart::Form::new().part(
        field.to_owned(),
        reqwest::multipart::Part::bytes(bytes).file_name("logo.bin"),
    );
    let req = app
        .client
        .post(app.url("/organizations/logo"))
        .bearer_auth(token)
        .header("X-Organization-ID", org)
        .multipart(form);
    crate::helpers::TestApp::answer(req.send().await.unwrap()).await
}

/// A `width`×`height` image encoded as `format`, made here so the test
/// needs no fixture file.
fn image_bytes(format: image::ImageFormat, width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 40 % 256) as u8, (y * 40 % 256) as u8, 200])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// The `/files/...` path of a logo address.
fn file_path(url: &str) -> String {
    url.split_once("/files/")
        .map(|(_, n)| format!("/files/{n}"))
        .unwrap()
}

#[rstest]
#[tokio::test]
async fn admins_upload_a_logo_checked_by_content_and_size(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    use image::ImageFormat;
    use vidpulse_domain::identity::Role;
    let app = TestApp::spawn(backend).await;
    let (admin, _) = member(&app, "admin@example.com").await;
    let (viewer, viewer_id) = member(&app, "viewer@example.com").await;
    let a = register(&app, &admin, &json!({"name": "Acme"})).await;
    let org = a.body["data"]["organization_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let org_id = vidpulse_domain::OrgId(org.parse().unwrap());
    app.store
        .add_member(org_id, viewer_id, Role::Viewer, app.clock.now())
        .await
        .unwrap();
    let png = image_bytes(ImageFormat::Png, 32, 16);
    let html = b"<html><script>alert(document.cookie)</script></html>".to_vec();

    let a = upload(&app, &viewer, &org, "file", png.clone()).await;
    assert_nested_error(&a, 403, "INSUFFICIENT_PERMISSIONS");
    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".to_vec();
    for (what, field, bytes, status, code) in [
        ("svg", "file", svg, 400, "VALIDATION_ERROR"),
        (
            "gif",
            "file",
            b"GIF89a....".to_vec(),
            400,
            "VALIDATION_ERROR",
        ),
        ("other field", "other", png.clone(), 400, "VALIDATION_ERROR"),
        (
            "PNG signature then HTML",
            "file",
            [&b"\x89PNG\r\n\x1a\n"[..], &html].concat(),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "PNG then HTML",
            "file",
            [png.as_slice(), &html].concat(),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "4097 pixels wide",
            "file",
            image_bytes(ImageFormat::Png, 4097, 1),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "over 512 KiB",
            "file",
            [png.clone(), vec![0; 512 * 1024]].concat(),
            413,
            "PAYLOAD_TOO_LARGE",
        ),
    ] {
        let a = upload(&app, &admin, &org, field, bytes).await;
        assert_nested_error(&a, status, code);
        if status == 400 {
            assert_eq!(a.body["error"]["field"], "file", "{what}: {}", a.body);
        }
    }
    let a = upload(
        &app,
        &admin,
        &org,
        "file",
        image_bytes(ImageFormat::Png, 5000, 2),
    )
    .await;
    let message = a.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("5000×2"), "{message}");
    let a = app
        .send_raw(
            reqwest::Method::POST,
            "/organizations/logo",
            Some(&admin),
            "application/json",
            "{}",
        )
        .await;
    assert_eq!(a.status.as_u16(), 400, "{}", a.body);
    // Nothing refused was kept.
    let settings = |token: String| {
        let (app, org) = (&app, org.clone());
        async move {
            let a = call(
                app,
                reqwest::Method::GET,
                "/organizations/settings",
                &token,
                Some(&org),
                None,
            )
            .await;
            a.body["data"]["logo_url"].clone()
        }
    };
    assert_eq!(settings(viewer.clone()).await, Value::Null);
    let files_dir = app.services.state.config.files_dir.clone();
    let stored = || {
        std::fs::read_dir(&files_dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert!(stored().is_empty(), "{:?}", stored());

    let a = upload(&app, &admin, &org, "file", png.clone()).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let url = a.body["data"]["logo_url"].as_str().unwrap().to_owned();
    assert!(url.ends_with(".png"), "{url}");
    let path = file_path(&url);
    let got = app.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(got.status().as_u16(), 200);
    let name = path.trim_start_matches("/files/");
    let headers = got.headers();
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(
        headers["content-disposition"],
        format!("inline; filename=\"{name}\"").as_str()
    );
    assert_eq!(
        headers["content-security-policy"],
        "default-src 'none'; sandbox"
    );
    assert_eq!(got.bytes().await.unwrap().to_vec(), png);
    assert_eq!(settings(viewer.clone()).await, url.as_str());
    for bad in ["/files/nope.png", "/files/..%2Fx.png", "/files/x.svg"] {
        let a = app.get(bad, None).await;
        assert_eq!(a.status.as_u16(), 404, "{bad}");
    }

    // The same logo again keeps its file; a new one replaces and deletes it.
    let a = upload(&app, &admin, &org, "file", png.clone()).await;
    assert_eq!(a.body["data"]["logo_url"], url.as_str());
    assert_eq!(stored(), [name]);
    let jpeg = image_bytes(ImageFormat::Jpeg, 20, 20);
    let a = upload(&app, &admin, &org, "file", jpeg).await;
    assert_eq!(a.status.as_u16(), 200, "{}", a.body);
    let new_url = a.body["data"]["logo_url"].as_str().unwrap().to_owned();
    assert!(new_url.ends_with(".jpg"), "{new_url}");
    assert_eq!(settings(viewer).await, new_url.as_str());
    let new_path = file_path(&new_url);
    assert_eq!(stored(), [new_path.trim_start_matches("/files/")]);
    assert_eq!(app.get(&path, None).await.status.as_u16(), 404);
    let got = app.client.get(app.url(&new_path)).send().await.unwrap();
    assert_eq!(got.headers()["content-type"], "image/jpeg");
}
