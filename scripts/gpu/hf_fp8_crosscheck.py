#!/usr/bin/env python3
"""Cross-check of scripts/golden/make_hf_quant_fixture.py's FP8 layout against transformers' own FP8 quantization
(FineGrainedFP8Config, 128 x 128 blocks). Needs torch + transformers and a GPU of compute capability >= 8.9 (H100,
H200); run on the GPU machine:

    python3 scripts/gpu/hf_fp8_crosscheck.py tests/data/qwen3-moe-tiny OUT_DIR

It quantizes the BF16 fixture with transformers, saves it (save_pretrained) to OUT_DIR/transformers, makes ours with
the numpy maker into OUT_DIR/numpy, and prints, per tensor kind: whether the key names and shapes are the same,
how many FP8 codes and block scales differ, and both checkpoints' weight NMSE against BF16. Exit status 1 when the
names or shapes differ (a layout difference); differing codes are reported, not failed (transformers rounds on the
GPU in its own order). OUT_DIR/transformers can then be loaded by ft directly (`ft run --model OUT_DIR/transformers`).
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np


def read_safetensors_dir(d):
    out = {}
    files = [f for f in os.listdir(d) if f.endswith(".safetensors")]
    for fn in files:
        with open(os.path.join(d, fn), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
            data = f.read()
        for name, info in header.items():
            if name == "__metadata__":
                continue
            b, e = info["data_offsets"]
            out[name] = (info["dtype"], info["shape"], np.frombuffer(data[b:e], dtype=np.uint8))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    import torch
    from transformers import AutoModelForCausalLM, FineGrainedFP8Config

    tdir, ndir = os.path.join(out, "transformers"), os.path.join(out, "numpy")
    model = AutoModelForCausalLM.from_pretrained(
        src, dtype=torch.bfloat16, device_map="cuda",
        quantization_config=FineGrainedFP8Config(weight_block_size=(128, 128), modules_to_not_convert=["lm_head", "mlp.gate"]))
    model.save_pretrained(tdir)
    for extra in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, extra)):
            subprocess.run(["cp", os.path.join(src, extra), tdir], check=True)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "..", "golden", "make_hf_quant_fixture.py"), src, ndir, "fp8"],
                   check=True)
    sys.path.insert(0, os.path.join(here, "..", "golden"))
    import make_hf_quant_fixture as m

    t, n, base = read_safetensors_dir(tdir), read_safetensors_dir(ndir), read_safetensors_dir(src)
    layout_ok = True
    for name in sorted(set(t) | set(n)):
        if name not in t or name not in n or t[name][0] != n[name][0] or t[name][1] != n[name][1]:
            print("LAYOUT", name, t.get(name, ("absent",))[:2], n.get(name, ("absent",))[:2])
            layout_ok = False
    codes = scales = total_codes = total_scales = 0
    nmse = {"transformers": [0.0, 0.0], "numpy": [0.0, 0.0]}
    for name in sorted(n):
        if not name.endswith(".weight_scale_inv") or name not in t:
            continue
        w = name[: -len("_scale_inv")]
        total_codes += n[w][2].size
        total_scales += n[name][2].size // 4
        codes += int((t[w][2] != n[w][2]).sum())
        scales += int((t[name][2].view(np.float32) != n[name][2].view(np.float32)).sum())
        ref = m.bf16_to_f32(base[w][2]).reshape(base[w][1])
        for label, ck in (("transformers", t), ("numpy", n)):
            s = ck[name][2].view(np.float32).reshape(ck[name][1])
            full = np.repeat(np.repeat(s, 128, 0), 128, 1)[: ref.shape[0], : ref.shape[1]]
            dec = m.E4M3[ck[w][2].reshape(ref.shape)] * full
            nmse[label][0] += float(((dec - ref) ** 2).sum())
            nmse[label][1] += float((ref ** 2).sum())
    print(f"FP8 codes differing: {codes} of {total_codes}; block scales differing: {scales} of {total_scales}")
    for label, (a, b) in nmse.items():
        print(f"{label}: weight NMSE against BF16 {a / b:.3e}")
    print("layout:", "same" if layout_ok else "DIFFERENT")
    sys.exit(0 if layout_ok else 1)


if __name__ == "__main__":
    main()
