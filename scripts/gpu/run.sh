#!/usr/bin/env bash
# Runs on the GPU machine (Linux + NVIDIA driver + CUDA 13, no Qt), from the repo root, with .gpu/bundle.tar.xz made
# by scripts/gpu/bundle.sh: device query, every gpu-labelled test (FT_REQUIRE_GPU=1: a skip is a failure here), the
# unit and model tests (to prove the bundle is whole), the GPU benchmarks (perf label), and compute-sanitizer
# memcheck + racecheck over the CUDA kernel tests. Log: $OUT/gpu-run.log. Exit status: non-zero if a step failed.
# FT_GPU_STEPS (default "gpu,unit,perf,sanitizer") picks the parts to run, FT_GPU_TESTS (a regex) the gpu tests. Under the sanitizer FT_SANITIZER=1 makes
# the kernel tests skip their largest cases (stated as QSKIP lines).
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/gpu-run.log") 2>&1
source scripts/gpu/env.sh

steps=${FT_GPU_STEPS:-gpu,unit,perf,sanitizer}
has() { [[ ",$steps," == *",$1,"* ]]; }
step nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
step "$ft" info
has gpu && step ctest --test-dir "$build_dir" -L gpu -LE perf ${FT_GPU_TESTS:+-R "$FT_GPU_TESTS"} --output-on-failure
has unit && step ctest --test-dir "$build_dir" -L "unit|model" -LE gpu --output-on-failure
has perf && step ctest --test-dir "$build_dir" -L perf -V
if ! has sanitizer; then
  :
elif command -v compute-sanitizer >/dev/null; then
  for exe in $(find "$build_dir/tests" -type f -perm -u+x \( -name 'test_cuda*' -o -name 'test_moe_backends' \) ! -name '*.sh'); do
    step env FT_SANITIZER=1 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$exe"
    # racecheck reports shared-memory hazards inside cuBLAS's own sm90 kernels (nvjet_*), and excluding them by
    # name makes the sanitizer fail on them: race-check our kernels, leave the vendor's out.
    step env FT_SANITIZER=1 FT_SANITIZER_SKIP_VENDOR=1 compute-sanitizer --tool racecheck --error-exitcode 9 "$exe"
  done
else
  echo "compute-sanitizer not found: sanitizer runs skipped"
fi
echo; echo "gpu run: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
