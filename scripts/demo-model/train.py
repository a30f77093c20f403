#!/usr/bin/env python3
"""Trains the bundled demo model (resources/models/freetoken-demo.gguf): transformers' Qwen3MoeForCausalLM in a small
configuration, from scratch, on the chat corpus of prepare_data.py. Runs on the GPU machine (torch + transformers +
tokenizers; no network). Everything after training happens in the same run, so one call gives all that the model
card and the golden test need:

  hf/                  the trained model as a Hugging Face folder (BF16 safetensors, per-expert tensor names of real
                       Qwen3-MoE checkpoints, tied embeddings, the cut tokenizer + chat template): `ft convert` input
  golden/              golden.json + logits.bin for tests/data/freetoken-demo: float32 transformers logits of the
                       fixed prompts computed on exactly the weights of the Q8_0 GGUF (the converter's Q8_0 mirrored
                       here, checked by per-tensor sha256 of the GGUF tensor bytes), and a greedy continuation
  metrics.json         config, steps, tokens, GPU time, held-out perplexity (init, trained, trained Q8_0, unigram),
                       per-layer expert usage over held-out text
  loss.csv, loss.png   training and held-out loss curve;  experts.png: the expert-usage histogram
  train_state.json     step, seed, planned steps: with hf/ a compact checkpoint that --resume continues from (the
                       optimizer moments are not in it: they restart, see --resume)

Reproducible: --seed fixes the initial weights, the data order (each epoch's shuffle) and the sampling; a run with
--steps N repeats the schedule of a run that chose N itself (--steps auto:SECONDS measures its speed on the first
steps, which are warm-up and do not depend on N). GPU kernels (expert scatter-add, attention backward) are not
bit-deterministic, so two runs agree to float rounding, not bit for bit.

usage: train.py --data DIR --out DIR [--steps N | --steps auto:SECONDS] [--deadline-s S] [--resume DIR] [--smoke]
"""
import argparse
import hashlib
import json
import lzma
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts/golden"))

N_SPECIAL = 26
CONFIG = dict(hidden_size=256, intermediate_size=768, moe_intermediate_size=64, num_hidden_layers=8,
              num_attention_heads=4, num_key_value_heads=2, head_dim=64, num_experts=32, num_experts_per_tok=4,
              norm_topk_prob=True, rms_norm_eps=1e-6, max_position_embeddings=1024, tie_word_embeddings=True,
              decoder_sparse_step=1, mlp_only_layers=[], attention_bias=False, router_aux_loss_coef=0.01,
              output_router_logits=False, initializer_range=0.02)
SEQ = 1024
BATCH = 64
LR, LR_MIN, WARMUP, WD = 3e-3, 3e-4, 200, 0.1
MAX_EPOCHS = 10  # --steps auto never plans more than this many passes over the corpus
# Agent phase: rows long enough for a coding agent's whole request (Claude Code's is about 14.4k tokens with this
# tokenizer), fewer of them per step; a lower peak rate, as a fine-tune of the chat model.
AGENT_SEQ, AGENT_BATCH = 16384, 4
AGENT_LR, AGENT_LR_MIN, AGENT_WARMUP = 1e-3, 1e-4, 20


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


# ---------------------------------------------------------------------------------------------------------------
def make_config(n_bpe):
    from transformers import Qwen3MoeConfig
    vocab = n_bpe + N_SPECIAL
    vocab = (vocab + 63) // 64 * 64
    kw = dict(CONFIG, vocab_size=vocab, bos_token_id=n_bpe, eos_token_id=n_bpe + 2, pad_token_id=n_bpe)
    try:
        cfg = Qwen3MoeConfig(**kw, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})
    except TypeError:
        cfg = Qwen3MoeConfig(**kw, rope_theta=1000000.0)
    return cfg


def build_model(cfg, experts_impl=None, attn="sdpa"):
    from transformers import Qwen3MoeForCausalLM
    cfg._attn_implementation = attn
    if experts_impl is not None:
        cfg._experts_implementation = experts_impl
    return Qwen3MoeForCausalLM(cfg)


# ---------------------------------------------------------------------------------------------------------------
# Data: chat samples (JSON strings, one a line), tokenized once; packed into rows of SEQ tokens that each start with
# a whole sample (samples never straddle rows; the rest of a row is padding that the loss ignores).
def load_lines(path: Path, limit=None):
    text = lzma.decompress(path.read_bytes()).decode("utf-8")
    lines = [json.loads(l) for l in text.split("\n") if l]
    return lines[:limit] if limit else lines


def tokenize(tok, texts):
    enc = tok.encode_batch(texts, add_special_tokens=False)
    return [np.asarray(e.ids, dtype=np.int32) for e in enc]


def padded(row, m, seq, pad_id):
    """A row and its mask filled to `seq` with padding (mask False)."""
    if len(row) < seq:
        m = np.concatenate([m, np.zeros(seq - len(row), dtype=bool)])
        row = np.concatenate([row, np.full(seq - len(row), pad_id, dtype=np.int32)])
    return row, m


def pack(samples, order, pad_id):
    rows, masks, cur, n = [], [], [], 0
    def flush():
        nonlocal cur, n
        if not cur:
            return
        row, m = padded(np.concatenate(cur), np.ones(sum(len(c) for c in cur), dtype=bool), SEQ, pad_id)
        rows.append(row)
        masks.append(m)
        cur, n = [], 0
    for i in order:
        s = samples[i][:SEQ]
        if n + len(s) > SEQ:
            flush()
        cur.append(s)
        n += len(s)
    flush()
    return torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(masks))


