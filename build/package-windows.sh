#!/usr/bin/env bash
# Cross-builds the Windows x64 app and its NSIS installer on Linux with the Wails CLI v2.12.0 (the
# go.mod version), no cgo needed:
#   build/bin/agenthub.exe                  the app (GUI subsystem, icon + manifest + version info)
#   build/bin/agenthub-amd64-installer.exe  the installer: installs to Program Files\AgentHub, adds
#       Start-menu and desktop shortcuts and an uninstaller, and runs the WebView2 bootstrapper
#       (MicrosoftEdgeWebview2Setup.exe, shipped inside the wails module, so nothing is downloaded
#       at build time) when the machine has no WebView2 runtime.
# Usage: VERSION=0.1.0 build/package-windows.sh      (VERSION: x.y.z, NSIS wants numbers)
# Needs: the frontend built into frontend/dist, makensis (Debian package nsis), and the Wails CLI
#        (installed here with `go install` when missing, about a minute from a cold cache).
#
# The CLI reads the product name and version from wails.json ("name" names the installed exe).
# build/windows/ holds the icon, manifest, version info and installer script the CLI generated once
# (edit them there); wails_tools.nsh and installer/tmp/ are regenerated on every build.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH:$(go env GOPATH)/bin"
VERSION=${VERSION:-0.1.0}
WAILS_VERSION=v2.12.0

[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "package-windows: VERSION must be x.y.z (NSIS), got $VERSION" >&2; exit 2; }
[ -f frontend/dist/index.html ] || { echo "package-windows: build the frontend first (npm --prefix frontend run build)" >&2; exit 1; }
command -v makensis >/dev/null || { echo "package-windows: makensis is missing (apt-get install nsis)" >&2; exit 1; }
if ! wails version 2>/dev/null | grep -q "$WAILS_VERSION"; then
  go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
fi

# wails.json carries the product's name and version for the exe's version info and the installer;
# this build's VERSION goes in for the build only.
tmp=$(mktemp -d)
cp wails.json "$tmp/wails.json"
had_wailsjs=$([ -d frontend/wailsjs ] && echo 1 || true)
restore() {
  cp "$tmp/wails.json" wails.json
  rm -rf "$tmp"
  [ -n "$had_wailsjs" ] || rm -rf frontend/wailsjs # the CLI writes its JS runtime there; unused
}
trap restore EXIT
sed -i "s/\"productVersion\": *\"[^\"]*\"/\"productVersion\": \"$VERSION\"/" wails.json
grep -q "\"productVersion\": \"$VERSION\"" wails.json || { echo "package-windows: wails.json has no info.productVersion" >&2; exit 1; }
# -s: the frontend is already built; -skipbindings: the page talks to the hub's websocket, the
# bindings are hand-written (frontend/src/native.ts); -m/-nosyncgomod: leave go.mod alone.
wails build -platform windows/amd64 -nsis -s -skipbindings -m -nosyncgomod -trimpath -nocolour \
  -ldflags "-X main.version=$VERSION" -o agenthub.exe
ls -l build/bin/agenthub.exe build/bin/agenthub-amd64-installer.exe
