#!/usr/bin/env bash
# Runs on the GPU machine: the block-based runners (model graph + device blocks) against the previous main, in one
# call. Needs .gpu/bundle.tar.xz (scripts/gpu/bundle.sh) and .gpu/base-ft.tar.xz (the previous main's `ft`, built by
# the same script's recipe from a worktree of that commit: `tar -C build/gpu-sm90/app -cJf base-ft.tar.xz ft`).
#  1. The GPU test suites (goldens with fast and exact prefill, every MoE backend against resident, the planner and
#     prefix cache on the GPU, the CUDA kernel suites), while the Qwen3-30B-A3B-shaped Q4_K model is synthesized.
#  2. Speed on that model, the two builds alternating (base, new, base, new): resident decode at batch 1, resident
#     prefill of 512 and 8192 tokens, and at an 8 GiB budget offload and hybrid decode (synthetic routing).
# FT_REDESIGN_FIXTURES=1 also makes the gpt-oss / GLM golden fixtures (scripts/gpu/arch-check.sh) beside step 1
# and returns them ($OUT/gpt-oss-tiny.tar, glm4-moe-tiny.tar). FT_REDESIGN_TESTS (a ctest regex) narrows step 1; round 2 runs only if round 1 ended within FT_REDESIGN_ROUND2_BY
# seconds (420) of the start. Log under $OUT, the JSON results in $OUT/redesign-json.tar.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/check-redesign.log") 2>&1
source scripts/gpu/env.sh
t0=$SECONDS
json=/tmp/redesign-json
mkdir -p "$json"
base=/tmp/ft-base/ft
mkdir -p /tmp/ft-base && tar -C /tmp/ft-base -xJf .gpu/base-ft.tar.xz
model=/dev/shm/qwen3-30b-a3b-q4_k.gguf
("$ft" synth --preset qwen3-30b-a3b --weights q4_k --seed 1 --out "$model" > "$out/synth.log" 2>&1; echo "synth: exit $?") &
synth=$!
# The gpt-oss and GLM golden fixtures from transformers (CPU torch, beside the tests), when asked for.
if [[ -n "${FT_REDESIGN_FIXTURES:-}" ]]; then
  (OUT=/tmp/arch-out FT_ARCH_STEPS=golden bash scripts/gpu/arch-check.sh > /dev/null 2>&1; echo "fixtures done") &
fi
step ctest --test-dir "$build_dir" -L gpu -LE perf ${FT_REDESIGN_TESTS:+-R "$FT_REDESIGN_TESTS"} --output-on-failure --timeout 300
wait $synth
for round in 1 2; do
  (( round == 2 && SECONDS - t0 > ${FT_REDESIGN_ROUND2_BY:-420} )) && { echo "no time left for round 2"; break; }
  for which in base new; do
    bin=$ft
    [[ $which == base ]] && bin=$base
    echo; echo "=== round $round: $which ==="
    step "$bin" bench decode --model "$model" --device cuda --backend resident --gen 128 --json "$json/dec-res-$which-$round.json"
    step "$bin" bench prefill --model "$model" --device cuda --moe-backend resident --prompt-len 512 --json "$json/pre512-$which-$round.json"
    step "$bin" bench prefill --model "$model" --device cuda --moe-backend resident --prompt-len 8192 --json "$json/pre8k-$which-$round.json"
    step "$bin" bench decode --model "$model" --device cuda --vram-budget 8G --backend offload,hybrid --routing synthetic \
      --json "$json/dec-8g-$which-$round.json"
  done
done
tar -C "$json" -cf "$out/redesign-json.tar" . 2>/dev/null
if [[ -n "${FT_REDESIGN_FIXTURES:-}" ]]; then
  for i in $(seq 60); do [[ -f /tmp/arch-out/glm4-moe-tiny.tar && -f /tmp/arch-out/gpt-oss-tiny.tar ]] && break; sleep 2; done
  cp /tmp/arch-out/gpt-oss-tiny.tar /tmp/arch-out/glm4-moe-tiny.tar "$out/" 2>/dev/null
  tar -C /tmp/arch-out -cf "$out/golden-logs.tar" --wildcards '*.log' 2>/dev/null
fi
echo; echo "check-redesign: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