class Epochs:
    """Row r of the whole run: epoch r // rows_per_epoch, shuffled by (seed, epoch). Deterministic from the step."""

    def __init__(self, samples, seed, pad_id):
        self.samples, self.seed, self.pad = samples, seed, pad_id
        self.cache = {}
        self.rows_per_epoch = len(self.epoch(0)[0])

    def epoch(self, e):
        if e not in self.cache:
            order = np.random.default_rng([self.seed, e]).permutation(len(self.samples))
            self.cache = {e: pack(self.samples, order, self.pad)}
        return self.cache[e]

    def batch(self, step):
        xs, ms = [], []
        for r in range(step * BATCH, (step + 1) * BATCH):
            e, i = divmod(r, self.rows_per_epoch)
            x, m = self.epoch(e)
            xs.append(x[i % len(x)])  # an epoch's row count varies a little with its order
            ms.append(m[i % len(x)])
        return torch.stack(xs), torch.stack(ms)


# ---------------------------------------------------------------------------------------------------------------
class RouterTap:
    """Router logits per layer from forward hooks on the `mlp.gate` modules: the fallback when this transformers
    version does not return them in the output (output_router_logits)."""

    def __init__(self):
        self.seen = []
        self.handles = []

    def attach(self, model):
        for h in self.handles:
            h.remove()
        self.handles = [m.register_forward_hook(self.hook) for n, m in model.named_modules() if n.endswith("mlp.gate")]

    def hook(self, module, inputs, output):
        self.seen.append(output[0] if isinstance(output, tuple) else output)


TAP = RouterTap()


def router_logits_of(out):
    rl = getattr(out, "router_logits", None)
    if not rl:
        rl = TAP.seen
    if not rl:
        raise SystemExit("no router logits: neither output_router_logits nor hooks on mlp.gate gave them")
    return [r if r.dim() == 2 else r.reshape(-1, r.shape[-1]) for r in rl]


def balance_loss(router_logits, k, n_exp):
    """Switch-style load balancing: n_exp * sum_e (share of top-k picks of e) * (mean router probability of e)."""
    tot = 0.0
    for r in router_logits:
        p = torch.softmax(r.float(), dim=-1)
        top = torch.topk(p, k, dim=-1).indices
        f = torch.zeros(n_exp, device=r.device).scatter_add_(0, top.reshape(-1), torch.ones(top.numel(), device=r.device))
        f = f / top.numel()
        tot = tot + n_exp * (f * p.mean(0)).sum()
    return tot / len(router_logits)


def lm_loss(logits, x, m):
    """Next-token cross-entropy over real (non-padding) targets. Returns (sum, count)."""
    tgt = x[:, 1:].long().masked_fill(~m[:, 1:], -100)
    lo = logits[:, :-1].float()
    s = F.cross_entropy(lo.reshape(-1, lo.shape[-1]), tgt.reshape(-1), ignore_index=-100, reduction="sum")
    return s, int((tgt != -100).sum())


@torch.no_grad()
def evaluate(model, rows, masks, amask, dev, dtype=torch.bfloat16, usage=None, k=4):
    """Held-out loss over all real tokens and over the assistant's tokens; optional expert-usage counts [L, E]."""
    model.eval()
    tot = n = tot_a = n_a = 0.0
    for i in range(0, len(rows), 16):
        x, m, am = rows[i:i + 16].to(dev).long(), masks[i:i + 16].to(dev), amask[i:i + 16].to(dev)
        TAP.seen = []
        with torch.autocast("cuda", dtype=dtype, enabled=dev.type == "cuda" and dtype != torch.float32):
            out = model(input_ids=x, output_router_logits=usage is not None)
        lo = out.logits[:, :-1].float()
        ce = F.cross_entropy(lo.reshape(-1, lo.shape[-1]), x[:, 1:].reshape(-1), reduction="none").view(x.shape[0], -1)
        tm, ta = m[:, 1:], am[:, 1:] & m[:, 1:]
        tot += float(ce[tm].sum()); n += int(tm.sum())
        tot_a += float(ce[ta].sum()); n_a += int(ta.sum())
        if usage is not None:
            flat = m.reshape(-1)
            for l, r in enumerate(router_logits_of(out)):
                top = torch.topk(r.float(), k, dim=-1).indices[flat]
                usage[l] += torch.bincount(top.reshape(-1), minlength=usage.shape[1]).cpu()
    model.train()
    return tot / n, tot_a / max(n_a, 1), int(n)


def assistant_mask(rows, tok):
    """True on tokens inside the assistant's turns (after '<|im_start|>assistant\\n' up to and including <|im_end|>)."""
    im_start, im_end = tok.token_to_id("<|im_start|>"), tok.token_to_id("<|im_end|>")
    asst = tok.encode("assistant", add_special_tokens=False).ids
    out = torch.zeros_like(rows, dtype=torch.bool)
    r = rows.numpy()
    for b in range(r.shape[0]):
        inside = False
        for t in range(r.shape[1]):
            if r[b, t] == im_start:
                inside = list(r[b, t + 1:t + 1 + len(asst)]) == asst
                continue
            if inside:
                out[b, t] = True
            if r[b, t] == im_end:
                inside = False
    return out


# ---------------------------------------------------------------------------------------------------------------
# Q8_0 exactly as `ft convert` writes it (kernels/ref/quant.cpp quant_q8_0): per block of 32 along a row,
# d = the smallest f16 >= amax/127 (f32 division), q = round-half-even(x * (1/d)) clamped to [-127, 127]; the
# engine reads x = f32(d) * q. Done on the CPU in float32, where every operation is IEEE single precision.
def q8_0(w: torch.Tensor):
    x = w.detach().to("cpu", torch.float32).reshape(-1, 32)
    amax = x.abs().amax(dim=1)
    s = amax / torch.tensor(127.0, dtype=torch.float32)
    h = s.to(torch.float16)
    hb = h.view(torch.int16).clone()
    up = (h.to(torch.float32) < s) & (hb < 0x7BFF)
    hb[up] += 1
    d = hb.view(torch.float16).to(torch.float32)
    inv = torch.where(d > 0, torch.tensor(1.0, dtype=torch.float32) / d, torch.zeros_like(d))
    q = torch.clamp(torch.round(x * inv[:, None]), -127, 127).to(torch.int8)
    deq = (d[:, None] * q.to(torch.float32)).reshape(w.shape)
    blocks = np.zeros(x.shape[0], dtype=[("d", "<u2"), ("qs", "i1", 32)])
    blocks["d"] = hb.numpy().view(np.uint16)
    blocks["qs"] = q.numpy()
    return deq, blocks.tobytes()


