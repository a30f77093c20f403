#!/usr/bin/env bash
# Runs on the GPU machine (Linux + NVIDIA driver + CUDA 13, no Qt), from the repo root, with .gpu/bundle.tar.xz made
# by scripts/gpu/bundle.sh. Unpacks the bundle, then: device query, every gpu-labelled test (FT_REQUIRE_GPU=1: a
# skip is a failure here), the unit tests (to prove the bundle is whole), the GPU benchmarks (perf label), and
# compute-sanitizer memcheck + racecheck over the kernel tests. Everything is logged to $OUT/gpu-run.log when OUT is
# set. Exit status: non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
log=${OUT:-/tmp}/gpu-run.log
exec > >(tee "$log") 2>&1

[[ -f .gpu/bundle.tar.xz ]] || { echo "no .gpu/bundle.tar.xz: run scripts/gpu/bundle.sh first (and carry .gpu)"; exit 2; }
dest=/tmp/ft-bundle
rm -rf "$dest" && mkdir -p "$dest" && tar -C "$dest" -xJf .gpu/bundle.tar.xz
build_dir=$(cat "$dest/BUILD_DIR")
source_dir=$(cat "$dest/SOURCE_DIR")
# CTest files name the build and source folders by the paths they had where they were built: recreate them.
mkdir -p "$(dirname "$build_dir")"
[[ -e "$build_dir" ]] || ln -s "$dest/build" "$build_dir"
[[ -e "$source_dir" ]] || { mkdir -p "$(dirname "$source_dir")"; ln -s "$repo" "$source_dir"; }
cuda_lib=$(dirname "$(find / -name 'libcublas.so.13' -not -path '*/proc/*' 2>/dev/null | head -n 1)")
export LD_LIBRARY_PATH="$dest/lib:${cuda_lib}:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FT_REQUIRE_GPU=1

status=0
step() { echo; echo "=== $* ==="; "$@" || { echo "=== FAILED: $* ==="; status=1; }; }

step nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
step "$build_dir/app/ft" info
step ctest --test-dir "$build_dir" -L gpu -LE perf --output-on-failure
step ctest --test-dir "$build_dir" -L unit --output-on-failure
step ctest --test-dir "$build_dir" -L perf -V
if command -v compute-sanitizer >/dev/null; then
  for exe in $(find "$build_dir/tests" -type f -perm -u+x -name 'test_cuda*' ! -name '*.sh'); do
    step compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$exe"
    # racecheck reports shared-memory hazards inside cuBLAS's own sm90 kernels (nvjet_*), which are not ours to fix
    # and are correct by NVIDIA's design; our kernels are checked.
    step compute-sanitizer --tool racecheck --kernel-name-exclude kns=nvjet --error-exitcode 9 "$exe"
  done
else
  echo "compute-sanitizer not found: sanitizer runs skipped"
fi
echo; echo "gpu run: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
