#!/usr/bin/env bash
# Smoke test of the real desktop window, headless under Xvfb:
#   builds the window binary (cgo + WebKitGTK 4.1) to build/bin/agenthub-desktop, starts it on a
#   temporary data dir with free ports, screenshots the screen until something non-blank paints,
#   checks the hub answers its agent card, closes the window with SIGTERM, checks a clean exit and
#   that the data dir's locks were released (a second start on the same data dir works). A second
#   launch while it runs hands over to it (D-Bus session) or shows the "already running" dialog.
# Prints one line per check and a final "N passed, M failed"; exits non-zero on any failure.
#
# Usage:  build/desktop-smoke.sh [COPY_SCREENSHOT_TO]
#         The screenshot is kept at build/bin/desktop-smoke.png (ignored by git).
# Needs:  build/setup-debian.sh's packages; the frontend built into frontend/dist (by another step),
#         or at least frontend/dist/.gitkeep, in which case the window shows its built-in placeholder.
# Env:    BIN=path  test that window binary instead of building one (e.g. BIN=./agenthub after
#                   `make build`); SKIP_BUILD=1 tests an existing build/bin/agenthub-desktop.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

if [ -n "${BIN:-}" ]; then SKIP_BUILD=1; fi
BIN=${BIN:-build/bin/agenthub-desktop}
SHOT=build/bin/desktop-smoke.png
COPY_TO=${1:-}

if [ -z "${AGENTHUB_SMOKE_XVFB:-}" ]; then
  pass=0 fail=0
  mkdir -p build/bin
  if [ -z "${SKIP_BUILD:-}" ]; then
    # go:embed all:frontend/dist needs at least one file there
    if [ -z "$(ls -A frontend/dist 2>/dev/null)" ]; then
      mkdir -p frontend/dist && touch frontend/dist/.gitkeep
    fi
    began=$(date +%s)
    if go build -tags desktop,production,webkit2_41 -o "$BIN" .; then
      echo "ok   - build: go build -tags desktop,production,webkit2_41 ($(( $(date +%s) - began )) s, $(du -h "$BIN" | cut -f1))"
      pass=1
    else
      echo "FAIL - build: go build -tags desktop,production,webkit2_41"
      echo "0 passed, 1 failed"
      exit 1
    fi
  fi
  if [ ! -x "$BIN" ]; then echo "FAIL - no window binary at $BIN"; echo "0 passed, 1 failed"; exit 1; fi
  for tool in xvfb-run xauth import identify xdotool flock; do
    command -v "$tool" >/dev/null || { echo "FAIL - $tool is missing (run build/setup-debian.sh)"; echo "$pass passed, 1 failed"; exit 1; }
  done
  # a stand-in notification server, so the inbox notification can be checked on a private D-Bus session
  session=()
  if command -v dbus-run-session >/dev/null && command -v go >/dev/null &&
     go build -o build/bin/fakenotify ./build/tools/fakenotify 2>/dev/null; then
    # a bare session bus: no service activation, so no accessibility bus or other daemons get started
    cat >build/bin/smoke-session.conf <<'CONF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
    session=(dbus-run-session --config-file=build/bin/smoke-session.conf --)
  fi
  export BIN
  # stderr (Xvfb's and the private D-Bus daemon's chatter) goes to a file; the checks print to stdout
  echo "     (Xvfb/D-Bus stderr: build/bin/desktop-smoke.stderr)"
  AGENTHUB_SMOKE_XVFB=1 AGENTHUB_SMOKE_PASS=$pass exec "${session[@]}" \
    xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@" 2>build/bin/desktop-smoke.stderr
fi

# ---- inside Xvfb ----
pass=${AGENTHUB_SMOKE_PASS:-0}
fail=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
data="$tmp/data"

