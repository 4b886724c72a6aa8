#!/usr/bin/env bash
# Measures the desktop window under Xvfb, RUNS times (default 3), each on a fresh data directory:
#   first paint  ms from starting the process until the screen shows more than 16 colours. Polled
#                every ~10 ms by build/tools/firstpaint.c (Xlib; compiled here with cc when X11's
#                headers are present), else with ImageMagick's `import` every ~50 ms, whose captures
#                take 100-200 ms each: then the number is an upper bound that much coarser.
#   RSS          VmRSS about IDLE_S (default 5) seconds after start: of the main process, and of the
#                whole process tree (WebKit runs WebKitWebProcess and WebKitNetworkProcess as children)
#   PSS          the tree's proportional set size (smaps_rollup), which does not count shared pages twice
# Goals: first paint <= 1000 ms, idle RSS <= 150 MB.
#
# Usage: build/measure-desktop.sh [BINARY]   (default build/bin/agenthub-desktop; build it with
#        build/desktop-smoke.sh or: go build -tags desktop,production,webkit2_41 -o build/bin/agenthub-desktop .)
# Env:   RUNS=3 IDLE_S=5
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin/agenthub-desktop}
RUNS=${RUNS:-3}
IDLE_S=${IDLE_S:-5}
[ -x "$BIN" ] || { echo "measure-desktop: no binary at $BIN" >&2; exit 1; }

if [ -z "${AGENTHUB_MEASURE_XVFB:-}" ]; then
  exec env AGENTHUB_MEASURE_XVFB=1 xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
fi

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

FIRSTPAINT=build/bin/firstpaint
if [ ! -x "$FIRSTPAINT" ] || [ build/tools/firstpaint.c -nt "$FIRSTPAINT" ]; then
  cc -O2 -o "$FIRSTPAINT" build/tools/firstpaint.c -lX11 2>/dev/null || FIRSTPAINT=""
fi
probe="import"
[ -n "$FIRSTPAINT" ] && probe="firstpaint (Xlib, 10 ms)"
echo "first paint probe: $probe; idle sample at ${IDLE_S} s"

# descendants PID: PID and every process below it
descendants() {
  local p=$1 c
  echo "$p"
  for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do descendants "$c"; done
}
kb() { awk -v k="$2" '$1 == k":" {print $2}' "$1" 2>/dev/null || true; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-4s %14s %14s %14s %14s  %s\n' run "first paint" "RSS main" "RSS tree" "PSS tree" processes
results=()
for run in $(seq "$RUNS"); do
  data="$tmp/data$run"
  t0ns=$(date +%s%N)
  t0=$(( t0ns / 1000000 ))
  "$BIN" --data "$data" --addr 127.0.0.1:0 --demo-addr 127.0.0.1:0 2>"$tmp/log$run" &
  pid=$!
  paint=""
  [ -n "$FIRSTPAINT" ] && paint=$("$FIRSTPAINT" "$t0ns" 15000 || true)
  while [ -z "$FIRSTPAINT" ] && [ $(( $(now_ms) - t0 )) -lt 15000 ]; do
    if import -window root "$tmp/shot.png" 2>/dev/null; then
      k=$(identify -format %k "$tmp/shot.png" 2>/dev/null || echo 0)
      if [ "${k:-0}" -gt 16 ]; then paint=$(( $(now_ms) - t0 )); break; fi
    fi
    sleep 0.05
  done
  sleep_left=$(( IDLE_S * 1000 - ($(now_ms) - t0) ))
  [ "$sleep_left" -gt 0 ] && sleep "$(awk -v m="$sleep_left" 'BEGIN{print m/1000}')"
  main=0 tree=0 pss=0 names=""
  for p in $(descendants "$pid"); do
    r=$(kb /proc/$p/status VmRSS); r=${r:-0}
    s=$(kb /proc/$p/smaps_rollup Pss); s=${s:-0}
    [ "$p" = "$pid" ] && main=$r
    tree=$((tree + r)); pss=$((pss + s))
    names="$names $(cat /proc/$p/comm 2>/dev/null)"
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  mb() { awk -v k="$1" 'BEGIN{printf "%.1f MB", k/1024}'; }
  printf '%-4s %14s %14s %14s %14s %s\n' "$run" "${paint:-none} ms" "$(mb $main)" "$(mb $tree)" "$(mb $pss)" "$names"
  results+=("${paint:-99999} $tree")
done
printf '%s\n' "${results[@]}" | awk -v n="$RUNS" '{p+=$1; r+=$2} END {printf "mean: first paint %d ms, RSS tree %.1f MB (goals: <= 1000 ms, <= 150 MB)\n", p/n, r/n/1024}'
