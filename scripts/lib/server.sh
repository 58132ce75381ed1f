# What the outside checks (schemathesis.sh, webhooks-check.sh, mcp-check.sh)
# share: a Python virtual environment for their checker, free ports, a
# throwaway SQLite service with an organization and its key, and the server
# started and waited for. Sourced by those scripts; not run alone.
#
# The sourcing script sets `bin` (the vidpulse binary) and `work` (a
# temporary folder it removes on exit) before calling these.

# VENV MODULE SPEC: makes virtual environment VENV with pip package SPEC,
# unless Python there already imports MODULE.
ensure_venv() {
  if ! "$1/bin/python" -c "import $2" >/dev/null 2>&1; then
    python3 -m venv "$1"
    "$1/bin/pip" install --quiet --disable-pip-version-check "$3"
  fi
}

# N: prints N free TCP ports of 127.0.0.1 on one line.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# FIELD: prints FIELD of the JSON object on standard input.
json_field() {
  python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# NAME EMAIL [create-org options...]: a fresh SQLite database in $work,
# migrated, with organization NAME owned by EMAIL; sets `org` and `key` (an
# API key of it).
new_service() {
  local name=$1 email=$2
  shift 2
  export DATABASE_URL="sqlite://$work/vidpulse.db"
  export VIDPULSE_OUTBOX_DIR="$work/outbox" VIDPULSE_FILES_DIR="$work/files"
  "$bin" migrate >/dev/null
  org=$("$bin" admin create-org --name "$name" --owner-email "$email" "$@" | json_field organization_id)
  key=$("$bin" admin create-api-key --org "$org" | json_field api_key)
}

# EMAIL: prints a dashboard session token for EMAIL.
session_token() {
  "$bin" admin issue-token --email "$1" | json_field token
}

# PORT: starts `vidpulse serve` on 127.0.0.1:PORT (with the caller's
# environment), sets `server_pid`, and waits for /readyz; on failure prints
# the server's log and exits.
start_server() {
  RUST_LOG=warn "$bin" serve --listen "127.0.0.1:$1" >"$work/serve.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 50); do
    curl -fs --noproxy '*' "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "$(basename "$0"): the server did not start" >&2
  cat "$work/serve.log" >&2
  exit 1
}

# PID: stops a process the script started (nothing when PID is empty).
stop() {
  if [ -n "$1" ]; then
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
  fi
}
