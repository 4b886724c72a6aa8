#!/usr/bin/env bash
# Proves the Windows build as far as Linux can: cross-builds agenthub.exe and its NSIS installer
# (build/package-windows.sh), lists the installer with 7z and checks what it carries, and, when
# Debian's wine64 is installed, runs the installer silently in a throw-away wine prefix under Xvfb:
# the files, shortcuts and uninstall entry it creates, `agenthub.exe version`, and the uninstaller
# removing them again.
#
# Prints one line per check, then "N passed, M failed" (exit 1 on any failure). Checks that cannot
# run here say "skip - why".
# Usage:  build/windows-check.sh       (VERSION=x.y.z, default 0.1.0; SKIP_BUILD=1 checks the last build)
# Needs:  build/setup-debian.sh nsis p7zip-full file (and wine64 for the install checks); the frontend
#         built into frontend/dist.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
VERSION=${VERSION:-0.1.0}
EXE=build/bin/agenthub.exe
INSTALLER=build/bin/agenthub-amd64-installer.exe

pass=0 fail=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
ms() { date +%s%3N; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
  began=$(ms)
  if VERSION=$VERSION bash build/package-windows.sh >"$tmp/build.log" 2>&1; then
    ok "cross-built $EXE ($(stat -c %s $EXE) bytes) and $INSTALLER ($(stat -c %s $INSTALLER) bytes) in $(( ($(ms) - began) / 1000 )) s"
  else
    bad "build/package-windows.sh failed:"; sed 's/^/    /' "$tmp/build.log" | tail -20; finish
  fi
fi

# ---- the app
kind=$(file -b "$EXE")
case "$kind" in
  "PE32+ executable (GUI) x86-64"*) ok "$EXE: $kind" ;;
  *) bad "$EXE: $kind, want a PE32+ x86-64 GUI executable" ;;
esac
# the version stamped into main.version, and into the Windows version resource the manifest comes with
# (main.version's -X stamp cannot be read from the file: -trimpath keeps -ldflags out of the build
# info, and the default's bytes stay in the binary; `agenthub.exe version` checks it where it runs)
res=$(strings -e l "$EXE")
if grep -qx "$VERSION" <<<"$res" && grep -qx AgentHub <<<"$res" && grep -q 'assemblyIdentity' "$EXE"; then
  ok "$EXE carries its version resource (ProductName AgentHub, ProductVersion $VERSION) and manifest"
else
  bad "$EXE lacks the version resource or manifest (the .syso Wails generates)"
fi

# ---- the installer's contents
list=$(7z l -ba "$INSTALLER" 2>&1 | awk '{print $NF}')
if 7z l "$INSTALLER" 2>/dev/null | grep -q '^Type = Nsis'; then ok "$INSTALLER is an NSIS installer"; else bad "$INSTALLER: 7z does not read it as NSIS"; fi
for f in agenthub.exe uninstall.exe '$PLUGINSDIR/webview2bootstrapper/MicrosoftEdgeWebview2Setup.exe'; do
  if grep -qxF "$f" <<<"$list"; then ok "installer carries $f"; else bad "installer lacks $f (it lists: $(echo $list))"; fi
done
mkdir -p "$tmp/x"
if 7z e -y -o"$tmp/x" "$INSTALLER" agenthub.exe >/dev/null 2>&1 && cmp -s "$tmp/x/agenthub.exe" "$EXE"; then
  ok "the installer's agenthub.exe is byte for byte $EXE"
else
  bad "the installer's agenthub.exe differs from $EXE"
fi

# ---- install, run, uninstall under wine
WINE=$(command -v wine64 || ls /usr/lib/wine/wine64 2>/dev/null)
if [ -z "$WINE" ]; then
  echo "skip - installing under wine: wine64 is not installed (apt-get install wine64); the installer was checked by its listing only"
  finish
fi
export WINEPREFIX="$tmp/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono/Gecko prompts
wineserver=$(dirname "$WINE")/wineserver
# a fresh prefix reports Windows 7, and the installer wants Windows 10 (Wails' checkArchitecture)
"$WINE" winecfg -v win10 >/dev/null 2>&1
"$wineserver" -w
drive="$WINEPREFIX/drive_c"
pf="$drive/Program Files/AgentHub"
links=("$drive/ProgramData/Microsoft/Windows/Start Menu/Programs/AgentHub.lnk" "$drive/users/Public/Desktop/AgentHub.lnk")
key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentHubAgentHub'

began=$(ms)
xvfb-run -a "$WINE" "$INSTALLER" /S >"$tmp/install.log" 2>&1
rc=$?
"$wineserver" -w
if [ "$rc" = 0 ] && [ -f "$pf/agenthub.exe" ] && [ -f "$pf/uninstall.exe" ]; then
  ok "silent install (/S) under wine: Program Files\\AgentHub\\agenthub.exe and uninstall.exe ($(( $(ms) - began )) ms)"
else
  bad "silent install under wine: exit $rc; Program Files\\AgentHub holds: $(ls "$pf" 2>&1 | tr '\n' ' ')"
fi
missing=""
for l in "${links[@]}"; do [ -f "$l" ] || missing="$missing ${l#$drive/}"; done
if [ -z "$missing" ]; then ok "shortcuts: Start menu and desktop AgentHub.lnk"; else bad "shortcuts missing:$missing"; fi
reg=$("$WINE" reg query "$key" 2>/dev/null | tr -d '\r')
if grep -q "DisplayVersion.*$VERSION" <<<"$reg" && grep -q 'UninstallString.*uninstall.exe' <<<"$reg"; then
  ok "Apps & features entry: DisplayVersion $VERSION, UninstallString ...\\uninstall.exe"
else
  bad "no uninstall entry $key with DisplayVersion $VERSION: $(echo $reg)"
fi
# Go 1.24+ programs need bcryptprimitives.dll (ProcessPrng), which Debian 12's wine 8.0 lacks
out=$("$WINE" "$pf/agenthub.exe" version 2>"$tmp/run.err" | tr -d '\r')
if [ "$out" = "agenthub $VERSION" ]; then
  ok "agenthub.exe version under wine: $out"
elif grep -q 'bcryptprimitives.dll not found' "$tmp/run.err"; then
  echo "skip - agenthub.exe version under wine: this wine ($("$WINE" --version 2>/dev/null)) lacks bcryptprimitives.dll, which Go 1.24+ programs need; it runs on Windows 10 and later"
else
  bad "agenthub.exe version under wine: '$out'; $(head -3 "$tmp/run.err" | tr '\n' ' ')"
fi
"$WINE" "C:\\Program Files\\AgentHub\\uninstall.exe" /S >/dev/null 2>&1
"$wineserver" -w # the uninstaller runs from a temporary copy; wait for it
left=""
[ -e "$pf" ] && left="$left Program Files\\AgentHub"
for l in "${links[@]}"; do [ -e "$l" ] && left="$left ${l#$drive/}"; done
"$WINE" reg query "$key" >/dev/null 2>&1 && left="$left $key"
if [ -z "$left" ]; then ok "silent uninstall: program folder, shortcuts and uninstall entry removed"; else bad "after uninstall, still there:$left"; fi
"$wineserver" -k 2>/dev/null
finish
