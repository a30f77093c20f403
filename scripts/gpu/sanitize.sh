#!/usr/bin/env bash
# Runs on the GPU machine: compute-sanitizer memcheck (with leak check) over every CUDA kernel test and the
# expert-offload engine test, and racecheck over the kernel tests with shared memory, each with FT_SANITIZER=1 (the
# tests skip their largest cases, saying so) and a time limit (SANITIZE_LIMIT seconds, default 80). Prints one
# summary line per run. SANITIZE_MEMCHECK / SANITIZE_RACECHECK name the tests (space-separated). Log:
# $OUT/sanitize-*.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/env.sh
limit=${SANITIZE_LIMIT:-80}
out=${OUT:-/tmp}
run() {  # tool exe
  local tool=$1 name=$2 exe start rc
  exe=$(find "$build_dir/tests" -type f -perm -u+x -name "$name" | head -n 1)
  start=$SECONDS
  FT_SANITIZER=1 FT_SANITIZER_SKIP_VENDOR=1 timeout "$limit" compute-sanitizer --tool "$tool" \
    $([[ $tool == memcheck ]] && echo --leak-check full) --error-exitcode 9 "$exe" > "$out/sanitize-$tool-$name.log" 2>&1
  rc=$?
  [[ $rc == 0 ]] || status=1
  echo "$tool $name: rc=$rc $((SECONDS - start))s | $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|^Totals' "$out/sanitize-$tool-$name.log" | tr '\n' ' ')"
}
memcheck=${SANITIZE_MEMCHECK-test_cuda_smoke test_cuda_ops test_cuda_expert_cache test_cuda_attention test_cuda_gemv test_moe_backends}
racecheck=${SANITIZE_RACECHECK-test_cuda_ops test_cuda_expert_cache test_cuda_attention test_cuda_gemv}
for t in $memcheck; do run memcheck $t; done
for t in $racecheck; do run racecheck $t; done
echo "sanitize: $([[ $status == 0 ]] && echo ALL CLEAN || echo SOME RUNS FAILED OR TIMED OUT)"
exit $status
