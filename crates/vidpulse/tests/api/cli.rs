//! The binary itself: admin commands print one JSON object, mistakes print
//! one line and exit non-zero, and `serve` shuts down gracefully.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use vidpulse_store::Backend;
use vidpulse_store::testing::TestDb;

pub(crate) fn vidpulse(db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .args(args)
        .env("DATABASE_URL", db)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

pub(crate) fn json_out(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

pub(crate) fn one_line_error(out: &Output) -> String {
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

#[rstest::rstest]
#[tokio::test]
async fn admin_commands(#[values(Backend::Sqlite, Backend::Postgres)] backend: Backend) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    // Every migration of the build applies to a new database, then none.
    let first = json_out(&vidpulse(&db, &["migrate"]));
    // Each backend has its own directory (PostgreSQL's has one SQLite does
    // not need: 0027).
    let dir = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let migrations = std::fs::read_dir(format!(
        "{}/../store/migrations/{dir}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .count();
    assert_eq!(first, serde_json::json!({"applied": migrations}));
    assert_eq!(
        json_out(&vidpulse(&db, &["migrate"])),
        serde_json::json!({"applied": 0})
    );

    let org = json_out(&vidpulse(&db, &["admin", "create-org", "--name", "Acme"]));
    assert_eq!(
        (org["name"].as_str(), org["plan"].as_str()),
        (Some("Acme"), Some("free"))
    );
    let id = org["organization_id"].as_str().unwrap();
    let owned = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "create-org",
            "--name",
            "B",
            "--plan",
            "business",
            "--owner-email",
            "ann@example.com",
        ],
    ));
    assert_eq!(owned["plan"], "business");

    let plan = json_out(&vidpulse(
        &db,
        &["admin", "set-plan", "--org", id, "--plan", "pro"],
    ));
    assert_eq!(
        plan,
        serde_json::json!({"organization_id": id, "plan": "pro", "video_quota": 1000, "creator_cap": 200})
    );
    let plan = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "set-plan",
            "--org",
            id,
            "--plan",
            "pro",
            "--video-quota",
            "5",
            "--creator-cap",
            "2",
        ],
    ));
    assert_eq!(
        (plan["video_quota"].as_i64(), plan["creator_cap"].as_i64()),
        (Some(5), Some(2))
    );

    let key = json_out(&vidpulse(
        &db,
        &["admin", "create-api-key", "--org", id, "--name", "ci"],
    ));
    assert!(key["api_key"].as_str().unwrap().starts_with("vpk_"));
    assert_eq!(key["organization_id"], id);
    assert!(key["key_id"].is_string());
    assert_eq!(
        key["scopes"],
        serde_json::json!(["read", "write"]),
        "full access by default"
    );
    let reader = json_out(&vidpulse(
        &db,
        &["admin", "create-api-key", "--org", id, "--scopes", "read"],
    ));
    assert_eq!(reader["scopes"], serde_json::json!(["read"]));
    let both = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "create-api-key",
            "--org",
            id,
            "--scopes",
            "write,read",
        ],
    ));
    assert_eq!(both["scopes"], serde_json::json!(["read", "write"]));
    assert!(
        one_line_error(&vidpulse(
            &db,
            &["admin", "create-api-key", "--org", id, "--scopes", "write"]
        ))
        .contains("`write` needs `read`")
    );
    assert!(
        one_line_error(&vidpulse(
            &db,
            &[
                "admin",
                "create-api-key",
                "--org",
                id,
                "--scopes",
                "read,admin"
            ]
        ))
        .contains("unknown scope `admin`")
    );

    let missing = "00000000-0000-0000-0000-000000000000";
    assert!(
        one_line_error(&vidpulse(
            &db,
            &["admin", "set-plan", "--org", missing, "--plan", "pro"]
        ))
        .contains("not found")
    );
    assert!(
        one_line_error(&vidpulse(
            &db,
            &["admin", "create-api-key", "--org", missing]
        ))
        .contains("not found")
    );
    assert!(
        one_line_error(&vidpulse(
            &db,
            &["admin", "set-plan", "--org", id, "--plan", "gold"]
        ))
        .contains("gold")
    );
    one_line_error(&vidpulse(
        &db,
        &["admin", "create-api-key", "--org", "nope"],
    ));
    one_line_error(&vidpulse(&db, &["admin", "create-org", "--name", "  "]));
    one_line_error(&vidpulse(
        &db,
        &[
            "admin",
            "create-org",
            "--name",
            "X",
            "--owner-email",
            "not-an-email",
        ],
    ));
    one_line_error(&vidpulse(&db, &["admin", "create-org"]));
    one_line_error(&vidpulse("mysql://x", &["migrate"]));
}