def gguf_layout(cfg):
    """(GGUF tensor name, its Hugging Face tensors in order, "f32" | "q8_0") as `ft convert --type q8_0` writes this
    model: norms and the router F32 (exact from BF16), every matrix Q8_0, a layer's experts concatenated."""
    L, E = cfg.num_hidden_layers, cfg.num_experts
    out = [("token_embd.weight", ["model.embed_tokens.weight"], "q8_0")]
    for l in range(L):
        h, b = f"model.layers.{l}.", f"blk.{l}."
        out += [(b + "attn_norm.weight", [h + "input_layernorm.weight"], "f32")]
        out += [(b + n + ".weight", [h + "self_attn." + p + ".weight"], "q8_0")
                for n, p in (("attn_q", "q_proj"), ("attn_k", "k_proj"), ("attn_v", "v_proj"), ("attn_output", "o_proj"))]
        out += [(b + "attn_q_norm.weight", [h + "self_attn.q_norm.weight"], "f32"),
                (b + "attn_k_norm.weight", [h + "self_attn.k_norm.weight"], "f32"),
                (b + "ffn_norm.weight", [h + "post_attention_layernorm.weight"], "f32"),
                (b + "ffn_gate_inp.weight", [h + "mlp.gate.weight"], "f32")]
        for proj, name in (("gate_proj", "ffn_gate_exps"), ("up_proj", "ffn_up_exps"), ("down_proj", "ffn_down_exps")):
            out += [(b + name + ".weight", [f"{h}mlp.experts.{e}.{proj}.weight" for e in range(E)], "q8_0")]
    out += [("output_norm.weight", ["model.norm.weight"], "f32")]
    return out


def gguf_tensors(sd, cfg):
    """The GGUF tensors `ft convert --type q8_0` writes for this state dict (names, bytes), and the dequantized
    state dict the engine computes with."""
    out, deq = {}, {}
    for name, hfs, kind in gguf_layout(cfg):
        if kind == "f32":
            t = sd[hfs[0]].to(torch.float32)
            out[name] = t.numpy().astype("<f4").tobytes()
            deq[hfs[0]] = t
            continue
        parts = []
        for hf in hfs:
            d, b = q8_0(sd[hf])
            deq[hf] = d
            parts.append(b)
        out[name] = b"".join(parts)
    return out, deq


def read_gguf(path: Path, cfg):
    """The Hugging Face state dict (float32) of a GGUF this script's export + `ft convert --type q8_0` made (the
    bundled model): Q8_0 blocks dequantized as the engine reads them (f16 d × int8 q). GGUF v3 as the spec lays
    it out: header, metadata (skipped), tensor infos, aligned data."""
    buf = path.read_bytes()
    pos = 0
    def rd(fmt):
        nonlocal pos
        import struct
        v = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0] if len(v) == 1 else v
    def rstr():
        nonlocal pos
        n = rd("Q")
        pos += n
        return buf[pos - n:pos].decode("utf-8")
    sizes = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
    def skip(t):
        if t == 8:
            rstr()
        elif t == 9:
            et, n = rd("I"), rd("Q")
            for _ in range(n):
                skip(et)
        else:
            rd(sizes[t])
    if buf[:4] != b"GGUF":
        raise SystemExit(f"{path}: not a GGUF file")
    pos = 4
    version, n_tensors, n_kv = rd("I"), rd("Q"), rd("Q")
    align = 32
    for _ in range(n_kv):
        key, t = rstr(), rd("I")
        if key == "general.alignment" and t == 4:
            align = rd("I")
        else:
            skip(t)
    infos = {}
    for _ in range(n_tensors):
        name = rstr()
        nd = rd("I")
        dims = [rd("Q") for _ in range(nd)]
        infos[name] = (dims, rd("I"), rd("Q"))
    base = (pos + align - 1) // align * align
    sd = {}
    for name, hfs, kind in gguf_layout(cfg):
        dims, t, off = infos[name]
        n = int(np.prod(dims))
        if t == 0:
            flat = torch.from_numpy(np.frombuffer(buf, "<f4", n, base + off).copy())
        elif t == 8:
            blk = np.frombuffer(buf, [("d", "<f2"), ("qs", "i1", 32)], n // 32, base + off)
            flat = torch.from_numpy(blk["d"].astype(np.float32)[:, None] * blk["qs"].astype(np.float32)).reshape(-1)
        else:
            raise SystemExit(f"{path}: tensor {name} has GGUF type {t}; this reader takes F32 and Q8_0")
        parts = flat.reshape(len(hfs), -1)
        for hf, part in zip(hfs, parts):
            shape = list(reversed(dims))[-2:] if len(dims) > 1 else dims
            sd[hf] = part.reshape(shape).clone()
    log(f"read {path.name}: GGUF v{version}, {n_tensors} tensors, {len(sd)} Hugging Face tensors")
    return sd


# ---------------------------------------------------------------------------------------------------------------
def export_hf(model, cfg, tok_dir: Path, dst: Path, probe_ids):
    """BF16 safetensors under the per-expert names of real Qwen3-MoE checkpoints, tied (no lm_head), sharded below
    15 MB; the fused-expert layout of this transformers version is found by reloading (as make_qwen3_moe_golden.py
    does). Returns the exported (BF16-rounded) state dict in float32."""
    from safetensors.torch import save_file
    from transformers import Qwen3MoeForCausalLM
    from make_qwen3_moe_golden import legacy_state_dict
    import shutil
    dst.mkdir(parents=True, exist_ok=True)
    model = model.float().eval().cpu()
    with torch.no_grad():
        rounded = {k: v.to(torch.bfloat16).to(torch.float32) for k, v in model.state_dict().items()}
        model.load_state_dict(rounded)
        want = model(torch.tensor([probe_ids])).logits[0]
    sd0 = model.state_dict()
    fused = any(".mlp.experts." in k and not k.split(".mlp.experts.")[1][0].isdigit() for k in sd0)
    layouts = [(True, False), (True, True), (False, False), (False, True)] if fused else [(True, False)]
    for layout in layouts:
        sd = {k: v for k, v in legacy_state_dict(model, layout).items() if k != "lm_head.weight"}
        for f in dst.glob("model*.safetensors*"):
            f.unlink()
        shards, cur, size = [], {}, 0
        for k in sorted(sd):
            t = sd[k].to(torch.bfloat16).contiguous()
            if cur and size + t.numel() * 2 > 15_000_000:
                shards.append(cur)
                cur, size = {}, 0
            cur[k] = t
            size += t.numel() * 2
        shards.append(cur)
        wmap = {}
        for i, sh in enumerate(shards):
            name = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
            save_file(sh, str(dst / name), metadata={"format": "pt"})
            wmap.update({k: name for k in sh})
        total = sum(t.numel() * 2 for sh in shards for t in sh.values())
        (dst / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": wmap}, indent=1))
        cfg.save_pretrained(dst)
        back = Qwen3MoeForCausalLM.from_pretrained(dst, torch_dtype=torch.float32).eval()
        with torch.no_grad():
            got = back(torch.tensor([probe_ids])).logits[0]
        diff = (got - want).abs().max().item()
        log("export layout", layout, "reload max |dlogit|", diff)
        if diff < 1e-4:
            break
    else:
        raise SystemExit("export: no expert layout reloads to the same logits")
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tok_dir / f, dst / f)
    # Greedy is what this model is good at: sampled (temperature 1, what an agent CLI gets when it sends none) it
    # names other files in its tool calls. ft convert writes it as general.sampling.temp = 0, which the server uses
    # for requests that set no temperature.
    gen = {"bos_token_id": cfg.bos_token_id, "eos_token_id": [cfg.eos_token_id, cfg.pad_token_id],
           "pad_token_id": cfg.pad_token_id, "do_sample": False}
    (dst / "generation_config.json").write_text(json.dumps(gen, indent=1))
    return {k: v.to(torch.float32) for k, v in sd.items()}


def write_hf_f32(sd, cfg, dst: Path):
    from safetensors.torch import save_file
    dst.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in sd.items()}, str(dst / "model.safetensors"), metadata={"format": "pt"})
    cfg.save_pretrained(dst)


