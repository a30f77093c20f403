#!/usr/bin/env bash
# Runs on the GPU machine: the peers' llama-bench and our `ft bench` side by side on the same GGUF in one call, and
# writes the comparison table to $OUT/vs-llama-<mode>.md (+ the raw logs and JSON).
# The peers (never in the repo): llama.cpp of 2026-08-22 and ik_llama.cpp of 2026-08-15, their llama-bench built on a
# GPU machine by ../shared/peers/llama.cpp/build-peers.sh and brought back as NAME.partNN (xz tarballs split in
# parts ≤ 15 MB); the June llama.cpp (the prebuilt llama-bench-sm90-cuda13.tar.xz, 42 MB) as llama.cpp-june.partNN
# when a call has room for it. The machine keeps nothing between calls, so the peers travel with each call that uses
# them: with the demo model and the fixtures out of the tree (docs/gpu-machine.md), the bundle, the tree and both
# newer peers fit the 64 MiB a call carries.
#   here:  mkdir -p .peer && cp /path/to/peers/{llama.cpp,ik_llama.cpp}.part* .peer/
#   device run: command "bash scripts/gpu/vs-llama.sh receive && bash scripts/gpu/vs-llama.sh run", carry [".gpu", ".peer"]
#              (.gpu/bundle.tar.xz: scripts/gpu/bundle.sh; FT_BUNDLE_ONLY=ft is enough)
#   `run gpu` / `run cpu`: only the rows with the model's experts in VRAM (all, 8 GB class) / on the CPU, when a call
#   cannot hold every row of every peer (each row compares only figures of one call).
#   device run: command "bash scripts/gpu/vs-llama.sh default 10", carry [".gpu"]   (ours only: the 8 GiB default)
#   device run: command "bash scripts/gpu/vs-llama.sh links", carry [".gpu"]   (ours only, no peer: the emulated links)
# `receive` unpacks each peer whose parts make a whole into /tmp/peers/NAME.
# Rows (the 30B-A3B-shaped Q4_K `ft synth` file, seed 1; every peer `-fa 1 -t 16 -ngl 99` at its documented best MoE
# options: llama.cpp `-ncmoe N`, ik_llama.cpp `--n-cpu-moe N -fmoe 1 -rtr 1`):
#   all in VRAM: N = 0 vs ft resident; 8 GB class: N = 30 (≈ 7.4 GiB peak for llama.cpp) vs ft at --vram-budget 8G
#   (offload, then the defaults — auto — in a process of its own; synthetic routing, as the issue's figures); experts
#   on the CPU: N = 48 vs ft cpu backend. llama-bench's tg128 decodes from an empty context, ours after a 512-token
#   prompt (its default); prefill 512 and 8192 tokens (8192 not with N = 48). Peak VRAM sampled with nvidia-smi
#   every 500 ms.
#   Ours only, in the same run: `ft bench cpu-moe` (the CPU expert kernel against host read) and the miss service of the
#   8 GB rows (ms/token beyond the resident step's, against its floor: miss bytes / host read).
# `default N` (ours only): N fresh processes at the product's defaults (--vram-budget 8G, synthetic routing) and, in
#   turn with them, the fixed backends a user could pick instead — offload twice, hybrid at fixed q* 0.05, 0.15, 0.27,
#   0.4 and 1 (offload's step inside the hybrid backend: a default run that ends its search at q* = 1 runs that) —
#   each a process of its own (FT_DEFAULT_FIXED="offload 0.27 …" sets that list); the table
#   ($OUT/vs-llama-default.md, written again after each run, so a call cut short keeps what it measured) says how
#   far each default run is from the best fixed one, and how
#   each default run's q* search ended (its info log's final comparison: the fractions, their rates against q* = 1,
#   the gain and the noise band; each run's log in default-N.log of the JSON tarball).
# `links` (the peer has no such mode): `ft bench decode --pcie-limit L --threads N --backend
#   offload,hybrid,cpu,auto` at the 8 GiB budget for L = 12, 25 GB/s and N = 8, 16 (hybrid against the better of offload
#   and cpu, and what auto chose), then offload and hybrid on the real link in separate processes, twice each, in turn.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
out=${OUT:-/tmp}
peers=/tmp/peers
if [[ $mode == receive ]]; then
  shopt -s nullglob
  for first in .peer/*.part00; do
    name=$(basename "$first" .part00)
    if cat ".peer/$name".part* | xz -t 2>/dev/null; then
      mkdir -p "$peers/$name" && cat ".peer/$name".part* | tar -C "$peers/$name" -xJf - && echo "peer $name unpacked:" &&
        ls "$peers/$name"
    else
      echo "peer $name: its parts do not make a whole"
    fi
  done
  exit 0
fi
exec > >(tee "$out/vs-llama-$mode.log") 2>&1
source scripts/gpu/env.sh
model=/dev/shm/qwen3-30b-a3b-q4_k.gguf
[[ -f $model ]] || step "$ft" synth --preset qwen3-30b-a3b --weights q4_k --seed 1 --out "$model"
json=/tmp/vs-llama-json
mkdir -p "$json"
# The raw JSON to $OUT, and whether every step passed.
finish() {
  tar -C "$json" -cf "$out/vs-llama-$1-json.tar" .
  echo; echo "vs-llama $1: $([[ $status == 0 ]] && echo ALL STEPS PASSED || echo SOME STEPS FAILED)"
  exit $status
}

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

if [[ $mode == default ]]; then
  runs=${2:-10}
  read -r -a fixed <<< "${FT_DEFAULT_FIXED:-offload 0.05 0.15 0.27 0.4 1 offload}"
  # A command with its stderr also in a file of its own.
  logged() { local log=$1; shift; "$@" 2> >(tee "$log" >&2); }
  # The table from the runs measured so far.
  table() {
  python3 - "$json" <<'PY'
import json, sys, datetime, pathlib
d = pathlib.Path(sys.argv[1])
def run(p):
    try: return (json.loads(p.read_text()).get("runs") or [None])[0]
    except Exception: return None
fixed = []
for p in sorted(d.glob("fixed-*.json")):
    r = run(p)
    if r: fixed.append((p.stem.split("-", 2)[2], r.get("decode_tok_s") or 0))
best = max((t for _, t in fixed), default=0)
best_name = next((n for n, t in fixed if t == best), "?")
lines = [f"Measured {datetime.date.today()} on the GPU machine by scripts/gpu/vs-llama.sh default (8 GiB budget, synthetic "
         "routing, each run a fresh process; tok/s)", "",
         "Fixed backends: " + ", ".join(f"{n} {t:,.1f}" for n, t in fixed) + f"; the best: {best_name} {best:,.1f}", "",
         "| default run | backend | tok/s | / best fixed | q* after the search | search s | final comparison: best q* → tok/s vs q* = 1 | its log |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
within = 0; n = 0
for p in sorted(d.glob("default-*.json"), key=lambda p: int(p.stem.split("-")[1])):
    r = run(p)
    if not r: lines.append(f"| {p.stem} | (failed) | | | | | | |"); continue
    t = r.get("decode_tok_s") or 0
    n += 1; within += best > 0 and t >= 0.97 * best
    duel = (r.get("q_search") or {}).get("duel")
    ds = (f"{duel['center']:.3f} → {duel['center_tok_s']:.1f} vs {duel['all_tok_s']:.1f} ({'kept' if duel['center_won'] else 'q* = 1'})"
          if duel else "—")
    q = f"{r.get('fraction_end', 0):.3f}" if r.get("backend") == "hybrid" else "—"
    secs = (r.get("q_search") or {}).get("seconds")
    log = p.with_suffix(".log")
    said = [l.split("hybrid: ", 1)[1].strip() for l in (log.read_text(errors="replace").splitlines() if log.exists() else [])
            if "final comparison" in l and "hybrid: " in l]
    lines.append(f"| {p.stem.split('-')[1]} | {r.get('backend')} | {t:,.1f} | {t / best if best else 0:.3f} | {q} | "
                 f"{'—' if secs is None else f'{secs:.1f}'} | {ds} | {said[-1] if said else '—'} |")
lines += ["", f"{within} of {n} default runs within 3 % of the best fixed backend ({best_name}, {best:,.1f} tok/s)."]
print("\n".join(lines))
PY
  }
  for ((i = 0; i < runs; ++i)); do
    step logged "$json/default-$i.log" "$ft" --log-level info bench decode --model "$model" --device cuda --vram-budget 8G \
      --routing synthetic --json "$json/default-$i.json"
    if (( i < ${#fixed[@]} )); then
      f=${fixed[$i]}
      if [[ $f == offload ]]; then
        step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --backend offload \
          --json "$json/fixed-$i-offload.json"
      else
        step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --backend hybrid \
          --hybrid-fraction "$f" --json "$json/fixed-$i-q$f.json"
      fi
    fi
    table > "$out/vs-llama-default.md"
  done
  table | tee "$out/vs-llama-default.md"
  finish default
fi

if [[ $mode == links ]]; then
  for limit in 12 25; do
    for threads in 8 16; do
      step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --threads $threads \
        --pcie-limit $limit --backend offload,hybrid,cpu,auto --json "$json/link-$limit-$threads.json"
    done
  done
  for round in 1 2; do
    for b in offload hybrid; do
      step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --backend $b \
        --json "$json/real-$b-$round.json"
    done
  done
  # Where a hybrid step's time goes on the real link at fixed fractions (the search's curve, one window each).
  for q in 0.05 0.35 0.8; do
    step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --routing synthetic --backend hybrid \
      --hybrid-fraction $q --json "$json/real-q$q.json"
  done
  python3 - "$json" <<'PY' | tee "$out/vs-llama-links.md"
import json, sys, datetime, pathlib
d = pathlib.Path(sys.argv[1])
def runs(name):
    try: return json.loads((d / name).read_text()).get("runs", [])
    except Exception: return []
def f(x): return "—" if x is None else f"{x:,.1f}"
def search(x):  # a hybrid run's q* after the search: the fraction, the search's decode seconds and windows
    c = x.get("counters", {})
    return (f"{x.get('fraction_end', 0):.3f} ({c.get('hybrid_search_seconds', 0):.1f} s, "
            f"{int(c.get('hybrid_search_windows', 0))} windows)")
lines = [f"Measured {datetime.date.today()} on the GPU machine by scripts/gpu/vs-llama.sh links (ours only; 8 GiB budget, "
         "synthetic routing; tok/s)", "",
         "| link | threads | offload | hybrid | cpu | auto (its choice) | hybrid / best of offload, cpu | q* after the search |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for limit in (12, 25):
    for threads in (8, 16):
        r = runs(f"link-{limit}-{threads}.json")
        t = [x.get("decode_tok_s") for x in r]
        best = max(t[0] or 0, t[2] or 0) if len(t) == 4 else 0
        if not best: lines.append(f"| {limit} GB/s | {threads} | (failed) | | | | | |"); continue
        lines.append(f"| {limit} GB/s | {threads} | {f(t[0])} | {f(t[1])} | {f(t[2])} | {f(t[3])} ({r[3].get('backend')}) | "
                     f"{(t[1] or 0) / best:.2f}× | {search(r[1])} |")
lines += ["", "| real link, separate processes | tok/s | hit % | PCIe fetch ms (profiled step) | q* |", "| --- | --- | --- | --- | --- |"]
for rnd in (1, 2):
    for b in ("offload", "hybrid"):
        r = runs(f"real-{b}-{rnd}.json")
        if not r: lines.append(f"| {b} ({rnd}) | (failed) | | | |"); continue
        x = r[0]
        q = search(x) if b == "hybrid" else "—"
        lines.append(f"| {b} ({rnd}) | {f(x.get('decode_tok_s'))} | {100 * x.get('hit_rate', 0):.1f} | "
                     f"{x.get('phases_ms', {}).get('experts: PCIe fetch', 0):.3f} | {q} |")
lines += ["", "| real link, hybrid at a fixed q* | tok/s | step ms | hit % | CPU experts / token | fetched / token | CPU side per layer: busy (executor) µs | CPU waits for the GPU µs |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for q in ("0.05", "0.35", "0.8"):
    r = runs(f"real-q{q}.json")
    if not r: lines.append(f"| {q} | (failed) | | | | | | |"); continue
    x = r[0]
    lines.append(f"| {q} | {f(x.get('decode_tok_s'))} | {x.get('step_ms', 0):.3f} | {100 * x.get('hit_rate', 0):.1f} | "
                 f"{x.get('cpu_per_token', 0):.1f} | {x.get('fetched_per_token', 0):.1f} | "
                 f"{x.get('cpu_busy_us_per_layer', 0):.1f} ({x.get('cpu_executor_us_per_layer', 0):.1f}) | "
                 f"{x.get('cpu_gap_us_per_layer', 0):.1f} |")
print("\n".join(lines))
PY
  finish links
fi

# Each peer at its documented best options for MoE offload (the flag taking the number of layers whose experts stay on
# the CPU comes last).
declare -A peer_opts=([llama.cpp-june]="-fa 1 -ncmoe" [llama.cpp]="-fa 1 -ncmoe" [ik_llama.cpp]="-fa 1 -fmoe 1 -rtr 1 --n-cpu-moe")
names=()
for name in llama.cpp-june llama.cpp ik_llama.cpp; do
  [[ -x $peers/$name/llama-bench ]] && names+=("$name")
done
(( ${#names[@]} )) || { echo "no peer under $peers: send them first ('vs-llama.sh receive', carrying .peer)"; exit 2; }
rows=${2:-all}
ncmoes=(); [[ $rows == all || $rows == gpu ]] && ncmoes+=(0 30); [[ $rows == all || $rows == cpu ]] && ncmoes+=(48)
for name in "${names[@]}"; do
  for ncmoe in "${ncmoes[@]}"; do
    echo; echo "=== $name: $ncmoe layers' experts on the CPU ==="
    prompts=512,8192
    (( ncmoe == 48 )) && prompts=512
    peak "$json/$name-$ncmoe" step "$peers/$name/llama-bench" -m "$model" -t 16 -ngl 99 ${peer_opts[$name]} $ncmoe \
      -p $prompts -n 128 -r 3 -o json > "$json/$name-$ncmoe.json"
  done
done
if [[ $rows == all || $rows == gpu ]]; then
  echo; echo "=== ft: all in VRAM ==="
  peak "$json/ft-res-dec" step "$ft" bench decode --model "$model" --device cuda --backend resident --json "$json/ft-res-dec.json"
  for len in 512 8192; do
    peak "$json/ft-res-pre$len" step "$ft" bench prefill --model "$model" --device cuda --moe-backend resident \
      --prompt-len $len --json "$json/ft-res-pre$len.json"
  done
  echo; echo "=== ft: 8 GiB budget ==="
  # Offload, then the product's default (auto: hybrid at this budget) in a process of its own: a run after offload in
  # the same process starts from the cache and stored use that offload left (2026-12-06: 170.3 there, 196.7 / 198.3
  # alone).
  peak "$json/ft-8g-dec" step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G --backend offload \
    --routing synthetic --json "$json/ft-8g-dec.json"
  peak "$json/ft-8g-auto" step "$ft" bench decode --model "$model" --device cuda --vram-budget 8G \
    --routing synthetic --json "$json/ft-8g-auto.json"
  for len in 512 8192; do
    peak "$json/ft-8g-pre$len" step "$ft" bench prefill --model "$model" --device cuda --vram-budget 8G --prompt-len $len \
      --json "$json/ft-8g-pre$len.json"
  done
fi
if [[ $rows == all || $rows == cpu ]]; then
  echo; echo "=== ft: experts on the CPU ==="
  peak "$json/ft-cpu-dec" step "$ft" bench decode --model "$model" --device cuda --backend cpu --json "$json/ft-cpu-dec.json"
  peak "$json/ft-cpu-pre512" step "$ft" bench prefill --model "$model" --device cuda --moe-backend cpu --prompt-len 512 \
    --json "$json/ft-cpu-pre512.json"
  step "$ft" bench cpu-moe --model "$model" --threads 16 --rounds 6 --json "$json/ft-cpu-moe.json"
fi

# The table (python3 is on the machine).
python3 - "$json" "${names[@]}" <<'PY' | tee "$out/vs-llama.md"
import json, sys, datetime, pathlib
d = pathlib.Path(sys.argv[1])
names = sys.argv[2:]
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
    except Exception: return None
def llama(peer, ncmoe, key):
    for r in load(f"{peer}-{ncmoe}.json") or []:
        if key == "tg" and r.get("n_gen") == 128 and r.get("n_prompt") == 0: return r.get("avg_ts")
        if key != "tg" and r.get("n_prompt") == key and r.get("n_gen") == 0: return r.get("avg_ts")
    return None
def ft_dec(name, backend=None):  # backend None: the file's one run
    j = load(name) or {}
    for r in j.get("runs", [j]):
        if backend is None or r.get("backend") == backend: return r.get("decode_tok_s")
    return None
auto = ((load("ft-8g-auto.json") or {}).get("runs") or [{}])[0]
def ft_pre(name):
    j = load(name) or {}
    return j.get("prefill_tok_s") or j.get("tok_s")
def f(x): return "—" if x is None else f"{x:,.1f}"
def with_peak(x, p): return f(x) + (f" ({p})" if p and x is not None else "")
rows = [  # name, ncmoe, peer key, ours, our peak file
    ("all in VRAM, decode batch 1", 0, "tg", ft_dec("ft-res-dec.json", "resident"), "ft-res-dec"),
    ("all in VRAM, prefill 512", 0, 512, ft_pre("ft-res-pre512.json"), None),
    ("all in VRAM, prefill 8192", 0, 8192, ft_pre("ft-res-pre8192.json"), None),
    ("8 GB class, decode (ours: offload)", 30, "tg", ft_dec("ft-8g-dec.json", "offload"), "ft-8g-dec"),
    (f"8 GB class, decode (ours: defaults, auto chose {auto.get('backend', '?')})", 30, "tg", ft_dec("ft-8g-auto.json"),
     "ft-8g-auto"),
    ("8 GB class, prefill 512", 30, 512, ft_pre("ft-8g-pre512.json"), None),
    ("8 GB class, prefill 8192", 30, 8192, ft_pre("ft-8g-pre8192.json"), None),
    ("experts on the CPU, decode", 48, "tg", ft_dec("ft-cpu-dec.json", "cpu"), "ft-cpu-dec"),
    ("experts on the CPU, prefill 512", 48, 512, ft_pre("ft-cpu-pre512.json"), None),
]
versions = []
for n in names:
    first = next((load(f"{n}-{k}.json") or [{}] for k in (0, 30, 48) if load(f"{n}-{k}.json")), [{}])[0]
    versions.append(f"{n}: build {first.get('build_number', '?')} ({first.get('build_commit', '?')})")
gpu = next((r.get("gpu_info") for n in names for k in (0, 30, 48) for r in (load(f"{n}-{k}.json") or [])), "")
lines = [f"Measured {datetime.date.today()} on the GPU machine ({gpu}) by scripts/gpu/vs-llama.sh; " + "; ".join(versions),
         "", "| path | " + " | ".join(f"{n} tok/s" for n in names) + " | ours tok/s | ours / best peer |",
         "| --- | " + " | ".join("---" for _ in names) + " | --- | --- |"]
for name, ncmoe, key, ours, ours_peak in rows:
    peer = [llama(n, ncmoe, key) for n in names]
    if ours is None and not any(x is not None for x in peer): continue
    best = max((x for x in peer if x), default=None)
    cells = [with_peak(x, peak(f"{n}-{ncmoe}") if key == "tg" else None) for n, x in zip(names, peer)]
    ratio = "—" if not ours or not best else f"{ours / best:.2f}×"
    lines.append(f"| {name} | " + " | ".join(cells) + f" | {with_peak(ours, peak(ours_peak) if ours_peak else None)} | {ratio} |")
lines += ["", "Decode rows give the peak VRAM of the run in brackets."]
# Ours only: the CPU expert kernel, and the miss service of the 8 GB rows (the step beyond the resident one).
moe = load("ft-cpu-moe.json") or {}
if moe:
    lines += ["", f"`ft bench cpu-moe --threads 16`: host read {f(moe.get('host_read_gbs'))} GB/s; the experts alone "
              f"{f(moe.get('experts_alone_gbs'))} GB/s ({100 * moe.get('experts_alone_fraction_of_host_read', 0):.0f} % of it); "
              f"the whole MoE layer (router, gather, sum) {f(moe.get('expert_gbs'))} GB/s "
              f"({100 * moe.get('fraction_of_host_read', 0):.0f} %)."]
res = ft_dec("ft-res-dec.json", "resident")
for name in ("ft-8g-dec.json", "ft-8g-auto.json"):
    r = ((load(name) or {}).get("runs") or [None])[0]
    if not r or not res or not r.get("floor_ms"): continue
    backend = r.get("backend")
    service = r["step_ms"] - 1e3 / res
    tail = (f", q* {r.get('fraction_end', 0):.3f} (searched for {r.get('counters', {}).get('hybrid_search_seconds', 0):.1f} s)"
            if backend == "hybrid" else "")
    lines.append(f"8 GB class {backend}: miss service {service:.3f} ms/token (step {r['step_ms']:.3f} − resident "
                 f"{1e3 / res:.3f}) = {service / r['floor_ms']:.2f}× its floor {r['floor_ms']:.3f} ms (miss bytes "
                 f"{r.get('miss_bytes_per_token', 0) / 1e6:.1f} MB / host read {f(r.get('host_read_gbs'))} GB/s); "
                 f"PCIe fetch in the profiled step {r.get('phases_ms', {}).get('experts: PCIe fetch', 0):.3f} ms{tail}.")
print("\n".join(lines))
PY
finish run