#[tokio::test]
async fn serve_starts_with_no_configuration_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .arg("serve")
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .env("VIDPULSE_LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    vidpulse_platforms::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/readyz");
    let mut ready = false;
    for _ in 0..100 {
        if client
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "serve did not become ready");
    assert!(
        dir.path().join("data/vidpulse.db").exists(),
        "the default SQLite file is created"
    );

    let pid = child.id().unwrap();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let mut stdout = String::new();
    tokio::io::AsyncReadExt::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout)
        .await
        .unwrap();
    assert!(stdout.is_empty(), "serve keeps stdout empty");
}

#[test]
fn help_never_shows_the_database_password() {
    let out = vidpulse("postgres://vp:hunter2@127.0.0.1/vp", &["serve", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("DATABASE_URL"), "{help}");
    assert!(!help.contains("hunter2"), "{help}");
}

#[test]
fn a_short_jwt_secret_stops_the_start_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/v.db", dir.path().display());
    let out = Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .arg("serve")
        .env("DATABASE_URL", &db)
        .env("VIDPULSE_JWT_SECRET", "x")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("at least 32 bytes"), "{stderr}");
    assert!(!dir.path().join("v.db").exists(), "nothing was started");
}

#[test]
fn live_mode_names_the_missing_setting() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/v.db", dir.path().display());
    let out = Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .args(["serve", "--upstream", "live"])
        .env("DATABASE_URL", &db)
        .env_remove("VIDPULSE_YOUTUBE_API_KEY")
        .output()
        .unwrap();
    let line = one_line_error(&out);
    assert!(line.contains("VIDPULSE_YOUTUBE_API_KEY"), "{line}");
}

#[tokio::test]
async fn live_mode_starts_without_ytdlp_and_says_what_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidpulse"))
        .args(["serve", "--upstream", "live", "--youtube-adapter", "ytdlp"])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .env_remove("RUST_LOG")
        .env("VIDPULSE_LISTEN", format!("127.0.0.1:{port}"))
        .env("VIDPULSE_YTDLP_PATH", dir.path().join("no-such-yt-dlp"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    vidpulse_platforms::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/readyz");
    let mut ready = false;
    for _ in 0..100 {
        if client
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "serve did not become ready without yt-dlp");
    let pid = child.id().unwrap();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap()
        .unwrap();
    let mut stderr = String::new();
    tokio::io::AsyncReadExt::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr)
        .await
        .unwrap();
    for platform in ["YouTube videos", "TikTok videos", "Instagram videos"] {
        assert!(
            stderr.contains(&format!("unavailable: {platform}: yt-dlp is unavailable")),
            "{platform} missing from: {stderr}"
        );
    }
    assert!(stderr.contains("YouTube trends: not configured: set VIDPULSE_YOUTUBE_API_KEY"));
}

