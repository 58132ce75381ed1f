#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::{Assets, CSP, PAGES, not_found_page, router};

/// What Chromium sends when it opens a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,\
    image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

/// `index.html` as a request without a session cookie gets it.
fn signed_out_index() -> Vec<u8> {
    let index = String::from_utf8(Assets::get("index.html").unwrap().data.into_owned()).unwrap();
    let marker = r#"<meta name="vidpulse-session" content="unknown">"#;
    assert!(
        index.contains(marker),
        "index.html lacks its session marker"
    );
    index
        .replace(marker, r#"<meta name="vidpulse-session" content="none">"#)
        .into_bytes()
}

async fn get(path: &str, headers: &[(&str, &str)]) -> axum::response::Response {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    router::<()>()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap()
}

async fn body(response: axum::response::Response) -> Vec<u8> {
    response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec()
}

fn header<'a>(response: &'a axum::response::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

fn assert_security_headers(response: &axum::response::Response) {
    assert_eq!(header(response, "content-security-policy"), CSP);
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    assert_eq!(header(response, "referrer-policy"), "same-origin");
}

#[tokio::test]
async fn every_page_path_answers_the_app_page() {
    let index = Assets::get("index.html").unwrap().data.into_owned();
    for path in PAGES {
        let path = path
            .replace("{id}", "0195f3a2-0000-7000-8000-000000000001")
            .to_string();
        let response = get(&path, &[("cookie", "lang=de; vidpulse_session=abc")]).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&response, "content-type"),
            "text/html; charset=utf-8"
        );
        assert_eq!(header(&response, "cache-control"), "no-cache");
        assert_eq!(header(&response, "vary"), "cookie");
        assert_security_headers(&response);
        assert_eq!(body(response).await, index, "{path}");
    }
}

/// A browser without a session cookie is signed out: its page says so, and
/// the app does not ask for a session (a 401 that browsers log as an error).
#[tokio::test]
async fn the_page_tells_a_browser_without_a_session_cookie_it_is_signed_out() {
    let signed_in = get("/sign-in", &[("cookie", "vidpulse_session=abc")]).await;
    let signed_in_tag = header(&signed_in, "etag").to_owned();
    for cookie in [None, Some("lang=de"), Some("vidpulse_session=; x=1")] {
        let headers: Vec<(&str, &str)> = cookie.map(|c| ("cookie", c)).into_iter().collect();
        let response = get("/sign-in", &headers).await;
        assert_eq!(response.status(), StatusCode::OK, "{cookie:?}");
        assert_security_headers(&response);
        let tag = header(&response, "etag").to_owned();
        assert_ne!(tag, signed_in_tag, "each variant has its own tag");
        assert_eq!(body(response).await, signed_out_index(), "{cookie:?}");
        let mut again = headers.clone();
        again.push(("if-none-match", &tag));
        let cached = get("/sign-in", &again).await;
        assert_eq!(cached.status(), StatusCode::NOT_MODIFIED, "{cookie:?}");
        let mut other = headers.clone();
        other.push(("if-none-match", &signed_in_tag));
        assert_eq!(get("/sign-in", &other).await.status(), StatusCode::OK);
    }
}

fn request_headers(pairs: &[(&str, &str)]) -> axum::http::HeaderMap {
    let mut headers = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        headers.append(
            axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    headers
}

#[tokio::test]
async fn a_browser_opening_an_unknown_page_gets_the_app_with_404() {
    use axum::http::Method;
    for path in [
        "/nope",
        "/videos/a/b",
        "/login/x",
        "/index.html",
        "/v1x",
        "/docsx/y",
    ] {
        for method in [Method::GET, Method::HEAD] {
            let headers = request_headers(&[("accept", BROWSER_ACCEPT), ("if-none-match", "*")]);
            let response = not_found_page(&method, path, &headers)
                .unwrap_or_else(|| panic!("{method} {path} left to the API"));
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(
                header(&response, "content-type"),
                "text/html; charset=utf-8"
            );
            assert_security_headers(&response);
            if method == Method::GET {
                assert_eq!(body(response).await, signed_out_index(), "{path}");
            }
        }
    }
    let only_html = request_headers(&[("accept", "text/html")]);
    assert!(not_found_page(&Method::GET, "/nope", &only_html).is_some());
}

#[test]
fn api_clients_and_api_paths_keep_the_json_404() {
    use axum::http::Method;
    let browser = request_headers(&[("accept", BROWSER_ACCEPT)]);
    for path in [
        "/v1",
        "/v1/nothing",
        "/auth/nope",
        "/organizations/x",
        "/dashboard/nope",
        "/blogger/x",
        "/analytics/x",
        "/tags/x",
        "/files/x.png",
        "/openapi.json",
        "/docs/x",
        "/healthz/x",
        "/readyz/x",
        "/metrics/x",
        "/assets/x.js",
    ] {
        assert!(
            not_found_page(&Method::GET, path, &browser).is_none(),
            "{path} answered the app"
        );
    }
    for accept in [
        None,
        Some("*/*"),
        Some("application/json"),
        Some("application/json, text/html"),
        Some("text/html;q=0.5, application/json"),
        Some("text/html;q=0.5, */*"),
        Some("text/html;q=0"),
        Some("image/png"),
    ] {
        let headers = request_headers(
            &accept
                .map(|a| ("accept", a))
                .into_iter()
                .collect::<Vec<_>>(),
        );
        assert!(
            not_found_page(&Method::GET, "/nope", &headers).is_none(),
            "Accept {accept:?} answered the app"
        );
    }
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        assert!(
            not_found_page(&method, "/nope", &browser).is_none(),
            "{method}"
        );
    }
}

