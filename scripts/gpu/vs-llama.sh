#!/usr/bin/env bash
# Runs on the GPU machine: llama.cpp's llama-bench (the prebuilt peer in ../shared/peers/llama.cpp) and our `ft bench`
# side by side on the same GGUF in one call, and writes the comparison table to $OUT/vs-llama.md (+ the raw logs).
# The peer's tarball (42 MB) does not fit one call beside the working tree (≈ 64.5 MiB of the 64 MiB a call carries;
# move the demo model and the fixtures out for these calls, docs/gpu-machine.md), so
# it goes over in parts, in calls back to back while the machine stays warm (it keeps /tmp for 30 s after a call):
#   here:  mkdir -p .peer && (cd .peer && split -b 14000000 -d ../../shared/peers/llama.cpp/llama-bench-sm90-cuda13.tar.xz part)
#   device run: command "bash scripts/gpu/vs-llama.sh receive", carry [".peer/part00"]   (then part01, part02)
#   device run: command "bash scripts/gpu/vs-llama.sh run", carry [".gpu"]     (.gpu/bundle.tar.xz: scripts/gpu/bundle.sh)
# `receive` keeps each part in /tmp/llama-parts and unpacks the peer into /tmp/llama once the parts make a whole.
# Rows (the 30B-A3B-shaped Q4_K `ft synth` file, seed 1; llama.cpp `-fa 1 -t 16`):
#   all in VRAM: llama -ncmoe 0 vs ft resident; 8 GB class: llama -ncmoe 30 (≈ 7.4 GiB peak) vs ft at --vram-budget 8G
#   (offload, hybrid; synthetic routing, as the issue's figures); experts on the CPU: llama -ncmoe 48 vs ft cpu
#   backend. llama-bench's tg128 decodes from an empty context, ours after a 512-token prompt (its default); prefill
#   512 and 8192 tokens (8192 not with -ncmoe 48). Peak VRAM sampled with nvidia-smi every 500 ms.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
out=${OUT:-/tmp}
llama=/tmp/llama
if [[ $mode == receive ]]; then
  mkdir -p /tmp/llama-parts && cp .peer/part* /tmp/llama-parts/ && ls -l /tmp/llama-parts
  if cat /tmp/llama-parts/part* | xz -t 2>/dev/null; then
    mkdir -p "$llama" && cat /tmp/llama-parts/part* | tar -C "$llama" -xJf - && echo "peer unpacked:" && ls "$llama"
  else
    echo "not whole yet: send the next part"
  fi
  exit 0
fi
exec > >(tee "$out/vs-llama.log") 2>&1
source scripts/gpu/env.sh
bench=$(find "$llama" -name llama-bench -type f | head -n 1)
[[ -x "$bench" ]] || { echo "no llama-bench under $llama: send it first ('vs-llama.sh receive', carrying .peer/partNN)"; exit 2; }
model=/dev/shm/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --seed 1 --out "$model"
json=/tmp/vs-llama-json
mkdir -p "$json"

# Peak VRAM of a command (MiB).
peak() {
  local f=$1; shift
  # One long-lived nvidia-smi polling every 500 ms: a new nvidia-smi every 100 ms took enough CPU time to stall the
  # CPU expert workers (cpu backend 13 tok/s instead of ~45 in the first run of this script).
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 > "$f.vram" &
  local sampler=$!
  "$@"
  local rc=$?
  kill $sampler 2>/dev/null
  sort -n "$f.vram" | tail -n 1 > "$f.peak"
  return $rc
}

for ncmoe in 0 30 48; do
  echo; echo "=== llama-bench -ncmoe $ncmoe ==="
  prompts=512,8192
  (( ncmoe == 48 )) && prompts=512
  peak "$json/llama-$ncmoe" step "$bench" -m "$model" -fa 1 -t 16 -ngl 99 -ncmoe $ncmoe -p $prompts -n 128 -r 3 -o json \
    > "$json/llama-$ncmoe.json"
done
echo; echo "=== ft: all in VRAM ==="
peak "$json/ft-res-dec" step "$ft" bench decode --model "$model" --device cuda --backend resident --json "$json/ft-res-dec.json"
for len in 512 8192; do
  peak "$json/ft-res-pre$len" step "$ft" bench prefill --model "$model" --device cuda --moe-backend resident \
    --prompt-len $len --json "$json/ft-res-pre$len.json"
done
echo; echo "=== ft: 8 GiB budget ==="
peak "$json/ft-8g-dec" step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --backend offload,hybrid \
  --routing synthetic --json "$json/ft-8g-dec.json"
