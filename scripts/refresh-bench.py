#!/usr/bin/env python3
"""Refresh throughput: does one worker keep every due read within a minute
of its due time, at the default schedule, with N tracked videos?

    scripts/refresh-bench.py [--videos 1000000] [--minutes 5] [--workers 1]

On PostgreSQL (VIDPULSE_TEST_POSTGRES_URL's server): a fresh database with
one organization tracking N YouTube videos whose tracking started at even
steps over the last 30 days, each next due at a point of its schedule
interval (every 15 minutes on the first day, hourly to day 7, every 6 hours
to day 30), so the queue is in its steady state from the first second.
`vidpulse worker` (release build, live mode) reads them through the real
YouTube adapter from a local stub of the Data API (`--example
youtube_stub`). Every 5 s the script samples the lag (how long the oldest
due, unclaimed read has waited) and the readings written; after a minute of
warm-up it reports the largest lag seen, the reads per second and what the
steady state needs.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG_ADMIN = os.environ.get("VIDPULSE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test")


def out(*args, env=None):
    return subprocess.run(args, check=True, text=True, capture_output=True, env=env).stdout


def psql(url, sql):
    return out("psql", url, "-qtAc", sql).strip()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--videos", type=int, default=1_000_000)
    p.add_argument("--minutes", type=float, default=5)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args()
    n = args.videos

    subprocess.run(["cargo", "build", "--release", "-p", "vidpulse", "--bin", "vidpulse",
                    "--example", "youtube_stub"], check=True, cwd=ROOT)
    release = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release")
    vidpulse = os.path.join(release, "vidpulse")
    stub = os.path.join(release, "examples", "youtube_stub")

    db = f"vidpulse_refresh_{os.getpid()}"
    psql(PG_ADMIN, f"CREATE DATABASE {db}")
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + db
    env = dict(os.environ, DATABASE_URL=url, RUST_LOG="warn")
    procs = []
    try:
        out(vidpulse, "migrate", env=env)
        org = json.loads(out(vidpulse, "admin", "create-org", "--name", "Refresh bench", "--plan", "business",
                             env=env))["organization_id"]
        t = time.time()
        psql(url, f"""
            INSERT INTO platform_videos (platform, external_id, url, tracking_started_at, refresh_until,
                                         next_refresh_at, created_at)
            SELECT 'youtube', e.ext, 'https://www.youtube.com/watch?v=' || e.ext, s.started,
                   s.started + interval '30 days',
                   now() + (CASE WHEN now() - s.started < interval '24 hours' THEN interval '15 minutes'
                                 WHEN now() - s.started < interval '7 days' THEN interval '1 hour'
                                 ELSE interval '6 hours' END)
                           * ((i * 0.6180339887) - floor(i * 0.6180339887)),
                   s.started
            FROM generate_series(1, {n}) i,
                 LATERAL (SELECT 'b' || lpad(i::text, 10, '0') AS ext) e,
                 LATERAL (SELECT now() - interval '30 days' * ((i - 0.5) / {n}) AS started) s;
            INSERT INTO tracked_videos (id, organization_id, platform_video_id, platform,
                                        tracking_started_at, tracking_ends_at, created_at, updated_at)
            SELECT gen_random_uuid(), '{org}', id, platform, tracking_started_at, refresh_until,
                   created_at, created_at
            FROM platform_videos;
            ANALYZE;""")
        print(f"seeded {n} tracked videos in {time.time() - t:.0f} s", flush=True)
        # Reads a second the steady state needs: each tier's videos over its interval.
        need = float(psql(url, """
            SELECT sum(CASE WHEN now() - tracking_started_at < interval '24 hours' THEN 1 / 900.0
                            WHEN now() - tracking_started_at < interval '7 days' THEN 1 / 3600.0
                            ELSE 1 / 21600.0 END) FROM platform_videos"""))

        stub_proc = subprocess.Popen([stub, "127.0.0.1:18099"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(stub_proc)
        worker_env = dict(env, VIDPULSE_UPSTREAM="live", VIDPULSE_YOUTUBE_API_KEY="bench",
                          VIDPULSE_YOUTUBE_API_BASE="http://127.0.0.1:18099",
                          VIDPULSE_YOUTUBE_DAILY_QUOTA="1000000000")
        time.sleep(0.5)
        for _ in range(args.workers):
            procs.append(subprocess.Popen([vidpulse, "worker"], env=worker_env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        start = time.time()
        samples = []
        while time.time() - start < args.minutes * 60:
            time.sleep(5)
            row = psql(url, """
                SELECT coalesce(extract(epoch FROM now() - min(next_refresh_at)), 0),
                       count(*),
                       (SELECT count(*) FROM observations)
                FROM platform_videos
                WHERE next_refresh_at <= now() AND (lease_until IS NULL OR lease_until <= now())""")
            lag, due, reads = row.split("|")
            samples.append((time.time() - start, float(lag), int(due), int(reads)))
            print(f"t={samples[-1][0]:5.0f}s lag={float(lag):6.1f}s due={due:>6} readings={reads}", flush=True)
        warm = [s for s in samples if s[0] >= 60] or samples
        max_lag = max(s[1] for s in warm)
        t0, _, _, r0 = warm[0]
        t1, _, _, r1 = warm[-1]
        rate = (r1 - r0) / (t1 - t0) if t1 > t0 else 0.0
        rss = []
        for proc in procs[1:]:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        rss.append(int(line.split()[1]) // 1024)
        print(f"\n{n} tracked videos, {args.workers} worker(s), {args.minutes:g} min, {os.cpu_count()} cores")
        print(f"steady state needs {need:.1f} reads/s; written {rate:.1f} readings/s after warm-up")
        print(f"largest lag after warm-up: {max_lag:.1f} s (target: under 60 s)")
        print(f"worker peak memory (RSS): {', '.join(f'{m} MiB' for m in rss)}")
        sys.exit(0 if max_lag < 60 else 1)
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        for _ in range(20):
            try:
                psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {db}")
                break
            except subprocess.CalledProcessError:
                time.sleep(0.5)


if __name__ == "__main__":
    main()
