#!/usr/bin/env bash
# Runs on the GPU machine: the expert-offload correctness tests (every backend vs resident, the planning kernel vs
# its reference) and a short hybrid vs offload measurement (hybrid-sweep.sh with FRACTIONS="" B1_BACKENDS=offload,hybrid
# B4_BACKENDS=hybrid). Log: $OUT/check-offload.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec > >(tee "${OUT:-/tmp}/check-offload.log") 2>&1
source scripts/gpu/env.sh
step ctest --test-dir "$build_dir" -R "test_moe_backends|test_cuda_expert_cache$|test_golden_qwen3_moe_gpu$" --output-on-failure
FRACTIONS="" B1_BACKENDS=offload,hybrid B4_BACKENDS=hybrid bash scripts/gpu/hybrid-sweep.sh > /dev/null 2>&1 || status=1
grep -vE "^\[20" "${OUT:-/tmp}/hybrid-sweep.log" | grep -E "B_P|B_C|fraction|per token|summary|^  (offload|hybrid|backend) |/ best|hit rate"
exit $status
