#!/usr/bin/env bash
# Until the demo model is committed (resources/models/freetoken-demo.gguf), the package tests install a stand-in:
# the tiny synthetic model of `ft synth --preset tiny`, written into the build tree only (BUILD_DIR/resources/models,
# which installer/install-rules.cmake installs when the real one is missing). Never committed.
#   installer/linux/demo-standin.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -f "$src/resources/models/freetoken-demo.gguf" ]]; then
  echo "demo model: $src/resources/models/freetoken-demo.gguf"
  exit 0
fi
grep -q 'freetoken-demo.gguf' "$build/cmake_install.cmake" 2>/dev/null \
  || { echo "demo-standin: $build is configured without the demo model's install rule" >&2; exit 1; }
standin=$build/resources/models/freetoken-demo.gguf
if [[ ! -f "$standin" ]]; then
  mkdir -p "$(dirname "$standin")"
  "$build/app/ft" synth --preset tiny --out "${standin%.gguf}.tmp.gguf" >/dev/null && mv "${standin%.gguf}.tmp.gguf" "$standin" \
    || { echo "demo-standin: ft synth failed" >&2; exit 1; }
fi
echo "demo model: stand-in $standin ($(du -h "$standin" | cut -f1); the real demo model is not committed yet)"
