#!/usr/bin/env bash
# Runs on the GPU machine: the resident GPU engine's figures on a Qwen3-30B-A3B-shaped Q4_K synthetic model —
# `ft bench decode` (batch 1 and 4, with and without the CUDA graph) and `ft bench prefill` (8192 and 512 tokens),
# plus a short `ft run --device cuda` as a smoke test of the whole path. Log: $OUT/bench-gpu-engine.log,
# JSON: $OUT/gpu-*.json. Set FT_BENCH_QUICK=1 for a shorter run (batch 1 decode and the 8192 prefill only).
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/bench-gpu-engine.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
out=${OUT:-/tmp}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv
[[ -f "$model" ]] || step "$ft" synth --arch qwen3_moe --preset qwen3-30b-a3b --weights q4_k --seed 1 --threads 16 --quiet --out "$model"
step "$ft" bench decode --model "$model" --device cuda --prompt-len 512 --gen 128 --batch 1 --json "$out/gpu-decode-b1.json"
step "$ft" bench prefill --model "$model" --device cuda --prompt-len 8192 --json "$out/gpu-prefill-8192.json"
if [[ "${FT_BENCH_QUICK:-0}" != 1 ]]; then
  step "$ft" bench decode --model "$model" --device cuda --prompt-len 512 --gen 128 --batch 4 --json "$out/gpu-decode-b4.json"
  step "$ft" bench decode --model "$model" --device cuda --prompt-len 512 --gen 64 --batch 1 --no-graphs --json "$out/gpu-decode-b1-nograph.json"
  step "$ft" bench prefill --model "$model" --device cuda --prompt-len 512 --json "$out/gpu-prefill-512.json"
  step "$ft" run --model "$model" --device cuda --ctx 2048 --prompt "The quick brown fox" --max-tokens 32 --temperature 0 --ignore-eos
fi
echo; echo "bench-gpu-engine: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
