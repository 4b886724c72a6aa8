#!/usr/bin/env bash
# Builds the release desktop binary (stripped, version stamped) and packages it as a .deb with nfpm:
#   build/bin/agenthub_VERSION_amd64.deb
# Usage: VERSION=0.1.0 build/package-deb.sh     (VERSION defaults to 0.1.0)
# Needs: build/setup-debian.sh's packages (ImageMagick draws the icon sizes), the frontend built into
#        frontend/dist, and nfpm v2.45.2 (installed here with `go install` when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH:$(go env GOPATH)/bin"
export VERSION=${VERSION:-0.1.0}

[ -f frontend/dist/index.html ] || echo "package-deb: warning: frontend/dist has no index.html; the window will show its placeholder" >&2
go build -trimpath -tags desktop,production,webkit2_41 -ldflags "-s -w -X main.version=$VERSION" \
  -o build/bin/agenthub-desktop-release .
# The hicolor theme looks up an app icon at the size it draws (menus 16-48, launchers 64-256):
# one PNG per standard size, scaled down from the 512x512 original (nfpm.yaml lists them).
for s in 16 24 32 48 64 128 256 512; do
  mkdir -p "build/bin/icons/${s}x${s}"
  convert build/appicon.png -resize "${s}x${s}" -strip "build/bin/icons/${s}x${s}/agenthub.png"
done
command -v nfpm >/dev/null || go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
nfpm package -f build/nfpm.yaml -p deb -t build/bin/
ls -l build/bin/agenthub_"$VERSION"_amd64.deb
