#!/usr/bin/env bash
# Runs on the GPU machine: a recorded Claude Code session (tests/data/agents/claude-code-2.1.332/session, recorded
# with `ft serve --record` against the real CLI) played back against `ft serve` on the Qwen3-30B-A3B-shaped Q4_K
# model at an 8 GiB VRAM budget with every other option at its default (automatic context, auto MoE backend, prefix
# cache on): each turn's prompt, reused prefix tokens and TTFT (`ft bench serve --replay`), then 4 sessions at once
# (subagents: the same system prompt and tools, their own conversations). Replies are cut at 128 tokens (the
# random-weight model never ends one by itself). Logs and JSON under $OUT.
#   FT_REPLAY_CTX="auto 16384" FT_REPLAY_SESSIONS=1 FT_REPLAY_RESIDENT=0 bash scripts/gpu/agent-replay.sh
# compares the automatic context with a fixed one (its KV against the expert cache) on one session.
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
  # A data folder of its own: no expert popularity or bandwidth profile from an earlier run (each run starts alike).
  FT_DATA_DIR=$(mktemp -d) "$ft" --log-level info serve --model "$model" --device cuda --port $port "$@" > "$out/$log" 2>&1 &
  server=$!
  for _ in $(seq 600); do "$ft" ctl health --url $url > /dev/null 2>&1 && return 0; sleep 0.5; done
  echo "the server did not start"; cat "$out/$log"; status=1; return 1
}
stop_server() { kill $server 2>/dev/null; wait $server 2>/dev/null; }
trap 'stop_server' EXIT
# A fresh server per run: the first turn meets an empty prefix cache. FT_REPLAY_CTX (default "auto") lists the --ctx
# values to compare, FT_REPLAY_SESSIONS (default "1 4") the session counts, FT_REPLAY_RESIDENT=0 skips the last part.
for ctx in ${FT_REPLAY_CTX:-auto}; do
  for n in ${FT_REPLAY_SESSIONS:-1 4}; do
    start_server serve-$ctx-$n.log --vram-budget 8G --ctx $ctx || continue
    grep -E "context|VRAM plan|q\* " "$out/serve-$ctx-$n.log" | head -n 4
    step "$ft" bench serve --url $url --replay "$session" --sessions $n --max-tokens 128 --json "$out/replay-$ctx-$n.json"
    stop_server
    grep -E "hybrid: q\*" "$out/serve-$ctx-$n.log" | tail -n 1
  done
done
# The automatic context with the whole GPU (everything resident): the model's trained maximum.
if [[ ${FT_REPLAY_RESIDENT:-1} == 1 ]]; then
  start_server serve-resident.log && { grep -E "context|VRAM plan" "$out/serve-resident.log" | head -n 3; stop_server; }
fi
echo; echo "agent-replay: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
