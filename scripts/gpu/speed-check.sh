#!/usr/bin/env bash
# Runs on the GPU machine (device tool) with .gpu/bundle.tar.xz: the checks and figures for the prefill's grouped
# expert GEMMs, in one call (the emulated gaming-PC links: `vs-llama.sh links`).
#  1. GPU suites: the expert-cache kernels (the link throttle included), the goldens with the fast and exact prefill,
#     every MoE backend against resident on the three tiny fixtures, the planner on the GPU.
#  2. Resident prefill of 512 and 8192 tokens on the Qwen3-30B-A3B-shaped Q4_K model, twice each (JSON in
#     $OUT/speed-json.tar).
#   device run: command "bash scripts/gpu/speed-check.sh", carry [".gpu"]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/speed-check.log") 2>&1
source scripts/gpu/env.sh
json=/tmp/speed-json
mkdir -p "$json"
model=/dev/shm/qwen3-30b-a3b-q4_k.gguf
("$ft" synth --preset qwen3-30b-a3b --weights q4_k --seed 1 --quiet --out "$model"; echo "synth: exit $?") &
synth=$!
step ctest --test-dir "$build_dir" --output-on-failure --timeout 300 \
  -R '^(test_cuda_expert_cache|test_golden_qwen3_moe_gpu.*|test_golden_arch_gpu.*|test_moe_backends.*|test_planner_gpu)$'
wait $synth
for round in 1 2; do
  for len in 512 8192; do
    step "$ft" bench prefill --model "$model" --device cuda --moe-backend resident --prompt-len $len \
      --json "$json/pre$len-$round.json"
  done
done
tar -C "$json" -cf "$out/speed-json.tar" .
echo; echo "speed-check: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
