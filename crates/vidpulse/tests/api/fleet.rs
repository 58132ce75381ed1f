//! A fleet on one PostgreSQL and one Redis: two `serve --no-worker` API
//! nodes and two `worker` processes of the real binary. Rate limits hold
//! across the API nodes, and no due refresh or creator job runs twice.

use std::time::Duration;

use serde_json::{Value, json};
use sqlx::PgPool;
use vidpulse_store::Backend;
use vidpulse_store::testing::TestDb;

use crate::processes::{admin, client, eventually, free_port, start, start_with, wait_ready};

#[tokio::test]
async fn two_api_nodes_and_two_workers_share_limits_and_never_work_twice() {
    let (db, _dir) = TestDb::create(Backend::Postgres).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    admin(&db, &["migrate"]);
    let org = admin(
        &db,
        &[
            "admin",
            "create-org",
            "--name",
            "Fleet",
            "--plan",
            "business",
        ],
    );
    let org = org["organization_id"].as_str().unwrap().to_owned();
    let key = admin(&db, &["admin", "create-api-key", "--org", &org]);
    let key = key["api_key"].as_str().unwrap().to_owned();

    let ports = [free_port(), free_port()];
    let mut fleet = Vec::new();
    for port in ports {
        let listen = format!("127.0.0.1:{port}");
        fleet.push(start(
            &db,
            &["serve", "--no-worker", "--listen", &listen],
            work.path(),
        ));
    }
    // Both workers serve their metrics.
    let metrics: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    for listen in &metrics {
        fleet.push(start_with(
            &db,
            &["worker"],
            work.path(),
            &[("VIDPULSE_METRICS_LISTEN", listen)],
        ));
    }
    let client = client();
    let node = |i: usize| format!("http://127.0.0.1:{}", ports[i % 2]);
    for i in 0..2 {
        wait_ready(&client, &node(i)).await;
    }

    // 20 multi-video requests a minute per key, across both nodes together.
    let mut admitted = 0;
    let mut limited = 0;
    // What each admitted answer says is left of the shared budget.
    let mut left = Vec::new();
    for i in 0..26 {
        let urls = [
            format!("https://www.youtube.com/watch?v=fleet{:06}", 2 * i),
            format!("https://www.youtube.com/watch?v=fleet{:06}", 2 * i + 1),
        ];
        let r = client
            .post(format!("{}/v1/videos/track", node(i)))
            .bearer_auth(&key)
            .json(&json!({ "urls": urls }))
            .send()
            .await
            .unwrap();
        let budget = r
            .headers()
            .get("ratelimit")
            .map(|v| v.to_str().unwrap().to_owned());
        match r.status().as_u16() {
            200 => {
                admitted += 1;
                left.push(budget.expect("a RateLimit header"));
            }
            429 => {
                assert!(r.headers().contains_key("retry-after"));
                limited += 1;
            }
            other => panic!("unexpected {other}: {}", r.text().await.unwrap()),
        }
    }
    // GCRA refills one request every 3 s: at most one more within the run.
    assert!((20..=21).contains(&admitted), "admitted {admitted}");
    assert_eq!(admitted + limited, 26);
    // Both nodes report the one budget (the tightest, 20 a minute): what is
    // left goes down across them, by one a request less what refilled.
    for (i, header) in left.iter().take(19).enumerate() {
        let (policy, rest) = header.split_once(';').unwrap();
        assert_eq!(policy, "\"track-multi\"", "{header}");
        let r: usize = rest
            .split(';')
            .find_map(|p| p.strip_prefix("r="))
            .unwrap()
            .parse()
            .unwrap();
        assert!((19 - i..=20 - i).contains(&r), "request {i}: {header}");
    }

    // Creator jobs queued through both nodes.
    let mut jobs = Vec::new();
    for (i, name) in ["ana_builds", "mira_moves", "theo.cooks", "lu_plays"]
        .iter()
        .enumerate()
    {
        let r = client
            .post(format!("{}/v1/bloggers/track", node(i)))
            .bearer_auth(&key)
            .json(&json!({"platform": "tiktok", "username": name, "initial_videos_count": 3}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 202);
        let body: Value = r.json().await.unwrap();
        jobs.push(body["data"]["job_id"].as_str().unwrap().to_owned());
    }

    let pool = PgPool::connect(&db).await.unwrap();
    eventually(Duration::from_secs(60), "the creator jobs", || {
        let pool = pool.clone();
        async move {
            let open: i64 =
                sqlx::query_scalar("SELECT count(*) FROM creator_jobs WHERE status <> 'succeeded'")
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            open == 0
        }
    })
    .await;
    eventually(Duration::from_secs(60), "every first read", || {
        let pool = pool.clone();
        async move {
            let unread: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM platform_videos WHERE stats_updated_at IS NULL",
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            unread == 0
        }
    })
    .await;
    // Let both workers look again: nothing is due for hours.
    tokio::time::sleep(Duration::from_secs(3)).await;

    let videos: i64 = sqlx::query_scalar("SELECT count(*) FROM platform_videos")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(videos, 2 * admitted as i64 + 4 * 3);
    let read_twice: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT platform_video_id FROM observations
                               GROUP BY platform_video_id HAVING count(*) > 1) t",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(read_twice, 0, "a due refresh ran twice");
    let attempts: Vec<i64> = sqlx::query_scalar("SELECT attempts::BIGINT FROM creator_jobs")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(attempts, vec![1; jobs.len()], "a creator job ran twice");
    let charged_twice: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT subject FROM credit_ledger WHERE amount > 0
                               GROUP BY subject HAVING count(*) > 1) t",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(charged_twice, 0, "a video was charged twice");
    for job in &jobs {
        let r: Value = client
            .get(format!("{}/v1/bloggers/jobs/{job}", node(1)))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(r["data"]["status"], "succeeded", "{r}");
    }
    pool.close().await;
    // The workers' own counters add up to one read per video.
    let mut read = 0.0;
    for listen in &metrics {
        let text = client
            .get(format!("http://{listen}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for expected in [
            "vidpulse_refresh_due_videos 0",
            "vidpulse_creator_jobs{status=\"succeeded\"} 4",
        ] {
            assert!(text.contains(expected), "{expected} missing from:\n{text}");
        }
        read += text
            .lines()
            .filter(|l| l.starts_with("vidpulse_refresh_videos_read_total{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>();
    }
    assert_eq!(read, videos as f64);
    drop(fleet);
}
