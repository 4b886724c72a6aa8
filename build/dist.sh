#!/usr/bin/env bash
# Builds the release artifacts into dist/, with VERSION stamped into each, and their SHA-256 sums:
#   agenthub_VERSION_amd64.deb                      Debian/Ubuntu package (build/package-deb.sh)
#   agenthub-VERSION-windows-amd64-installer.exe    Windows x64 installer (build/package-windows.sh)
#   agenthub-VERSION-linux-amd64.tar.gz             the same Linux binary, .desktop entry and icons
#                                                   in a /usr-like tree (bin/, share/), for other distros
#   SHA256SUMS                                      `sha256sum -c SHA256SUMS` checks them
# Usage: VERSION=x.y.z build/dist.sh   (what `make dist` runs; NSIS wants a numeric x.y.z)
# Needs: build/setup-debian.sh nsis, the frontend built into frontend/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${VERSION:-0.1.0}
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "dist: VERSION must be x.y.z, got $VERSION" >&2; exit 2; }
[ -f frontend/dist/index.html ] || { echo "dist: build the frontend first (npm --prefix frontend run build)" >&2; exit 1; }
export VERSION

bash build/package-deb.sh
bash build/package-windows.sh

rm -rf dist
mkdir -p dist
cp "build/bin/agenthub_${VERSION}_amd64.deb" dist/
cp build/bin/agenthub-amd64-installer.exe "dist/agenthub-${VERSION}-windows-amd64-installer.exe"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root="$tmp/agenthub-${VERSION}-linux-amd64"
install -D -m 0755 build/bin/agenthub-desktop-release "$root/bin/agenthub"
install -D -m 0644 build/linux/agenthub.desktop "$root/share/applications/agenthub.desktop"
for d in build/bin/icons/*x*; do
  install -D -m 0644 "$d/agenthub.png" "$root/share/icons/hicolor/$(basename "$d")/apps/agenthub.png"
done
cat >"$root/README.txt" <<TXT
AgentHub $VERSION for Linux x86-64: a desktop home for A2A agents.

Needs GTK 3 and WebKitGTK 4.1 (Debian 12 / Ubuntu 22.04 and later: libgtk-3-0 libwebkit2gtk-4.1-0).
On Debian and Ubuntu, the .deb installs all of this for you.

  bin/agenthub              open the window (the hub and the demo agent run while it is open)
  bin/agenthub serve        the hub without a window; open the printed "ui:" link in a browser
  bin/agenthub help         every command

To add it to your desktop's menu, copy the tree under ~/.local:
  cp -r bin share ~/.local/      (~/.local/bin must be on PATH for the menu entry's Exec=agenthub)
Your data lives in ~/.config/agenthub; removing the program leaves it there.
TXT
tar -C "$tmp" --owner=0 --group=0 --sort=name -czf "dist/agenthub-${VERSION}-linux-amd64.tar.gz" "$(basename "$root")"

(cd dist && sha256sum -- * >SHA256SUMS)
ls -l dist
cat dist/SHA256SUMS
