#!/usr/bin/env python3
"""Server memory while the video export streams every tracked video.

    scripts/export-memory.py --backend sqlite|postgres [--videos 100000]
                             [--histories 20] [--limit-mib 50] [--no-build]
                             [--formats csv,ndjson] [--filter 'campaign=Campaign%2007']

Uses the analytics benchmark's dataset and the release binary as
scripts/load-test.py does (its functions are imported from it): a copy of
the dataset (one organization tracking N videos, about 255 readings each)
is served by `vidpulse serve --no-worker`. It then downloads, one
after the other, with a streaming client (urllib, 1 MiB reads, written to a
scratch file):

  history  GET /v1/videos/by-id/{id}/history?format=csv and ?format=ndjson,
           for --histories random tracked videos (0: skipped)
  csv      GET /v1/videos/export?format=csv     (--filter: with those
  ndjson   GET /v1/videos/export?format=ndjson   listing parameters)

A thread reads the server's /proc/PID/status every 20 ms during each
download (VmRSS, RssAnon: the process's own memory, RssFile: mapped files,
which on SQLite includes the database pages it maps, up to 2 GiB); VmHWM is
reset before each download (/proc/PID/clear_refs) so the exact peak VmRSS
is read after it. Growth is each peak less the idle figure taken once the
server is ready, before the first download.

After each download the scratch file is checked: the CSV parsed as CSV (a
header of the 26 columns, N rows of 26 cells, N distinct video_id), the
NDJSON parsed line by line (N objects, N distinct video_id, the CSV's ids in
the CSV's order); N is --videos, or with --filter the listing's total. Last,
each history's CSV rows and NDJSON lines are checked against the readings
the single read (`GET /v1/videos/by-id/{id}`) shows in `stats`.

Prints a Markdown table. Exits non-zero when a download fails or is
incomplete, a count is wrong, or the server's own memory (RssAnon) grew by
--limit-mib MiB or more (VmRSS is shown beside it: on SQLite it also counts
the database file's mapped pages, the kernel's page cache, not the server's
allocations).
"""
import argparse
import csv
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("load_test", os.path.join(HERE, "load-test.py"))
lt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lt)

ROOT = lt.ROOT
PORT_DEFAULT = 18081
CSV_COLUMNS = 26


def status_kib(pid):
    """VmRSS, VmHWM, RssAnon and RssFile of a process, in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                fields[key] = int(rest.split()[0])
    return fields


def reset_peak(pid):
    """Resets the process's VmHWM to its current VmRSS; False if not allowed."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class Sampler(threading.Thread):
    """Reads the server's memory every `interval` seconds until stopped."""

    def __init__(self, pid, interval=0.02):
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.samples = []  # (monotonic time, VmRSS, RssAnon, RssFile)
        self._done = threading.Event()

    def run(self):
        while not self._done.is_set():
            try:
                s = status_kib(self.pid)
            except (OSError, ValueError):
                break
            self.samples.append((time.monotonic(), s["VmRSS"], s["RssAnon"], s["RssFile"]))
            self._done.wait(self.interval)

    def stop(self):
        self._done.set()
        self.join()

    def peak(self, column):
        return max((s[column] for s in self.samples), default=0)

    def window_peak(self, column, start, end):
        return max((s[column] for s in self.samples if start <= s[0] <= end), default=0)


