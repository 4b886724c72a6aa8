#!/usr/bin/env bash
# Run the official A2A TCK (github.com/a2aproject/a2a-tck) against the hub's demo agent,
# once per transport. Not wired into CI.
#   scripts/tck/run.sh [TCK_SOURCE (path or URL)] [TCK_REF]
# Defaults: the local mirror, main at the commit pinned below (v1.0). For v0.3:
#   scripts/tck/run.sh /work/.mirror/a2aproject+a2a-tck/repo origin/0.3.x
# Env: CATEGORY (default "mandatory"; run_tck.py also knows capabilities, transport-equivalence,
# quality, features, all), TRANSPORTS (default "jsonrpc rest grpc"), PORT_BASE (default 47570).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="${1:-/work/.mirror/a2aproject+a2a-tck/repo}"
ref="${2:-410ba92e1b264df895e1fe6eccfe22db7aeaab06}"   # main, 2026: "Rename blocking to return_immediately"
category="${CATEGORY:-mandatory}"
transports="${TRANSPORTS:-jsonrpc rest grpc}"
base="${PORT_BASE:-47570}"
py=/usr/bin/python3     # Debian's python, not a pyenv shim: the packages below are Debian's

# 1. Debian packages (no PyPI here). Not packaged in bookworm: pytest-json-report (only run_tck.py's
#    --json-report/--compliance-report need it; we do not pass them), grpcio-status, proto-plus and
#    googleapis-common-protos (the stubs are regenerated without google.api, see gen_stubs.py).
pkgs=(python3-pytest python3-pytest-asyncio python3-httpx python3-requests python3-responses
      python3-deepdiff python3-jsonschema python3-grpcio python3-protobuf python3-openssl
      python3-aiohttp python3-dotenv python3-yaml python3-packaging
      protobuf-compiler protobuf-compiler-grpc libprotobuf-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# 2. The TCK at the pinned commit, with our patches.
work="$(mktemp -d /tmp/agenthub-tck.XXXXXX)"
git clone -q "$src" "$work/tck"
git -C "$work/tck" checkout -q "$ref"
if grep -q 'urljoin(self.base_url, "/' "$work/tck/tck/transport/rest_client.py"; then
  # main's REST client joins absolute paths ("/message:send"), which drops the card's /rest prefix.
  git -C "$work/tck" apply "$here/rest-relative-paths.main.patch"
fi
proto="$work/tck/current_spec/a2a.proto"; [[ -f $proto ]] || proto="$work/tck/a2a.proto"
"$py" "$here/gen_stubs.py" "$proto" "$work/tck/tck/grpc_stubs"

# 3. The hub on a fresh data dir.
export PATH=/usr/local/go/bin:$PATH
(cd "$repo" && go build -o "$work/agenthub" .)
mkdir "$work/data"
"$work/agenthub" serve --data "$work/data" --addr "127.0.0.1:$base" --demo-addr "127.0.0.1:$((base+1))" \
  --grpc-addr "127.0.0.1:$((base+2))" --demo-grpc-addr "127.0.0.1:$((base+3))" >"$work/hub.log" 2>&1 &
hub=$!
trap 'kill "$hub" 2>/dev/null || true; wait "$hub" 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$((base+1))/.well-known/agent-card.json" >/dev/null 2>&1 && break; sleep 0.2; done

# 4. One TCK run per transport against the demo agent (anonymous, echoes, streams, cancels).
declare -A summary
for t in $transports; do
  log="$work/tck-$t.log"
  echo "== TCK $ref, category $category, transport $t (log: $log)"
  (cd "$work/tck" && "$py" run_tck.py --sut-url "http://127.0.0.1:$((base+1))/a2a" \
      --category "$category" --transports "$t" --verbose) >"$log" 2>&1 || true
  summary[$t]="$(grep -E '^=+ .*(passed|failed|error|skipped).* in [0-9.]+s' "$log" | tail -1 || true)"
  grep -E '^(FAILED|ERROR) ' "$log" || true
done
echo
echo "== Summary (TCK $ref, category $category); logs and the hub's log in $work"
for t in $transports; do printf '%-8s %s\n' "$t" "${summary[$t]:-no pytest summary line, see the log}"; done