# ---------------------------------------------------------------------------------------------------------------
# Agent phase: prepare_agents.py's one-tool tasks (Claude Code and Codex requests as `ft serve` renders them). The
# loss is on the model's two turns (the tool call, the answer from its result); the long constant prefix (the agent's
# system prompt and tool list) is kept whole in some rows and has a random middle span cut out in others, so most
# rows carry several tasks while the model still meets the real prompt length.
def turn_spans(ids, tok):
    """Loss mask of one sample: True on the assistant turns' tokens (after '<|im_start|>assistant', through
    <|im_end|>), and the index of the first user turn (where the constant prefix ends)."""
    im_start, im_end = tok.token_to_id("<|im_start|>"), tok.token_to_id("<|im_end|>")
    asst = tok.encode("assistant", add_special_tokens=False).ids
    user = tok.encode("user", add_special_tokens=False).ids
    m = np.zeros(len(ids), dtype=bool)
    first_user = None
    ends = np.nonzero(ids == im_end)[0]
    for st in np.nonzero(ids == im_start)[0]:
        head = list(ids[st + 1:st + 1 + len(asst)])
        if first_user is None and list(ids[st + 1:st + 1 + len(user)]) == user:
            first_user = int(st)
        if head == asst:
            e = ends[ends > st]
            m[st + 1 + len(asst):(int(e[0]) + 1 if len(e) else len(ids))] = True
    return m, first_user


def agent_rows(samples, chat, rng, seq, pad):
    """One epoch of agent rows: each sample once (35 % whole, else with a random middle span of its prefix cut so
    that it is 1,500 tokens or longer), packed whole into rows of `seq`, the rest of a row filled with chat samples
    (loss on every token). Returns (ids [R, seq], loss mask [R, seq])."""
    parts = []
    for i in rng.permutation(len(samples)):
        ids, m, u = samples[i]
        if rng.random() > 0.35 and u is not None and u > 300:
            lo = int(rng.integers(8, 264))
            target = int(rng.integers(1500, max(1501, len(ids))))
            cut = min(len(ids) - target, u - lo - 1)
            if cut > 0:
                ids, m = np.concatenate([ids[:lo], ids[lo + cut:]]), np.concatenate([m[:lo], m[lo + cut:]])
        parts.append((ids[:seq], m[:seq]))
    rows, masks = [], []
    cur, n = [], 0
    def flush():
        nonlocal cur, n
        while n < seq:  # fill with chat samples
            c = chat[int(rng.integers(len(chat)))][:seq - n]
            if len(c) < 8:
                break
            cur.append((c, np.ones(len(c), dtype=bool)))
            n += len(c)
        ids, m = padded(np.concatenate([c for c, _ in cur]), np.concatenate([k for _, k in cur]), seq, pad)
        rows.append(ids)
        masks.append(m)
        cur, n = [], 0
    for ids, m in parts:
        if n + len(ids) > seq:
            flush()
        cur.append((ids, m))
        n += len(ids)
    if cur:
        flush()
    return torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(masks))


