#!/usr/bin/env bash
# Runs on the GPU machine: which CPU decode kernel the Xeon takes (test_cpu_matmul's first lines) and the CPU expert
# kernel's bandwidth with enough rounds that every expert page was touched before timing (1 and 16 threads).
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
[[ -f "$model" ]] || "$ft" synth --arch qwen3_moe --preset qwen3-30b-a3b --weights q4_k --seed 1 --threads 16 --quiet --out "$model"
"$(find "$build_dir/tests" -name test_cpu_matmul -type f | head -n 1)" 2>&1 | grep -E "int8|Totals" | head -5
for t in 1 16; do "$ft" bench cpu-moe --model "$model" --threads $t --rounds 12 2>&1 | grep -E "host read|expert weights|experts "; done
