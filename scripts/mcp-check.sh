#!/usr/bin/env bash
# The MCP server (/mcp) checked from outside, against the real binary on
# SQLite:
#
#  1. by an independent client, the Python `mcp` SDK from PyPI
#     (scripts/mcp_check.py): the tools listed, each called, a structured
#     output validated against its schema, tool errors with our codes, in
#     both the handshake and the per-request protocol;
#  2. by the server checks of `@modelcontextprotocol/conformance` (npm),
#     where they apply: the scenarios of the server's own features (the
#     handshake, ping, tools/list). The suite's other scenarios exercise an
#     "everything" test server's tools, prompts, resources and sessions,
#     which vidpulse does not have; and its runner sends no Authorization
#     header, so this script puts a local pass-through in front of the
#     server that adds the key (the suite then sees the same server a client
#     with a key sees). See docs/api.md, "MCP", for the recorded result.
#
# Prints `mcp-check: ok|FAIL ...` per check and `mcp-check: N passed, M
# failed`, and exits non-zero on any failure.
#
#   scripts/mcp-check.sh [path/to/vidpulse]     (default: target/debug/vidpulse)
#
# Environment: MCP_VENV (default ~/.cache/vidpulse-ci/mcp) where the Python
# SDK is installed; MCP_NPM (default ~/.cache/vidpulse-ci/mcp-npm) where the
# conformance suite is installed; MCP_CONFORMANCE=0 skips the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/debug/vidpulse}"
venv="${MCP_VENV:-$HOME/.cache/vidpulse-ci/mcp}"
npm_dir="${MCP_NPM:-$HOME/.cache/vidpulse-ci/mcp-npm}"
conformance_version="0.1.16"

. scripts/lib/server.sh
ensure_venv "$venv" mcp 'mcp>=2.3,<3'
# The suite needs Node.js 22 or later (fs.globSync); an older system Node
# gets one from npm's node-linux-* package, whose tarball holds the binary.
node=node
if [ "${MCP_CONFORMANCE:-1}" != 0 ]; then
  suite="$npm_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  if [ ! -f "$suite" ]; then
    mkdir -p "$npm_dir"
    npm install --prefix "$npm_dir" --no-audit --no-fund --silent \
      "@modelcontextprotocol/conformance@$conformance_version" >/dev/null
  fi
  if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
    case "$(uname -m)" in aarch64 | arm64) arch=arm64 ;; *) arch=x64 ;; esac
    node="$npm_dir/node_modules/node-linux-$arch/bin/node"
    if [ ! -x "$node" ]; then
      npm install --prefix "$npm_dir" --no-audit --no-fund --silent "node-linux-$arch@22" >/dev/null
    fi
  fi
fi

work=$(mktemp -d)
server_pid="" proxy_pid=""
cleanup() {
  stop "$proxy_pid"
  stop "$server_pid"
  rm -rf "$work"
}
trap cleanup EXIT

read -r port proxy_port < <(free_ports 2)
server="http://127.0.0.1:$port"

new_service MCP mcp@example.com --plan pro
start_server "$port"

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "mcp-check: ok   $1"; }
fail() { failed=$((failed + 1)); echo "mcp-check: FAIL $1"; }
v1() { # METHOD PATH [JSON]: the answer's body on stdout
  local args=(-s --noproxy '*' -X "$1" "$server$2" -H "Authorization: Bearer $key")
  if [ -n "${3:-}" ]; then args+=(-H 'Content-Type: application/json' -d "$3"); fi
  curl "${args[@]}"
}

# What the client finds: a campaign, and a creator tracked (its job run by
# the server's worker).
v1 POST /v1/campaigns '{"name": "MCP check", "budget": 100}' >/dev/null
v1 POST /v1/bloggers/track '{"platform": "youtube", "username": "mcpcheck", "initial_videos_count": 1}' >/dev/null
for _ in $(seq 1 100); do
  v1 GET /v1/bloggers/by-username/mcpcheck | grep -q '"success":true' && break
  sleep 0.2
done

# 0. Without a key: 401, as on /v1.
status=$(curl -s --noproxy '*' -o "$work/body" -w '%{http_code}' -X POST "$server/mcp" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
if [ "$status" = 401 ] && grep -q '"MISSING_AUTH"' "$work/body"; then
  ok "no Authorization: 401 MISSING_AUTH"
else
  fail "no Authorization: $status $(head -c 300 "$work/body")"
fi

# 1. The Python SDK.
set +e
"$venv/bin/python" scripts/mcp_check.py "$server/mcp" "$key" | tee "$work/python.log"
set -e
p=$(sed -n 's/^mcp-check: the Python SDK: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/python.log")
if [ -n "$p" ]; then
  passed=$((passed + ${p% *})) failed=$((failed + ${p#* }))
else
  fail "the Python SDK's check did not finish"
fi

# 2. The conformance suite's server scenarios that apply, through a
#    pass-through adding the key.
if [ "${MCP_CONFORMANCE:-1}" != 0 ]; then
  python3 - "$proxy_port" "$server" "$key" >"$work/proxy.log" 2>&1 <<'PY' &
import http.server, sys, urllib.request, urllib.error
port, upstream, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
class Pass(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def relay(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0)) or None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
        headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(upstream + self.path, body, headers, method=self.command)
        try:
            answer = opener.open(req)
        except urllib.error.HTTPError as e:
            answer = e
        data = answer.read()
        self.send_response(answer.status if hasattr(answer, "status") else answer.code)
        for k, v in answer.headers.items():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = do_DELETE = relay
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Pass).serve_forever()
PY
  proxy_pid=$!
  for _ in $(seq 1 50); do
    curl -s --noproxy '*' -o /dev/null "http://127.0.0.1:$proxy_port/healthz" && break
    sleep 0.1
  done
  for scenario in server-initialize ping tools-list; do
    if (cd "$work" && timeout 120 "$node" "$suite" server \
      --url "http://127.0.0.1:$proxy_port/mcp" --scenario "$scenario") >"$work/conformance.log" 2>&1; then
      ok "conformance: $scenario"
    else
      fail "conformance: $scenario"
      tail -n 30 "$work/conformance.log"
    fi
  done
fi

if [ "$failed" -ne 0 ]; then
  echo "mcp-check: server log (last 30 lines)"
  tail -n 30 "$work/serve.log" || true
fi
echo "mcp-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
