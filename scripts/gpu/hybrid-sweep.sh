#!/usr/bin/env bash
# Runs on the GPU machine after bench-hybrid.sh: where the hybrid backend's time goes on the 8 GiB budget with
# synthetic routing — the q* fraction from `ft bench bw` against fixed fractions, and batch 4 (more misses per layer,
# so the integer split is finer). FRACTIONS, B1_BACKENDS, B4_BACKENDS override the runs. Log: $OUT/hybrid-sweep.log,
# JSON: $OUT/sweep-*.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/hybrid-sweep.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
out=${OUT:-/tmp}
export FT_DATA_DIR=/tmp/ft-data
[[ -f "$model" ]] || step "$ft" synth --arch qwen3_moe --preset qwen3-30b-a3b --weights q4_k --seed 1 --threads 16 --quiet --out "$model"
common=(--model "$model" --device cuda --vram-budget 8G --threads 16 --routing synthetic --prompt-len 512 --chunk 512 --gen 48)
step "$ft" bench bw --model "$model" --threads 16 --seconds 2 --json "$out/sweep-bw.json"
for f in ${FRACTIONS-0.35 0.75 0.9}; do
  step "$ft" bench decode "${common[@]}" --backend hybrid --hybrid-fraction $f --json "$out/sweep-hybrid-$f.json"
done
[[ -n "${B1_BACKENDS:-}" ]] && step "$ft" bench decode "${common[@]}" --backend "$B1_BACKENDS" --json "$out/sweep-b1.json"
step "$ft" bench decode "${common[@]}" --backend ${B4_BACKENDS:-offload,hybrid,static} --batch 4 --json "$out/sweep-b4.json"
echo; echo "hybrid-sweep: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
