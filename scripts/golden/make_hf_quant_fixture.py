#!/usr/bin/python3
"""Quantize a BF16 Hugging Face checkpoint (tests/data/qwen3-moe-tiny) to the FP8 or NVFP4 layouts that quantized
model repositories ship, with numpy only (no torch): our own encoders, bit-exact to the formats.

  fp8    DeepSeek-V3 / Qwen3-FP8 / GLM-FP8 ("fine-grained FP8"): every *_proj.weight becomes float8_e4m3fn
         "<p>.weight" [N, K] plus F32 "<p>.weight_scale_inv" [ceil(N/128), ceil(K/128)], one per 128 x 128 block
         (the last block of a row or column partial); element = e4m3 * weight_scale_inv. As transformers quantizes:
         s = 448 / amax(block), w_q = e4m3(clamp(w * s, -448, 448)), weight_scale_inv = 1 / s.
         config.json gets quantization_config {quant_method "fp8", fmt "e4m3", activation_scheme "dynamic",
         weight_block_size [128, 128], modules_to_not_convert [...]}.
  nvfp4  NVIDIA ModelOpt NVFP4: "<p>.weight" U8 [N, K/2] (two E2M1 codes a byte, even element in the low nibble),
         "<p>.weight_scale" float8_e4m3fn [N, K/16], "<p>.weight_scale_2" F32 scalar (amax(tensor) / (6 * 448)),
         "<p>.input_scale" F32 scalar (written for the layout only: activations are not quantized here, its value is
         1.0 and no reader of ours uses it); element = e2m1 * (e4m3(weight_scale) * weight_scale_2).
         hf_quant_config.json {quantization {quant_algo "NVFP4", group_size 16, exclude_modules [...]}} and
         config.json quantization_config {quant_method "modelopt", quant_algo "NVFP4", …}.
  nvfp4-ct compressed-tensors "nvfp4-pack-quantized" (llm-compressor's NVFP4 exports): "<p>.weight_packed" U8
         [N, K/2] packed as above, "<p>.weight_scale" float8_e4m3fn [N, K/16], "<p>.weight_global_scale" F32 [1]
         (global = 6 * 448 / amax(tensor), which divides: element = e2m1 * (e4m3(weight_scale) / global)),
         "<p>.input_global_scale" F32 [1] (the activations' scale for FP4 matrix units; written as 672.0, a value
         that would change every logit if a reader used it). config.json quantization_config {quant_method
         "compressed-tensors", format "nvfp4-pack-quantized", config_groups {group_0 {weights {num_bits 4, type
         float, strategy tensor_group, group_size 16}, input_activations {…}, targets [Linear]}}, ignore [...]}.
         The engine keeps global's f32 reciprocal as its second-level scale, so decoded.f32 holds
         (e4m3(weight_scale) * f32(1 / global)) * e2m1; the maker checks that it is within 2^-22 relative of the
         division.
Left unquantized (BF16), as those repositories leave them: embeddings, lm_head, norms, the MoE router (mlp.gate);
and, in these tiny models only, matrices whose rows the engine's blocks cannot hold (FP8: not a multiple of 32,
NVFP4: of 64; DeepSeek-V3-tiny's q_lora of 48).

Rounding: round to nearest, ties to the even code, saturating at the largest finite value (448 for E4M3, 6 for E2M1).

Also writes decoded.json + decoded.f32: every quantized tensor decoded by numpy in float32 (the order of
operations above), row-major, concatenated in the order decoded.json lists them: what the engine's dequantized rows
must equal bit for bit.
--invert-scale stores the reciprocal of every FP8 block scale / NVFP4 second-level scale (a deliberately wrong
checkpoint: the tests show their logit bound fails on it).
--block BN,BK (fp8) uses blocks of BN rows x BK columns instead of 128 x 128 (the tests take 48,96: several
blocks per matrix, partial in both directions, on the tiny model's 64- and 128-wide matrices).
--language-model stores every "model.X" tensor as "model.language_model.X", as Qwen3.5's multimodal checkpoints
(and their NVFP4 / FP8 exports) name them.
--dequantized DIR also writes the same model with every quantized weight replaced by its F32 decoding (and no
quantization_config): the engine must compute the same logits from both.

Usage: /usr/bin/python3 scripts/golden/make_hf_quant_fixture.py SRC_DIR OUT_DIR fp8|nvfp4|nvfp4-ct [--invert-scale]
       [--dequantized DIR] [--block BN,BK] [--language-model]
"""
import json
import os
import re
import shutil
import struct
import sys

import numpy as np

QUANTIZED = re.compile(r"_proj(_with_mqa)?\.weight$")  # DeepSeek's kv_a_proj_with_mqa is a Linear too
NOT_CONVERTED = ["lm_head", "model.embed_tokens", "mlp.gate", "norm"]


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = np.frombuffer(data[b:e], dtype=np.uint8)
        out[name] = (info["dtype"], info["shape"], raw)
    return out