@torch.no_grad()
def agent_eval(model, held, tok, dev):
    """Exact-match rate of each turn on held-out tasks: greedy decoding reproduces a turn exactly when the argmax at
    each of its positions, given the turn so far, is the turn's next token (one forward pass per prompt + turn)."""
    model.eval()
    res = {}
    for s in held:
        for turn in ("1", "2"):
            p = tok.encode(s["p" + turn], add_special_tokens=False).ids
            c = tok.encode(s["c" + turn], add_special_tokens=False).ids
            x = torch.tensor([p + c], device=dev)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=dev.type == "cuda"):
                lo = model(input_ids=x).logits[0, len(p) - 1:-1]
            ok = bool((lo.argmax(-1).cpu() == torch.tensor(c)).all())
            k = f'{s["agent"]} turn {turn}'
            r = res.setdefault(k, [0, 0])
            r[0] += ok
            r[1] += 1
    model.train()
    return {k: {"exact": v[0], "of": v[1]} for k, v in sorted(res.items())}


def agent_phase(model, cfg, tok, data_dir, steps_arg, seq, chat, pad, dev, seed, smoke):
    """Trains on the agent corpus; returns the phase's record for metrics.json."""
    t0 = time.time()
    rows_txt = load_lines(data_dir / "agents.txt.xz", 40 if smoke else None)
    held = load_lines(data_dir / "agents_heldout.txt.xz", 6 if smoke else None)
    samples = []
    for ids in tokenize(tok, [r["text"] for r in rows_txt]):
        m, u = turn_spans(ids, tok)
        samples.append((ids, m, u))
    lens = [len(x[0]) for x in samples]
    log(f"agent phase: {len(samples)} samples ({min(lens)}–{max(lens)} tokens, {sum(x[1].sum() for x in samples)} in the "
        f"model's turns), {len(held)} held-out, {time.time() - t0:.1f} s")
    if max(lens) > seq:
        raise SystemExit(f"an agent sample has {max(lens)} tokens, more than --agent-seq {seq}")
    before = agent_eval(model, held[:20], tok, dev)
    log("agent held-out exact turns before:", json.dumps(before))
    rng = np.random.default_rng([seed, 7])
    epoch_rows = agent_rows(samples, chat, rng, seq, pad)
    log(f"agent rows per epoch: {len(epoch_rows[0])} of {seq}")
    opt = torch.optim.AdamW(model.parameters(), lr=AGENT_LR, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0,
                            fused=dev.type == "cuda")
    planned = 3 if smoke else (10 ** 9 if steps_arg.startswith("auto:") else int(steps_arg))
    auto_s = None if smoke or not steps_arg.startswith("auto:") else float(steps_arg.split(":")[1])
    def lr_at(step):
        if step < AGENT_WARMUP:
            return AGENT_LR * (step + 1) / AGENT_WARMUP
        p = min(1.0, (step - AGENT_WARMUP) / max(1, planned - AGENT_WARMUP))
        return AGENT_LR_MIN + 0.5 * (AGENT_LR - AGENT_LR_MIN) * (1 + math.cos(math.pi * p))
    history, step, cursor, tokens, t_train = [], 0, 0, 0, time.time()
    model.train()
    while step < planned:
        if cursor + AGENT_BATCH > len(epoch_rows[0]):
            epoch_rows, cursor = agent_rows(samples, chat, rng, seq, pad), 0
        x = epoch_rows[0][cursor:cursor + AGENT_BATCH].to(dev).long()
        m = epoch_rows[1][cursor:cursor + AGENT_BATCH].to(dev)
        cursor += AGENT_BATCH
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        TAP.seen = []
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=dev.type == "cuda"):
            o = model(input_ids=x, output_router_logits=True)
        sm, n = lm_loss(o.logits, x, m)
        ce = sm / n
        bal = balance_loss(router_logits_of(o), cfg.num_experts_per_tok, cfg.num_experts)
        (ce + cfg.router_aux_loss_coef * bal).backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        tokens += int(x.numel())
        if step == 3:
            torch.cuda.synchronize() if dev.type == "cuda" else None
            t3 = time.time()
        if auto_s is not None and step == 13:
            torch.cuda.synchronize()
            per = (time.time() - t3) / 10 * 1.02
            planned = max(AGENT_WARMUP + 20, int((auto_s - (time.time() - t_train)) / per) + step)
            log(f"agent phase: {per * 1000:.0f} ms/step: planned steps = {planned} (--agent-steps {planned} repeats this run)")
        if step % 20 == 0 or step == planned:
            rec = {"agent_step": step, "train": float(ce), "balance": float(bal), "lr": lr_at(step - 1),
                   "grad_norm": float(gn), "elapsed_s": round(time.time() - t_train, 1)}
            history.append(rec)
            log(json.dumps(rec))
    train_s = time.time() - t_train
    after = agent_eval(model, held, tok, dev)
    log(f"agent phase: {step} steps in {train_s:.0f} s ({tokens / max(train_s, 1e-9) / 1e3:.0f} k tok/s)")
    log("agent held-out exact turns after:", json.dumps(after))
    return {"steps": step, "seq": seq, "batch_rows": AGENT_BATCH, "lr": [AGENT_LR, AGENT_LR_MIN, AGENT_WARMUP],
            "train_seconds": train_s, "samples": len(samples), "heldout_before_first20": before, "heldout_after": after,
            "history": history}