def idle_memory(pid, seconds=1.0):
    """The server's memory at rest: the median of samples over `seconds`."""
    rows = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        cur, _, anon = lt.rss_kib(pid)
        rows.append((cur, anon, status_kib(pid)["RssFile"]))
        time.sleep(0.05)
    rows.sort()
    return rows[len(rows) // 2]


def download(url, key, path, pid):
    """Streams `url` into `path` while sampling the server's memory."""
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    reset_peak(pid)
    sampler = Sampler(pid)
    sampler.start()
    started = time.monotonic()
    size = lines = 0
    first_byte = None
    error = None
    status = None
    headers = {}
    try:
        with urllib.request.urlopen(req, timeout=600) as resp, open(path, "wb") as f:
            status = resp.status
            headers = {k.lower(): v for k, v in resp.headers.items()}
            while True:
                chunk = resp.read(1 << 20)
                if not chunk:
                    break
                if first_byte is None:
                    first_byte = time.monotonic()
                size += len(chunk)
                lines += chunk.count(b"\n")
                f.write(chunk)
    except urllib.error.HTTPError as e:
        status = e.code
        error = f"HTTP {e.code}: {e.read()[:500]!r}"
    except Exception as e:  # an aborted stream: IncompleteRead, reset, timeout
        error = f"{type(e).__name__}: {e}"
    ended = time.monotonic()
    sampler.stop()
    hwm = status_kib(pid)["VmHWM"]
    return {
        "status": status, "headers": headers, "bytes": size, "lines": lines, "error": error,
        "seconds": ended - started, "ttfb": (first_byte - started) if first_byte else None,
        "sampler": sampler, "started": started, "ended": ended, "hwm": hwm,
    }


def check_csv(path, videos):
    """Problems with the exported CSV, and its video ids in order."""
    problems = []
    ids = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        if len(header) != CSV_COLUMNS or header[0] != "video_id":
            problems.append(f"csv header has {len(header)} columns, starting {header[:2]}")
        for n, row in enumerate(reader, start=2):
            if len(row) != CSV_COLUMNS:
                problems.append(f"csv record {n} has {len(row)} cells")
                if len(problems) > 5:
                    break
            ids.append(row[0] if row else "")
    if len(ids) != videos:
        problems.append(f"csv has {len(ids)} data rows, expected {videos}")
    if len(set(ids)) != len(ids):
        problems.append(f"csv has {len(ids) - len(set(ids))} repeated video_id")
    return problems, ids


def check_ndjson(path, videos):
    """Problems with the exported NDJSON, and its video ids in order."""
    problems = []
    ids = []
    with open(path, "rb") as f:
        for n, line in enumerate(f, start=1):
            if not line.endswith(b"\n"):
                problems.append(f"ndjson line {n} does not end with a line feed")
            try:
                ids.append(json.loads(line)["video_id"])
            except (ValueError, KeyError) as e:
                problems.append(f"ndjson line {n}: {e}")
                if len(problems) > 5:
                    break
    if len(ids) != videos:
        problems.append(f"ndjson has {len(ids)} lines, expected {videos}")
    if len(set(ids)) != len(ids):
        problems.append(f"ndjson has {len(ids) - len(set(ids))} repeated video_id")
    return problems, ids


def get_json(url, key):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)


