#!/usr/bin/env bash
# Installs what the desktop build and its smoke test need on Debian 12 (run as root, e.g. in CI):
# the GTK/WebKitGTK 4.1 dev packages for the cgo build, Xvfb + xauth to run the window headless,
# ImageMagick + xdotool for screenshots and input, dbus-daemon (dbus-run-session: a private session
# bus for the notification check), a colour emoji font, Chromium for browser tests, and sqlite3 (a
# browser test writes an unreadable row into hub.db), PostgreSQL's server (the Go tests start a
# throwaway cluster of it: the team hub's storage) and HAProxy (the cluster test runs the team hub's
# example configuration in front of its replicas).
# Does nothing when every package is already installed.
# Usage: build/setup-debian.sh [EXTRA_PACKAGE...]   extra packages some targets need besides these
#        (e.g. nsis for the Windows installer, desktop-file-utils for the .deb test).
set -euo pipefail

PKGS=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
      xvfb xauth imagemagick xdotool dbus-daemon fonts-noto-color-emoji chromium sqlite3
      postgresql haproxy "$@")

if dpkg -s "${PKGS[@]}" >/dev/null 2>&1; then
  echo "setup-debian: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
# Lock::Timeout: wait for another apt/dpkg run (e.g. a parallel job) instead of failing at once.
APT=($SUDO apt-get -o DPkg::Lock::Timeout=300)
"${APT[@]}" update -qq
# The first big install can fail with "cannot access archive": the docker image's apt clean hook
# deletes downloaded .debs between dpkg runs. A plain retry fixes it.
ok=0
for i in 1 2 3; do
  if "${APT[@]}" install -y -qq --no-install-recommends "${PKGS[@]}"; then ok=1; break; fi
  echo "setup-debian: apt-get install failed (try $i), retrying" >&2
  sleep 3
done
[ "$ok" = 1 ] || { echo "setup-debian: apt-get install failed 3 times" >&2; exit 1; }
dpkg -s "${PKGS[@]}" >/dev/null
echo "setup-debian: installed ${PKGS[*]}"
