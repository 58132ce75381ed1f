#!/usr/bin/env bash
# Webhooks end to end, with the signatures checked by an independent
# implementation: a running vidpulse delivers to scripts/webhook-receiver.py,
# which verifies each delivery with the `standardwebhooks` package from PyPI
# (not vidpulse's code). It creates an endpoint (the public API's nested
# envelope, the secret shown once; the dashboard API lists it too), tracks a
# video and sends test events, rotates the secret (a receiver still holding
# the old one verifies what is sent during the overlap; switched to the new
# one, it verifies too), reads the delivery log, replays a delivery (the
# receiver sees the same webhook-id and keeps the event once), forges
# requests (refused with 400) and reads the webhook metrics. Prints
# `webhooks: N passed, M failed` and exits non-zero on any failure.
#
#   scripts/webhooks-check.sh [path/to/vidpulse]     (default: target/debug/vidpulse)
#
# Environment: WH_VENV (default ~/.cache/vidpulse-ci/webhooks) where
# standardwebhooks is installed, WH_TIMEOUT (default 60) seconds to wait for
# each round of deliveries.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/debug/vidpulse}"
venv="${WH_VENV:-$HOME/.cache/vidpulse-ci/webhooks}"
timeout="${WH_TIMEOUT:-60}"

. scripts/lib/server.sh
ensure_venv "$venv" standardwebhooks 'standardwebhooks>=1.1,<2'
py="$venv/bin/python"

work=$(mktemp -d)
server_pid="" receiver_pid=""
cleanup() {
  stop "$receiver_pid"
  stop "$server_pid"
  rm -rf "$work"
}
trap cleanup EXIT

read -r port receiver_port < <(free_ports 2)
server="http://127.0.0.1:$port"
receiver="http://127.0.0.1:$receiver_port"
events="$work/events.jsonl"

new_service Webhooks wh@example.com
token=$(session_token wh@example.com)

# The receiver listens on 127.0.0.1, which deliveries may reach only when the
# operator allows private addresses.
VIDPULSE_WEBHOOK_ALLOW_PRIVATE=true start_server "$port"

start_receiver() { # SECRET: (re)starts the receiver with that secret
  stop "$receiver_pid"
  VIDPULSE_WEBHOOK_SECRET="$1" "$py" scripts/webhook-receiver.py "$receiver_port" "$events" \
    2>>"$work/receiver.log" &
  receiver_pid=$!
  for _ in $(seq 1 50); do
    [ "$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$receiver/")" = 405 ] && return 0
    sleep 0.1
  done
  return 1
}

# v1 (API key) or dashboard (JWT and organization) METHOD PATH [JSON]: the
# answer's status in $status, its body in $work/body.
status="" auth=()
api() {
  local method=$1 path=$2 body=${3:-}
  local args=(-s --noproxy '*' -o "$work/body" -w '%{http_code}' -X "$method" "$server$path" "${auth[@]}")
  if [ -n "$body" ]; then args+=(-H 'Content-Type: application/json' -d "$body"); fi
  status=$(curl "${args[@]}") || status=000
}
v1() { auth=(-H "Authorization: Bearer $key"); api "$@"; }
dashboard() { auth=(-H "Authorization: Bearer $token" -H "X-Organization-ID: $org"); api "$@"; }

# holds EXPR [ARG...]: whether the Python expression EXPR holds of the last
# answer's body (`d`; the ARGs from sys.argv[3]); value EXPR [ARG...]: prints it.
holds() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
    "$work/body" "$@" 2>/dev/null
}
value() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("(" + sys.argv[2] + ")"))' "$work/body" "$@"; }
# received EXPR [ARG...]: whether EXPR holds of the events the receiver
# verified (`ev`, one dict per line of its file).
received() {
  python3 -c '
import json, sys
try:
    ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except FileNotFoundError:
    ev = []
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$events" "$@" 2>/dev/null
}
# eventually COMMAND...: runs it until it succeeds, for at most $timeout seconds.
eventually() {
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.25
  done
}

passed=0 failed=0
check() { # NAME COMMAND...: runs one check and counts it
  local name=$1
  shift
  status=""
  : >"$work/body"
  if "$@"; then
    passed=$((passed + 1))
    echo "webhooks: ok   $name"
  else
    failed=$((failed + 1))
    echo "webhooks: FAIL $name${status:+ (last answer: $status $(head -c 600 "$work/body"))}"
  fi
}
finish() {
  if [ "$failed" -ne 0 ]; then
    echo "webhooks: server log (last 30 lines)"
    tail -n 30 "$work/serve.log" || true
    echo "webhooks: receiver log (last 30 lines)"
    tail -n 30 "$work/receiver.log" 2>/dev/null || true
  fi
  echo "webhooks: $passed passed, $failed failed"
  if [ "$failed" -eq 0 ]; then exit 0; fi
  exit 1
}

