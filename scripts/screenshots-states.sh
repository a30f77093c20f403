#!/usr/bin/env bash
# Writes PNG screenshots of the states the window tests reach (issue 43's fixes) into docs/screenshots/, under a
# real X server (xvfb-run) when there is one, else offscreen: the language switched to Korean on a first start, a
# chat's system prompt banner and Settings → New chats, pathological replies after streaming, a reply cut at its
# token limit, the Console after a load, the file dialog in the dark theme, the engine's messages in Korean. Uses an
# existing build (FT_BUILD_DIR, default build/ci) with the tests built.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FT_BUILD_DIR:-build/ci}
out=$(realpath -m "${1:-docs/screenshots}")
mkdir -p "$out"
run=(env QT_QPA_PLATFORM=offscreen)
if command -v xvfb-run >/dev/null 2>&1; then run=(xvfb-run -a env QT_QPA_PLATFORM=xcb); fi
for t in test_language_switch:firstStartWithTheDemoSettingsKorean test_chat_settings test_chat_stream test_chat_page \
         test_console_load test_cosmetics test_engine_messages; do
  data=$(mktemp -d)
  func=(); [[ $t == *:* ]] && func=("${t#*:}")
  FT_DATA_DIR="$data" FT_SCREENSHOT_DIR="$out" "${run[@]}" "$build/tests/ui/${t%%:*}" "${func[@]}" >/dev/null || true
  rm -rf "$data"
done
if command -v convert >/dev/null 2>&1; then
  for f in "$out"/settings-ko-after-switch.png "$out"/console-ko-after-switch.png "$out"/chat-system-prompt-banner.png \
           "$out"/settings-new-chats.png "$out"/chat-stream-*.png "$out"/chat-truncated-reply.png \
           "$out"/console-after-load.png "$out"/models-file-dialog-dark.png "$out"/console-ko-engine-messages.png; do
    [[ -f "$f" ]] && convert "$f" -strip -colors 256 PNG8:"$f"
  done
fi
ls -l "$out"