# ---------------------------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", default="auto:390", help="N, or auto:SECONDS (as many as fit in SECONDS of training)")
    ap.add_argument("--deadline-s", type=float, default=0, help="stop training after S seconds whatever --steps says "
                    "(a compact checkpoint lets --resume finish the schedule)")
    ap.add_argument("--resume", type=Path, help="a previous --out: continue from its hf/ weights and train_state.json")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--experts-impl", default="auto", help="transformers experts implementation, or auto (fastest)")
    ap.add_argument("--smoke", action="store_true", help="a few steps on a corpus subset: checks every stage")
    ap.add_argument("--init-gguf", type=Path, help="start from this GGUF's weights (the bundled model) instead of "
                    "training on the chat corpus first")
    ap.add_argument("--agent-steps", default="0", help="then train on the agent corpus (DATA/agents.txt.xz, from "
                    "prepare_agents.py) mixed with chat samples in rows of --agent-seq tokens: N steps, or auto:SECONDS")
    ap.add_argument("--agent-seq", type=int, default=AGENT_SEQ)
    a = ap.parse_args()
    t_start = time.time()
    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    import transformers
    from tokenizers import Tokenizer
    log("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if dev.type == "cuda":
        log("gpu", torch.cuda.get_device_name(0))

    manifest = json.loads((a.data / "manifest.json").read_text())
    n_bpe = manifest["n_bpe"]
    tok_dir = a.data / "tokenizer"
    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    cfg = make_config(n_bpe)
    V = cfg.vocab_size
    pad = cfg.pad_token_id

    # ---- data
    limit = 3000 if a.smoke else None
    t0 = time.time()
    train_txt = load_lines(a.data / "train.txt.xz", limit)
    held_txt = load_lines(a.data / "heldout.txt.xz", 400 if a.smoke else None)
    train = tokenize(tok, train_txt)
    held = tokenize(tok, held_txt)
    n_train_tok = int(sum(len(s) for s in train))
    log(f"tokenized {len(train)} train samples ({n_train_tok} tokens), {len(held)} held-out, {time.time() - t0:.1f} s")
    assert max(int(s.max()) for s in train) < n_bpe + N_SPECIAL
    data = Epochs(train, a.seed, pad)
    h_rows, h_masks = pack(held, np.arange(len(held)), pad)
    h_amask = assistant_mask(h_rows, tok)
    log(f"{data.rows_per_epoch} rows of {SEQ} per epoch ({n_train_tok / (data.rows_per_epoch * SEQ):.0%} filled); "
        f"held-out {len(h_rows)} rows")

    # unigram baseline: add-one smoothed token frequencies of the training set, on the held-out targets
    counts = np.bincount(np.concatenate(train), minlength=V).astype(np.float64) + 1.0
    logp = np.log(counts / counts.sum())
    ht = h_rows[:, 1:][h_masks[:, 1:]].numpy()
    unigram_nll = float(-logp[ht].mean())
    ha = h_rows[:, 1:][(h_amask & h_masks)[:, 1:]].numpy()
    unigram_nll_a = float(-logp[ha].mean())

    # ---- model
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    candidates = ["grouped_mm", "batched_mm", "eager"] if a.experts_impl == "auto" else [a.experts_impl]
    impl, model = None, None
    if dev.type == "cuda" and len(candidates) > 1:
        # Pick the fastest expert implementation that runs (each is the same math): a few steps of a throwaway copy.
        best = None
        x, m = data.batch(0)
        for c in candidates:
            try:
                torch.manual_seed(a.seed)
                mdl = build_model(make_config(n_bpe), c).to(dev)
                TAP.attach(mdl)
                opt = torch.optim.AdamW(mdl.parameters(), lr=1e-4)
                times = []
                for i in range(4):
                    torch.cuda.synchronize(); ts = time.time()
                    TAP.seen = []
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        o = mdl(input_ids=x.to(dev).long(), output_router_logits=True)
                    s, n = lm_loss(o.logits, x.to(dev), m.to(dev))
                    (s / n + 0.01 * balance_loss(router_logits_of(o), cfg.num_experts_per_tok, cfg.num_experts)).backward()
                    opt.step(); opt.zero_grad(set_to_none=True)
                    torch.cuda.synchronize(); times.append(time.time() - ts)
                dt = min(times[1:])
                log(f"experts implementation {c}: {dt * 1000:.0f} ms/step")
                if best is None or dt < best[1]:
                    best = (c, dt)
                del mdl, opt
            except Exception as e:  # not available in this transformers/torch: try the next
                log(f"experts implementation {c}: unavailable ({type(e).__name__}: {str(e)[:200]})")
            torch.cuda.empty_cache()
        if best is None:
            raise SystemExit("no experts implementation runs")
        impl = best[0]
    else:
        impl = candidates[0] if a.experts_impl != "auto" else None
    torch.manual_seed(a.seed)
    model = build_model(cfg, impl).to(dev)
    TAP.attach(model)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model: {n_params / 1e6:.2f} M parameters, experts implementation {impl}")

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "embed" not in n and "mlp.gate" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "embed" not in n and "mlp.gate" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95), eps=1e-8, fused=dev.type == "cuda")

    step0, planned = 0, None
    history = []
    if a.resume:
        st = json.loads((a.resume / "train_state.json").read_text())
        # the per-expert export maps back onto this model's parameters through transformers' own loading
        from transformers import Qwen3MoeForCausalLM
        prev = Qwen3MoeForCausalLM.from_pretrained(a.resume / "hf", torch_dtype=torch.float32)
        missing, unexpected = model.load_state_dict(prev.state_dict(), strict=False)
        if [k for k in missing if k != "lm_head.weight"] or unexpected:
            raise SystemExit(f"--resume: weights do not match the model: missing {missing[:4]}, unexpected {unexpected[:4]}")
        del prev
        step0, planned, history = st["step"], st["planned_steps"], st.get("history", [])
        log(f"resumed at step {step0} of {planned} (optimizer moments restart)")
    elif a.init_gguf:
        # The bundled model's weights (Q8_0, dequantized) as the start of the agent phase; no chat pre-training.
        from transformers import Qwen3MoeForCausalLM
        tmp = Path(tempfile.mkdtemp())
        write_hf_f32(read_gguf(a.init_gguf, cfg), cfg, tmp)
        prev = Qwen3MoeForCausalLM.from_pretrained(tmp, torch_dtype=torch.float32)
        missing, unexpected = model.load_state_dict(prev.state_dict(), strict=False)
        if [k for k in missing if k != "lm_head.weight"] or unexpected:
            raise SystemExit(f"--init-gguf: weights do not match the model: missing {missing[:4]}, unexpected {unexpected[:4]}")
        del prev
        planned = 3 if a.smoke else 0

    init_eval = evaluate(model, h_rows, h_masks, h_amask, dev) if step0 == 0 else None
    if init_eval:
        log(f"init held-out loss {init_eval[0]:.4f} (ppl {math.exp(init_eval[0]):.1f}); unigram {unigram_nll:.4f}")
        history.append({"step": 0, "heldout": init_eval[0]})

    if a.init_gguf:
        auto_s = None
    elif a.smoke:
        planned, auto_s = 3, None
    elif a.steps.startswith("auto:"):
        auto_s = float(a.steps.split(":")[1])
    else:
        planned, auto_s = int(a.steps), None
    if planned is None and not a.resume:
        planned = 10 ** 9  # decided after the timing steps below (all inside the warm-up, which does not depend on it)

    def lr_at(step):
        if step < WARMUP:
            return LR * (step + 1) / WARMUP
        p = min(1.0, (step - WARMUP) / max(1, planned - WARMUP))
        return LR_MIN + 0.5 * (LR - LR_MIN) * (1 + math.cos(math.pi * p))

    model.train()
    t_train = time.time()
    step = step0
    tokens_seen = 0
    timing = []
    deadline_hit = False
    while step < planned:
        ts = time.time()
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        x, m = data.batch(step)
        x, m = x.to(dev, non_blocking=True).long(), m.to(dev, non_blocking=True)
        TAP.seen = []
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=dev.type == "cuda"):
            o = model(input_ids=x, output_router_logits=True)
        s, n = lm_loss(o.logits, x, m)
        ce = s / n
        bal = balance_loss(router_logits_of(o), cfg.num_experts_per_tok, cfg.num_experts)
        loss = ce + cfg.router_aux_loss_coef * bal
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        tokens_seen += n
        if step % 25 == 0 or step == planned:
            torch.cuda.synchronize() if dev.type == "cuda" else None
            el = time.time() - t_train
            rec = {"step": step, "train": float(ce), "balance": float(bal), "lr": lr_at(step - 1), "grad_norm": float(gn),
                   "elapsed_s": round(el, 1)}
            if step % 250 == 0 or step == planned:
                rec["heldout"] = evaluate(model, h_rows, h_masks, h_amask, dev)[0]
            history.append(rec)
            log(json.dumps(rec))
        if step == 10:
            torch.cuda.synchronize() if dev.type == "cuda" else None
            t10 = time.time()
        if auto_s is not None and step == WARMUP // 4 and step0 == 0:
            torch.cuda.synchronize()
            per = (time.time() - t10) / (step - 10) * 1.03  # + held-out evaluations and epoch packing
            planned = max(WARMUP + 100, int(auto_s / per) // 100 * 100)
            planned = min(planned, MAX_EPOCHS * data.rows_per_epoch // BATCH // 100 * 100)
            log(f"{per * 1000:.0f} ms/step over the first {step} steps: planned steps = {planned} (--steps {planned} repeats this run)")
        if a.deadline_s and time.time() - t_start > a.deadline_s and step < planned:
            log(f"deadline: stopping at step {step} of {planned}; --resume continues")
            deadline_hit = True
            break
    train_s = time.time() - t_train
    log(f"trained {step - step0} steps in {train_s:.0f} s ({tokens_seen / max(train_s, 1e-9) / 1e3:.0f} k tok/s)")
    agents = None
    if a.agent_steps != "0":
        agents = agent_phase(model, cfg, tok, a.data, a.agent_steps, a.agent_seq, train, pad, dev, a.seed, a.smoke)
        cfg.max_position_embeddings = a.agent_seq  # the longest rows it trained on

    # ---- evaluation of the trained model (BF16 autocast, as trained)
    final_eval = evaluate(model, h_rows, h_masks, h_amask, dev)
    log(f"trained held-out loss {final_eval[0]:.4f} (ppl {math.exp(final_eval[0]):.2f})")

    # ---- export, Q8_0 mirror, reference logits on the engine's weights
    hf = out / "hf"
    probe = tok.encode(held_txt[0], add_special_tokens=False).ids[:64]
    exported = export_hf(model, cfg, tok_dir, hf, probe)
    gg, deq = gguf_tensors(exported, cfg)
    deq_dir = Path("/tmp/freetoken-demo-deq")
    write_hf_f32(deq, cfg, deq_dir)
    from transformers import Qwen3MoeForCausalLM
    ref = Qwen3MoeForCausalLM.from_pretrained(deq_dir, torch_dtype=torch.float32, attn_implementation="eager").eval()
    q_model = Qwen3MoeForCausalLM.from_pretrained(deq_dir, torch_dtype=torch.float32).to(dev).eval()
    TAP.attach(q_model)
    usage = torch.zeros(cfg.num_hidden_layers, cfg.num_experts, dtype=torch.long)
    q_eval = evaluate(q_model, h_rows, h_masks, h_amask, dev, dtype=torch.float32, usage=usage, k=cfg.num_experts_per_tok)
    log(f"Q8_0 held-out loss {q_eval[0]:.4f} (ppl {math.exp(q_eval[0]):.2f})")
    del q_model

    prompts = json.loads((a.data / "prompts.json").read_text())
    seqs = [tok.encode(p["text"], add_special_tokens=False).ids for p in prompts]
    gdir = out / "golden"
    gdir.mkdir(exist_ok=True)
    torch.set_num_threads(min(16, os.cpu_count() or 1))
    logits, top1 = [], []
    with torch.no_grad():
        for s in seqs:
            lg = ref(torch.tensor([s])).logits[0].float()
            logits.append(lg)
            top1.append(lg.argmax(-1).tolist())
        gen = ref.generate(torch.tensor([seqs[1]]), max_new_tokens=32, min_new_tokens=32, do_sample=False, num_beams=1,
                           pad_token_id=pad, eos_token_id=None)
        greedy = gen[0, len(seqs[1]):].tolist()
        ids = list(seqs[1])
        for _ in range(32):
            ids.append(int(ref(torch.tensor([ids])).logits[0, -1].argmax()))
        assert ids[len(seqs[1]):] == greedy, "generate() differs from step-by-step argmax"
        # the greedy replies, for the log (the model card's replies come from our engine)
        for p, s in zip(prompts, seqs):
            g = ref.generate(torch.tensor([s]), max_new_tokens=8 if a.smoke else 60, do_sample=False, num_beams=1, pad_token_id=pad,
                             eos_token_id=cfg.eos_token_id)
            log("sample", json.dumps(p["user"]), "->", json.dumps(tok.decode(g[0, len(s):].tolist(), skip_special_tokens=False)))
    all_logits = torch.cat(logits, 0).contiguous()
    all_logits.numpy().astype("<f4").tofile(gdir / "logits.bin")
    golden = {
        "made_by": "scripts/demo-model/train.py", "transformers": transformers.__version__, "torch": torch.__version__,
        "model": "resources/models/freetoken-demo.gguf", "vocab_size": V,
        "reference": "float32 on CPU, eager attention, on the Q8_0-dequantized weights of the GGUF (tensor_sha256)",
        "texts": [p["text"] for p in prompts], "sequences": seqs, "top1": top1,
        "greedy_prompt_index": 1, "greedy_new_tokens": greedy,
        "logits_file": "logits.bin", "logits_shape": list(all_logits.shape),
        "tensor_sha256": {k: hashlib.sha256(v).hexdigest() for k, v in sorted(gg.items())},
    }
    (gdir / "golden.json").write_text(json.dumps(golden, indent=1))

    # ---- metrics, curves
    used = (usage > 0).sum(1).tolist()
    share = (usage.float() / usage.sum(1, keepdim=True)).tolist()
    metrics = {
        "config": {k: getattr(cfg, k, None) for k in list(CONFIG) + ["vocab_size"]},
        "parameters": n_params, "seq_len": SEQ, "batch_rows": BATCH, "lr": [LR, LR_MIN, WARMUP], "weight_decay": WD,
        "seed": a.seed, "experts_implementation": impl, "planned_steps": planned, "steps": step,
        "deadline_hit": deadline_hit, "train_tokens_per_epoch": n_train_tok, "rows_per_epoch": data.rows_per_epoch,
        "tokens_seen_this_run": tokens_seen, "epochs": step * BATCH / data.rows_per_epoch,
        "train_seconds": train_s, "total_seconds": time.time() - t_start,
        "gpu": torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu",
        "heldout_tokens": final_eval[2],
        "heldout": {
            "unigram": {"nll": unigram_nll, "ppl": math.exp(unigram_nll), "nll_assistant": unigram_nll_a,
                        "ppl_assistant": math.exp(unigram_nll_a)},
            "init": None if not init_eval else {"nll": init_eval[0], "ppl": math.exp(init_eval[0]),
                                                "ppl_assistant": math.exp(init_eval[1])},
            "trained_bf16": {"nll": final_eval[0], "ppl": math.exp(final_eval[0]), "ppl_assistant": math.exp(final_eval[1])},
            "trained_q8_0": {"nll": q_eval[0], "ppl": math.exp(q_eval[0]), "ppl_assistant": math.exp(q_eval[1])},
        },
        "expert_usage": {"counts": usage.tolist(), "experts_used_per_layer": used, "share": share},
        "agents": agents, "init_gguf": str(a.init_gguf) if a.init_gguf else None,
        "manifest": manifest,
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    (out / "train_state.json").write_text(json.dumps({"step": step, "planned_steps": planned, "seed": a.seed,
                                                      "history": history}, indent=1))
    with open(out / "loss.csv", "w") as f:
        f.write("step,train_loss,heldout_loss,lr\n")
        for h in history:
            f.write(f"{h['step']},{h.get('train', '')},{h.get('heldout', '')},{h.get('lr', '')}\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5.5, 3.2), dpi=100)
        tr = [(h["step"], h["train"]) for h in history if "train" in h]
        if agents:  # the agent phase's steps after the chat phase's
            tr += [(h["agent_step"] + (tr[-1][0] if tr else 0), h["train"]) for h in agents["history"]]
        he = [(h["step"], h["heldout"]) for h in history if "heldout" in h]
        ax.plot(*zip(*tr), label="train", lw=1)
        ax.plot(*zip(*he), "o-", label="held-out", ms=3)
        ax.axhline(unigram_nll, ls=":", c="gray", label="unigram (held-out)")
        ax.set_xlabel("step"); ax.set_ylabel("cross-entropy (nats/token)"); ax.set_ylim(0, max(unigram_nll * 1.3, 1))
        ax.legend(); ax.grid(alpha=0.3); fig.tight_layout(); fig.savefig(out / "loss.png")
        fig, ax = plt.subplots(figsize=(6, 2.8), dpi=100)
        im = ax.imshow(np.array(share) * 100, aspect="auto", cmap="viridis")
        ax.set_xlabel("expert"); ax.set_ylabel("layer"); fig.colorbar(im, label="% of picks")
        fig.tight_layout(); fig.savefig(out / "experts.png")
    except Exception as e:
        log("plots failed:", e)
    log(f"done in {time.time() - t_start:.0f} s; experts used per layer {used}")


if __name__ == "__main__":
    main()