#[rstest::rstest]
#[tokio::test]
async fn import_stats_loads_a_file_once_and_rejects_a_bad_one(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let org = json_out(&vidpulse(&db, &["admin", "create-org", "--name", "Acme"]));
    let id = org["organization_id"].as_str().unwrap();
    let day = (chrono::Utc::now() - chrono::Duration::days(3)).date_naive();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("stats.csv");
    std::fs::write(
        &good,
        format!(
            "\u{feff}platform,external_video_id,captured_at,views,likes,comments,reposts,saves,url,title\n\
             youtube,dQw4w9WgXcQ,{day}T08:00:00Z,100,10,1,,,https://youtu.be/dQw4w9WgXcQ,\"Hello, world\"\n\
             youtube,dQw4w9WgXcQ,{day}T20:00:00+02:00,150,12,2,,,,\n\
             tiktok,7301234567890123456,{day}T09:30:00Z,5,,,,,,\n"
        ),
    )
    .unwrap();
    let file = good.to_str().unwrap();
    let args = ["admin", "import-stats", "--org", id, "--file", file];
    assert_eq!(
        json_out(&vidpulse(&db, &args)),
        serde_json::json!({"videos_created": 2, "snapshots_imported": 3, "snapshots_skipped": 0})
    );
    assert_eq!(
        json_out(&vidpulse(&db, &args)),
        serde_json::json!({"videos_created": 0, "snapshots_imported": 0, "snapshots_skipped": 3})
    );

    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        format!(
            "platform,external_video_id,captured_at,views,likes,comments,reposts,saves\n\
             youtube,aaaaaaaaaaa,{day}T08:00:00Z,1,1,1,1,1\n\
             youtube,aaaaaaaaaaa,{day}T09:00:00Z,many,1,1,1,1\n"
        ),
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let err = one_line_error(&vidpulse(
        &db,
        &["admin", "import-stats", "--org", id, "--file", bad],
    ));
    assert!(err.contains("row 3") && err.contains("views"), "{err}");
    // Nothing of the bad file was written: its good first row is still new.
    let first = dir.path().join("first.csv");
    std::fs::write(
        &first,
        format!(
            "platform,external_video_id,captured_at,views,likes,comments,reposts,saves\n\
             youtube,aaaaaaaaaaa,{day}T08:00:00Z,1,1,1,1,1\n"
        ),
    )
    .unwrap();
    let first = first.to_str().unwrap();
    assert_eq!(
        json_out(&vidpulse(
            &db,
            &["admin", "import-stats", "--org", id, "--file", first]
        )),
        serde_json::json!({"videos_created": 1, "snapshots_imported": 1, "snapshots_skipped": 0})
    );
    let missing = "00000000-0000-0000-0000-000000000000";
    let err = one_line_error(&vidpulse(
        &db,
        &["admin", "import-stats", "--org", missing, "--file", file],
    ));
    assert!(err.contains("not found"), "{err}");
    let err = one_line_error(&vidpulse(
        &db,
        &[
            "admin",
            "import-stats",
            "--org",
            id,
            "--file",
            "/nonexistent.csv",
        ],
    ));
    assert!(err.contains("/nonexistent.csv"), "{err}");
}

#[rstest::rstest]
#[tokio::test]
async fn import_stats_names_the_row_of_a_nul_character_and_writes_nothing(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let org = json_out(&vidpulse(&db, &["admin", "create-org", "--name", "Acme"]));
    let id = org["organization_id"].as_str().unwrap();
    let day = (chrono::Utc::now() - chrono::Duration::days(3)).date_naive();
    let dir = tempfile::tempdir().unwrap();
    let header = "platform,external_video_id,captured_at,views,likes,comments,reposts,saves,title";
    let good = format!("youtube,aaaaaaaaaaa,{day}T08:00:00Z,1,1,1,1,1,Fine");
    let bad = dir.path().join("nul.csv");
    std::fs::write(
        &bad,
        format!("{header}\n{good}\nyoutube,bbbbbbbbbbb,{day}T08:00:00Z,1,1,1,1,1,Bad\0title\n"),
    )
    .unwrap();
    let err = one_line_error(&vidpulse(
        &db,
        &[
            "admin",
            "import-stats",
            "--org",
            id,
            "--file",
            bad.to_str().unwrap(),
        ],
    ));
    assert!(
        err.contains("row 3: `title` contains a NUL character"),
        "{err}"
    );
    // Nothing was written: the good row alone is still new.
    let first = dir.path().join("first.csv");
    std::fs::write(&first, format!("{header}\n{good}\n")).unwrap();
    assert_eq!(
        json_out(&vidpulse(
            &db,
            &[
                "admin",
                "import-stats",
                "--org",
                id,
                "--file",
                first.to_str().unwrap()
            ]
        )),
        serde_json::json!({"videos_created": 1, "snapshots_imported": 1, "snapshots_skipped": 0})
    );
}

