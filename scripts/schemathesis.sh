#!/usr/bin/env bash
# API conformance: runs schemathesis (from PyPI) against a running vidpulse
# for both interfaces, the public API with an API key and the dashboard API
# with a JWT, and fails on any 5xx, response that breaks the OpenAPI
# document, or request that hangs.
#
#   scripts/schemathesis.sh [path/to/vidpulse]     (default: target/debug/vidpulse)
#
# Environment: ST_MAX_EXAMPLES (default 50) examples per operation,
# ST_VENV (default ~/.cache/vidpulse-ci/schemathesis) where schemathesis is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/debug/vidpulse}"
venv="${ST_VENV:-$HOME/.cache/vidpulse-ci/schemathesis}"
examples="${ST_MAX_EXAMPLES:-50}"

if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis>=4,<5'
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DATABASE_URL="sqlite://$work/vidpulse.db"
export VIDPULSE_OUTBOX_DIR="$work/outbox" VIDPULSE_FILES_DIR="$work/files"
"$bin" migrate >/dev/null
org=$("$bin" admin create-org --name Conformance --plan business --owner-email st@example.com \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["organization_id"])')
key=$("$bin" admin create-api-key --org "$org" | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
token=$("$bin" admin issue-token --email st@example.com | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

# Thousands of requests with one key: a budget that never runs out, so the
# operations are exercised rather than refused with 429.
RUST_LOG=warn VIDPULSE_RATE_LIMIT_REQUESTS_PER_MINUTE=60000000 \
  "$bin" serve --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done

run() {
  "$venv/bin/st" run "http://127.0.0.1:$port/openapi.json" \
    --checks not_a_server_error,response_schema_conformance,content_type_conformance \
    --phases examples,coverage,fuzzing \
    --request-timeout 10 \
    --max-examples "$examples" \
    --workers 1 \
    --seed 1 \
    --suppress-health-check all \
    --warnings off \
    "$@"
}

status=0
echo "schemathesis: public API (/v1)"
run --include-path-regex '^/v1/' -H "Authorization: Bearer $key" || status=1
echo "schemathesis: dashboard API"
run --exclude-path-regex '^/v1/' -H "Authorization: Bearer $token" -H "X-Organization-ID: $org" || status=1
if [ "$status" -ne 0 ]; then
  echo "schemathesis: server log (last 50 lines)"
  tail -n 50 "$work/serve.log"
fi
exit "$status"
