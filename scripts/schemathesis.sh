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

. scripts/lib/server.sh
ensure_venv "$venv" schemathesis 'schemathesis>=4,<5'

work=$(mktemp -d)
server_pid=""
cleanup() {
  stop "$server_pid"
  rm -rf "$work"
}
trap cleanup EXIT

read -r port < <(free_ports 1)
new_service Conformance st@example.com --plan business
token=$(session_token st@example.com)

# Thousands of requests with one key: a budget that never runs out, so the
# operations are exercised rather than refused with 429.
VIDPULSE_RATE_LIMIT_REQUESTS_PER_MINUTE=60000000 start_server "$port"

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
