#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repo root, with .gpu/bundle.tar.xz made by
#   FT_BUNDLE_BUILD=build/gpu-sm90 FT_BUNDLE_TARGETS="test_cuda_gemv test_cuda_ops" scripts/gpu/bundle.sh
# One call for the gpt-oss / GLM-4.5 work: the golden fixtures from transformers (CPU torch, in the background) and
# the CUDA kernel tests of MXFP4 and expert biases (the MXFP4, bias, expert and dequantization cases of
# test_cuda_gemv and a sample of the rest, the RoPE cases of test_cuda_ops, a memcheck of the MXFP4 cases, the MXFP4
# perf lines). Results in $OUT: gpt-oss-tiny.tar, glm4-moe-tiny.tar (the fixture folders: untar into tests/data),
# arch-check.log, golden-*.log, tf-src.tar (the transformers model sources the fixtures came from).
# FT_ARCH_STEPS=golden makes only the fixtures (no bundle needed, about 40 s); the default is "golden,gpu".
#   device run: command "bash scripts/gpu/arch-check.sh", carry [".gpu"]
#   device run: command "FT_ARCH_STEPS=golden bash scripts/gpu/arch-check.sh" (fixtures only)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/arch-out}
mkdir -p "$out"
exec > >(tee "$out/arch-check.log") 2>&1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=6

steps=${FT_ARCH_STEPS:-golden,gpu}
has() { [[ ",$steps," == *",$1,"* ]]; }
gold=/tmp/golden
mkdir -p "$gold"
pids=()
if has golden; then
  for arch in gpt_oss glm4_moe; do
    name=$([[ $arch == gpt_oss ]] && echo gpt-oss-tiny || echo glm4-moe-tiny)
    (timeout 170 python3 scripts/golden/make_arch_golden.py $arch "$gold/$name" > "$out/golden-$arch.log" 2>&1;
     echo "golden $arch exit $?" >> "$out/golden-$arch.log") &
    pids+=($!)
  done
fi

status=0
if has gpu; then
source scripts/gpu/env.sh
step nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
gemv=$build_dir/tests/cuda/test_cuda_gemv
ops=$build_dir/tests/cuda/test_cuda_ops
# Every MXFP4 and bias case, every expert and dequantization case, and a sample of the other types' plain GEMV
# cases (the epilogue all types share changed); the whole suite if the tags cannot be listed.
mapfile -t tags < <("$gemv" -datatags 2>/dev/null | awk '{f=$2; $1=""; $2=""; sub(/^ +/, ""); print f ":" $0}' |
  grep -E '^(expertsMatchReference|dequantizeMatchesReference|gemvBias):|mxfp4|router 128x2048 m1$|odd k|6x36|6x20|(q4_K|q5_K|q6_K|q8_0|bf16|f16|f32) (13x256|13x768|37x768|29x1024|7x512|33x512|4100x2048 m2)')
echo "gemv cases selected: ${#tags[@]}"
if (( ${#tags[@]} > 100 )); then
  step timeout 110 "$gemv" -maxwarnings 0 rejectsWhatItCannotDo "${tags[@]}"
else
  step timeout 110 "$gemv" -maxwarnings 0
fi
step timeout 30 "$ops" rope
if command -v compute-sanitizer >/dev/null; then
  step timeout 45 env FT_SANITIZER=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$gemv" \
    "matchesReference:mxfp4 21x160 m3" "matchesReference:mxfp4 19x480 m4 pad2" "matchesReference:mxfp4 7x32 m1" \
    "expertsMatchReference:mxfp4 tiny gate_up 96x160 bias slots" "expertsMatchReference:mxfp4 tiny down 160x96 bias" \
    "dequantizeMatchesReference:mxfp4->bf16 7x160" "gemvBias:mxfp4 m3 acc"
fi
for f in perfGemv perfExperts; do
  FT_TEST_PERF=1 timeout 15 "$gemv" $f 2>&1 | grep -E "PERF|FAIL" | grep -Ei "mxfp4|device copy|FAIL" || true
done
fi

# Only the golden jobs: a bare `wait` would also wait for the tee above, which never ends.
for p in "${pids[@]}"; do wait "$p"; done
python3 - <<'EOF' > "$out/tf-src.list" 2>&1 || true
import inspect, transformers, os
base = os.path.dirname(transformers.__file__)
for rel in ["models/gpt_oss/modeling_gpt_oss.py", "models/gpt_oss/configuration_gpt_oss.py",
            "models/glm4_moe/modeling_glm4_moe.py", "models/glm4_moe/configuration_glm4_moe.py",
            "modeling_rope_utils.py", "integrations/mxfp4.py", "integrations/moe.py", "conversion_mapping.py"]:
    p = os.path.join(base, rel)
    if os.path.exists(p):
        print(p)
EOF
tar -cf "$out/tf-src.tar" $(cat "$out/tf-src.list") 2>/dev/null || true
for name in gpt-oss-tiny glm4-moe-tiny; do
  [[ -d "$gold/$name" ]] && tar -C "$gold" -cf "$out/$name.tar" "$name"
done
ls -l "$out" "$gold"/* 2>/dev/null
echo; echo "arch check: $([[ $status == 0 ]] && echo GPU STEPS PASSED || echo SOME GPU STEPS FAILED)"
tail -n 3 "$out"/golden-*.log 2>/dev/null
exit $status
