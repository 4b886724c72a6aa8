#!/usr/bin/env bash
# Takes the README's screenshots of the real desktop window under Xvfb: starts ./agenthub on a
# throwaway data dir, gives it something to show (a message in the inbox from an A2A client, demo
# agent tasks), moves through the UI with its keyboard shortcuts, and captures the window.
#
# Usage:  build/screenshots.sh [OUT_DIR]    (default .github/screenshots; needs `make build` first,
#         build/setup-debian.sh's packages, and curl)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-.github/screenshots}
BIN=${BIN:-./agenthub}

if [ -z "${AGENTHUB_SHOTS_XVFB:-}" ]; then
  mkdir -p "$OUT"
  AGENTHUB_SHOTS_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$OUT"
fi

tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
hub=127.0.0.1:47690
demo=127.0.0.1:47691

# A conversation with the demo agent, a channel where it answers, and a few statements in the
# knowledge graph, recorded by a headless run over the same data dir.
"$BIN" serve --secrets file --data "$tmp" --addr $hub --demo-addr $demo >"$tmp/serve.out" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 100); do grep -q '^ui: ' "$tmp/serve.out" && break; sleep 0.1; done
node build/tools/seed-chat.mjs "$(sed -n 's/^ui: //p' "$tmp/serve.out")" "http://$demo"
node build/tools/seed-channel.mjs "$(sed -n 's/^ui: //p' "$tmp/serve.out")" "http://$hub"
kill $pid; wait $pid || true

"$BIN" --secrets file --data "$tmp" --addr $hub --demo-addr $demo 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do curl -sf "http://$hub/.well-known/agent-card.json" >/dev/null && break; sleep 0.1; done

send() { # send BASE TEXT: a v1.0 SendMessage that returns at once
  curl -sf -XPOST "http://$1/a2a" -H 'content-type: application/json' -H 'A2A-Version: 1.0' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{\"role\":\"ROLE_USER\",\"messageId\":\"$RANDOM$RANDOM\",\"parts\":[{\"text\":\"$2\"}]},\"configuration\":{\"returnImmediately\":true}}}" >/dev/null
}
send $demo "data"
send $demo "file"
send $demo "hello there, demo agent"
send $hub "Can you approve the deployment of v2.3 to staging? The release notes are in the wiki."
send $hub "Lunch on Friday?"
send $demo "slow 8"
sleep 2

xdotool search --sync --name "^AgentHub$" >/dev/null
# The window fills the 1280x800 screen (no window manager), so the root window is the window.
shot() { sleep "${2:-1}"; import -window root "$OUT/$1.png"; echo "wrote $OUT/$1.png"; }
keys() { xdotool key --delay 120 "$@"; }
xdotool mousemove 700 60 click 1 # focus the page (no window manager under Xvfb)

keys g a;            shot agents
keys g t; sleep 0.5; keys j; shot task-timeline 2
keys g i; sleep 0.5; keys j; sleep 0.5
xdotool mousemove 930 665 click 1 # the reply box
xdotool type --delay 20 "Friday works. 12:30 at the usual place?"
keys ctrl+Return;    shot inbox 1.5
xdotool mousemove 68 114 click 1; sleep 0.8 # Chats, in the navigation
xdotool mousemove 300 298 click 1           # the conversation, first under Agents in the sidebar
xdotool mousemove 900 790                   # out of the way of tooltips
shot chat 1.5
xdotool mousemove 290 117 click 1           # the channel, first under Channels
xdotool mousemove 900 30
shot channel 1.5
xdotool mousemove 87 228 click 1            # Knowledge, in the navigation (the composer has the keys)
xdotool mousemove 1270 790
shot knowledge 4