# 1. Created through the public API: 201, the nested envelope, the secret
#    shown this once (never in a read).
hook="" old_secret=""
created() {
  v1 POST /v1/webhooks "{\"url\": \"$receiver/hooks\", \"events\": [\"video.tracked\"], \"description\": \"webhooks-check\"}"
  [ "$status" = 201 ] || return 1
  holds 'd["success"] is True and isinstance(d["meta"]["request_id"], str)
         and d["data"]["secret"].startswith("whsec_") and d["data"]["events"] == ["video.tracked"]
         and d["data"]["enabled"] is True and d["data"]["previous_secret_expires_at"] is None' || return 1
  hook=$(value 'd["data"]["id"]')
  old_secret=$(value 'd["data"]["secret"]')
  v1 GET "/v1/webhooks/$hook"
  [ "$status" = 200 ] && holds 'd["data"]["id"] == sys.argv[3] and "secret" not in d["data"]' "$hook"
}
check "endpoint created: 201, data.secret shown once (whsec_), never read back" created
[ -n "$hook" ] || finish

# 2. The dashboard API (an admin's JWT) lists the same endpoint.
listed() {
  dashboard GET /organizations/webhooks
  [ "$status" = 200 ] && holds '[e["id"] for e in d["data"]] == [sys.argv[3]] and "secret" not in d["data"][0]' "$hook"
}
check "the dashboard API lists it (/organizations/webhooks)" listed

start_receiver "$old_secret" || { echo "webhooks: the receiver did not start" >&2; cat "$work/receiver.log" >&2; exit 1; }

# Events: a tracked video, a test event; then a rotation and another test event.
v1 POST /v1/videos/track '{"urls": ["https://www.tiktok.com/@someone/video/7301234567890123456"]}'
video_id=$(value 'd["data"]["results"][0]["video_id"]' 2>/dev/null || echo "")
v1 POST "/v1/webhooks/$hook/test"
test1=$(value 'd["data"]["event_id"]' 2>/dev/null || echo "")
rotated_ok=false
v1 POST "/v1/webhooks/$hook/rotate-secret"
if [ "$status" = 200 ] && holds 'd["data"]["secret"].startswith("whsec_") and d["data"]["secret"] != sys.argv[3]
                                 and d["data"]["previous_secret_expires_at"] is not None' "$old_secret"; then
  rotated_ok=true
fi
new_secret=$(value 'd["data"]["secret"]' 2>/dev/null || echo "")
v1 POST "/v1/webhooks/$hook/test"
test2=$(value 'd["data"]["event_id"]' 2>/dev/null || echo "")

# 3. video.tracked, with the video's fields, verified by standardwebhooks.
tracked() {
  [ -n "$video_id" ] && eventually received '(t := [e["data"] for e in ev if e["type"] == "video.tracked"])
      and len(t) == 1 and t[0]["video_id"] == sys.argv[3] and t[0]["platform"] == "tiktok"
      and t[0]["external_video_id"] == "7301234567890123456" and t[0]["source"] == "api"
      and t[0]["url"] == "https://www.tiktok.com/@someone/video/7301234567890123456"
      and isinstance(t[0]["tracked_at"], str) and "creator" not in t[0]' "$video_id"
}
check "video.tracked delivered, signature verified, data as documented" tracked

# 4. The test event.
tested() {
  [ -n "$test1" ] && eventually received '[e["type"] for e in ev if e["webhook_id"] == sys.argv[3]] == ["webhook.test"]' "$test1"
}
check "webhook.test delivered and verified" tested

# 5. Sent after the rotation: the receiver still holds the old secret.
overlap() {
  $rotated_ok && [ -n "$test2" ] && eventually received 'any(e["webhook_id"] == sys.argv[3] for e in ev)' "$test2"
}
check "after rotate-secret, the old secret still verifies (24 h overlap)" overlap