def write_safetensors(path, tensors):
    """tensors: name -> (dtype name, shape, raw uint8 bytes)."""
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        raw = np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + raw.size]}
        blobs.append(raw.tobytes())
        off += raw.size
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def bf16_to_f32(raw):
    return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


# ---- E4M3 (float8_e4m3fn) ----
def e4m3_table():
    codes = np.arange(256, dtype=np.uint32)
    s = np.where(codes & 0x80, -1.0, 1.0)
    e = (codes >> 3) & 15
    m = (codes & 7).astype(np.float64)
    v = np.where(e == 0, m * 2.0 ** -9, (8 + m) * 2.0 ** (e.astype(np.float64) - 10))
    v = s * v
    v[(e == 15) & ((codes & 7) == 7)] = np.nan
    return v.astype(np.float32)


E4M3 = e4m3_table()
E4M3_POS = E4M3[:0x7F].astype(np.float64)  # codes 0..126: 0 .. 448, increasing


def nearest_code(x, grid):
    """Index of the nearest value of the increasing grid for |x|, ties to the even index, saturating."""
    a = np.minimum(np.abs(x.astype(np.float64)), grid[-1])
    hi = np.clip(np.searchsorted(grid, a, side="left"), 1, len(grid) - 1)
    lo = hi - 1
    dlo, dhi = a - grid[lo], grid[hi] - a
    pick = np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(lo % 2 == 0, lo, hi)))
    return pick


def to_e4m3(x):
    code = nearest_code(x, E4M3_POS).astype(np.uint8)
    return np.where((x < 0) & (code != 0), code | 0x80, code).astype(np.uint8)


# ---- E2M1 ----
E2M1_POS = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=np.float64)
E2M1 = np.concatenate([E2M1_POS, -E2M1_POS]).astype(np.float32)


def to_e2m1(x):
    code = nearest_code(x, E2M1_POS).astype(np.uint8)
    return np.where((x < 0) & (code != 0), code | 8, code).astype(np.uint8)


