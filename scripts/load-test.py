#!/usr/bin/env python3
"""HTTP load test of the public API, with wrk, beside its ceiling.

    scripts/load-test.py --backend sqlite|postgres [--videos 100000]
                         [--duration 15] [--connections 32] [--threads 2] [--rounds 3]

Uses the analytics benchmark's dataset (built on first use by
`cargo bench -p vidpulse-store --bench analytics -- --videos N --runs 1`):
one organization tracking N videos, every scheduled reading stored (about
255 per video: a record's history) with its daily closes. A copy of
it is served by the release binary (`vidpulse serve --no-worker`) and by the
ceiling (`--example ceiling`: one route reading one row through the same
store and pool, nothing else). wrk (Debian package `wrk`) then drives, for
`--duration` seconds each, with `--connections` connections:

  ceiling      GET /row/{id}                      (random tracked video)
  by-id        GET /v1/videos/by-id/{id}          (random tracked video; the first run
                                                   reads every record and fills the
                                                   server's record cache)
  by-id gzip   the same, `Accept-Encoding: gzip`  (as HTTP clients send it)
  by-id again  the same, without gzip             (answers kept: the steady state)
  sized ceiling GET /row/{id}?pad=N               (the ceiling answering as many bytes
                                                   as by-id did on average: its
                                                   history makes a record ~46 KB)
  stats        GET /v1/videos/stats?limit=20
  stats gzip   the same, `Accept-Encoding: gzip`  (the page's kept records spliced in
                                                   compressed, not inflated)
  totals       GET /v1/analytics/metrics/totals   (30-day window, group_by platform)
  stats campaign GET /v1/videos/stats?limit=20&campaign=Campaign%2007
  stats campaign gzip the same, `Accept-Encoding: gzip`
  top          GET /v1/analytics/top               (7 days, top 10 videos)
  top creators GET /v1/analytics/top?by=platform_blogger (7 days, top 10)
  track        POST /v1/videos/track              (one new URL per request, 200 API keys
                                                   so the per-key limit of 1000 videos a
                                                   minute is not what is measured)

`--only stats,top` runs the ceiling (median of `--rounds`) and just those.
The ceiling and the two kept by-id runs alternate for `--rounds` rounds
(each row their median), so that a drift of the machine's speed weighs on
them alike. It prints a Markdown table: requests per second, latency p50/p90/p99, non-2xx
answers, and the server's resident memory (peak over the run, from /proc).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG_ADMIN = os.environ.get("VIDPULSE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test")


def sh(*args, **kw):
    return subprocess.run(args, check=True, text=True, **kw)


def out(*args, env=None):
    return subprocess.run(args, check=True, text=True, capture_output=True, env=env).stdout


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))


def psql(url, sql):
    return out("psql", url, "-qtAc", sql).strip()


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:
            time.sleep(0.2)
    sys.exit(f"load-test: {url} did not answer")


def rss_kib(pid):
    """(current, peak, anonymous) resident memory of a process, in KiB.

    The resident set counts the database file's pages that SQLite maps
    (shared with the kernel's page cache); `anonymous` is the process's own
    memory (heap, stacks).
    """
    cur = peak = anon = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1])
            elif line.startswith("RssAnon:"):
                anon = int(line.split()[1])
    return cur, peak, anon


LATENCY = re.compile(r"^\s+(50|90|99)%\s+([\d.]+)(us|ms|s)\s*$", re.M)
RPS = re.compile(r"Requests/sec:\s+([\d.]+)")
NON2XX = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
TOTAL = re.compile(r"(\d+) requests in [\d.]+\w+, ([\d.]+)([KMG]?B) read")


def to_ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(args, url, script, env):
    text = out("wrk", "-t", str(args.threads), "-c", str(args.connections), "-d", f"{args.duration}s",
               "--latency", "-s", script, url, env=env)
    lat = {p: to_ms(v, u) for p, v, u in LATENCY.findall(text)}
    non2xx = NON2XX.search(text)
    return {
        "rps": float(RPS.search(text).group(1)),
        "requests": int(TOTAL.search(text).group(1)),
        "bytes": float(TOTAL.search(text).group(2))
        * {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}[TOTAL.search(text).group(3)],
        "p50": lat.get("50"), "p90": lat.get("90"), "p99": lat.get("99"),
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
    }


LUA_COMMON = r"""
local ids = {}
for line in io.lines(os.getenv("LT_IDS")) do ids[#ids + 1] = line end
local keys = {}
for line in io.lines(os.getenv("LT_KEYS")) do keys[#keys + 1] = line end
math.randomseed(os.time())
"""

SCRIPTS = {
    "ceiling": LUA_COMMON + r"""
local pad = os.getenv("LT_PAD") or "0"
request = function()
  return wrk.format("GET", "/row/" .. ids[math.random(#ids)] .. "?pad=" .. pad)
end
""",
    "by-id": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/by-id/" .. ids[math.random(#ids)],
                    {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "by-id gzip": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/by-id/" .. ids[math.random(#ids)],
                    {["Authorization"] = "Bearer " .. keys[1], ["Accept-Encoding"] = "gzip"})
end
""",
    "stats": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/stats?limit=20", {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "stats campaign": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/stats?limit=20&campaign=Campaign%2007", {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "stats gzip": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/stats?limit=20",
                    {["Authorization"] = "Bearer " .. keys[1], ["Accept-Encoding"] = "gzip"})
end
""",
    "stats campaign gzip": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/videos/stats?limit=20&campaign=Campaign%2007",
                    {["Authorization"] = "Bearer " .. keys[1], ["Accept-Encoding"] = "gzip"})
end
""",
    "top": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/analytics/top?from=2026-10-26&to=2026-11-01",
                    {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "top creators": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/analytics/top?from=2026-10-26&to=2026-11-01&by=platform_blogger",
                    {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "totals": LUA_COMMON + r"""
request = function()
  return wrk.format("GET", "/v1/analytics/metrics/totals?from=2026-10-03&to=2026-11-01&group_by=platform",
                    {["Authorization"] = "Bearer " .. keys[1]})
end
""",
    "track": LUA_COMMON + r"""
local n = 0
counter = 0
setup = function(thread)
  counter = counter + 1
  thread:set("thread_id", counter)
end
request = function()
  n = n + 1
  local id = string.format("%02d%09d", thread_id, n)
  local body = '{"urls": ["https://www.youtube.com/watch?v=' .. id .. '"]}'
  return wrk.format("POST", "/v1/videos/track",
                    {["Authorization"] = "Bearer " .. keys[(n % #keys) + 1],
                     ["Content-Type"] = "application/json"}, body)
end
""",
}


def print_table(results):
    """The Markdown table of `results`, each beside the ceiling's rate."""
    ceiling_rps = results["ceiling"]["rps"]
    print("| endpoint | req/s | % of ceiling | p50 ms | p90 ms | p99 ms | non-2xx | bytes/answer |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        share = 100.0 * r["rps"] / ceiling_rps if ceiling_rps else 0.0
        print(f"| {name} | {r['rps']:.0f} | {share:.0f}% | {r['p50']:.2f} | {r['p90']:.2f} | "
              f"{r['p99']:.2f} | {r['non2xx']} of {r['requests']} | {r['bytes'] / max(r['requests'], 1):.0f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    p.add_argument("--videos", type=int, default=100_000)
    p.add_argument("--duration", type=int, default=15)
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", help="comma-separated endpoints to run beside the ceiling (default: every one)")
    args = p.parse_args()
    only = [n.strip() for n in args.only.split(",")] if args.only else None
    for name in only or []:
        if name not in SCRIPTS or name in ("ceiling", "by-id", "by-id gzip"):
            sys.exit(f"load-test: --only takes {', '.join(n for n in SCRIPTS if n not in ('ceiling', 'by-id', 'by-id gzip'))}")
    if shutil.which("wrk") is None:
        sys.exit("load-test: wrk is not installed (apt-get install wrk)")

    sh("cargo", "bench", "-p", "vidpulse-store", "--bench", "analytics", "--",
       "--videos", str(args.videos), "--backend", args.backend, "--runs", "1",
       cwd=ROOT, stdout=subprocess.DEVNULL)
    sh("cargo", "build", "--release", "-p", "vidpulse", "--bin", "vidpulse", "--example", "ceiling", cwd=ROOT)
    release = os.path.join(target_dir(), "release")
    vidpulse = os.path.join(release, "vidpulse")
    ceiling = os.path.join(release, "examples", "ceiling")

    work = tempfile.mkdtemp(prefix="vidpulse-load-")
    procs = []
    db_name = None
    try:
        if args.backend == "sqlite":
            src = os.path.join(target_dir(), "bench-data", f"analytics-{args.videos}.db")
            dst = os.path.join(work, "load.db")
            shutil.copy(src, dst)
            url = f"sqlite://{dst}"
        else:
            db_name = f"vidpulse_load_{os.getpid()}"
            psql(PG_ADMIN, f"CREATE DATABASE {db_name} TEMPLATE vidpulse_bench_{args.videos}")
            url = PG_ADMIN.rsplit("/", 1)[0] + "/" + db_name
        # The load test measures the server, not a key's request budget.
        env = dict(os.environ, DATABASE_URL=url, RUST_LOG="warn",
                   VIDPULSE_RATE_LIMIT_REQUESTS_PER_MINUTE="60000000")
        sh(vidpulse, "migrate", env=env, stdout=subprocess.DEVNULL)
        if args.backend == "sqlite":
            import sqlite3
            con = sqlite3.connect(dst)
            org = con.execute("SELECT lower(hex(id)) FROM organizations LIMIT 1").fetchone()[0]
            org = f"{org[:8]}-{org[8:12]}-{org[12:16]}-{org[16:20]}-{org[20:]}"
            rows = con.execute("SELECT lower(hex(id)) FROM tracked_videos ORDER BY random() LIMIT 20000").fetchall()
            ids = [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" for (h,) in rows]
            con.close()
        else:
            org = psql(url, "SELECT id FROM organizations LIMIT 1")
            ids = psql(url, "SELECT id FROM tracked_videos ORDER BY random() LIMIT 20000").split()
        out(vidpulse, "admin", "set-plan", "--org", org, "--plan", "business",
            "--video-quota", str(10 * args.videos), env=env)
        keys = [json.loads(out(vidpulse, "admin", "create-api-key", "--org", org, env=env))["api_key"]
                for _ in range(200)]
        ids_file = os.path.join(work, "ids.txt")
        keys_file = os.path.join(work, "keys.txt")
        with open(ids_file, "w") as f:
            f.write("\n".join(ids) + "\n")
        with open(keys_file, "w") as f:
            f.write("\n".join(keys) + "\n")

        server = subprocess.Popen([vidpulse, "serve", "--no-worker", "--listen", "127.0.0.1:18080"],
                                  env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(server)
        top = subprocess.Popen([ceiling, "127.0.0.1:18090"], env=env, cwd=work,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(top)
        wait_http("http://127.0.0.1:18080/readyz")
        wait_http(f"http://127.0.0.1:18090/row/{ids[0]}")
        idle_rss, _, idle_anon = rss_kib(server.pid)

        wrk_env = dict(os.environ, LT_IDS=ids_file, LT_KEYS=keys_file)
        results = {}

        def run(name):
            kind = {"sized ceiling": "ceiling", "by-id again": "by-id"}.get(name, name)
            script = os.path.join(work, f"{kind}.lua")
            with open(script, "w") as f:
                f.write(SCRIPTS[kind])
            base = "http://127.0.0.1:18090" if kind == "ceiling" else "http://127.0.0.1:18080"
            env = wrk_env
            if name == "sized ceiling":
                # The ceiling answering as many bytes as by-id did, on average.
                size = lambda r: r["bytes"] / max(r["requests"], 1)
                pad = max(int(size(results["by-id"]) - size(results["ceiling"])), 0)
                env = dict(wrk_env, LT_PAD=str(pad))
            return wrk(args, base, script, env)

        if only:
            ceilings = sorted((run("ceiling") for _ in range(args.rounds)), key=lambda r: r["rps"])
            results["ceiling"] = ceilings[len(ceilings) // 2]
            for name in only:
                results[name] = run(name)
            print(f"\n{args.backend}, {args.videos} tracked videos, wrk -t{args.threads} -c{args.connections} "
                  f"-d{args.duration}s, {os.cpu_count()} cores; ceiling: median of {args.rounds} rounds "
                  f"(" + ", ".join(f"{r['rps']:.0f}" for r in ceilings) + " req/s)\n")
            print_table(results)
            return

        # The first by-id run reads every history (and fills the record
        # cache). The ceiling and the kept reads then alternate for
        # --rounds rounds, so that a drift of the machine's speed (a shared
        # VM's neighbours) weighs on both alike; each row is its median round.
        results["by-id"] = run("by-id")
        rounds = {"ceiling": [], "by-id gzip": [], "by-id again": []}
        for _ in range(args.rounds):
            for name in rounds:
                rounds[name].append(run(name))
        for name, runs in rounds.items():
            results[name] = sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]
        for name in ["sized ceiling", "stats", "totals", "track"]:
            results[name] = run(name)
        order = ["ceiling", "by-id", "by-id gzip", "by-id again", "sized ceiling", "stats", "totals", "track"]
        results = {name: results[name] for name in order}
        _, peak_rss, after_anon = rss_kib(server.pid)

        ceiling_rps = results["ceiling"]["rps"]
        print(f"\n{args.backend}, {args.videos} tracked videos, wrk -t{args.threads} -c{args.connections} "
              f"-d{args.duration}s, {os.cpu_count()} cores; ceiling, by-id gzip and by-id again: "
              f"median of {args.rounds} alternating rounds\n")
        for name, runs in rounds.items():
            print(f"{name} rounds: " + ", ".join(f"{r['rps']:.0f}" for r in runs) + " req/s")
        shares = sorted(100.0 * g["rps"] / c["rps"] for g, c in zip(rounds["by-id gzip"], rounds["ceiling"]))
        print("by-id gzip / ceiling, round by round: " + ", ".join(f"{x:.0f}%" for x in shares)
              + f" (median {shares[len(shares) // 2]:.0f}%)")
        print()
        print_table(results)
        sized = results["sized ceiling"]["rps"]
        print(f"\nby-id is {100.0 * results['by-id']['rps'] / sized:.0f}% of the ceiling answering as many bytes")
        print(f"by-id with its histories kept: {100.0 * results['by-id gzip']['rps'] / ceiling_rps:.0f}% of the "
              f"ceiling with gzip, {100.0 * results['by-id again']['rps'] / ceiling_rps:.0f}% without")
        print(f"\nServer memory (RSS): {idle_rss / 1024:.0f} MiB idle, {peak_rss / 1024:.0f} MiB peak under load; "
              f"of it the process's own (RssAnon) {idle_anon / 1024:.0f} MiB idle, {after_anon / 1024:.0f} MiB after the load")
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if db_name:
            for _ in range(20):
                try:
                    psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {db_name}")
                    break
                except subprocess.CalledProcessError:
                    time.sleep(0.5)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
