#!/usr/bin/env bash
# Runs on the GPU machine: the expert-offload backends on a Qwen3-30B-A3B-shaped Q4_K synthetic model with an
# 8 GiB VRAM budget and 16 CPU threads (an 8 GB-laptop-class budget on the big machine): `ft bench bw` (stores the
# q* fraction the hybrid backend then reads), then `ft bench decode --backend all` with synthetic routing (LRU miss
# rate ≈ 16 % at 37 % capacity) and with the model's own routing; prefill chunk 512 (a laptop would not spend
# VRAM on 8192-token prefill scratch). Log: $OUT/bench-hybrid.log, JSON: $OUT/hybrid-*.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/bench-hybrid.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
out=${OUT:-/tmp}
export FT_DATA_DIR=/tmp/ft-data
gen=${FT_BENCH_GEN:-64}

[[ -f "$model" ]] || step "$ft" synth --arch qwen3_moe --preset qwen3-30b-a3b --weights q4_k --seed 1 --threads 16 --quiet --out "$model"
step "$ft" bench bw --model "$model" --threads 16 --seconds 2 --json "$out/hybrid-bw.json"
step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --threads 16 --backend ${FT_BACKENDS:-all} \
  --routing synthetic --prompt-len 512 --chunk 512 --gen "$gen" --json "$out/hybrid-decode-synthetic.json"
step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --threads 16 --backend ${FT_BACKENDS:-all} \
  --routing model --prompt-len 512 --chunk 512 --gen "$gen" --json "$out/hybrid-decode-model.json"
echo; echo "bench-hybrid: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
