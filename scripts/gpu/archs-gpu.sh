#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repo root, with .gpu/bundle.tar.xz (scripts/gpu/bundle.sh): the
# gpt-oss and GLM-4.5 paths on the GPU, in two calls back to back (the synthesized models wait in /dev/shm while the
# machine stays warm).
#   FT_ARCHS_STEPS=tests  the CUDA attention suite (gpt-oss's shape included), the goldens of gpt-oss / GLM with the
#                         fast and the exact prefill, every MoE backend against resident on the three tiny fixtures,
#                         and how far transformers' own logits move with BF16 matrix products
#                         (scripts/golden/bf16_sensitivity.py); starts the synthesis of the gpt-oss-20b (MXFP4 experts,
#                         BF16 rest) and GLM-4.5-Air (Q4_K, 16 of its 46 layers: the machine's RAM and disk hold no
#                         full 106 B model beside the rest) models in the background.
#   FT_ARCHS_STEPS=bench  `ft inspect --plan`, `ft bench decode` (offload, hybrid, cpu) and `ft bench prefill`
#                         (512 and 4096 tokens) of both at an 8 GiB budget, JSON in $OUT/archs-json.tar.
#   device run: command "FT_ARCHS_STEPS=tests bash scripts/gpu/archs-gpu.sh", carry [".gpu"]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
steps=${FT_ARCHS_STEPS:-tests}
exec > >(tee "$out/archs-$steps.log") 2>&1
source scripts/gpu/env.sh
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
oss=/dev/shm/gpt-oss-20b.gguf
glm=/dev/shm/glm-4.5-air-16l.gguf
json=/tmp/archs-json
mkdir -p "$json"

if [[ $steps == tests ]]; then
  # The models for the bench step, in a session of their own so they outlive this call.
  setsid bash -c "'$ft' synth --preset gpt-oss-20b --seed 1 --quiet --out $oss.part && mv $oss.part $oss;
                  '$ft' synth --preset glm-4.5-air --layers 16 --seed 1 --quiet --out $glm.part && mv $glm.part $glm" \
    > /tmp/archs-synth.log 2>&1 < /dev/null &
  step ctest --test-dir "$build_dir" -R '^(test_cuda_attention|test_golden_arch_gpu|test_golden_arch_gpu_f32|test_moe_backends.*)$' \
    --output-on-failure --timeout 400
  # The same binary on the other fixtures, also when the CTest files predate their entries.
  if ! grep -q test_moe_backends_gpt "$build_dir/tests/engine/CTestTestfile.cmake"; then
    for f in gpt-oss-tiny glm4-moe-tiny; do
      step timeout 300 env FT_BACKENDS_FIXTURE=$f "$build_dir/tests/engine/test_moe_backends" -maxwarnings 0
    done
  fi
  step timeout 150 env OMP_NUM_THREADS=4 python3 scripts/golden/bf16_sensitivity.py tests/data/qwen3-moe-tiny \
    tests/data/gpt-oss-tiny tests/data/glm4-moe-tiny
  cat /tmp/archs-synth.log; ls -l /dev/shm
fi

if [[ $steps == bench ]]; then
  for i in $(seq 120); do [[ -f $oss && -f $glm ]] && break; sleep 2; done
  cat /tmp/archs-synth.log; ls -l /dev/shm
  for m in $oss $glm; do
    n=$(basename "$m" .gguf)
    step "$ft" inspect "$m" --plan --vram 8G
    step "$ft" bench decode --model "$m" --device cuda --vram-budget 8G --backend offload,hybrid,cpu --json "$json/$n-decode.json"
    for len in 512 4096; do
      step "$ft" bench prefill --model "$m" --device cuda --vram-budget 8G --prompt-len $len --json "$json/$n-prefill$len.json"
    done
  done
  tar -C "$json" -cf "$out/archs-json.tar" .
fi
echo; echo "archs-gpu $steps: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
