#!/usr/bin/env bash
# Runs on the GPU machine: a recorded Claude Code session (tests/data/agents/claude-code-2.1.332/session, recorded
# with `ft serve --record` against the real CLI) played back against `ft serve` on the Qwen3-30B-A3B-shaped Q4_K
# model at an 8 GiB VRAM budget with every other option at its default (automatic context, auto MoE backend, prefix
# cache on): each turn's prompt, reused prefix tokens and TTFT (`ft bench serve --replay`), then 4 sessions at once
# (subagents: the same system prompt and tools, their own conversations). Replies are cut at 128 tokens (the
# random-weight model never ends one by itself). Logs and JSON under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/agent-replay.log") 2>&1
source scripts/gpu/env.sh
session=$repo/tests/data/agents/claude-code-2.1.332/session
model=/tmp/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --seed 1 --quiet --out "$model"
port=19191
url=http://127.0.0.1:$port
start_server() {  # LOG [more serve flags]
  local log=$1; shift
  "$ft" --log-level info serve --model "$model" --device cuda --port $port "$@" > "$out/$log" 2>&1 &
  server=$!
  for _ in $(seq 600); do "$ft" ctl health --url $url > /dev/null 2>&1 && return 0; sleep 0.5; done
  echo "the server did not start"; cat "$out/$log"; status=1; return 1
}
stop_server() { kill $server 2>/dev/null; wait $server 2>/dev/null; }
trap 'stop_server' EXIT
# A fresh server per run: the first turn meets an empty prefix cache.
start_server serve-1.log --vram-budget 8G && {
  grep -E "context|VRAM plan|plan:" "$out/serve-1.log" | head -n 8
  step "$ft" bench serve --url $url --replay "$session" --max-tokens 128 --json "$out/replay-1.json"
  stop_server
}
start_server serve-4.log --vram-budget 8G && {
  step "$ft" bench serve --url $url --replay "$session" --sessions 4 --max-tokens 128 --json "$out/replay-4.json"
  grep -E "prefix cache" "$out/serve-4.log" | tail -n 4
  stop_server
}
# The automatic context with the whole GPU (everything resident): the model's trained maximum.
start_server serve-resident.log && { grep -E "context|VRAM plan" "$out/serve-resident.log" | head -n 3; stop_server; }
echo; echo "agent-replay: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