# start LOG: starts the window on $data with free ports; sets $pid and $hub (the hub's base URL)
start() {
  local log=$1
  "$BIN" --data "$data" --addr 127.0.0.1:0 --demo-addr 127.0.0.1:0 2>"$log" &
  pid=$!
  pids+=("$pid")
  hub=""
  for _ in $(seq 150); do # the window logs `msg="hub started" hub=http://127.0.0.1:PORT`
    hub=$(grep -o 'msg="hub started" hub=http://[0-9.:]*' "$log" 2>/dev/null | head -1 | sed 's/.*hub=//')
    [ -n "$hub" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# stop: SIGTERM, then wait up to 10 s; sets $rc (124 on timeout)
stop() {
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    rc=124
  else
    wait "$pid"
    rc=$?
  fi
}

notify=""
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ -x build/bin/fakenotify ]; then
  build/bin/fakenotify -click 500ms >"$tmp/notify.out" 2>&1 &
  pids+=("$!")
  disown "$!" # no "Killed" notice when cleanup ends it
  for _ in $(seq 30); do grep -q READY "$tmp/notify.out" && { notify=1; break; }; sleep 0.1; done
fi

began=$(date +%s%N)
if start "$tmp/run1.log"; then
  ok "window process started; hub at $hub ($(( ($(date +%s%N) - began) / 1000000 )) ms)"
else
  bad "window process did not start its hub; its log:"
  sed 's/^/    /' "$tmp/run1.log"
  echo "$pass passed, $fail failed"
  exit 1
fi

# the window paints something that is not blank (more than 16 colours on the screen)
colours=0
for _ in $(seq 60); do
  if import -window root "$tmp/shot.png" 2>/dev/null; then
    colours=$(identify -format %k "$tmp/shot.png" 2>/dev/null || echo 0)
    [ "${colours:-0}" -gt 16 ] && break
  fi
  sleep 0.25
done
cp "$tmp/shot.png" "$SHOT" 2>/dev/null
if [ "${colours:-0}" -gt 16 ]; then
  ok "window painted: $colours colours after $(( ($(date +%s%N) - began) / 1000000 )) ms"
else
  bad "window stayed blank: $colours colours ($SHOT)"
fi

# the hub answers with its card
# http_get URL OUT: a plain HTTP/1.0 GET through bash's /dev/tcp (no curl on a fresh machine);
# prints the status code, writes the body to OUT
http_get() {
  local hostport=${1#http://} path
  path=/${hostport#*/}; hostport=${hostport%%/*}
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || { echo 000; return; }
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\nAccept: application/json\r\n\r\n' "$path" "$hostport" >&3
  timeout 5 cat <&3 >"$2.raw"
  exec 3<&-
  sed '1,/^\r\{0,1\}$/d' "$2.raw" >"$2"
  head -1 "$2.raw" | awk '{print $2}'
}
# http_post URL BODY OUT: a JSON POST the same way
http_post() {
  local hostport=${1#http://} path
  path=/${hostport#*/}; hostport=${hostport%%/*}
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || { echo 000; return; }
  printf 'POST %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$path" "$hostport" "${#2}" "$2" >&3
  timeout 5 cat <&3 >"$3.raw"
  exec 3<&-
  sed '1,/^\r\{0,1\}$/d' "$3.raw" >"$3"
  head -1 "$3.raw" | awk '{print $2}'
}
code=$(http_get "$hub/.well-known/agent-card.json" "$tmp/card.json")
if [ "$code" = 200 ] && grep -q '"name": *"AgentHub"' "$tmp/card.json"; then
  ok "GET $hub/.well-known/agent-card.json: 200, name AgentHub"
else
  bad "GET $hub/.well-known/agent-card.json: HTTP $code: $(head -c 200 "$tmp/card.json" 2>/dev/null)"
fi

# the page reaches the hub: with the frontend built, the webview opens the UI websocket (Origin
# wails://wails, which the hub must allow) and keeps it open. The page itself comes from Wails' asset
# server, so WebKit's TCP connections to the hub's port are the websocket's. Accepted: one connection
# that stays. Refused (403): the UI retries with back-off, so new connections keep appearing.
webview_conns() { # inodes of established connections to the hub's port owned by the window's processes
  local hex inodes p
  hex=$(printf '%04X' "${hub##*:}")
  inodes=$(awk -v p=":$hex" '$4 == "01" && substr($3, length($3) - 4) == p {print $10}' /proc/net/tcp)
  [ -n "$inodes" ] || return 0
  for p in $(ps -o pid= --ppid "$pid"); do ls -l "/proc/$p/fd" 2>/dev/null; done |
    grep -oE 'socket:\[[0-9]+\]' | tr -d 'socket:[]' | grep -xF "$inodes" | sort -u | tr '\n' ' '
}
if [ -f frontend/dist/index.html ]; then
  first=""
  for _ in $(seq 50); do
    first=$(webview_conns)
    [ -n "$first" ] && break
    sleep 0.2
  done
  sleep 4
  later=$(webview_conns)
  if [ -n "$first" ] && [ "$first" = "$later" ] && [ "$(echo $later | wc -w)" = 1 ]; then
    ok "the page holds its websocket to the hub (one WebKit connection to port ${hub##*:}, steady for 4 s)"
  elif [ -z "$first" ]; then
    bad "the page opened no connection to the hub within 10 s (see $SHOT)"
  else
    bad "the page keeps reconnecting to the hub (websocket refused? Origin?): connections [$first] then [$later]"
  fi
else
  echo "skip - websocket check: frontend/dist has no index.html (the window shows its placeholder)"
fi
# a task arriving in the owner's inbox raises a desktop notification; clicking it reaches the app
if [ -n "$notify" ]; then
  ask="Smoke test $$: may I deploy build 42?"
  body='{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"configuration":{"blocking":false},'
  body+='"message":{"kind":"message","messageId":"smoke-'$$'","role":"user","parts":[{"kind":"text","text":"'$ask'"}]}}}'
  code=$(http_post "$hub/a2a" "$body" "$tmp/send.json")
  for _ in $(seq 50); do
    grep -q 'msg="notification clicked"' "$tmp/run1.log" && break
    sleep 0.1
  done
  if grep -qF "body=\"$ask\"" "$tmp/notify.out" && grep -q 'msg="notification clicked" task=' "$tmp/run1.log"; then
    ok "inbox task -> desktop notification ($(grep -o 'summary="[^"]*"' "$tmp/notify.out" | head -1)); click -> the window"
  else
    bad "inbox notification: message/send HTTP $code; notification server saw: $(grep NOTIFY "$tmp/notify.out" | head -1); app log: $(grep -i notif "$tmp/run1.log" | head -2 | tr '\n' ' ')"
  fi
else
  echo "skip - inbox notification check: no dbus-run-session (package dbus) or no go to build build/tools/fakenotify"
fi

# keep a screenshot of the settled window (connected, agents listed)
import -window root "$tmp/settled.png" 2>/dev/null && cp "$tmp/settled.png" "$SHOT"
[ -n "$COPY_TO" ] && cp "$SHOT" "$COPY_TO"
echo "     screenshot: $SHOT${COPY_TO:+ (copied to $COPY_TO)}"

# A second launch on the same data dir cannot start its hub. With a D-Bus session bus, Wails'
# single-instance lock hands it over to the running window, which comes forward (it logs so), and the
# second process exits 1 without a dialog. Without a session bus it shows a native error dialog and,
# once OK is clicked, exits 1. Either way the first keeps running.
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  "$BIN" --data "$data" --addr 127.0.0.1:0 --demo-addr 127.0.0.1:0 2>"$tmp/handover.log" &
  second=$!
  pids+=("$second")
  for _ in $(seq 100); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
  dlg=$(xdotool search --onlyvisible --name '^AgentHub cannot start$' 2>/dev/null | head -1)
  if kill -0 "$second" 2>/dev/null; then
    kill -KILL "$second"; wait "$second" 2>/dev/null
    bad "second launch with D-Bus: still running after 10 s (dialog: ${dlg:-none}); log: $(tail -2 "$tmp/handover.log" | tr '\n' ' ')"
  else
    wait "$second"; src=$?
    for _ in $(seq 30); do grep -q 'launched again: bringing the window forward' "$tmp/run1.log" && break; sleep 0.1; done
    if [ "$src" = 1 ] && [ -z "$dlg" ] && grep -q 'launched again: bringing the window forward' "$tmp/run1.log"; then
      ok "second launch on the same data dir (D-Bus session): handed over to the running window, which came forward; exit 1, no dialog"
    else
      bad "second launch with D-Bus: exit $src, dialog ${dlg:-none}; first window's log: $(grep -i 'launched again' "$tmp/run1.log" | head -1); second's log: $(tail -2 "$tmp/handover.log" | tr '\n' ' ')"
    fi
  fi
else
  echo "skip - single-instance handover check: no D-Bus session bus (package dbus-daemon)"
fi
if true; then
  # no session bus for this one: DBUS_SESSION_BUS_ADDRESS unset, and no $XDG_RUNTIME_DIR/bus
  env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR="$tmp/no-bus" \
    "$BIN" --data "$data" --addr 127.0.0.1:0 --demo-addr 127.0.0.1:0 2>"$tmp/second.log" &
  second=$!
  pids+=("$second")
  dlg=""
  for _ in $(seq 100); do
    dlg=$(xdotool search --onlyvisible --name '^AgentHub cannot start$' 2>/dev/null | head -1)
    [ -n "$dlg" ] && break
    kill -0 "$second" 2>/dev/null || break
    sleep 0.1
  done
  if [ -n "$dlg" ]; then
    import -window root "$tmp/dialog.png" 2>/dev/null && cp "$tmp/dialog.png" build/bin/desktop-smoke-dialog.png
    eval "$(xdotool getwindowgeometry --shell "$dlg")"
    xdotool mousemove $((X + WIDTH / 2)) $((Y + HEIGHT - 20)) click 1 # the dialog's OK button
  fi
  for _ in $(seq 50); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$second" 2>/dev/null; then
    kill -KILL "$second"; wait "$second" 2>/dev/null
    bad "second window on the same data dir, no D-Bus: still running 5 s after the dialog (dialog found: ${dlg:-no})"
  else
    wait "$second"; src=$?
    if [ -n "$dlg" ] && [ "$src" = 1 ] && grep -q 'in use by another AgentHub' "$tmp/second.log"; then
      ok "second window on the same data dir, no D-Bus session: error dialog, exit 1 (build/bin/desktop-smoke-dialog.png)"
    else
      bad "second window on the same data dir, no D-Bus: dialog ${dlg:-not shown}, exit $src; log: $(tail -2 "$tmp/second.log" | tr '\n' ' ')"
    fi
  fi
fi

# SIGTERM closes the window and stops the hub cleanly
children=$(ps -o pid= --ppid "$pid" | tr -d ' ' | tr '\n' ' ')
stop
if [ "$rc" = 0 ] && grep -q 'msg="hub stopped"' "$tmp/run1.log"; then
  ok "SIGTERM: exit 0, hub stopped"
else
  bad "SIGTERM: exit $rc; log:"
  sed 's/^/    /' "$tmp/run1.log"
fi
if grep -qE '^panic:|fatal error:|DATA RACE' "$tmp/run1.log"; then
  bad "the log shows a crash: $(grep -E '^panic:|fatal error:' "$tmp/run1.log" | head -1)"
fi
# (an exited child whose parent is gone may stay a zombie until init reaps it: that counts as gone)
alive() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }
left=""
for _ in $(seq 30); do
  left=""
  for c in $children; do alive "$c" && left="$left $c($(cat /proc/$c/comm 2>/dev/null))"; done
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -z "$left" ]; then
  ok "no WebKit child process left behind"
else
  bad "child processes left behind:$left"
fi

# the data dir is released: its lock files are free, and a second start on it works
busy=""
for l in "$data"/*.lock; do
  [ -e "$l" ] || continue
  flock -n "$l" true || busy="$busy $(basename "$l")"
done
if [ -z "$busy" ] && ls "$data"/*.lock >/dev/null 2>&1; then
  ok "data dir locks released ($(cd "$data" && ls *.lock | tr '\n' ' '))"
else
  bad "data dir locks still held:${busy:- (no lock files found)}"
fi
if start "$tmp/run2.log"; then
  stop
  if [ "$rc" = 0 ]; then
    ok "second start on the same data dir: hub at $hub, clean exit"
  else
    bad "second start on the same data dir: exit $rc"
  fi
else
  bad "second start on the same data dir failed; its log:"
  sed 's/^/    /' "$tmp/run2.log"
  kill -KILL "$pid" 2>/dev/null
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
