#!/usr/bin/env bash
# Writes PNG screenshots of every page of the desktop app, dark and light, into docs/screenshots/:
#   <page>-<theme>.png at 1280x800 and <page>-<theme>-1024x640.png at the smaller size.
# Builds what it needs (build/screenshots, no CUDA) unless FT_BUILD_DIR points at an existing GUI build.
# Renders offscreen (QT_QPA_PLATFORM=offscreen, no display needed) from a fresh data folder, so the pictures show
# what a first start shows: an empty library, live hardware figures, the live log.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FT_BUILD_DIR:-build/screenshots}
out=${1:-docs/screenshots}
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFT_GUI=ON -DFT_CUDA=OFF -DFT_TESTS=ON
fi
cmake --build "$build" --target ft_ui_screenshots -j "$(nproc)"
# A fixed, fresh data folder: the same first-start state (and the same paths in the pictures) on every run.
data="${TMPDIR:-/tmp}/freetoken-screenshots"
rm -rf "$data"
mkdir -p "$data"
trap 'rm -rf "$data"' EXIT
mkdir -p "$out"
FT_DATA_DIR="$data" QT_QPA_PLATFORM=offscreen "$build/tests/ui/ft_ui_screenshots" "$out" 1280x800 1024x640
# Flat UI art compresses well as an 8-bit palette PNG; keep the files small enough to commit.
if command -v convert >/dev/null 2>&1; then
  for f in "$out"/*.png; do convert "$f" -strip -colors 256 PNG8:"$f"; done
fi
ls -l "$out"/*.png