def quant_fp8(w, invert, bn=128, bk=128):
    n, k = w.shape
    sn, sk = -(-n // bn), -(-k // bk)
    q = np.zeros((n, k), np.uint8)
    scale_inv = np.zeros((sn, sk), np.float32)
    for i in range(sn):
        for j in range(sk):
            blk = w[i * bn:(i + 1) * bn, j * bk:(j + 1) * bk]
            amax = np.float32(np.abs(blk).max())
            s = np.float32(448.0) / amax if amax > 0 else np.float32(1.0)
            q[i * bn:(i + 1) * bn, j * bk:(j + 1) * bk] = to_e4m3(np.clip(blk * s, -448, 448))
            scale_inv[i, j] = np.float32(1.0) / s
    if invert:
        scale_inv = (np.float32(1.0) / scale_inv).astype(np.float32)
    full = np.repeat(np.repeat(scale_inv, bn, 0), bk, 1)[:n, :k]
    decoded = (E4M3[q] * full).astype(np.float32)
    tensors = {"weight": ("F8_E4M3", [n, k], q), "weight_scale_inv": ("F32", [sn, sk], scale_inv)}
    return tensors, decoded


def quant_nvfp4(w, invert):
    n, k = w.shape
    amax = np.float32(np.abs(w).max())
    s2 = np.float32(amax / np.float32(6.0 * 448.0)) if amax > 0 else np.float32(1.0)
    g = w.reshape(n, k // 16, 16)
    gmax = np.abs(g).max(axis=2).astype(np.float32)
    sc = to_e4m3((gmax / (np.float32(6.0) * s2)).astype(np.float32))
    d = (E4M3[sc] * s2).astype(np.float32)  # the effective group scale
    safe = np.where(d > 0, d, np.float32(1.0))
    codes = to_e2m1((g / safe[:, :, None]).astype(np.float32))
    codes = np.where(d[:, :, None] > 0, codes, 0).astype(np.uint8).reshape(n, k)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    if invert:
        s2 = np.float32(np.float32(1.0) / s2)
    d = (E4M3[sc] * s2).astype(np.float32)
    decoded = (np.repeat(d, 16, axis=1) * E2M1[codes]).astype(np.float32)
    tensors = {
        "weight": ("U8", [n, k // 2], packed),
        "weight_scale": ("F8_E4M3", [n, k // 16], sc),
        "weight_scale_2": ("F32", [], np.array([s2], np.float32)),
        "input_scale": ("F32", [], np.array([1.0], np.float32)),
    }
    return tensors, decoded


def quant_nvfp4_ct(w):
    n, k = w.shape
    amax = np.float32(np.abs(w).max())
    gs = np.float32(np.float32(6.0 * 448.0) / amax) if amax > 0 else np.float32(1.0)
    g = w.reshape(n, k // 16, 16)
    gmax = np.abs(g).max(axis=2).astype(np.float32)
    sc = to_e4m3((gmax * gs / np.float32(6.0)).astype(np.float32))
    d = (E4M3[sc] / gs).astype(np.float32)  # the group scale as compressed-tensors decodes it
    safe = np.where(d > 0, d, np.float32(1.0))
    codes = to_e2m1((g / safe[:, :, None]).astype(np.float32))
    codes = np.where(d[:, :, None] > 0, codes, 0).astype(np.uint8).reshape(n, k)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    engine_d = (E4M3[sc] * (np.float32(1.0) / gs)).astype(np.float32)
    decoded = (np.repeat(engine_d, 16, axis=1) * E2M1[codes]).astype(np.float32)
    divided = (np.repeat(d, 16, axis=1) * E2M1[codes]).astype(np.float32)
    err = np.abs(decoded.astype(np.float64) - divided) / np.maximum(np.abs(divided), 1e-30)
    if err.max() > 2.0 ** -22:
        sys.exit(f"reciprocal decoding off the division by {err.max():.3g}")
    tensors = {
        "weight_packed": ("U8", [n, k // 2], packed),
        "weight_scale": ("F8_E4M3", [n, k // 16], sc),
        "weight_global_scale": ("F32", [1], np.array([gs], np.float32)),
        "input_global_scale": ("F32", [1], np.array([672.0], np.float32)),
    }
    return tensors, decoded


def main():
    argv = sys.argv[1:]
    deq_dir = None
    if "--dequantized" in argv:
        i = argv.index("--dequantized")
        if i + 1 >= len(argv):
            sys.exit("--dequantized needs a folder")
        deq_dir = argv[i + 1]
        del argv[i:i + 2]
    block = (128, 128)
    if "--block" in argv:
        i = argv.index("--block")
        block = tuple(int(x) for x in argv[i + 1].split(","))
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    invert = "--invert-scale" in argv
    if len(args) != 3 or args[2] not in ("fp8", "nvfp4", "nvfp4-ct"):
        sys.exit(__doc__)
    src, out, fmt = args
    os.makedirs(out, exist_ok=True)
    tensors = read_safetensors(os.path.join(src, "model.safetensors"))
    result, decoded_names, decoded, plain = {}, [], [], {}
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        width = 32 if fmt == "fp8" else 64  # the engine's blocks; real models' rows are multiples of 128
        if not (QUANTIZED.search(name) and len(shape) == 2 and shape[1] % width == 0):
            result[name] = plain[name] = (dtype, shape, raw)
            continue
        if dtype != "BF16":
            sys.exit(f"{name}: expected BF16, got {dtype}")
        w = bf16_to_f32(raw).reshape(shape)
        if fmt == "fp8":
            parts, dec = quant_fp8(w, invert, *block)
        elif fmt == "nvfp4":
            parts, dec = quant_nvfp4(w, invert)
        else:
            parts, dec = quant_nvfp4_ct(w)
        base = name[: -len(".weight")]
        for suffix, t in parts.items():
            result[f"{base}.{suffix}"] = t
        decoded_names.append({"name": name, "shape": list(shape)})
        decoded.append(dec.reshape(-1))
        plain[name] = ("F32", shape, dec.astype("<f4").reshape(-1).view(np.uint8))
    if "--language-model" in argv:
        result = {("model.language_model." + n[6:] if n.startswith("model.") else n): t for n, t in result.items()}
    write_safetensors(os.path.join(out, "model.safetensors"), result)
    np.concatenate(decoded).astype("<f4").tofile(os.path.join(out, "decoded.f32"))
    with open(os.path.join(out, "decoded.json"), "w") as f:
        json.dump(decoded_names, f, indent=1)

    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    if deq_dir:
        os.makedirs(deq_dir, exist_ok=True)
        write_safetensors(os.path.join(deq_dir, "model.safetensors"), plain)
        with open(os.path.join(deq_dir, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        for extra in ("generation_config.json", "tokenizer.json", "tokenizer_config.json"):
            if os.path.exists(os.path.join(src, extra)):
                shutil.copy(os.path.join(src, extra), os.path.join(deq_dir, extra))
    if fmt == "fp8":
        config["quantization_config"] = {
            "quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
            "weight_block_size": list(block), "modules_to_not_convert": NOT_CONVERTED,
        }
    elif fmt == "nvfp4-ct":
        group = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True}
        config["quantization_config"] = {
            "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": dict(group, dynamic=False),
                                          "input_activations": dict(group, dynamic="local")}},
            "ignore": NOT_CONVERTED,
        }
    else:
        config["quantization_config"] = {
            "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
            "kv_cache_quant_algo": None, "exclude_modules": NOT_CONVERTED,
        }
        with open(os.path.join(out, "hf_quant_config.json"), "w") as f:
            json.dump({"producer": {"name": "modelopt"},
                       "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16,
                                        "exclude_modules": NOT_CONVERTED}}, f, indent=2)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    for extra in ("generation_config.json", "tokenizer.json", "tokenizer_config.json"):
        if os.path.exists(os.path.join(src, extra)):
            shutil.copy(os.path.join(src, extra), os.path.join(out, extra))


if __name__ == "__main__":
    main()
