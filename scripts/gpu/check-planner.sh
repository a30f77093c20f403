#!/usr/bin/env bash
# Runs on the GPU machine: the memory planner against measurement. Synthesizes the Qwen3-30B-A3B-shaped Q4_K model
# (once, in /tmp), then for VRAM budgets of 4, 8, 12 and 16 GiB with default options: the fit predictor
# (`ft inspect --plan --vram B`), `ft bench decode` (synthetic routing; offload and hybrid) and `ft bench prefill`
# (8192 tokens); `ft run --device cuda --vram-budget 8G` with defaults; and the planner's GPU tests.
# FT_PLAN_BUDGETS (default "4 8 12 16") and FT_PLAN_BACKENDS (default "offload,hybrid") narrow it. Log and JSON under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/check-planner.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --out "$model"
step ctest --test-dir "$build_dir" -R "test_planner_gpu|test_planner$|test_engine_rebuild" --output-on-failure
step "$ft" run --model "$model" --device cuda --vram-budget 8G --prompt "The capital of France is" --max-tokens 24 --temperature 0
for b in ${FT_PLAN_BUDGETS:-4 8 12 16}; do
  echo; echo "=== budget ${b} GiB ==="
  step bash -c "\"$ft\" inspect \"$model\" --plan --vram ${b}G --json > \"$out/plan-${b}g.json\""
  "$ft" inspect "$model" --plan --vram "${b}G"
  step "$ft" bench decode --model "$model" --device cuda --vram-budget "${b}G" --backend "${FT_PLAN_BACKENDS:-offload,hybrid}" \
    --routing synthetic --json "$out/decode-${b}g.json"
  step "$ft" bench prefill --model "$model" --device cuda --vram-budget "${b}G" --prompt-len 8192 --json "$out/prefill-${b}g.json"
done
echo; echo "check-planner: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