#[tokio::test]
async fn assets_have_their_type_and_an_etag_and_answer_304_when_unchanged() {
    for (path, kind) in [
        ("/assets/js/app.js", "text/javascript; charset=utf-8"),
        ("/assets/css/app.css", "text/css; charset=utf-8"),
        ("/assets/i18n/en.json", "application/json"),
        ("/assets/favicon.svg", "image/svg+xml"),
    ] {
        let response = get(path, &[]).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(header(&response, "content-type"), kind, "{path}");
        assert_eq!(header(&response, "cache-control"), "no-cache");
        assert_security_headers(&response);
        let etag = header(&response, "etag").to_owned();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");

        let again = get(path, &[("if-none-match", &etag)]).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(header(&again, "etag"), etag);
        assert_security_headers(&again);
        assert!(body(again).await.is_empty());

        let weak = format!("\"other\", W/{etag}");
        let again = get(path, &[("if-none-match", &weak)]).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");

        let stale = get(path, &[("if-none-match", "\"stale\"")]).await;
        assert_eq!(stale.status(), StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn unknown_assets_answer_404() {
    for path in [
        "/assets/nope.js",
        "/assets/js/nope.js",
        "/assets/i18n/fr.json",
    ] {
        let response = get(path, &[]).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert_security_headers(&response);
        let json: serde_json::Value = serde_json::from_slice(&body(response).await).unwrap();
        assert_eq!(json["error"]["code"], "NOT_FOUND");
    }
}

#[tokio::test]
async fn paths_outside_the_app_are_left_to_the_api() {
    // Merged as crates/api merges it: the API's fallback answers the rest.
    let app = axum::Router::new()
        .merge(router::<()>())
        .fallback(|| async { (StatusCode::NOT_FOUND, "api") });
    for path in ["/nope", "/videos/a/b", "/index.html", "/assets", "/login/x"] {
        let request = Request::get(path).body(Body::empty()).unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(
            response.headers().get("content-security-policy").is_none(),
            "{path} was answered by the web router"
        );
        assert_eq!(body(response).await, b"api", "{path}");
    }
}

#[tokio::test]
async fn old_addresses_redirect_with_303() {
    for (from, to) in [
        ("/login", "/sign-in"),
        ("/dashboard", "/videos"),
        ("/login?next=%2Fteam", "/sign-in?next=%2Fteam"),
    ] {
        let response = get(from, &[]).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{from}");
        assert_eq!(header(&response, "location"), to);
        assert_security_headers(&response);
    }
}

#[tokio::test]
async fn pages_and_scripts_are_gzipped_for_clients_that_accept_it() {
    for path in ["/", "/assets/js/app.js"] {
        let response = get(path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "content-encoding"), "gzip", "{path}");
    }
}

/// The first page's transfer budget (issue 21: under 300 KB): the page and
/// everything it loads, gzipped, taking every module and both catalogs as
/// an upper bound.
#[tokio::test]
async fn the_app_fits_the_first_page_budget() {
    let mut transferred = 0;
    for path in Assets::iter() {
        let response = get(&format!("/assets/{path}"), &[("accept-encoding", "gzip")]).await;
        transferred += body(response).await.len();
    }
    assert!(transferred < 300_000, "{transferred} bytes");
}

#[test]
fn the_page_has_no_inline_script_or_style() {
    let index = String::from_utf8(Assets::get("index.html").unwrap().data.into_owned()).unwrap();
    for script in index.split("<script").skip(1) {
        let tag = &script[..script.find('>').unwrap()];
        assert!(tag.contains("src="), "inline script: <script{tag}>");
    }
    assert!(!index.contains("<style"), "inline style element");
    assert!(!index.contains("style="), "inline style attribute");
    assert!(!index.contains("http://") && !index.contains("https://"));
}

/// The plural categories English and German have (`Intl.PluralRules`).
const PLURAL_FORMS: [&str; 2] = ["one", "other"];

/// The keys of a catalog; each message is a text, or a text per plural
/// category (picked for `{count}`).
fn catalog(language: &str) -> BTreeSet<String> {
    let file = Assets::get(&format!("i18n/{language}.json")).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&file.data).unwrap();
    let object = json.as_object().unwrap();
    for (key, value) in object {
        if let Some(forms) = value.as_object() {
            let categories: BTreeSet<&str> = forms.keys().map(String::as_str).collect();
            assert_eq!(
                categories,
                PLURAL_FORMS.into_iter().collect(),
                "{language}: {key} needs exactly the forms {PLURAL_FORMS:?}"
            );
            for (category, text) in forms {
                let text = text
                    .as_str()
                    .unwrap_or_else(|| panic!("{language}: {key}.{category}"));
                assert!(!text.trim().is_empty(), "{language}: {key}.{category}");
            }
            continue;
        }
        let text = value
            .as_str()
            .unwrap_or_else(|| panic!("{language}: {key}"));
        assert!(!text.trim().is_empty(), "{language}: {key} is empty");
    }
    object.keys().cloned().collect()
}

/// Every `t('key')` / `t("key")` in the app's modules.
fn keys_used() -> BTreeSet<(String, String)> {
    let mut used = BTreeSet::new();
    for path in Assets::iter().filter(|p| p.ends_with(".js")) {
        let file = Assets::get(&path).unwrap();
        let text = String::from_utf8(file.data.into_owned()).unwrap();
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(found) = text[at..].find("t(") {
            let start = at + found;
            at = start + 2;
            // A call of `t` itself, not of `get(`, `split(`, `.t(` …
            let before = start.checked_sub(1).map(|i| bytes[i]);
            if before
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
            {
                continue;
            }
            let rest = &text[at..];
            let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else {
                continue;
            };
            let end = rest[1..].find(quote).unwrap();
            used.insert((path.to_string(), rest[1..=end].to_string()));
        }
    }
    used
}

#[test]
fn both_catalogs_have_the_same_keys_and_every_key_used_exists() {
    let en = catalog("en");
    let de = catalog("de");
    let only_en: Vec<_> = en.difference(&de).collect();
    let only_de: Vec<_> = de.difference(&en).collect();
    assert!(only_en.is_empty(), "missing in de.json: {only_en:?}");
    assert!(only_de.is_empty(), "missing in en.json: {only_de:?}");
    let used = keys_used();
    assert!(used.len() > 100, "only {} keys found in the JS", used.len());
    let missing: Vec<_> = used.iter().filter(|(_, key)| !en.contains(key)).collect();
    assert!(
        missing.is_empty(),
        "keys used but not in the catalogs: {missing:?}"
    );
    // Any other string literal shaped like a key of a catalog's namespace
    // (`'nav.videos'` kept in a table, say) must be a key too.
    let namespaces: BTreeSet<&str> = en
        .iter()
        .filter_map(|k| k.split_once('.'))
        .map(|(ns, _)| ns)
        .collect();
    for path in Assets::iter().filter(|p| p.ends_with(".js")) {
        let text = String::from_utf8(Assets::get(&path).unwrap().data.into_owned()).unwrap();
        for literal in text.split('\'').skip(1).step_by(2) {
            let Some((ns, rest)) = literal.split_once('.') else {
                continue;
            };
            let shaped = !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if shaped && namespaces.contains(ns) {
                assert!(
                    en.contains(literal),
                    "{path}: '{literal}' is not in the catalogs"
                );
            }
        }
    }
    // data-i18n attributes of the page are keys too.
    let index = String::from_utf8(Assets::get("index.html").unwrap().data.into_owned()).unwrap();
    for part in index.split("data-i18n=\"").skip(1) {
        let key = &part[..part.find('"').unwrap()];
        assert!(en.contains(key), "index.html: {key}");
    }
}

#[test]
fn content_types_follow_the_extension() {
    assert_eq!(super::content_type("a/b.svg"), "image/svg+xml");
    assert_eq!(super::content_type("x"), "application/octet-stream");
    assert_eq!(
        header::CONTENT_TYPE.as_str(),
        "content-type",
        "header names are lowercase"
    );
}