for len in 512 8192; do
  peak "$json/ft-8g-pre$len" step "$ft" bench prefill --model "$model" --device cuda --vram-budget 8G --prompt-len $len \
    --json "$json/ft-8g-pre$len.json"
done
echo; echo "=== ft: experts on the CPU ==="
peak "$json/ft-cpu-dec" step "$ft" bench decode --model "$model" --device cuda --backend cpu --json "$json/ft-cpu-dec.json"
peak "$json/ft-cpu-pre512" step "$ft" bench prefill --model "$model" --device cuda --moe-backend cpu --prompt-len 512 \
  --json "$json/ft-cpu-pre512.json"

# The table (python3 is on the machine).
python3 - "$json" "$out/vs-llama.md" "$("$bench" --version 2>&1 | head -n 2 | tr '\n' ' ')" <<'PY'
import json, sys, datetime, pathlib
d, dest, version = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
def load(name):
    # llama-bench's JSON shares its file with the step's "=== command ===" lines: read from the first bracket.
    try:
        t = (d / name).read_text()
        start = min(i for i in (t.find("["), t.find("{")) if i >= 0)
        end = max(t.rfind("]"), t.rfind("}")) + 1
        return json.loads(t[start:end])
    except Exception: return None
def peak(name):
    try: return f"{int((d / (name + '.peak')).read_text().split()[0]) / 1024:.1f} GiB"
    except Exception: return "?"
def llama(ncmoe, key):
    runs = load(f"llama-{ncmoe}.json") or []
    for r in runs:
        if key == "tg" and r.get("n_gen") == 128 and r.get("n_prompt") == 0: return r.get("avg_ts")
        if key != "tg" and r.get("n_prompt") == key and r.get("n_gen") == 0: return r.get("avg_ts")
    return None
def ft_dec(name, backend):
    j = load(name) or {}
    for r in j.get("runs", [j]):
        if r.get("backend") == backend: return r.get("decode_tok_s")
    return None
def ft_pre(name):
    j = load(name) or {}
    return j.get("prefill_tok_s") or j.get("tok_s")
def f(x): return "—" if x is None else f"{x:,.1f}"
def ratio(a, b): return "—" if not a or not b else f"{a / b:.2f}×"
rows = [
    ("all in VRAM, decode batch 1", llama(0, "tg"), ft_dec("ft-res-dec.json", "resident"), peak("llama-0"), peak("ft-res-dec")),
    ("all in VRAM, prefill 512", llama(0, 512), ft_pre("ft-res-pre512.json"), "", ""),
    ("all in VRAM, prefill 8192", llama(0, 8192), ft_pre("ft-res-pre8192.json"), "", ""),
    ("8 GB class, decode (ours: offload)", llama(30, "tg"), ft_dec("ft-8g-dec.json", "offload"), peak("llama-30"), peak("ft-8g-dec")),
    ("8 GB class, decode (ours: hybrid)", llama(30, "tg"), ft_dec("ft-8g-dec.json", "hybrid"), "", ""),
    ("8 GB class, prefill 512", llama(30, 512), ft_pre("ft-8g-pre512.json"), "", ""),
    ("8 GB class, prefill 8192", llama(30, 8192), ft_pre("ft-8g-pre8192.json"), "", ""),
    ("experts on the CPU, decode", llama(48, "tg"), ft_dec("ft-cpu-dec.json", "cpu"), peak("llama-48"), peak("ft-cpu-dec")),
    ("experts on the CPU, prefill 512", llama(48, 512), ft_pre("ft-cpu-pre512.json"), "", ""),
]
first = (load("llama-0.json") or [{}])[0]
version = f"build {first.get('build_number', '?')} ({first.get('build_commit', '?')}), {first.get('gpu_info', '')}"
lines = [f"Measured {datetime.date.today()} on the GPU machine by scripts/gpu/vs-llama.sh; llama.cpp: {version}",
         "", "| path | llama.cpp tok/s | ours tok/s | ours / llama.cpp | peak VRAM llama.cpp | peak VRAM ours |",
         "| --- | --- | --- | --- | --- | --- |"]
for name, a, b, pa, pb in rows:
    lines.append(f"| {name} | {f(a)} | {f(b)} | {ratio(b, a)} | {pa} | {pb} |")
pathlib.Path(dest).write_text("\n".join(lines) + "\n")
print("\n".join(lines))
PY
tar -C "$json" -cf "$out/vs-llama-json.tar" .
echo; echo "vs-llama: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
exit $status
