#!/usr/bin/env bash
# Issue 43's walkthrough, replayed on the real freetoken executable in a real X window (Xvfb, no window manager) by
# xdotool clicks and keys, as a new user: a first start (the welcome while the demo model loads), Close, Settings →
# 한국어 (the crash of defect 1), every page visited in Korean, 简体中文, English again, a chat message sent and its reply
# stored, the log on disk while the app runs (defect 3), SIGTERM (a clean exit, logged), and a second start that
# loads the last model again (defect 6). Each step checks what a user would see or what is on disk; a step that
# fails says which and leaves the screenshots in the output folder.
#   tests/ui/walkthrough.sh <freetoken executable> [out-dir]
# Needs xvfb-run, xdotool and ImageMagick's import (scripts/install-deps.sh). Takes about 40 s.
set -euo pipefail
app=${1:?usage: walkthrough.sh <freetoken executable> [out-dir]}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
for tool in xvfb-run xdotool import python3; do
  command -v "$tool" >/dev/null || { echo "walkthrough: $tool is missing (scripts/install-deps.sh installs it)"; exit 1; }
done
if [[ -z "${FT_WALKTHROUGH_IN_X:-}" ]]; then  # run ourselves again inside a fresh X server of the window's size
  exec env FT_WALKTHROUGH_IN_X=1 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$app" "$out"
fi

data=$(mktemp -d)
trap 'rm -rf "$data"; [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null || true' EXIT
export FT_DATA_DIR=$data QT_QPA_PLATFORM=xcb FT_KEYCHAIN=off  # the keyring of whoever runs it stays untouched
log=$data/logs/freetoken.log
step=0
fail() { echo "walkthrough: FAILED at step $step: $*"; import -window root "$out/failed-step-$step.png" 2>/dev/null || true; exit 1; }
say() { step=$((step + 1)); echo "walkthrough: $step. $*"; }
alive() { kill -0 "$pid" 2>/dev/null || fail "the app is gone (exit status: $(wait "$pid"; echo $?))"; }
wait_for() {  # wait_for <seconds> <command…>
  local t=$1; shift
  for ((i = 0; i < t * 10; ++i)); do "$@" && return 0; alive; sleep 0.1; done
  return 1
}
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.4; }
shot() { import -window root "$out/$1.png"; }
# Sidebar entries of the 1280×800 window (the same place in every language).
nav() { case $1 in models) click 84 97 ;; console) click 84 137 ;; chat) click 84 177 ;; logs) click 84 217 ;; settings) click 84 257 ;; esac; }
ini() { grep -s "^$1=" "$data/freetoken.ini" | cut -d= -f2- || true; }
# Waits (a loaded machine may take a while) until the saved language is $1.
language_is() { wait_for 15 bash -c "grep -qsx 'language=$1' '$data/freetoken.ini'" || fail "language=$(ini language) in freetoken.ini, expected $1"; }

say "first start: the window opens and the demo model loads"
"$app" >"$out/app-stdout.txt" 2>&1 &
pid=$!
wait_for 30 bash -c 'xdotool search --onlyvisible --name "FreeToken" >/dev/null 2>&1' || fail "no window within 30 s"
win=$(xdotool search --onlyvisible --name FreeToken 2>/dev/null | head -1 || true)
wait_for 60 grep -qs "\] loaded " "$log" || fail "the demo model did not load (the log says: $(tail -3 "$log" 2>/dev/null))"
sleep 1
shot 01-welcome

say "the welcome: Close"
click 765 573
shot 02-models

say "Settings → 한국어 (defect 1: the app crashed here)"
nav settings
click 568 233
language_is ko
sleep 1
alive
shot 03-settings-ko

say "every page in Korean"
for p in models console chat logs settings; do nav "$p"; sleep 0.5; alive; done
nav console
sleep 1
shot 04-console-ko

say "Settings → 简体中文, then English"
nav settings
click 646 233
language_is zh_CN
alive
shot 05-settings-zh
for p in console chat models; do nav "$p"; sleep 0.5; alive; done
nav settings
click 493 233
language_is en

say "the log is on disk while the app runs (defect 3): the load's info line"
grep -q "\[info\].*loaded freetoken-demo" "$log" || fail "no info line of the load in $log"

say "Chat: a message typed and sent, its reply stored"
nav chat
sleep 1
click 760 735           # the composer at the bottom of the Chat page
xdotool windowfocus --sync "$win"  # no window manager gives the window the keyboard: the user's click would
xdotool type --delay 20 "Hello from the walkthrough"
xdotool key Return
replies() {
  python3 - "$data/chats.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n = c.execute("select count(*) from messages where role='assistant' and length(content) > 0").fetchone()[0]
u = c.execute("select count(*) from messages where role='user' and content='Hello from the walkthrough'").fetchone()[0]
sys.exit(0 if n >= 1 and u == 1 else 1)
PY
}
wait_for 60 replies || fail "no stored reply to the message in chats.db"
sleep 1
shot 06-chat-reply
alive

say "SIGTERM: a clean exit, logged"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[[ $status == 0 ]] || fail "exit status $status after SIGTERM"
tail -2 "$log" | grep -q "FreeToken exiting (0)" || fail "the log does not end with the exit: $(tail -2 "$log")"

say "a second start loads the last model again (defect 6)"
loads_before=$(grep -c "\] loaded " "$log")
"$app" >>"$out/app-stdout.txt" 2>&1 &
pid=$!
wait_for 60 bash -c "[[ \$(grep -c '\] loaded ' '$log') -gt $loads_before ]]" || fail "the last model was not loaded again"
sleep 1
shot 07-second-start
kill -TERM "$pid"
wait "$pid" || fail "exit status $? after the second SIGTERM"
pid=
echo "walkthrough: ok, $step steps (screenshots in $out)"
