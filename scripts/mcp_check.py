"""The MCP server checked by an independent client: the Python `mcp` SDK
(PyPI), over its Streamable HTTP transport with the API key in
`Authorization`, in both ways the SDK connects: the `initialize` handshake
(`legacy`) and the per-request protocol of 2026-07-28 (`auto`: it probes
`server/discover` first). Each connection lists the tools (the SDK keeps
their output schemas and validates every structured result against them),
calls each tool, and checks a structured output and a tool error.

    python mcp_check.py URL KEY

The organization behind KEY is on a paid plan, has one campaign and tracks
the YouTube creator `mcpcheck` (scripts/mcp-check.sh sets it up). Prints
`mcp-check: ok|FAIL <name>` per check, then
`mcp-check: the Python SDK: N passed, M failed`; exits non-zero on any
failure.
"""

import asyncio
import json
import sys
import traceback

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL, KEY = sys.argv[1], sys.argv[2]

READ = [
    "find_videos",
    "get_video",
    "leaderboard",
    "totals",
    "list_campaigns",
    "campaign_report",
    "get_creator",
    "get_creator_followers",
]
VIDEO = "https://www.tiktok.com/@mcp.check/video/7301234567890123456"
CREATOR = "mcpcheck"

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"mcp-check: ok   {name}")
    else:
        failed += 1
        print(f"mcp-check: FAIL {name} {detail}")


def error_of(result):
    """(code, message) of a tool error, from its structured content."""
    e = (result.structured_content or {}).get("error", {})
    return e.get("code"), e.get("message")


async def session(mode):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {KEY}"})
    async with http:
        async with Client(streamable_http_client(URL, http_client=http), mode=mode) as client:
            await run(client, mode)


async def run(client, mode):
    tag = f"[{mode} {client.protocol_version}]"
    check(f"{tag} connected to vidpulse", client.server_info is not None and client.server_info.name == "vidpulse",
          repr(client.server_info))

    tools = (await client.list_tools()).tools
    names = [t.name for t in tools]
    check(f"{tag} tools/list: the nine tools", sorted(names) == sorted(READ + ["track_videos"]), names)
    hints = {t.name: t.annotations for t in tools}
    check(f"{tag} read tools are readOnlyHint, track_videos is not",
          all(hints[n].read_only_hint is True for n in READ)
          and hints["track_videos"].read_only_hint is False
          and hints["track_videos"].destructive_hint is False,
          hints)
    check(f"{tag} every tool has input and output schemas",
          all(t.input_schema.get("type") == "object" and (t.output_schema or {}).get("type") == "object" for t in tools))

    # The write tool: tracks a video (30 credits), then finds it tracked already.
    first = await client.call_tool("track_videos", {"urls": [VIDEO]})
    again = await client.call_tool("track_videos", {"urls": [VIDEO]})
    status = [r.structured_content["results"][0]["status"] for r in (first, again) if not r.is_error]
    check(f"{tag} track_videos: tracked (or tracked before), then already_tracked",
          status in (["tracked", "already_tracked"], ["already_tracked", "already_tracked"]),
          (first, again))

    # Each read tool once with arguments that answer; the SDK validated each
    # structured result against the tool's output schema.
    page = await client.call_tool("find_videos", {"platform": "tiktok", "limit": 5})
    data = page.structured_content or {}
    check(f"{tag} find_videos: a structured page with the tracked video",
          not page.is_error and data["pagination"]["total"] == 1 and data["data"][0]["url"] == VIDEO
          and json.loads(page.content[0].text) == data, page)
    video_id = data["data"][0]["video_id"] if data.get("data") else "00000000-0000-0000-0000-000000000000"
    one = await client.call_tool("get_video", {"video_id": video_id})
    check(f"{tag} get_video: the video", not one.is_error and one.structured_content["data"]["video_id"] == video_id, one)
    for tool, args in [("leaderboard", {"metric": "views", "by": "video", "compare": "previous_period"}),
                       ("totals", {"group_by": "platform", "compare": "previous_period"}),
                       ("list_campaigns", {"limit": 10})]:
        r = await client.call_tool(tool, args)
        check(f"{tag} {tool}: answers", not r.is_error, r)
    campaigns = (await client.call_tool("list_campaigns", {})).structured_content["data"]
    check(f"{tag} list_campaigns: the campaign", len(campaigns) == 1, campaigns)
    if campaigns:
        r = await client.call_tool("campaign_report", {"campaign_id": campaigns[0]["id"]})
        check(f"{tag} campaign_report: the campaign",
              not r.is_error and r.structured_content["campaign"]["id"] == campaigns[0]["id"], r)
    r = await client.call_tool("get_creator", {"username": "@" + CREATOR, "platform": "youtube"})
    check(f"{tag} get_creator: the creator",
          not r.is_error and r.structured_content["blogger"]["channel_username"] == CREATOR, r)
    r = await client.call_tool("get_creator_followers", {"username": CREATOR})
    check(f"{tag} get_creator_followers: its days",
          not r.is_error and r.structured_content["channel_username"] == CREATOR
          and isinstance(r.structured_content["days"], list), r)

    # Tool errors: our code and message, the SDK raising nothing.
    missing = await client.call_tool("campaign_report", {"campaign_id": "00000000-0000-0000-0000-000000000000"})
    check(f"{tag} campaign_report of no campaign: tool error NOT_FOUND",
          missing.is_error and error_of(missing) == ("NOT_FOUND", "No such campaign")
          and missing.content[0].text == "NOT_FOUND: No such campaign", missing)
    for tool, args, code in [("get_creator", {"username": "nobody"}, "BLOGGER_NOT_TRACKED"),
                             ("get_creator_followers", {"username": "nobody"}, "BLOGGER_NOT_TRACKED"),
                             ("find_videos", {"limit": 0}, "INVALID_PARAMETER"),
                             ("get_video", {"external_video_id": "nope"}, "NOT_FOUND")]:
        r = await client.call_tool(tool, args)
        check(f"{tag} {tool}: tool error {code}", r.is_error and error_of(r)[0] == code, r)


async def main():
    for mode in ("legacy", "auto"):
        try:
            await session(mode)
        except Exception:
            check(f"[{mode}] session", False, traceback.format_exc())
    print(f"mcp-check: the Python SDK: {passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


asyncio.run(main())
