#!/usr/bin/env bash
# Proves the .deb on this machine: builds it, installs it with apt (which pulls its dependencies),
# walks through a first run against the installed binary, checks what it installed, runs the desktop
# smoke test on /usr/bin/agenthub, and removes it again. Changes the system: run it as root on a
# test machine (CI), not on a machine where AgentHub is installed for real (it refuses then).
#
# Checks, one line each, then "N passed, M failed" (exit 1 on any failure):
#   install    apt-get install ./agenthub_VERSION_amd64.deb
#   first run  frontend/e2e/firstrun.test.mjs with AGENTHUB_BIN=/usr/bin/agenthub: the welcome card to a
#              streamed reply from the demo agent; prints the walkthrough time from the install's start
#              to that reply (printed, not asserted)
#   files      `agenthub version`; desktop-file-validate on the .desktop entry and its Exec on PATH;
#              the icon at every hicolor size, at that size
#   smoke      build/desktop-smoke.sh with BIN=/usr/bin/agenthub (the window under Xvfb)
#   remove     dpkg -r: every file the package installed is gone, the user's data dir is untouched
#
# Usage:  build/deb-check.sh        (VERSION=x.y.z, default 0.1.0; DEB=path tests an existing .deb)
# Needs:  build/setup-debian.sh desktop-file-utils; npm ci in frontend/e2e (the first-run test);
#         the frontend built into frontend/dist.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
VERSION=${VERSION:-0.1.0}
DEB=${DEB:-build/bin/agenthub_${VERSION}_amd64.deb}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
pass=0 fail=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
installed() { [ "$(dpkg-query -W -f='${Status}' agenthub 2>/dev/null)" = "install ok installed" ]; }
ms() { date +%s%3N; }

if installed; then
  bad "agenthub is already installed here; this test installs and removes it (dpkg -r agenthub first)"
  finish
fi
tmp=$(mktemp -d)
cleanup() {
  if installed; then $SUDO dpkg -r agenthub >/dev/null 2>&1; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ -z "${DEB_PREBUILT:-}" ] && [ "$DEB" = "build/bin/agenthub_${VERSION}_amd64.deb" ]; then
  began=$(ms)
  if VERSION=$VERSION bash build/package-deb.sh >"$tmp/build.log" 2>&1; then
    ok "built $DEB ($(( ($(ms) - began) / 1000 )) s, $(stat -c %s "$DEB") bytes)"
  else
    bad "build/package-deb.sh failed:"; sed 's/^/    /' "$tmp/build.log" | tail -20; finish
  fi
fi

# ---- install, then straight to the first reply (the walkthrough)
t0=$(ms)
if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
     --no-install-recommends "./$DEB" >"$tmp/install.log" 2>&1 && installed; then
  ok "apt-get install ./$DEB: installed in $(( ($(ms) - t0) )) ms"
else
  bad "apt-get install ./$DEB:"; sed 's/^/    /' "$tmp/install.log" | tail -20; finish
fi
if [ -d frontend/e2e/node_modules ]; then
  if AGENTHUB_BIN=/usr/bin/agenthub WALKTHROUGH_T0=$t0 node --test --test-reporter=spec frontend/e2e/firstrun.test.mjs >"$tmp/firstrun.log" 2>&1; then
    ok "first run of the installed binary: welcome -> streamed reply from the demo agent (frontend/e2e/firstrun.test.mjs)"
    grep -E '^(first run|walkthrough):' "$tmp/firstrun.log" | sed 's/^/     /'
  else
    bad "first run of the installed binary:"; sed 's/^/    /' "$tmp/firstrun.log" | tail -30
  fi
else
  bad "first run: frontend/e2e has no node_modules (npm ci --prefix frontend/e2e)"
fi

# ---- what it installed
got=$(/usr/bin/agenthub version 2>&1)
if [ "$got" = "agenthub $VERSION" ]; then ok "/usr/bin/agenthub version: $got"; else bad "/usr/bin/agenthub version: '$got', want 'agenthub $VERSION'"; fi

desktop=/usr/share/applications/agenthub.desktop
if out=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$out" ]; then
  ok "desktop-file-validate $desktop: no errors, warnings or hints"
else
  bad "desktop-file-validate $desktop: ${out:-exit status non-zero}"
fi
exec_cmd=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
icon=$(sed -n 's/^Icon=//p' "$desktop")
if [ "$(command -v "$exec_cmd")" = /usr/bin/agenthub ]; then ok "the entry's Exec=$exec_cmd is /usr/bin/agenthub"; else bad "the entry's Exec=$exec_cmd does not resolve to /usr/bin/agenthub"; fi
sizes=""
for s in 16 24 32 48 64 128 256 512; do
  f=/usr/share/icons/hicolor/${s}x${s}/apps/$icon.png
  dim=$(identify -format '%wx%h' "$f" 2>/dev/null)
  if [ "$dim" = "${s}x${s}" ]; then sizes="$sizes $s"; else bad "icon $f: ${dim:-missing}"; fi
done
[ "$sizes" = " 16 24 32 48 64 128 256 512" ] && ok "icon '$icon' in hicolor at$sizes (each PNG at its size)"

# ---- the window, from the installed binary
if BIN=/usr/bin/agenthub bash build/desktop-smoke.sh >"$tmp/smoke.log" 2>&1; then
  ok "desktop smoke test of /usr/bin/agenthub: $(tail -1 "$tmp/smoke.log")"
else
  bad "desktop smoke test of /usr/bin/agenthub:"; sed 's/^/    /' "$tmp/smoke.log"
fi

# ---- a user's data dir, made by the installed app at its default place, must survive the removal
home="$tmp/home"
mkdir -p "$home"
HOME=$home XDG_CONFIG_HOME= /usr/bin/agenthub serve --addr 127.0.0.1:0 --demo-addr 127.0.0.1:0 --secrets file >"$tmp/serve.out" 2>"$tmp/serve.err" &
spid=$!
for _ in $(seq 100); do grep -q '^ui:' "$tmp/serve.out" && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
kill -TERM $spid 2>/dev/null; wait $spid
datadir=$(sed -n 's/^data: //p' "$tmp/serve.out")
before=$(cd "$datadir" 2>/dev/null && find . -type f | sort | xargs -r sha256sum)

# ---- removal
files=$(dpkg-query -L agenthub | while read -r p; do [ -f "$p" ] && echo "$p"; done)
if $SUDO dpkg -r agenthub >"$tmp/remove.log" 2>&1 && ! installed; then
  left=""
  for f in $files; do [ -e "$f" ] && left="$left $f"; done
  if [ -z "$left" ]; then
    ok "dpkg -r agenthub: the $(echo "$files" | wc -l) files it installed are gone"
  else
    bad "dpkg -r agenthub left:$left"
  fi
else
  bad "dpkg -r agenthub:"; sed 's/^/    /' "$tmp/remove.log"
fi
after=$(cd "$datadir" 2>/dev/null && find . -type f | sort | xargs -r sha256sum)
if [ "$datadir" = "$home/.config/agenthub" ] && [ -n "$before" ] && [ "$before" = "$after" ]; then
  ok "the user's data dir ~/.config/agenthub stays, unchanged ($(echo "$after" | wc -l) files)"
else
  bad "the user's data dir: '$datadir' ($(echo "$before" | grep -c .) files before removal, $(echo "$after" | grep -c .) after)"
fi
finish
