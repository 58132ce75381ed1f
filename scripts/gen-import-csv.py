#!/usr/bin/env python3
"""Writes a deterministic statistics import file (docs/operations.md, "Importing
history") for timing `vidpulse admin import-stats`.

    scripts/gen-import-csv.py ROWS > import.csv

ROWS snapshots: videos of 10 snapshots each (two a day for five days, from
2026-10-01), spread over three platforms and 200 creators.
"""
import sys
from datetime import datetime, timedelta, timezone

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
start = datetime(2026, 10, 1, 6, tzinfo=timezone.utc)
out = sys.stdout
out.write("platform,external_video_id,captured_at,views,likes,comments,reposts,saves,"
          "url,channel_username,title,published_at\n")
for i in range(rows // 10):
    platform = ("tiktok", "instagram", "youtube")[i % 3]
    ext = {"tiktok": f"{7_100_000_000_000_000_000 + i}",
           "instagram": f"D{i:010d}",
           "youtube": f"i{i:010d}"}[platform]
    author = f"creator{i % 200:03d}"
    for s in range(10):
        at = start + timedelta(days=s // 2, hours=12 * (s % 2))
        views = 1000 * (i % 97 + 1) * (s + 1)
        saves = "" if platform == "youtube" else str(views // 200)
        reposts = "" if platform == "youtube" else str(views // 100)
        out.write(f"{platform},{ext},{at.isoformat().replace('+00:00', 'Z')},{views},"
                  f"{views // 20},{views // 300},{reposts},{saves},,{author},Video {i},"
                  f"2026-09-30T12:00:00Z\n")