def mib(kib):
    return kib / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    p.add_argument("--videos", type=int, default=100_000)
    p.add_argument("--histories", type=int, default=20,
                   help="videos whose readings are exported (CSV and NDJSON each); 0 skips them")
    p.add_argument("--limit-mib", type=float, default=50.0,
                   help="fail when the server's own memory (RssAnon) grows by this much or more")
    p.add_argument("--port", type=int, default=PORT_DEFAULT)
    p.add_argument("--formats", default="csv,ndjson", help="the video exports to run, in order")
    p.add_argument("--filter", default="",
                   help="listing parameters added to the video export (e.g. 'campaign=Campaign%%2007'); "
                        "the rows expected are then the listing's total for them")
    p.add_argument("--no-build", action="store_true",
                   help="use the dataset and release binary as they are (no cargo bench / cargo build)")
    args = p.parse_args()

    if not args.no_build:
        lt.sh("cargo", "bench", "-p", "vidpulse-store", "--bench", "analytics", "--",
              "--videos", str(args.videos), "--backend", args.backend, "--runs", "1",
              cwd=ROOT, stdout=subprocess.DEVNULL)
        lt.sh("cargo", "build", "--release", "-p", "vidpulse", "--bin", "vidpulse", cwd=ROOT)
    vidpulse = os.path.join(lt.target_dir(), "release", "vidpulse")

    work = tempfile.mkdtemp(prefix="vidpulse-export-")
    server = None
    db_name = None
    failures = []
    try:
        if args.backend == "sqlite":
            src = os.path.join(lt.target_dir(), "bench-data", f"analytics-{args.videos}.db")
            dst = os.path.join(work, "export.db")
            shutil.copy(src, dst)
            url = f"sqlite://{dst}"
        else:
            db_name = f"vidpulse_export_{os.getpid()}"
            lt.psql(lt.PG_ADMIN, f"CREATE DATABASE {db_name} TEMPLATE vidpulse_bench_{args.videos}")
            url = lt.PG_ADMIN.rsplit("/", 1)[0] + "/" + db_name
        env = dict(os.environ, DATABASE_URL=url, RUST_LOG="warn")
        lt.sh(vidpulse, "migrate", env=env, stdout=subprocess.DEVNULL)
        if args.backend == "sqlite":
            import sqlite3
            con = sqlite3.connect(dst)
            org = con.execute("SELECT lower(hex(id)) FROM organizations LIMIT 1").fetchone()[0]
            org = f"{org[:8]}-{org[8:12]}-{org[12:16]}-{org[16:20]}-{org[20:]}"
            rows = con.execute("SELECT lower(hex(id)) FROM tracked_videos ORDER BY random() LIMIT ?",
                               (args.histories,)).fetchall()
            sample_ids = [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" for (h,) in rows]
            con.close()
        else:
            org = lt.psql(url, "SELECT id FROM organizations LIMIT 1")
            sample_ids = lt.psql(url, f"SELECT id FROM tracked_videos ORDER BY random() "
                                      f"LIMIT {int(args.histories)}").split()
        key = json.loads(lt.out(vidpulse, "admin", "create-api-key", "--org", org, env=env))["api_key"]

        log_path = os.path.join(work, "server.log")
        log = open(log_path, "w")
        server = subprocess.Popen([vidpulse, "serve", "--no-worker", "--listen", f"127.0.0.1:{args.port}"],
                                  env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{args.port}"
        lt.wait_http(f"{base}/readyz")
        time.sleep(1.0)
        idle_rss, idle_anon, idle_file = idle_memory(server.pid)
        if not reset_peak(server.pid):
            print("export-memory: cannot reset VmHWM (/proc/PID/clear_refs); "
                  "the peak VmRSS is the 20 ms samples' only", file=sys.stderr)

        history = None
        if args.histories > 0:
            history = {"csv": [], "ndjson": []}
            for vid in sample_ids:
                for fmt in ("csv", "ndjson"):
                    path = os.path.join(work, f"history.{fmt}")
                    r = download(f"{base}/v1/videos/by-id/{vid}/history?format={fmt}", key, path, server.pid)
                    os.remove(path)
                    r["rows"] = r["lines"] - (1 if fmt == "csv" else 0)
                    r["video"] = vid
                    history[fmt].append(r)
                    if r["error"] or r["status"] != 200:
                        failures.append(f"history {fmt} of {vid}: status {r['status']} {r['error'] or ''}")

        expected = args.videos
        if args.filter:
            answer = get_json(f"{base}/v1/videos/stats?limit=1&{args.filter}", key)
            expected = answer["data"]["pagination"]["total"]
        results = {}
        ids = {}
        expected_type = {"csv": "text/csv", "ndjson": "application/x-ndjson"}
        formats = [f.strip() for f in args.formats.split(",") if f.strip()]
        for fmt in formats:
            path = os.path.join(work, f"videos.{fmt}")
            query = f"format={fmt}" + (f"&{args.filter}" if args.filter else "")
            r = download(f"{base}/v1/videos/export?{query}", key, path, server.pid)
            after_rss, _, after_anon = lt.rss_kib(server.pid)
            r["after_rss"], r["after_anon"] = after_rss, after_anon
            results[fmt] = r
            problems = []
            if r["error"]:
                problems.append(f"download failed after {r['bytes']} bytes ({r['lines']} lines): {r['error']}")
            if r["status"] != 200:
                problems.append(f"status {r['status']}")
            if not r["headers"].get("content-type", "").startswith(expected_type[fmt]):
                problems.append(f"Content-Type {r['headers'].get('content-type')!r}")
            if f'filename="videos.{fmt}"' not in r["headers"].get("content-disposition", ""):
                problems.append(f"Content-Disposition {r['headers'].get('content-disposition')!r}")
            if not r["error"]:
                checked, ids[fmt] = (check_csv if fmt == "csv" else check_ndjson)(path, expected)
                problems += checked
            r["rows"] = len(ids.get(fmt, [])) if fmt in ids else None
            os.remove(path)
            for problem in problems:
                failures.append(f"{fmt}: {problem}")
        if "csv" in ids and "ndjson" in ids and ids["csv"] != ids["ndjson"]:
            failures.append("the CSV's and the NDJSON's video ids differ (set or order)")

        end_rss, _, end_anon = lt.rss_kib(server.pid)

        # The histories' readings against the single read's `stats` (read
        # last: the single read fills the record cache).
        for fmt, runs in (history or {}).items():
            for r in runs:
                # The single read's `data` is `{"data": <the video>}` (OneVideo).
                record = get_json(f"{base}/v1/videos/by-id/{r['video']}", key)["data"]["data"]
                stamps = set()
                for series in record.get("stats", {}).values():
                    stamps.update(series)
                if r["rows"] != len(stamps):
                    failures.append(f"history {fmt} of {r['video']}: {r['rows']} readings, "
                                    f"the single read's stats show {len(stamps)}")

        server.terminate()
        server.wait(timeout=30)
        log.close()
        with open(log_path) as f:
            logged = [line.rstrip() for line in f if "export stopped" in line or "ERROR" in line]
        for line in logged[:5]:
            failures.append(f"server log: {line[:300]}")

        # The table.
        print(f"\n{args.backend}, {args.videos} tracked videos"
              + (f", export filtered by {args.filter} ({expected} rows)" if args.filter else "")
              + f", {os.cpu_count()} cores; server memory idle: "
              f"VmRSS {mib(idle_rss):.1f} MiB, RssAnon {mib(idle_anon):.1f} MiB, RssFile {mib(idle_file):.1f} MiB\n")
        print("| export | bytes | rows | first byte s | seconds | MB/s | rows/s | VmRSS idle → peak MiB | "
              "VmRSS growth | RssAnon idle → peak MiB | RssAnon growth | RssFile peak MiB | samples |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        gate = []
        if history:
            for fmt, runs in history.items():
                secs = sorted(r["seconds"] for r in runs)
                peak_rss = max(max(r["hwm"], r["sampler"].peak(1)) for r in runs)
                peak_anon = max(r["sampler"].peak(2) for r in runs)
                size = sum(r["bytes"] for r in runs) / len(runs)
                rows = sum(r["rows"] for r in runs) / len(runs)
                gate.append((f"history {fmt}", peak_anon - idle_anon))
                print(f"| history {fmt} ({len(runs)} videos, each) | {size:,.0f} | {rows:,.0f} | – | "
                      f"{secs[len(secs) // 2]:.3f} (median) | – | – | "
                      f"{mib(idle_rss):.1f} → {mib(peak_rss):.1f} | {mib(peak_rss - idle_rss):+.1f} | "
                      f"{mib(idle_anon):.1f} → {mib(peak_anon):.1f} | {mib(peak_anon - idle_anon):+.1f} | "
                      f"– | {sum(len(r['sampler'].samples) for r in runs)} |")
        for fmt, r in results.items():
            s = r["sampler"]
            peak_rss = max(r["hwm"], s.peak(1))
            peak_anon = s.peak(2)
            rows = r["rows"] if r["rows"] is not None else r["lines"] - (1 if fmt == "csv" else 0)
            secs = r["seconds"]
            gate.append((fmt, peak_anon - idle_anon))
            print(f"| {fmt} | {r['bytes']:,} | {rows:,} | {r['ttfb'] or 0:.2f} | {secs:.1f} | "
                  f"{r['bytes'] / secs / 1e6:.1f} | {rows / secs:,.0f} | "
                  f"{mib(idle_rss):.1f} → {mib(peak_rss):.1f} | {mib(peak_rss - idle_rss):+.1f} | "
                  f"{mib(idle_anon):.1f} → {mib(peak_anon):.1f} | {mib(peak_anon - idle_anon):+.1f} | "
                  f"{mib(s.peak(3)):.1f} | {len(s.samples)} |")
        print()
        for fmt, r in results.items():
            s = r["sampler"]
            span = r["ended"] - r["started"]
            tenths = " ".join(f"{mib(s.window_peak(2, r['started'] + span * i / 10, r['started'] + span * (i + 1) / 10)):.0f}"
                              for i in range(10))
            streamed = ("chunked" if r["headers"].get("transfer-encoding") == "chunked"
                        else f"Content-Length {r['headers'].get('content-length')}")
            print(f"{fmt}: RssAnon peak by tenth of the download {tenths} MiB; after it "
                  f"{mib(r['after_anon']):.1f} MiB (VmRSS {mib(r['after_rss']):.1f}); streamed {streamed}")
        print(f"at the end: VmRSS {mib(end_rss):.1f} MiB, RssAnon {mib(end_anon):.1f} MiB")
        for name, growth in gate:
            if growth >= args.limit_mib * 1024:
                failures.append(f"{name}: RssAnon grew {mib(growth):.1f} MiB (limit {args.limit_mib:.0f} MiB)")
    finally:
        if server and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        if db_name:
            for _ in range(20):
                try:
                    lt.psql(lt.PG_ADMIN, f"DROP DATABASE IF EXISTS {db_name}")
                    break
                except subprocess.CalledProcessError:
                    time.sleep(0.5)
        shutil.rmtree(work, ignore_errors=True)

    if failures:
        print("\nFAILED:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        sys.exit(1)
    print(f"\nOK: counts exact, the server's own memory (RssAnon) grew less than {args.limit_mib:.0f} MiB")


if __name__ == "__main__":
    main()
