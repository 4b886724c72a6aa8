#!/usr/bin/env bash
# Draws AgentHub's icon (512x512 PNG): a rounded square with a diagonal indigo-to-teal gradient and a
# white hub-and-spokes mark (one node in the middle, six around it). Needs ImageMagick 6.
# Usage: build/make-icon.sh [OUT.png]
#   Without an argument it rewrites build/appicon.png and its copy app/appicon.png (the window
#   embeds the copy: go:embed cannot reach ../build).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/appicon.png}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S=512
# diagonal gradient, top-left to bottom-right
convert -size ${S}x${S} -define gradient:direction=SouthEast gradient:'#4f46e5'-'#0d9488' "$tmp/grad.png"
# rounded-square mask (a little inset so the corners antialias cleanly)
convert -size ${S}x${S} xc:none -fill white -draw "roundrectangle 16,16 495,495 112,112" "$tmp/mask.png"
convert "$tmp/grad.png" -alpha set "$tmp/mask.png" -compose DstIn -composite "$tmp/bg.png"
# the mark: spokes, outer nodes, centre node
cx=256; cy=256; r=150
draw="stroke white stroke-width 22 stroke-linecap round fill none"
nodes=""
for k in 0 1 2 3 4 5; do
  read -r x y < <(awk -v k=$k -v cx=$cx -v cy=$cy -v r=$r 'BEGIN{a=(k*60-90)*3.14159265/180; printf "%.1f %.1f\n", cx+r*cos(a), cy+r*sin(a)}')
  draw="$draw line $cx,$cy $x,$y"
  nodes="$nodes circle $x,$y $(awk -v x=$x 'BEGIN{printf "%.1f", x+34}'),$y"
done
convert "$tmp/bg.png" -draw "$draw" \
  -fill white -stroke none -draw "$nodes" \
  -fill white -draw "circle $cx,$cy $((cx+70)),$cy" \
  -fill '#4338ca' -draw "circle $cx,$cy $((cx+34)),$cy" \
  -depth 8 -strip "$out"
if [ $# -eq 0 ]; then cp "$out" app/appicon.png; fi
