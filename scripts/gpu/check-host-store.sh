#!/usr/bin/env bash
# Runs on the GPU machine: the online q* refinement and the partly pinned host store on the Qwen3-30B-A3B-shaped Q4_K
# model at an 8 GiB budget. Decode (synthetic routing): offload; hybrid with q* refined online (the default) and
# hybrid with the fraction fixed at the profile's value (refinement off), three times each, alternating. `ft run`
# with `--pin-budget 4G` (most experts through the bounce ring) against no budget: the same tokens, the host-store
# log line, decode tok/s. Then every gpu-labelled test. Log and JSON under $OUT.
# FT_HOST_STORE_TESTS=0 skips the test suite.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
exec > >(tee "$out/check-host-store.log") 2>&1
source scripts/gpu/env.sh
model=/tmp/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --out "$model"
bench() {  # name, extra options
  local name=$1; shift
  step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --gen 256 --json "$out/decode-$name.json" "$@"
}
bench offload --backend offload
# Alternating runs: the H200's hybrid figures vary by ±5 % from run to run.
for i in 1 2 3; do
  bench hybrid-online-$i --backend hybrid
  start=$(python3 -c "import json;print(json.load(open('$out/decode-hybrid-online-$i.json'))['runs'][0]['fraction_start'])")
  bench hybrid-fixed-$i --backend hybrid --hybrid-fraction "$start"
done
python3 - "$out" <<'PY'
import json, sys
rows = [(n, json.load(open(f"{sys.argv[1]}/decode-{n}.json"))["runs"][0]) for n in
        ["offload"] + [f"hybrid-{k}-{i}" for i in (1, 2, 3) for k in ("online", "fixed")]]
for n, r in rows:
    print(f"{n:18s} {r['decode_tok_s']:6.1f} tok/s  hit {100 * r['hit_rate']:4.1f} %  q* {r['fraction_start']:.3f} -> "
          f"{r['fraction_end']:.3f}  live B_P {r['live_fetch_gbs']:.1f} B_C {r['live_cpu_gbs']:.1f} GB/s")
PY
for b in offload hybrid; do
  for pb in 0 4G; do
    echo; echo "=== ft run, $b, pin budget $pb ==="
    "$ft" --log-level info run --model "$model" --device cuda --vram-budget 8G --moe-backend $b --pin-budget $pb \
      --prompt "The capital of France is" --max-tokens 200 --temperature 0 --ignore-eos --print-ids \
      > "$out/run-$b-$pb.txt" 2> "$out/run-$b-$pb.log" || { echo "=== FAILED: ft run $b $pb ==="; status=1; }
    grep -E "expert host store|bounce" "$out/run-$b-$pb.log"
    tail -n 1 "$out/run-$b-$pb.txt"
  done
  ids() { grep -E '^[0-9]+(,[0-9]+)+$' "$1"; }
  if [[ -n $(ids "$out/run-$b-0.txt") ]] && cmp -s <(ids "$out/run-$b-0.txt") <(ids "$out/run-$b-4G.txt"); then echo "$b: same tokens with --pin-budget 4G"
  else echo "=== FAILED: $b: tokens differ with --pin-budget 4G ==="; status=1; fi
done
[[ ${FT_HOST_STORE_TESTS:-1} == 1 ]] && step ctest --test-dir "$build_dir" -L gpu -LE perf --output-on-failure
echo; echo "check-host-store: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