#[rstest::rstest]
#[tokio::test]
async fn issue_token_signs_with_the_stored_secret_and_rejects_mistakes(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let first = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "issue-token",
            "--email",
            "Ann@Example.com",
            "--ttl-secs",
            "60",
        ],
    ));
    assert_eq!(first["email"], "Ann@Example.com");
    assert!(first["sub"].as_str().unwrap().starts_with("local|"));
    assert!(first["expires_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(first["token"].as_str().unwrap().split('.').count(), 3);
    // Same e-mail, same subject; the secret generated once is reused.
    let second = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "issue-token",
            "--email",
            "ann@example.com",
            "--sub",
            "idp|7",
        ],
    ));
    assert_eq!(second["sub"], "idp|7");
    let store = vidpulse_store::open(&vidpulse_store::StoreConfig::new(db.clone()))
        .await
        .unwrap();
    let identity = vidpulse_api::dashboard::identity::Identity::new(Default::default());
    let secret = identity.secret(store.as_ref()).await.unwrap().to_vec();
    for t in [&first, &second] {
        let claims = identity
            .verify(&secret, t["token"].as_str().unwrap(), chrono::Utc::now())
            .unwrap();
        assert_eq!(claims.sub, t["sub"].as_str().unwrap());
    }
    store.close().await;
    for args in [
        &["admin", "issue-token", "--email", "nobody"][..],
        &[
            "admin",
            "issue-token",
            "--email",
            "a@b.co",
            "--ttl-secs",
            "0",
        ][..],
        &["admin", "issue-token", "--email", "a@b.co", "--sub", " "][..],
        &["admin", "issue-token"][..],
    ] {
        one_line_error(&vidpulse(&db, args));
    }
}

#[rstest::rstest]
#[tokio::test]
async fn create_user_prints_a_one_time_link(
    #[values(Backend::Sqlite, Backend::Postgres)] backend: Backend,
) {
    let (db, _dir) = TestDb::create(backend).await.unwrap();
    json_out(&vidpulse(&db, &["migrate"]));
    let first = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "create-user",
            "--email",
            "Owner@Example.com",
            "--org",
            "Acme",
            "--role",
            "owner",
            "--app-url",
            "https://vidpulse.example/",
        ],
    ));
    assert_eq!(first["email"], "Owner@Example.com");
    assert_eq!(first["role"], "owner");
    let url = first["set_password_url"].as_str().unwrap();
    let token = url
        .strip_prefix("https://vidpulse.example/set-password?token=")
        .unwrap();
    assert_eq!(token.len(), 64);
    // Again for an existing organization, and the same address: the same
    // user, a new link, the role they have kept.
    let org = first["organization_id"].as_str().unwrap();
    let again = json_out(&vidpulse(
        &db,
        &[
            "admin",
            "create-user",
            "--email",
            "owner@example.com",
            "--org",
            org,
        ],
    ));
    assert_eq!(again["user_id"], first["user_id"]);
    assert_ne!(again["set_password_url"], first["set_password_url"]);
    // Without an organization: a user of none yet.
    let alone = json_out(&vidpulse(
        &db,
        &["admin", "create-user", "--email", "kim@example.com"],
    ));
    assert_eq!(alone["organization_id"], Value::Null);

    for (args, says) in [
        (vec!["--email", "not-an-address"], "not an e-mail address"),
        (vec!["--email", "a@b.example", "--role", "owner"], "--org"),
        (
            vec!["--email", "a@b.example", "--org", org, "--role", "boss"],
            "not a role",
        ),
        (
            vec![
                "--email",
                "a@b.example",
                "--org",
                "00000000-0000-0000-0000-000000000000",
            ],
            "not found",
        ),
    ] {
        let mut full = vec!["admin", "create-user"];
        full.extend(args);
        let out = vidpulse(&db, &full);
        assert!(!out.status.success(), "{full:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{full:?}: {stderr}");
    }
}
