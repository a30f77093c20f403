#!/usr/bin/env bash
# The README's first command: installs what is missing, builds (preset "release") and starts the desktop app.
# With no display it says how to run headless instead. Extra arguments go to freetoken.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --gui
cmake --preset release
cmake --build --preset release -j "$(nproc)"
app=build/release/app/freetoken
if [[ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
  cat <<MSG
Built $app, but this session has no display (neither DISPLAY nor WAYLAND_DISPLAY is set).
  - On a desktop, run it from a graphical session:   $app
  - Headless, use the CLI:                            build/release/app/ft --help
  - Or render offscreen / under Xvfb:                 QT_QPA_PLATFORM=offscreen $app   |   xvfb-run -a $app
MSG
  exit 0
fi
exec "$app" "$@"
