#!/usr/bin/env bash
# Runs on the GPU machine: `ft serve` with the Qwen3-30B-A3B-shaped Q4_K model at an 8 GiB budget (default options):
# `ft bench serve` with 4 clients (aggregate decode tok/s, TTFT p50/p99), an agent's second turn over a ~4k-token
# shared prefix (TTFT of both turns: the prefix cache), and the stats feed while the caches are rebuilt live under a
# streaming reply (scripts/gpu/serve_probe.py). Logs and JSON under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/check-serve.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --out "$model"
port=19190
url=http://127.0.0.1:$port
"$ft" --log-level info serve --model "$model" --device cuda --vram-budget 8G --ctx 8192 --port $port > "$out/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 120); do "$ft" ctl health --url $url > /dev/null 2>&1 && break; sleep 0.5; done
step "$ft" ctl health --url $url
step "$ft" bench serve --url $url --clients 4 --requests 4 --max-tokens 128 --json "$out/bench-serve.json"
step python3 scripts/gpu/serve_probe.py $url agent "$out/agent.json"
step python3 scripts/gpu/serve_probe.py $url rebuild "$out/stats-feed.json"
step "$ft" ctl cache --url $url
grep -E "cache rebuild|expert cache:|rejected" "$out/serve.log" | tail -n 8
echo; echo "check-serve: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
