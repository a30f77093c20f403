#!/usr/bin/env bash
# Runs on the GPU machine: the CPU-only engine's figures on a Qwen3-30B-A3B-shaped Q4_K synthetic model — the
# expert kernel's share of host read bandwidth (ft bench cpu-moe) at 16 and 8 threads, and prefill/decode tok/s of
# `ft run --device cpu`. Log: $OUT/bench-cpu-engine.log, JSON: $OUT/cpu-moe-*.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/bench-cpu-engine.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
out=${OUT:-/tmp}

lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3" || true
free -g | head -2
t0=$SECONDS
step "$ft" synth --arch qwen3_moe --preset qwen3-30b-a3b --weights q4_k --seed 1 --threads 16 --quiet --out "$model"
echo "synth: $((SECONDS - t0)) s, $(du -h "$model" | cut -f1)"
step "$ft" inspect "$model"
for t in 16 8 4 1; do
  step "$ft" --log-level debug bench cpu-moe --model "$model" --threads $t --rounds 3 --json "$out/cpu-moe-${t}t.json"
done
prompt=$(python3 -c "print(' '.join(['The quick brown fox jumps over the lazy dog.'] * 50))")
step "$ft" --log-level debug run --model "$model" --device cpu --threads 16 --ctx 2048 --prompt "$prompt" --max-tokens 64 --temperature 0 --ignore-eos
step "$ft" run --model "$model" --device cpu --threads 8 --ctx 2048 --prompt "Hello" --max-tokens 64 --temperature 0 --ignore-eos
rm -f "$model"
echo; echo "bench-cpu-engine: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