# all_delivered N: the endpoint's delivery log holds N deliveries, each
# delivered at the first attempt, answered 204.
all_delivered() {
  v1 GET "/v1/webhooks/$hook/deliveries?limit=100"
  [ "$status" = 200 ] && holds 'd["meta"]["pagination"]["total"] == int(sys.argv[3]) and all(
      x["status"] == "delivered" and x["attempts"] == 1 and x["last_status_code"] == 204
      and x["next_attempt_at"] is None and x["last_error"] is None for x in d["data"])' "$1"
}

# 6. The receiver switched to the new secret verifies too.
switched() {
  # Not while a delivery is under way: the server records the last three first.
  eventually all_delivered 3 || return 1
  [ -n "$new_secret" ] && start_receiver "$new_secret" || return 1
  v1 POST "/v1/webhooks/$hook/test"
  local test3
  test3=$(value 'd["data"]["event_id"]') || return 1
  eventually received 'any(e["webhook_id"] == sys.argv[3] for e in ev)' "$test3"
}
check "the new secret verifies (receiver switched to it)" switched

# 7. The delivery log agrees with the receiver.
check "delivery log: 4 deliveries, all delivered (204, 1 attempt)" eventually all_delivered 4

# 8. A replayed delivery carries the same webhook-id: delivered again, and
#    the receiver keeps the event once (across its restart, from its file).
replayed() {
  v1 GET "/v1/webhooks/$hook/deliveries?limit=100"
  local delivery
  delivery=$(value '[x["id"] for x in d["data"] if x["event_id"] == sys.argv[3]][0]' "$test1") || return 1
  v1 POST "/v1/webhooks/$hook/deliveries/$delivery/replay"
  [ "$status" = 202 ] && holds 'd["data"]["event_id"] == sys.argv[3] and d["data"]["id"] != sys.argv[4]' "$test1" "$delivery" || return 1
  eventually all_delivered 5 || return 1
  received 'sum(e["webhook_id"] == sys.argv[3] for e in ev) == 1 and len(ev) == len({e["webhook_id"] for e in ev}) == 4' "$test1" \
    && grep -q "duplicate webhook.test $test1" "$work/receiver.log"
}
check "replay: same webhook-id delivered again, kept once by the receiver" replayed

# 9. Forged requests are refused with 400 and written nowhere; a request
#    signed properly (the control) is taken.
forged() {
  "$py" - "$receiver/hooks" "$new_secret" "$events" <<'PY'
import base64, json, os, sys, time, urllib.error, urllib.request
from datetime import datetime, timezone
from standardwebhooks.webhooks import Webhook

url, secret, events = sys.argv[1], sys.argv[2], sys.argv[3]
body = json.dumps({"type": "webhook.test", "timestamp": "2026-01-01T00:00:00Z", "data": {"forged": True}})

opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

def post(data, msg_id, ts, signer):
    sig = Webhook(signer).sign(msg_id, datetime.fromtimestamp(ts, tz=timezone.utc), body) if signer else None
    headers = {"content-type": "application/json", "webhook-id": msg_id, "webhook-timestamp": str(int(ts))}
    if sig:
        headers["webhook-signature"] = sig
    try:
        with opener.open(urllib.request.Request(url, data.encode(), headers, method="POST")) as a:
            return a.status
    except urllib.error.HTTPError as e:
        return e.code

lines = lambda: sum(1 for _ in open(events))
before, now = lines(), time.time()
other = "whsec_" + base64.b64encode(os.urandom(24)).decode()
refused = {
    "tampered body": post(body.replace("true", "false"), "forged-1", now, secret),
    "another secret": post(body, "forged-2", now, other),
    "no signature": post(body, "forged-3", now, None),
    "stale timestamp": post(body, "forged-4", now - 600, secret),
}
after_forged = lines()
control = post(body, "control-1", now, secret)
ok = set(refused.values()) == {400} and after_forged == before and control == 204 and lines() == before + 1
if not ok:
    print(f"webhooks: forged answers {refused}, control {control}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
check "forged requests refused by the receiver (400), the signed control taken (204)" forged

# 10. The webhook metrics.
metrics() {
  curl -s --noproxy '*' "$server/metrics" >"$work/metrics" || return 1
  grep -Eq '^vidpulse_webhook_deliveries_total\{outcome="delivered"\} 5$' "$work/metrics" \
    && grep -Eq '^vidpulse_webhook_pending_deliveries 0$' "$work/metrics" \
    && grep -Eq '^vidpulse_webhook_oldest_undelivered_seconds 0$' "$work/metrics"
}
check "metrics: 5 delivered, nothing pending" metrics

finish
