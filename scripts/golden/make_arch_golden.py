#!/usr/bin/env python3
"""Golden fixtures for gpt-oss and GLM-4.5 MoE, made with PyTorch + transformers (run on the GPU machine, which has
them; CPU is enough). A random-init SMALL model of the real architecture is written as a Hugging Face checkpoint in
the layout of the real checkpoints, loaded back with transformers' own from_pretrained (so the reference is what
transformers makes of a real checkpoint), and run in float32.

  gpt_oss   GptOssForCausalLM: 4 layers alternating sliding-window (32) / full attention, attention sinks, q/k/v/o
            biases, router bias, 16 experts top-4 with gate/up/down biases and the clamped SwiGLU (limit 7, alpha
            1.702, up + 1), YaRN (factor 32 over 4096, beta 32/1, truncate false, theta 150000), head_dim 64.
            Checkpoint layout: fused experts mlp.experts.gate_up_proj [E, H, 2F] (gate/up interleaved along 2F),
            down_proj [E, F, H] and their _bias (transformers' BF16 layout of gpt-oss). Expert weights are exactly
            MXFP4-representable (E2M1 codes x a power of two per 32 inputs), so the MXFP4 form
            (*_blocks/*_scales, as in openai/gpt-oss-*) holds the same model; the script checks that too when this
            transformers can load it on the CPU.
  deepseek_v3 DeepseekV3ForCausalLM: 3 layers, layer 0 dense, multi-head latent attention (4 heads, q rank 48,
            KV rank 64, nope 32 + rope 32, values 32; interleaved RoPE as DeepSeek's checkpoints; YaRN x40 over 4096 with
            mscale = mscale_all_dim = 1, so the logits carry mscale^2), 16 routed experts top-4 + 1 shared, sigmoid
            router with e_score_correction_bias, grouped top-k (4 groups, 2 kept), routed scaling 2.5, norm_topk_prob.
            Checkpoint layout: DeepSeek's own (per-expert mlp.experts.E.*, kv_b_proj unsplit).
  deepseek_v4 DeepseekV4ForCausalLM: 5 layers (sliding-window only, CSA, HCA, CSA, HCA), 4 hyper-connection streams
            (Sinkhorn 20), shared-KV MQA of head_dim 64 with partial interleaved RoPE on the trailing 16, sinks,
            window 16, grouped low-rank output (2 groups of 32), compressed sparse attention (ratio 4, overlapping
            windows, lightning indexer 8 heads of 32, top-4: enough heads that an
            entry scoring exactly 0, all ReLUs off, is rare, as ties make top-k ambiguous) and heavily compressed attention (ratio 8), YaRN x16
            on the compressed branches; 16 experts top-4 + 1 shared, sqrt-softplus router with the correction
            bias, hash routing (tid2eid) in layers 0-1, routed scaling 1.5, SwiGLU clamped at 2. Tensors under
            transformers' own names (its state dict, the fused 3-D experts).
  glm4_moe  Glm4MoeForCausalLM: 4 layers (+1 MTP layer, ignored by transformers), layer 0 dense, 16 routed experts
            top-4 + 1 shared, sigmoid router with e_score_correction_bias, grouped top-k (4 groups, 2 kept), routed
            scaling 2.5, norm_topk_prob, partial RoPE 0.5 of head_dim 64, q/k/v biases, per-head q/k norm.
            Checkpoint layout: per-expert mlp.experts.E.{gate,up,down}_proj.weight (GLM's own checkpoints).

  glm_moe_dsa GlmMoeDsaForCausalLM (GLM-5): 3 layers, layer 0 dense, latent attention (4 heads, q rank 48, KV rank
            64, nope 32 + rope 16, values 32; RoPE on adjacent pairs, as transformers 5.17 runs GLM-5) with DeepSeek's
            sparse attention: an indexer of 32 heads of 32 (rope on the first 16, a LayerNorm on its key) keeping the best
            16 positions per query, fewer than the sequences' lengths so the pick matters, and enough heads that an
            exactly-0 score (every ReLU off), whose ties make top-k ambiguous, is rare; 16 routed experts top-4 + 1
            shared, sigmoid router with e_score_correction_bias, no groups (as GLM-5), routed scaling 2.5,
            norm_topk_prob. Tensors under transformers' own names (its state dict: the fused 3-D experts).

  minimax_m2 MiniMaxM2ForCausalLM (MiniMax-M2 / M2.1 / M2.5): 3 layers, hidden 64, GQA attention (4/2 heads of 32)
            whose q and k are RMS-normalised over all heads of a token at once (q_norm [4 x 32], k_norm [2 x 32]),
            NeoX RoPE on the first half of each head (partial_rotary_factor 0.5, MiniMax's rotary_dim 16 beside it,
            theta 5e6), every layer MoE: 16 experts (FFN 32) top-4, sigmoid router with e_score_correction_bias in
            the choice only, renormalised, no shared expert. Written by transformers' own save_pretrained (BF16, the
            correction bias F32), which writes MiniMax's published names (block_sparse_moe.gate,
            block_sparse_moe.e_score_correction_bias, per-expert block_sparse_moe.experts.E.w1/w2/w3) where this
            transformers maps them; the fixture's README says which names the file holds.

  qwen3_5_moe Qwen3_5MoeForCausalLM: 4 layers, hidden 64, Gated DeltaNet in layers 0-2 (2 key heads / 4 value heads of
            32, conv 4), gated full attention in layer 3 (4/2 heads of 32, [query | gate] per head, q/k norms,
            partial RoPE 0.25), 8 experts top-4 + a sigmoid-gated shared expert, zero-centred norms. Qwen's names,
            per-expert tensors.
  qwen3_next Qwen3NextForCausalLM: the same weights with the fused in_proj_qkvz / in_proj_ba; the fixture keeps only
            those (linear-attn.safetensors) and points at qwen3-5-moe-tiny's logits when transformers computes the
            same (run qwen3_5_moe first, into the same parent folder).

Writes into OUT_DIR: config.json, generation_config.json, model.safetensors (BF16; GLM's correction bias F32 as in
the real checkpoints), golden.json (sequences, greedy continuation, rope tables, metadata), logits.bin (float32
little-endian [sum of sequence lengths x vocab], every position, sequences in golden.json order).

Vocabulary 4160: the layout of a cut tokenizer (the first 4096 BPE tokens + the family's special tokens renumbered
from 4096, padded); no tokenizer ships with the fixture, sequences are token ids.

  qwen3     Qwen3ForCausalLM (dense Qwen3: Qwen3-8B/32B): 3 layers, hidden 128, GQA attention (4/2 heads of 64)
            with per-head q/k RMSNorm, NeoX RoPE (theta 1e6), a dense SwiGLU FFN (256) on every layer, no MoE block,
            untied LM head. Written by transformers' own save_pretrained (BF16, Qwen3's names).

  qwen3_5   Qwen3_5ForCausalLM (the dense Qwen3.5/3.6, Qwen3.6-27B): qwen3_5_moe's shapes, its weights drawn the same way
            (seed 4324) with a dense SwiGLU MLP (128) in place of the MoE on every layer (so from layer 1 on other
            values than qwen3-5-moe-tiny's). Written by transformers' own save_pretrained.

usage: make_arch_golden.py {gpt_oss|glm4_moe|deepseek_v3|deepseek_v4|glm_moe_dsa|qwen3_5_moe|qwen3_next|qwen3|qwen3_5} OUT_DIR
"""
import json
import math
import sys
import traceback
from pathlib import Path

import torch
from safetensors.torch import save_file
import transformers

SEED = 4321
VOCAB = 4160
N_BPE = 4096


def make_config(cls, kw, rope, theta):
    """cls(**kw) with the rope settings, whichever form this transformers takes: keyword arguments it does not
    declare (strict dataclass configs refuse them) are set as attributes afterwards and reported."""
    import dataclasses
    import inspect
    names = None
    if dataclasses.is_dataclass(cls):
        names = {f.name for f in dataclasses.fields(cls)}
    else:
        params = inspect.signature(cls.__init__).parameters
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            names = set(params)
    accepted = {k: v for k, v in kw.items() if names is None or k in names}
    extra = {k: v for k, v in kw.items() if k not in accepted}
    cfg = None
    if names is None or "rope_parameters" in names:
        try:
            cfg = cls(**accepted, rope_parameters=dict(rope, rope_theta=theta))
        except Exception as e:  # noqa: BLE001
            print("config with rope_parameters refused:", repr(e)[:300])
    if cfg is None:
        legacy = {"rope_theta": theta}
        if rope.get("rope_type", "default") != "default":
            legacy["rope_scaling"] = rope
        cfg = cls(**accepted, **legacy)
    for k, v in extra.items():
        try:
            setattr(cfg, k, v)
        except Exception as e:  # noqa: BLE001
            print("could not set", k, repr(e)[:200])
    rp = getattr(cfg, "rope_parameters", None)
    if isinstance(rp, dict):
        for k, v in rope.items():
            rp.setdefault(k, v)
    print(cls.__name__, "keywords set as attributes:", sorted(extra))
    cfg._attn_implementation = "eager"
    return cfg


def gen(seed):
    return torch.Generator().manual_seed(seed)


def bf16(t):
    return t.to(torch.bfloat16).to(torch.float32)


def normal(shape, std, g):
    return bf16(torch.randn(shape, generator=g) * std)


# ---------------------------------------------------------------- gpt-oss

GPT_OSS = dict(hidden=160, ff=96, layers=4, heads=4, kv_heads=2, head_dim=64, experts=16, top_k=4, window=32)
FP4 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def mxfp4_matrix(rows, cols, std, g, big_rows=()):
    """[rows, cols] (cols = inputs) exactly representable in MXFP4: codes [rows, cols] and E8M0 scales [rows, cols/32]
    with value = FP4[code] * 2^(scale - 127). Rows in big_rows get 4x the scale (their outputs reach the clamp)."""
    codes = torch.randint(0, 16, (rows, cols), generator=g)
    # Uniform codes have a mean square of 8.5625 (0, .25, 1, 2.25, 4, 9, 16, 36 averaged): aim the std at `std`
    # with a power of two per block, jittered by one step either way.
    base = round(math.log2(std / math.sqrt(8.5625)))
    exps = base + torch.randint(-1, 2, (rows, cols // 32), generator=g)
    for r in big_rows:
        exps[r] += 2
    scales = (exps + 127).to(torch.uint8)
    values = FP4[codes] * torch.pow(2.0, exps.repeat_interleave(32, dim=1).to(torch.float32))
    return values, codes.to(torch.uint8), scales


def pack_hf_mxfp4(codes, scales):
    """HF MXFP4 form of [..., rows, cols] codes: blocks [..., rows, cols/32, 16] (byte j: element 2j low nibble,
    2j+1 high nibble) and scales [..., rows, cols/32]."""
    *lead, rows, cols = codes.shape
    c = codes.reshape(*lead, rows, cols // 32, 16, 2).to(torch.int32)
    blocks = (c[..., 0] | (c[..., 1] << 4)).to(torch.uint8)
    return blocks.contiguous(), scales.contiguous()


def gpt_oss_config():
    from transformers import GptOssConfig
    c = GPT_OSS
    layer_types = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(c["layers"])]
    rope = {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
            "original_max_position_embeddings": 4096, "truncate": False}
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["ff"], num_hidden_layers=c["layers"],
              num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"],
              num_local_experts=c["experts"], num_experts_per_tok=c["top_k"],
              sliding_window=c["window"], layer_types=layer_types, rms_norm_eps=1e-5,
              max_position_embeddings=131072, swiglu_limit=7.0, swiglu_alpha=1.702, attention_bias=True,
              tie_word_embeddings=False, router_aux_loss_coef=0.0, output_router_logits=False,
              pad_token_id=4097, eos_token_id=[4100, 4097, 4110], bos_token_id=None)
    return make_config(GptOssConfig, kw, rope, 150000.0)


def gpt_oss_weights(cfg):
    """Canonical tensors under the real checkpoint names (BF16-exact float32) and the MXFP4 codes of the experts."""
    c = GPT_OSS
    H, F, E, L = c["hidden"], c["ff"], c["experts"], c["layers"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    g = gen(SEED)
    sd, mx = {}, {}
    sd["model.embed_tokens.weight"] = normal((VOCAB, H), 1.0, g)
    for il in range(L):
        p = f"model.layers.{il}."
        sd[p + "input_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        sd[p + "post_attention_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        for name, out, inp in (("q_proj", q, H), ("k_proj", kv, H), ("v_proj", kv, H), ("o_proj", H, q)):
            sd[p + f"self_attn.{name}.weight"] = normal((out, inp), 1.0 / math.sqrt(inp), g)
            sd[p + f"self_attn.{name}.bias"] = normal((out,), 0.2, g)
        sd[p + "self_attn.sinks"] = normal((c["heads"],), 1.0, g)
        sd[p + "mlp.router.weight"] = normal((E, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.router.bias"] = normal((E,), 0.5, g)
        # Per expert: gate/up [F, H], down [H, F] (rows = outputs); a quarter of the gate/up rows 4x larger so the
        # clamp at 7 bites.
        gate_up = torch.empty(E, H, 2 * F)
        gu_codes = torch.empty(E, 2 * F, H, dtype=torch.uint8)
        gu_scales = torch.empty(E, 2 * F, H // 32, dtype=torch.uint8)
        down = torch.empty(E, F, H)
        dn_codes = torch.empty(E, H, F, dtype=torch.uint8)
        dn_scales = torch.empty(E, H, F // 32, dtype=torch.uint8)
        for e in range(E):
            big = [r for r in range(2 * F) if (r * 7 + e) % 4 == 0]
            w, cd, sc = mxfp4_matrix(2 * F, H, 1.0 / math.sqrt(H), g, big)  # rows: gate 0, up 0, gate 1, up 1, ...
            gate_up[e] = w.T
            gu_codes[e], gu_scales[e] = cd, sc
            w, cd, sc = mxfp4_matrix(H, F, 1.0 / math.sqrt(F), g)
            down[e] = w.T
            dn_codes[e], dn_scales[e] = cd, sc
        x = p + "mlp.experts."
        sd[x + "gate_up_proj"] = gate_up
        sd[x + "gate_up_proj_bias"] = normal((E, 2 * F), 0.3, g)
        sd[x + "down_proj"] = down
        sd[x + "down_proj_bias"] = normal((E, H), 0.1, g)
        mx[x + "gate_up_proj"] = pack_hf_mxfp4(gu_codes, gu_scales)
        mx[x + "down_proj"] = pack_hf_mxfp4(dn_codes, dn_scales)
    sd["model.norm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
    sd["lm_head.weight"] = normal((VOCAB, H), 3.0 / math.sqrt(H), g)
    return sd, mx


def gpt_oss_sequences():
    g = gen(7)
    start, end, message, channel = 4104, 4105, 4106, 4103  # <|start|> <|end|> <|message|> <|channel|> cut-numbered
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [start] + body(3) + [message] + body(12) + [end, start] + body(2) + [channel] + body(3) + [message] + body(16)
    return [s0, body(23), body(61), body(100)]


def glm_style_mlp(sd, p, dense, c, H, g):
    """Layer p's MLP as GLM's and DeepSeek's checkpoints store it: a dense SwiGLU (c["ff"]), or the router with its
    selection bias, c["experts"] per-expert SwiGLUs (c["moe_ff"]) and the shared experts (c["shared"] of them)."""
    if dense:
        F = c["ff"]
        sd[p + "mlp.gate_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.up_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.down_proj.weight"] = normal((H, F), 1.0 / math.sqrt(F), g)
        return
    F, E = c["moe_ff"], c["experts"]
    sd[p + "mlp.gate.weight"] = normal((E, H), 1.0 / math.sqrt(H), g)
    # Selection-only bias, >= 0: transformers masks the groups it drops with 0, not -inf, so a negative score + bias
    # could pick an expert of a dropped group; a real router's biases stay clear of that.
    sd[p + "mlp.gate.e_score_correction_bias"] = 0.25 * torch.rand(E, generator=g)
    for e in range(E):
        x = p + f"mlp.experts.{e}."
        sd[x + "gate_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[x + "up_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[x + "down_proj.weight"] = normal((H, F), 1.0 / math.sqrt(F), g)
    Fs = F * c["shared"]
    sd[p + "mlp.shared_experts.gate_proj.weight"] = normal((Fs, H), 1.0 / math.sqrt(H), g)
    sd[p + "mlp.shared_experts.up_proj.weight"] = normal((Fs, H), 1.0 / math.sqrt(H), g)
    sd[p + "mlp.shared_experts.down_proj.weight"] = normal((H, Fs), 1.0 / math.sqrt(Fs), g)


# ---------------------------------------------------------------- GLM-4.5

GLM = dict(hidden=128, ff=192, moe_ff=64, layers=4, mtp=1, heads=4, kv_heads=2, head_dim=64, experts=16, top_k=4,
           n_group=4, topk_group=2, shared=1, scaling=2.5, first_dense=1)


def glm_config():
    from transformers import Glm4MoeConfig
    c = GLM
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["ff"],
              moe_intermediate_size=c["moe_ff"], num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
              num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"], n_routed_experts=c["experts"],
              num_experts_per_tok=c["top_k"], n_shared_experts=c["shared"], n_group=c["n_group"],
              topk_group=c["topk_group"], routed_scaling_factor=c["scaling"], norm_topk_prob=True,
              first_k_dense_replace=c["first_dense"], use_qk_norm=True, attention_bias=True,
              partial_rotary_factor=0.5, num_nextn_predict_layers=c["mtp"], rms_norm_eps=1e-5,
              max_position_embeddings=131072, tie_word_embeddings=False, pad_token_id=4096,
              eos_token_id=[4096, 4103, 4105], bos_token_id=None)
    return make_config(Glm4MoeConfig, kw, {"rope_type": "default", "partial_rotary_factor": 0.5}, 1000000.0)


def glm_weights(cfg):
    c = GLM
    H = c["hidden"]
    q, kv, hd = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["head_dim"]
    g = gen(SEED + 1)
    sd = {}
    sd["model.embed_tokens.weight"] = normal((VOCAB, H), 1.0, g)
    for il in range(c["layers"] + c["mtp"]):
        p = f"model.layers.{il}."
        sd[p + "input_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        sd[p + "post_attention_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        for name, out, inp in (("q_proj", q, H), ("k_proj", kv, H), ("v_proj", kv, H), ("o_proj", H, q)):
            sd[p + f"self_attn.{name}.weight"] = normal((out, inp), 1.0 / math.sqrt(inp), g)
            if name != "o_proj":
                sd[p + f"self_attn.{name}.bias"] = normal((out,), 0.2, g)
        sd[p + "self_attn.q_norm.weight"] = bf16(1.0 + 0.2 * torch.randn(hd, generator=g))
        sd[p + "self_attn.k_norm.weight"] = bf16(1.0 + 0.2 * torch.randn(hd, generator=g))
        glm_style_mlp(sd, p, il < c["first_dense"], c, H, g)
        if il >= c["layers"]:  # the MTP layer's own tensors (GLM checkpoints carry them; transformers ignores them)
            sd[p + "eh_proj.weight"] = normal((H, 2 * H), 1.0 / math.sqrt(2 * H), g)
            sd[p + "enorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
            sd[p + "hnorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
            sd[p + "shared_head.norm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
    sd["model.norm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
    sd["lm_head.weight"] = normal((VOCAB, H), 3.0 / math.sqrt(H), g)
    return sd


def glm_sequences():
    g = gen(8)
    gmask, sop, user, assistant = 4096 + 2, 4096 + 3, 4096 + 7, 4096 + 8  # [gMASK] <sop> <|user|> <|assistant|>
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [gmask, sop, user] + body(20) + [assistant] + body(16)
    return [s0, body(23), body(61), body(100)]


# ---------------------------------------------------------------- DeepSeek-V3

DSV3 = dict(hidden=128, ff=192, moe_ff=32, layers=3, heads=4, q_lora=48, kv_lora=64, nope=32, rope=32, v=32,
            experts=16, top_k=4, n_group=4, topk_group=2, shared=1, scaling=2.5, first_dense=1)


def dsv3_config():
    from transformers import DeepseekV3Config
    c = DSV3
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["ff"],
              moe_intermediate_size=c["moe_ff"], num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
              num_key_value_heads=c["heads"], n_shared_experts=c["shared"], n_routed_experts=c["experts"],
              routed_scaling_factor=c["scaling"], kv_lora_rank=c["kv_lora"], q_lora_rank=c["q_lora"],
              qk_rope_head_dim=c["rope"], v_head_dim=c["v"], qk_nope_head_dim=c["nope"], n_group=c["n_group"],
              topk_group=c["topk_group"], num_experts_per_tok=c["top_k"], first_k_dense_replace=c["first_dense"],
              norm_topk_prob=True, rope_interleave=True, attention_bias=False, rms_norm_eps=1e-6,
              max_position_embeddings=163840, tie_word_embeddings=False, pad_token_id=4098,
              eos_token_id=4097, bos_token_id=4096)  # pad distinct from bos: generate() masks pad ids
    rope = {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096, "beta_fast": 32.0,
            "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0}
    return make_config(DeepseekV3Config, kw, rope, 10000.0)


def dsv3_weights(cfg):
    c = DSV3
    H, nh = c["hidden"], c["heads"]
    g = gen(SEED + 2)
    sd = {}
    sd["model.embed_tokens.weight"] = normal((VOCAB, H), 1.0, g)
    for il in range(c["layers"]):
        p = f"model.layers.{il}."
        sd[p + "input_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        sd[p + "post_attention_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
        a = p + "self_attn."
        sd[a + "q_a_proj.weight"] = normal((c["q_lora"], H), 1.0 / math.sqrt(H), g)
        sd[a + "q_a_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(c["q_lora"], generator=g))
        sd[a + "q_b_proj.weight"] = normal((nh * (c["nope"] + c["rope"]), c["q_lora"]), 1.0 / math.sqrt(c["q_lora"]), g)
        sd[a + "kv_a_proj_with_mqa.weight"] = normal((c["kv_lora"] + c["rope"], H), 1.0 / math.sqrt(H), g)
        sd[a + "kv_a_layernorm.weight"] = bf16(1.0 + 0.2 * torch.randn(c["kv_lora"], generator=g))
        sd[a + "kv_b_proj.weight"] = normal((nh * (c["nope"] + c["v"]), c["kv_lora"]), 1.0 / math.sqrt(c["kv_lora"]), g)
        sd[a + "o_proj.weight"] = normal((H, nh * c["v"]), 1.0 / math.sqrt(nh * c["v"]), g)
        glm_style_mlp(sd, p, il < c["first_dense"], c, H, g)
    sd["model.norm.weight"] = bf16(1.0 + 0.2 * torch.randn(H, generator=g))
    sd["lm_head.weight"] = normal((VOCAB, H), 3.0 / math.sqrt(H), g)
    return sd


def dsv3_sequences():
    g = gen(9)
    bos, user, assistant = 4096, 4096 + 5, 4096 + 6
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [bos, user] + body(20) + [assistant] + body(16)
    return [s0, body(23), body(61), body(100)]


# ---------------------------------------------------------------- Qwen3.5/3.6-MoE and Qwen3-Next

QWEN35 = dict(hidden=64, layers=4, heads=4, kv_heads=2, head_dim=32, rotary=0.25, lin_k_heads=2, lin_v_heads=4,
              lin_k_dim=32, lin_v_dim=32, conv=4, experts=8, top_k=4, moe_ff=32, shared_ff=64, dense_ff=128)


def qwen35_config(arch):
    c = QWEN35
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], num_hidden_layers=c["layers"],
              num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"],
              linear_num_key_heads=c["lin_k_heads"], linear_num_value_heads=c["lin_v_heads"],
              linear_key_head_dim=c["lin_k_dim"], linear_value_head_dim=c["lin_v_dim"],
              linear_conv_kernel_dim=c["conv"], num_experts=c["experts"], num_experts_per_tok=c["top_k"],
              moe_intermediate_size=c["moe_ff"], shared_expert_intermediate_size=c["shared_ff"],
              norm_topk_prob=True, rms_norm_eps=1e-6, max_position_embeddings=262144, tie_word_embeddings=False,
              layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
              full_attention_interval=4, attention_bias=False, pad_token_id=4098, eos_token_id=4097,
              bos_token_id=None)
    if arch == "qwen3_next":
        from transformers import Qwen3NextConfig as Cfg
        kw.update(decoder_sparse_step=1, mlp_only_layers=[], intermediate_size=192)
        rope = {"rope_type": "default", "partial_rotary_factor": c["rotary"]}
    elif arch == "qwen3_5":  # the dense one: no MoE keys, a dense MLP
        from transformers import Qwen3_5TextConfig as Cfg
        for k in ("num_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size",
                  "norm_topk_prob"):
            kw.pop(k)
        kw["intermediate_size"] = c["dense_ff"]
        rope = {"rope_type": "default", "partial_rotary_factor": c["rotary"], "mrope_section": [2, 3, 3],
                "mrope_interleaved": True}
    else:
        from transformers import Qwen3_5MoeTextConfig as Cfg
        rope = {"rope_type": "default", "partial_rotary_factor": c["rotary"], "mrope_section": [2, 3, 3],
                "mrope_interleaved": True}
    kw["partial_rotary_factor"] = c["rotary"]
    return make_config(Cfg, kw, rope, 10000000.0)


def qwen35_weights(cfg, arch, fused_experts=False):
    """Qwen's checkpoint names: linear attention with separate in_proj_qkv / in_proj_z / in_proj_b / in_proj_a
    (Qwen3.5) or the fused in_proj_qkvz / in_proj_ba grouped per key head (Qwen3-Next); zero-centred RMSNorms
    (weight w means 1 + w) except the gated norm of the linear attention; the query projection emits [query | gate]
    per head; the shared expert has a sigmoid gate. Routed experts per expert (mlp.experts.E.*) or, with
    fused_experts, the 3-D form mlp.experts.gate_up_proj [E, 2F, H] / down_proj [E, H, F]."""
    c = QWEN35
    H, nh, nkv, hd = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
    nk, nv, dk, dv, K = c["lin_k_heads"], c["lin_v_heads"], c["lin_k_dim"], c["lin_v_dim"], c["conv"]
    key_dim, value_dim = nk * dk, nv * dv
    g = gen(SEED + 3)  # the same weights for both: Qwen3-Next's fused projections are these, rearranged
    zc = lambda n: bf16(0.2 * torch.randn(n, generator=g))  # zero-centred norm weight
    sd = {}
    sd["model.embed_tokens.weight"] = normal((VOCAB, H), 1.0, g)
    for il in range(c["layers"]):
        p = f"model.layers.{il}."
        sd[p + "input_layernorm.weight"] = zc(H)
        sd[p + "post_attention_layernorm.weight"] = zc(H)
        if cfg.layer_types[il] == "linear_attention":
            a = p + "linear_attn."
            qkv = normal((2 * key_dim + value_dim, H), 1.0 / math.sqrt(H), g)
            z = normal((value_dim, H), 1.0 / math.sqrt(H), g)
            b = normal((nv, H), 1.0 / math.sqrt(H), g)
            al = normal((nv, H), 1.0 / math.sqrt(H), g)
            if arch == "qwen3_next":
                # Per key head: [q (dk) | k (dk) | v (R·dv) | z (R·dv)] and [b (R) | a (R)], R = nv / nk.
                R = nv // nk
                rows, ba = [], []
                for h in range(nk):
                    rows += [qkv[h * dk:(h + 1) * dk], qkv[key_dim + h * dk:key_dim + (h + 1) * dk],
                             qkv[2 * key_dim + h * R * dv:2 * key_dim + (h + 1) * R * dv], z[h * R * dv:(h + 1) * R * dv]]
                    ba += [b[h * R:(h + 1) * R], al[h * R:(h + 1) * R]]
                sd[a + "in_proj_qkvz.weight"] = torch.cat(rows, 0)
                sd[a + "in_proj_ba.weight"] = torch.cat(ba, 0)
            else:
                sd[a + "in_proj_qkv.weight"] = qkv
                sd[a + "in_proj_z.weight"] = z
                sd[a + "in_proj_b.weight"] = b
                sd[a + "in_proj_a.weight"] = al
            sd[a + "conv1d.weight"] = normal((2 * key_dim + value_dim, 1, K), 0.5, g)
            sd[a + "dt_bias"] = bf16(1.0 + 0.5 * torch.randn(nv, generator=g))
            sd[a + "A_log"] = bf16(torch.log(1.0 + 15.0 * torch.rand(nv, generator=g)))
            sd[a + "norm.weight"] = bf16(1.0 + 0.2 * torch.randn(dv, generator=g))
            sd[a + "out_proj.weight"] = normal((H, value_dim), 1.0 / math.sqrt(value_dim), g)
        else:
            s = p + "self_attn."
            sd[s + "q_proj.weight"] = normal((nh * hd * 2, H), 1.0 / math.sqrt(H), g)
            sd[s + "k_proj.weight"] = normal((nkv * hd, H), 1.0 / math.sqrt(H), g)
            sd[s + "v_proj.weight"] = normal((nkv * hd, H), 1.0 / math.sqrt(H), g)
            sd[s + "o_proj.weight"] = normal((H, nh * hd), 1.0 / math.sqrt(nh * hd), g)
            sd[s + "q_norm.weight"] = zc(hd)
            sd[s + "k_norm.weight"] = zc(hd)
        if arch == "qwen3_5":  # the dense Qwen3.5 / 3.6: Qwen3_5MLP
            Fd = c["dense_ff"]
            sd[p + "mlp.gate_proj.weight"] = normal((Fd, H), 1.0 / math.sqrt(H), g)
            sd[p + "mlp.up_proj.weight"] = normal((Fd, H), 1.0 / math.sqrt(H), g)
            sd[p + "mlp.down_proj.weight"] = normal((H, Fd), 1.0 / math.sqrt(Fd), g)
            continue
        F, E, Fs = c["moe_ff"], c["experts"], c["shared_ff"]
        sd[p + "mlp.gate.weight"] = normal((E, H), 1.0 / math.sqrt(H), g)
        gate = [normal((F, H), 1.0 / math.sqrt(H), g) for _ in range(E)]
        up = [normal((F, H), 1.0 / math.sqrt(H), g) for _ in range(E)]
        down = [normal((H, F), 1.0 / math.sqrt(F), g) for _ in range(E)]
        if fused_experts:
            sd[p + "mlp.experts.gate_up_proj"] = torch.stack([torch.cat([gate[e], up[e]], 0) for e in range(E)])
            sd[p + "mlp.experts.down_proj"] = torch.stack(down)
        else:
            for e in range(E):
                x = p + f"mlp.experts.{e}."
                sd[x + "gate_proj.weight"], sd[x + "up_proj.weight"], sd[x + "down_proj.weight"] = gate[e], up[e], down[e]
        sd[p + "mlp.shared_expert.gate_proj.weight"] = normal((Fs, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.shared_expert.up_proj.weight"] = normal((Fs, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.shared_expert.down_proj.weight"] = normal((H, Fs), 1.0 / math.sqrt(Fs), g)
        sd[p + "mlp.shared_expert_gate.weight"] = normal((1, H), 1.0 / math.sqrt(H), g)
    sd["model.norm.weight"] = zc(H)
    sd["lm_head.weight"] = normal((VOCAB, H), 3.0 / math.sqrt(H), g)
    return sd


def qwen35_sequences():
    g = gen(10)
    start, end = 4096 + 4, 4096 + 5  # <|im_start|> <|im_end|>
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [start] + body(20) + [end, start] + body(16)
    return [s0, body(80)]  # 80: across the 64-token chunks of the chunked delta rule


# ---------------------------------------------------------------- DeepSeek-V4

DSV4 = dict(hidden=64, layers=5, heads=4, head_dim=64, rotary=0.25, q_lora=32, o_groups=2, o_lora=32, experts=16,
            top_k=4, moe_ff=32, window=16, csa=4, hca=8, index_heads=8, index_dim=32, index_topk=4, hc=4,
            swiglu_limit=2.0,
            layer_types=["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                         "compressed_sparse_attention", "heavily_compressed_attention"],
            mlp_layer_types=["hash_moe", "hash_moe", "moe", "moe", "moe"])


def dsv4_config():
    from transformers import DeepseekV4Config
    c = DSV4
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], moe_intermediate_size=c["moe_ff"],
              num_hidden_layers=c["layers"], num_attention_heads=c["heads"], num_key_value_heads=1,
              head_dim=c["head_dim"], q_lora_rank=c["q_lora"], num_experts_per_tok=c["top_k"],
              n_routed_experts=c["experts"], n_shared_experts=1, scoring_func="sqrtsoftplus", norm_topk_prob=True,
              routed_scaling_factor=1.5, max_position_embeddings=65536, rope_theta=10000.0,
              layer_types=c["layer_types"], mlp_layer_types=c["mlp_layer_types"],
              compress_rates={"compressed_sparse_attention": c["csa"], "heavily_compressed_attention": c["hca"]},
              compress_rope_theta=160000.0, hc_mult=c["hc"], hc_sinkhorn_iters=20, hc_eps=1e-6,
              swiglu_limit=c["swiglu_limit"], sliding_window=c["window"], o_groups=c["o_groups"],
              o_lora_rank=c["o_lora"], index_n_heads=c["index_heads"], index_head_dim=c["index_dim"],
              index_topk=c["index_topk"], num_nextn_predict_layers=0, partial_rotary_factor=c["rotary"],
              rms_norm_eps=1e-6, tie_word_embeddings=False, pad_token_id=4098, eos_token_id=4097,
              bos_token_id=4096,
              # YaRN x16 on the compressed branches (the main rope stays plain), as DeepSeek-V4-Flash's config
              rope_parameters={"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096,
                               "beta_fast": 32.0, "beta_slow": 1.0})
    cfg = DeepseekV4Config(**kw)
    cfg._attn_implementation = "eager"
    print("DeepseekV4Config rope_parameters:", cfg.rope_parameters, "layer_types:", cfg.layer_types,
          "mlp_layer_types:", cfg.mlp_layer_types, "compress_rates:", cfg.compress_rates)
    return cfg


def dsv4_weights(cfg, Model):
    """Every tensor transformers' DeepseekV4ForCausalLM holds (its own state-dict names, which is what its
    save_pretrained writes), filled with BF16-exact random values at scales that keep every branch alive: the
    hyper-connection mixers, sinks, the compressors' position biases, the correction bias (F32) and the hash
    routing table tid2eid (distinct experts per token, int64)."""
    c = DSV4
    probe = Model(cfg)
    shapes = {k: (tuple(v.shape), v.dtype) for k, v in probe.state_dict().items()}
    del probe
    g = gen(SEED + 4)
    sd = {}
    for k in sorted(shapes):
        shape, dt = shapes[k]
        if k.endswith("tid2eid"):
            sd[k] = torch.stack([torch.randperm(c["experts"], generator=g)[:c["top_k"]] for _ in range(shape[0])]).to(dt)
        elif k.endswith("e_score_correction_bias"):
            sd[k] = 0.1 * torch.randn(shape, generator=g)
        elif k.endswith("embed_tokens.weight"):
            sd[k] = normal(shape, 1.0, g)
        elif k == "lm_head.weight":
            sd[k] = normal(shape, 3.0 / math.sqrt(shape[1]), g)
        elif k.endswith("sinks"):
            sd[k] = normal(shape, 1.0, g)
        elif k.endswith("position_bias"):
            sd[k] = normal(shape, 0.5, g)
        elif k.endswith(".base") or k.endswith("hc_base"):
            sd[k] = normal(shape, 0.5, g)
        elif k.endswith(".scale") or k.endswith("hc_scale"):
            sd[k] = bf16(1.0 + 0.2 * torch.randn(shape, generator=g))
        elif k.endswith(".fn") or k.endswith("hc_fn"):
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[1]), g)
        elif len(shape) == 1:  # RMSNorm weights
            sd[k] = bf16(1.0 + 0.2 * torch.randn(shape, generator=g))
        elif len(shape) == 3:  # experts [E, out, in]
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[2]), g)
        else:
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[1]), g)
    return sd


def dsv4_diagnostics(model, seqs, prompt, n_new):
    """Where the cached decode (generate) and a full recompute could part: the lightning indexer's top-k boundary
    tied (an ambiguous choice), and the largest logit difference between the two paths while they agree."""
    c = DSV4
    ties = [0, 0]
    def hook(mod, inp, res):
        sc = res[0]  # [S, T]
        S, T = sc.shape
        for t in range(S):
            valid = min(T, (t + 1) // c["csa"])
            if valid > c["index_topk"]:
                v = torch.sort(sc[t, :valid], descending=True).values
                ties[1] += 1
                ties[0] += int(v[c["index_topk"] - 1] == v[c["index_topk"]])
    hs = [l.self_attn.compressor.indexer.scorer.register_forward_hook(hook) for l in model.model.layers
          if l.self_attn.compressor is not None and hasattr(l.self_attn.compressor, "indexer")]
    with torch.no_grad():
        for s in seqs:
            model(torch.tensor([s]), use_cache=False)
    for h in hs:
        h.remove()
    print(f"indexer top-k boundary ties: {ties[0]} of {ties[1]} query-layer choices")
    with torch.no_grad():
        out = model.generate(torch.tensor([prompt]), max_new_tokens=n_new, min_new_tokens=n_new, do_sample=False,
                             num_beams=1, pad_token_id=model.config.pad_token_id, eos_token_id=None,
                             output_logits=True, return_dict_in_generate=True)
        ids = out.sequences[0].tolist()
        full = model(torch.tensor([ids]), use_cache=False).logits[0]
        diffs = []
        for i, l in enumerate(out.logits):
            diffs.append(float((l[0] - full[len(prompt) - 1 + i]).abs().max()))
        print("cached decode vs full recompute, max |dlogit| per step:", [round(d, 6) for d in diffs])


def dsv4_sequences():
    g = gen(11)
    bos, user, assistant = 4096, 4096 + 5, 4096 + 6
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [bos, user] + body(20) + [assistant] + body(16)
    return [s0, body(23), body(61), body(100)]


# ---------------------------------------------------------------- MiniMax-M2 (minimax_m2)

MINIMAX = dict(hidden=64, layers=3, heads=4, kv_heads=2, head_dim=32, rotary=0.5, experts=16, top_k=4, moe_ff=32,
               theta=5000000.0)


def minimax_config():
    from transformers import MiniMaxM2Config
    c = MINIMAX
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["moe_ff"], num_hidden_layers=c["layers"],
              num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"],
              hidden_act="silu", rms_norm_eps=1e-6, max_position_embeddings=196608, tie_word_embeddings=False,
              num_local_experts=c["experts"], num_experts_per_tok=c["top_k"], pad_token_id=4098, eos_token_id=4097,
              bos_token_id=4096,
              # MiniMax's configs state the rotated width too; transformers reads only the factor.
              rotary_dim=int(c["head_dim"] * c["rotary"]))
    cfg = make_config(MiniMaxM2Config, kw, {"rope_type": "default", "partial_rotary_factor": c["rotary"]}, c["theta"])
    rp = getattr(cfg, "rope_parameters", None)
    if not isinstance(rp, dict) or rp.get("partial_rotary_factor") != c["rotary"]:
        raise SystemExit(f"this transformers' MiniMaxM2Config did not keep partial_rotary_factor: {rp}")
    return cfg


def minimax_weights(cfg, Model):
    """Every tensor transformers' MiniMaxM2ForCausalLM holds, under its in-memory names (loaded strictly into the
    model, which save_pretrained then writes), BF16-exact random values: norms near 1, the correction bias >= 0 and
    large enough to change the choice against the sigmoid scores."""
    probe = Model(cfg)
    shapes = {k: tuple(v.shape) for k, v in probe.state_dict().items()}
    del probe
    g = gen(SEED + 8)
    sd = {}
    for k in sorted(shapes):
        shape = shapes[k]
        if k.endswith("e_score_correction_bias"):
            sd[k] = bf16(0.25 * torch.rand(shape, generator=g))
        elif k.endswith("embed_tokens.weight"):
            sd[k] = normal(shape, 1.0, g)
        elif k == "lm_head.weight":
            sd[k] = normal(shape, 3.0 / math.sqrt(shape[1]), g)
        elif len(shape) == 1:  # RMSNorm weights, the q/k norms over all heads included
            sd[k] = bf16(1.0 + 0.2 * torch.randn(shape, generator=g))
        elif len(shape) == 3:  # experts [E, out, in]
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[2]), g)
        else:
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[1]), g)
    return sd


def minimax_save_pretrained(Model, cfg, sd, out):
    """The fixture as transformers itself writes it: the tensors loaded strictly, the model in BF16 with the
    correction bias kept F32 (as MiniMax's checkpoints store it), save_pretrained. Returns the names it wrote."""
    from safetensors import safe_open
    m0 = Model(cfg)
    m0.load_state_dict(sd, strict=True)
    m0 = m0.to(torch.bfloat16)
    for layer in m0.model.layers:
        layer.mlp.e_score_correction_bias = layer.mlp.e_score_correction_bias.float()
    for f in out.glob("*.safetensors"):
        f.unlink()
    m0.save_pretrained(out, safe_serialization=True)
    del m0
    names = []
    for f in sorted(out.glob("*.safetensors")):
        with safe_open(str(f), "pt") as h:
            names += list(h.keys())
    print("save_pretrained wrote:", sorted(n for n in names if ".layers.0." in n))
    return sorted(names)


def minimax_sequences():
    g = gen(13)
    bos, user, assistant = 4096, 4096 + 5, 4096 + 6
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [bos, user] + body(20) + [assistant] + body(16)
    return [s0, body(23), body(90)]


def minimax_readme(out, meta, lengths, saved):
    c = MINIMAX
    published = any("block_sparse_moe.experts.0.w1.weight" in n for n in saved)
    names = ("MiniMax's published tensor names (`block_sparse_moe.gate.weight`, `block_sparse_moe.e_score_correction_bias`, "
             "per-expert `block_sparse_moe.experts.E.w1/w2/w3.weight`), as this transformers' `save_pretrained` maps its "
             "own back") if published else (
             "transformers' in-memory names (`mlp.gate.weight`, `mlp.e_score_correction_bias`, 3-D "
             "`mlp.experts.gate_up_proj` / `down_proj`): this transformers' `save_pretrained` kept them")
    (out / "README.md").write_text(f"""# minimax-m2-tiny — golden fixture for MiniMax-M2 / M2.5 (MiniMaxM2ForCausalLM)

A small `MiniMaxM2ForCausalLM` with random BF16 weights (seed {SEED + 8}; the correction bias F32 as MiniMax's
checkpoints store it) and what PyTorch + transformers compute for it: {c["layers"]} layers, hidden {c["hidden"]}, GQA
attention with {c["heads"]} query / {c["kv_heads"]} KV heads of {c["head_dim"]} whose q and k are each RMS-normalised
over all heads of a token at once (q_norm of {c["heads"] * c["head_dim"]}, k_norm of {c["kv_heads"] * c["head_dim"]}),
NeoX RoPE on the first {int(c["head_dim"] * c["rotary"])} dims of each head (theta {c["theta"]:g}); every layer MoE:
{c["experts"]} experts (FFN {c["moe_ff"]}) top-{c["top_k"]}, sigmoid router with `e_score_correction_bias` in the choice
only, renormalised weights, no shared expert, untied LM head; vocabulary {VOCAB} (the layout of a cut tokenizer; no
tokenizer ships: sequences are token ids). Written by transformers' own `save_pretrained`: {names}.

| file | what |
| --- | --- |
| config.json, generation_config.json, model.safetensors | the HF checkpoint |
| golden.json | {len(lengths)} sequences ({", ".join(map(str, lengths))} tokens), transformers' greedy `generate()` ({len(meta["greedy_new_tokens"])} tokens, with its KV cache) of sequence 0 and the same by full recompute, RoPE tables, routing of sequence 0, what transformers built (`structure`) |
| logits.bin | float32 logits of every position ([{meta["logits_shape"][0]} × {meta["logits_shape"][1]}], little-endian) |

Made by `scripts/golden/make_arch_golden.py minimax_m2 OUT_DIR` (transformers {meta["transformers"]}, torch
{meta["torch"]}; CPU is enough). The reference computes in float32 on the BF16-rounded weights.
""")


# ---------------------------------------------------------------- GLM-5 (glm_moe_dsa)

GLM5 = dict(hidden=128, ff=192, moe_ff=32, layers=3, heads=4, q_lora=48, kv_lora=64, nope=32, rope=16, v=32,
            experts=16, top_k=4, shared=1, scaling=2.5, first_dense=1, index_heads=32, index_dim=32, index_topk=16)


def glm5_config():
    from transformers import GlmMoeDsaConfig
    c = GLM5
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["ff"],
              moe_intermediate_size=c["moe_ff"], num_hidden_layers=c["layers"], num_attention_heads=c["heads"],
              num_key_value_heads=c["heads"], n_shared_experts=c["shared"], n_routed_experts=c["experts"],
              routed_scaling_factor=c["scaling"], kv_lora_rank=c["kv_lora"], q_lora_rank=c["q_lora"],
              qk_rope_head_dim=c["rope"], v_head_dim=c["v"], qk_nope_head_dim=c["nope"], head_dim=c["rope"],
              n_group=1, topk_group=1, num_experts_per_tok=c["top_k"], first_k_dense_replace=c["first_dense"],
              norm_topk_prob=True, attention_bias=False, rms_norm_eps=1e-5, index_n_heads=c["index_heads"],
              index_head_dim=c["index_dim"], index_topk=c["index_topk"], max_position_embeddings=202752,
              tie_word_embeddings=False, pad_token_id=4098, eos_token_id=4097, bos_token_id=4096)
    return make_config(GlmMoeDsaConfig, kw, {"rope_type": "default"}, 1000000.0)


def glm5_weights(cfg, Model):
    """Every tensor transformers' GlmMoeDsaForCausalLM holds, under its own state-dict names (what its
    save_pretrained writes), BF16-exact random values: norms near 1, the indexer key norm's bias near 0, the
    correction bias F32 and >= 0."""
    probe = Model(cfg)
    shapes = {k: tuple(v.shape) for k, v in probe.state_dict().items()}
    del probe
    g = gen(SEED + 5)
    sd = {}
    for k in sorted(shapes):
        shape = shapes[k]
        if k.endswith("e_score_correction_bias"):
            sd[k] = 0.25 * torch.rand(shape, generator=g)
        elif k.endswith("embed_tokens.weight"):
            sd[k] = normal(shape, 1.0, g)
        elif k == "lm_head.weight":
            sd[k] = normal(shape, 3.0 / math.sqrt(shape[1]), g)
        elif k.endswith(".bias") and len(shape) == 1:  # the indexer's LayerNorm bias
            sd[k] = normal(shape, 0.2, g)
        elif len(shape) == 1:  # RMSNorm / LayerNorm weights
            sd[k] = bf16(1.0 + 0.2 * torch.randn(shape, generator=g))
        elif len(shape) == 3:  # experts [E, out, in]
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[2]), g)
        else:
            sd[k] = normal(shape, 1.0 / math.sqrt(shape[1]), g)
    return sd


def glm5_per_expert(sd):
    """The same weights under GLM's published names (per-expert mlp.experts.E.{gate,up,down}_proj.weight), for a
    transformers whose loader maps those onto its 3-D experts and refuses the 3-D names."""
    out = {}
    for k, v in sd.items():
        if k.endswith("mlp.experts.gate_up_proj"):
            p, ff = k[: -len("gate_up_proj")], v.shape[1] // 2
            for e in range(v.shape[0]):
                out[f"{p}{e}.gate_proj.weight"] = v[e, :ff].contiguous()
                out[f"{p}{e}.up_proj.weight"] = v[e, ff:].contiguous()
        elif k.endswith("mlp.experts.down_proj"):
            p = k[: -len("down_proj")]
            for e in range(v.shape[0]):
                out[f"{p}{e}.down_proj.weight"] = v[e].contiguous()
        else:
            out[k] = v
    return out


def glm5_sequences():
    g = gen(12)
    gmask, sop, user, assistant = 4096 + 2, 4096 + 3, 4096 + 7, 4096 + 8
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [gmask, sop, user] + body(20) + [assistant] + body(16)
    return [s0, body(23), body(61), body(100)]


# ---------------------------------------------------------------- dense Qwen3 (qwen3)

QWEN3D = dict(hidden=128, ff=256, layers=3, heads=4, kv_heads=2, head_dim=64, theta=1000000.0)


def qwen3_dense_config():
    from transformers import Qwen3Config as Cfg
    c = QWEN3D
    # Token ids in the cut tokenizer's layout (qwen3-moe-tiny's): <|endoftext|> 4096, <|im_start|> 4097, <|im_end|> 4098.
    kw = dict(vocab_size=VOCAB, hidden_size=c["hidden"], intermediate_size=c["ff"], num_hidden_layers=c["layers"],
              num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"],
              hidden_act="silu", rms_norm_eps=1e-6, max_position_embeddings=40960, tie_word_embeddings=False,
              attention_bias=False, use_sliding_window=False, pad_token_id=4096, eos_token_id=4098,
              bos_token_id=None)
    return make_config(Cfg, kw, {"rope_type": "default"}, c["theta"])


def qwen3_dense_weights(cfg):
    """Qwen3's own names (what its save_pretrained writes): GQA attention with per-head q/k RMSNorms (plain weights,
    near 1), a dense SwiGLU MLP (mlp.gate_proj / up_proj / down_proj) on every layer, an untied LM head as in
    Qwen3-8B/32B. BF16-exact random values."""
    c = QWEN3D
    H, F, nh, nkv, hd = c["hidden"], c["ff"], c["heads"], c["kv_heads"], c["head_dim"]
    g = gen(SEED + 7)
    near1 = lambda n: bf16(1.0 + 0.2 * torch.randn(n, generator=g))
    sd = {"model.embed_tokens.weight": normal((VOCAB, H), 1.0, g)}
    for il in range(c["layers"]):
        p = f"model.layers.{il}."
        sd[p + "input_layernorm.weight"] = near1(H)
        sd[p + "self_attn.q_proj.weight"] = normal((nh * hd, H), 1.0 / math.sqrt(H), g)
        sd[p + "self_attn.k_proj.weight"] = normal((nkv * hd, H), 1.0 / math.sqrt(H), g)
        sd[p + "self_attn.v_proj.weight"] = normal((nkv * hd, H), 1.0 / math.sqrt(H), g)
        sd[p + "self_attn.o_proj.weight"] = normal((H, nh * hd), 1.0 / math.sqrt(nh * hd), g)
        sd[p + "self_attn.q_norm.weight"] = near1(hd)
        sd[p + "self_attn.k_norm.weight"] = near1(hd)
        sd[p + "post_attention_layernorm.weight"] = near1(H)
        sd[p + "mlp.gate_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.up_proj.weight"] = normal((F, H), 1.0 / math.sqrt(H), g)
        sd[p + "mlp.down_proj.weight"] = normal((H, F), 1.0 / math.sqrt(F), g)
    sd["model.norm.weight"] = near1(H)
    sd["lm_head.weight"] = normal((VOCAB, H), 3.0 / math.sqrt(H), g)
    return sd


def qwen3_dense_sequences():
    g = gen(11)
    start, end = 4097, 4098  # <|im_start|> <|im_end|>
    body = lambda n: torch.randint(0, N_BPE, (n,), generator=g).tolist()
    s0 = [start] + body(20) + [end, start] + body(16)
    return [s0, body(23), body(90)]


def qwen3_dense_readme(out, meta, lengths):
    c = QWEN3D
    (out / "README.md").write_text(f"""# qwen3-dense-tiny — golden fixture for dense Qwen3 (Qwen3ForCausalLM)

A small `Qwen3ForCausalLM` with random BF16 weights (seed {SEED + 7}) and what PyTorch + transformers compute for it:
{c["layers"]} layers, hidden {c["hidden"]}, GQA attention with {c["heads"]} query / {c["kv_heads"]} KV heads of
{c["head_dim"]} with per-head RMSNorm on q and k, NeoX RoPE (theta {c["theta"]:g}), a dense SwiGLU FFN of
{c["ff"]} on every layer (no MoE block), untied LM head; vocabulary {VOCAB} (the layout of the cut Qwen3 tokenizer of
qwen3-moe-tiny; no tokenizer ships: sequences are token ids). Written by transformers' own `save_pretrained`
(Qwen3's published tensor names, BF16).

| file | what |
| --- | --- |
| config.json, generation_config.json, model.safetensors | the HF checkpoint |
| golden.json | {len(lengths)} sequences ({", ".join(map(str, lengths))} tokens), transformers' greedy `generate()` ({len(meta["greedy_new_tokens"])} tokens, with its KV cache) of sequence 0 and the same by full recompute, RoPE tables, what transformers built (`structure`) |
| logits.bin | float32 logits of every position ([{meta["logits_shape"][0]} × {meta["logits_shape"][1]}], little-endian) |

Made by `scripts/golden/make_arch_golden.py qwen3 OUT_DIR` (transformers {meta["transformers"]}, torch
{meta["torch"]}; CPU is enough). The reference computes in float32 on the BF16-rounded weights.
""")


def qwen35_dense_readme(out, meta, lengths):
    c = QWEN35
    (out / "README.md").write_text(f"""# qwen3-5-dense-tiny — golden fixture for the dense Qwen3.5 / 3.6 (Qwen3_5ForCausalLM)

A small `Qwen3_5ForCausalLM` (the text model of Qwen3.6-27B's family) with random BF16 weights (seed {SEED + 3},
drawn as qwen3-5-moe-tiny's are, a dense MLP in place of each MoE block) and what PyTorch + transformers compute for it: {c["layers"]} layers, hidden {c["hidden"]}, Gated DeltaNet in
layers 0-2 ({c["lin_k_heads"]} key / {c["lin_v_heads"]} value heads of {c["lin_k_dim"]}, conv {c["conv"]}), gated
full attention in layer 3 ({c["heads"]}/{c["kv_heads"]} heads of {c["head_dim"]}, q/k norms, partial RoPE
{c["rotary"]}), a dense SwiGLU MLP of {c["dense_ff"]} on every layer, zero-centred norms; vocabulary {VOCAB} (no
tokenizer ships: sequences are token ids). Written by transformers' own `save_pretrained` (BF16).

| file | what |
| --- | --- |
| config.json, generation_config.json, model.safetensors | the HF checkpoint |
| golden.json | {len(lengths)} sequences ({", ".join(map(str, lengths))} tokens), transformers' greedy `generate()` ({len(meta["greedy_new_tokens"])} tokens, with its cache) of sequence 0 and the same by full recompute, RoPE tables, what transformers built (`structure`) |
| logits.bin | float32 logits of every position ([{meta["logits_shape"][0]} × {meta["logits_shape"][1]}], little-endian) |

Made by `scripts/golden/make_arch_golden.py qwen3_5 OUT_DIR` (transformers {meta["transformers"]}, torch
{meta["torch"]}; CPU is enough). The reference computes in float32 on the BF16-rounded weights.
""")


# ---------------------------------------------------------------- common

def save(sd, path, keep_f32=()):
    out = {}
    for k, v in sd.items():
        out[k] = v.contiguous() if (v.dtype != torch.float32 or any(s in k for s in keep_f32)) else v.to(torch.bfloat16)
    save_file(out, str(path), metadata={"format": "pt"})


def rope_info(model):
    info = {}
    try:
        re = model.model.rotary_emb
        info["inv_freq"] = [float(x) for x in re.inv_freq.float().tolist()]
        info["attention_scaling"] = float(re.attention_scaling)
    except Exception as e:  # noqa: BLE001
        info["error"] = repr(e)
    return info


def routing_of(model, arch, seq):
    """Top-k expert ids per MoE layer for every token of seq (for debugging an engine's router), best effort."""
    out = {}
    hooks = []
    for il, layer in enumerate(model.model.layers):
        mlp = layer.mlp
        if arch == "gpt_oss" and hasattr(mlp, "router"):
            def hook(mod, inp, res, il=il):
                ints = [r for r in (res if isinstance(res, tuple) else (res,)) if torch.is_tensor(r) and not r.is_floating_point()]
                if ints:
                    out[il] = ints[0].reshape(len(seq), -1).tolist()
            hooks.append(mlp.router.register_forward_hook(hook))
        elif arch in ("glm4_moe", "deepseek_v3", "deepseek_v4", "glm_moe_dsa", "qwen3_5_moe", "qwen3_next",
                      "minimax_m2") and hasattr(mlp, "gate"):
            def hook(mod, inp, res, il=il, mlp=mlp):
                ints = [r for r in (res if isinstance(res, tuple) else (res,)) if torch.is_tensor(r) and not r.is_floating_point()]
                if ints:
                    idx = ints[0]
                elif hasattr(mlp, "route_tokens_to_experts"):
                    idx, _ = mlp.route_tokens_to_experts(res)
                else:
                    return
                out[il] = torch.sort(idx, dim=-1).values.reshape(len(seq), -1).tolist()
            hooks.append(mlp.gate.register_forward_hook(hook))
    try:
        with torch.no_grad():
            model(torch.tensor([seq]))
    finally:
        for h in hooks:
            h.remove()
    return out


def main():
    arch, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    print("transformers", transformers.__version__, "torch", torch.__version__, "arch", arch, flush=True)
    if arch == "gpt_oss":
        from transformers import GptOssForCausalLM as Model
        cfg = gpt_oss_config()
        sd, mx = gpt_oss_weights(cfg)
        seqs = gpt_oss_sequences()
        keep_f32 = ()
    elif arch == "glm4_moe":
        from transformers import Glm4MoeForCausalLM as Model
        cfg = glm_config()
        sd, mx = glm_weights(cfg), None
        seqs = glm_sequences()
        keep_f32 = ("e_score_correction_bias",)
    elif arch == "deepseek_v3":
        from transformers import DeepseekV3ForCausalLM as Model
        cfg = dsv3_config()
        sd, mx = dsv3_weights(cfg), None
        seqs = dsv3_sequences()
        keep_f32 = ("e_score_correction_bias",)
    elif arch == "deepseek_v4":
        from transformers import DeepseekV4ForCausalLM as Model
        cfg = dsv4_config()
        sd, mx = dsv4_weights(cfg, Model), None
        seqs = dsv4_sequences()
        keep_f32 = ("e_score_correction_bias",)
        import inspect
        import transformers.models.deepseek_v4.modeling_deepseek_v4 as mod
        (out / "modeling_deepseek_v4.py.txt").write_text(inspect.getsource(mod))
    elif arch == "glm_moe_dsa":
        from transformers import GlmMoeDsaForCausalLM as Model
        cfg = glm5_config()
        sd, mx = glm5_weights(cfg, Model), None
        seqs = glm5_sequences()
        keep_f32 = ("e_score_correction_bias",)
    elif arch == "minimax_m2":
        from transformers import MiniMaxM2ForCausalLM as Model
        cfg = minimax_config()
        sd, mx = minimax_weights(cfg, Model), None
        seqs = minimax_sequences()
        keep_f32 = ("e_score_correction_bias",)
    elif arch in ("qwen3_5_moe", "qwen3_next"):
        if arch == "qwen3_next":
            from transformers import Qwen3NextForCausalLM as Model
        else:
            from transformers import Qwen3_5MoeForCausalLM as Model
        cfg = qwen35_config(arch)
        sd, mx = qwen35_weights(cfg, arch), None
        seqs = qwen35_sequences()
        keep_f32 = ("A_log", "dt_bias")
    elif arch == "qwen3_5":
        from transformers import Qwen3_5ForCausalLM as Model
        cfg = qwen35_config(arch)
        sd, mx = qwen35_weights(cfg, arch), None
        seqs = qwen35_sequences()
        keep_f32 = ()
    elif arch == "qwen3":
        from transformers import Qwen3ForCausalLM as Model
        cfg = qwen3_dense_config()
        sd, mx = qwen3_dense_weights(cfg), None
        seqs = qwen3_dense_sequences()
        keep_f32 = ()
    else:
        raise SystemExit("arch: gpt_oss, glm4_moe, deepseek_v3, deepseek_v4, glm_moe_dsa, qwen3_5_moe, qwen3_next, qwen3 "
                         "or qwen3_5")

    # What this transformers makes of the architecture, for the record.
    probe = Model(cfg).eval()
    print("in-memory parameters:", [(k, tuple(v.shape)) for k, v in probe.state_dict().items() if ".layers.1." in k])
    del probe

    if arch in ("qwen3", "qwen3_5"):
        # Written by transformers itself: the canonical tensors loaded strictly into its model, saved in BF16.
        m0 = Model(cfg)
        m0.load_state_dict(sd, strict=True)
        m0.to(torch.bfloat16).save_pretrained(out, safe_serialization=True)
        del m0
    else:
        save(sd, out / "model.safetensors", keep_f32)
        cfg.save_pretrained(out)
    saved_names = None
    if arch == "minimax_m2":  # written again, by transformers itself
        saved_names = minimax_save_pretrained(Model, cfg, sd, out)
    cfgj = json.loads((out / "config.json").read_text())
    print("config.json:", json.dumps(cfgj, sort_keys=True))

    model, info = Model.from_pretrained(out, torch_dtype=torch.float32, attn_implementation="eager",
                                        output_loading_info=True)
    model = model.float().eval()
    print("loading info:", {k: sorted(v)[:12] for k, v in info.items() if v})
    if arch in ("qwen3_5_moe", "qwen3_next") and (info.get("missing_keys") or info.get("unexpected_keys")):
        print("per-expert layout does not load: writing the fused 3-D expert layout instead")
        sd = qwen35_weights(cfg, arch, fused_experts=True)
        save(sd, out / "model.safetensors", keep_f32)
        model, info = Model.from_pretrained(out, torch_dtype=torch.float32, attn_implementation="eager",
                                            output_loading_info=True)
        model = model.float().eval()
        print("loading info:", {k: sorted(v)[:12] for k, v in info.items() if v})
    if arch == "glm_moe_dsa" and (info.get("missing_keys") or info.get("unexpected_keys")):
        print("3-D expert names do not load: writing the per-expert layout (GLM's published names) instead")
        sd = glm5_per_expert(sd)
        save(sd, out / "model.safetensors", keep_f32)
        model, info = Model.from_pretrained(out, torch_dtype=torch.float32, attn_implementation="eager",
                                            output_loading_info=True)
        model = model.float().eval()
        print("loading info:", {k: sorted(v)[:12] for k, v in info.items() if v})
    if info.get("missing_keys") or info.get("mismatched_keys"):
        raise SystemExit(f"checkpoint does not load cleanly: {info}")
    n_layers = {"gpt_oss": GPT_OSS, "glm4_moe": GLM, "deepseek_v3": DSV3, "deepseek_v4": DSV4, "glm_moe_dsa": GLM5,
                "qwen3_5_moe": QWEN35, "minimax_m2": MINIMAX,
                "qwen3_next": QWEN35, "qwen3": QWEN3D, "qwen3_5": QWEN35}[arch]["layers"]
    unexpected = [k for k in info.get("unexpected_keys", []) if not k.startswith(f"model.layers.{n_layers}.")]
    if unexpected:
        raise SystemExit(f"unexpected keys beyond the MTP layer: {unexpected[:8]}")
    # What transformers built, against what the fixture means (printed; golden.json keeps the findings).
    checks = {}
    try:
        re = model.model.rotary_emb
        if arch != "deepseek_v4":
            checks["inv_freq_len"] = int(re.inv_freq.numel())
            checks["attention_scaling"] = float(re.attention_scaling)
        if arch == "gpt_oss":
            checks["layer_types"] = list(model.config.layer_types)
            checks["sinks"] = hasattr(model.model.layers[0].self_attn, "sinks")
            checks["want"] = {"inv_freq_len": GPT_OSS["head_dim"] // 2, "attention_scaling": 0.1 * math.log(32) + 1}
        elif arch == "deepseek_v3":
            a = model.model.layers[0].self_attn
            checks["scaling"] = float(getattr(a, "scaling", float("nan")))
            checks["rope_interleave"] = bool(getattr(model.config, "rope_interleave", None))
            checks["layer0_dense"] = hasattr(model.model.layers[0].mlp, "gate_proj")
            mlp1 = model.model.layers[1].mlp
            checks["moe"] = {k: getattr(mlp1, k, None) for k in ("n_group", "topk_group", "routed_scaling_factor",
                                                                   "norm_topk_prob", "top_k")}
            m = 0.1 * math.log(40) + 1
            checks["want"] = {"inv_freq_len": DSV3["rope"] // 2, "attention_scaling": 1.0,
                              "scaling": (DSV3["nope"] + DSV3["rope"]) ** -0.5 * m * m}
        elif arch == "deepseek_v4":
            checks["layer_types"] = list(model.config.layer_types)
            checks["mlp_layer_types"] = list(model.config.mlp_layer_types)
            checks["rope_parameters"] = model.config.rope_parameters
            checks["attention_scaling"] = {t: float(getattr(re, f"{t}_attention_scaling")) for t in ("main", "compress")}
            checks["inv_freq"] = {t: [float(x) for x in getattr(re, f"{t}_inv_freq").tolist()] for t in ("main", "compress")}
            checks["layer1"] = sorted(k for k, _ in model.model.layers[1].named_parameters())
            checks["want"] = {"rope_dim": int(DSV4["head_dim"] * DSV4["rotary"])}
        elif arch == "glm_moe_dsa":
            a = model.model.layers[0].self_attn
            checks["scaling"] = float(getattr(a, "scaling", float("nan")))
            checks["indexer_types"] = getattr(model.config, "indexer_types", None)
            checks["mlp_layer_types"] = getattr(model.config, "mlp_layer_types", None)
            checks["indexer"] = {k: getattr(a.indexer, k, None) for k in ("n_heads", "head_dim", "index_topk",
                                                                          "qk_rope_head_dim", "softmax_scale")}
            checks["indexer_k_norm"] = type(a.indexer.k_norm).__name__
            checks["layer1"] = sorted(k for k, _ in model.model.layers[1].named_parameters())
            checks["want"] = {"inv_freq_len": GLM5["rope"] // 2, "attention_scaling": 1.0,
                              "scaling": (GLM5["nope"] + GLM5["rope"]) ** -0.5}
        elif arch == "qwen3":
            checks["layer_types"] = list(model.config.layer_types)
            checks["qk_norm"] = hasattr(model.model.layers[0].self_attn, "q_norm")
            checks["dense_mlp"] = [sorted(k for k, _ in l.mlp.named_parameters()) for l in model.model.layers]
            checks["tied"] = bool(model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr())
            checks["want"] = {"inv_freq_len": QWEN3D["head_dim"] // 2, "attention_scaling": 1.0}
        elif arch == "minimax_m2":
            a = model.model.layers[0].self_attn
            checks["scaling"] = float(getattr(a, "scaling", float("nan")))
            checks["q_norm"] = list(a.q_norm.weight.shape)
            checks["k_norm"] = list(a.k_norm.weight.shape)
            checks["rope_parameters"] = model.config.rope_parameters
            checks["layer1"] = sorted(k for k, _ in model.model.layers[1].named_parameters())
            checks["buffers1"] = sorted(k for k, _ in model.model.layers[1].named_buffers())
            checks["saved_layer0"] = [n for n in saved_names if ".layers.0." in n]
            c = MINIMAX
            checks["want"] = {"inv_freq_len": int(c["head_dim"] * c["rotary"]) // 2, "attention_scaling": 1.0,
                              "scaling": c["head_dim"] ** -0.5, "q_norm": [c["heads"] * c["head_dim"]],
                              "k_norm": [c["kv_heads"] * c["head_dim"]]}
        elif arch in ("qwen3_5_moe", "qwen3_next", "qwen3_5"):
            checks["layer_types"] = list(model.config.layer_types)
            checks["dense_mlp"] = sorted(k for k, _ in model.model.layers[0].mlp.named_parameters())
            checks["want"] = {"inv_freq_len": int(QWEN35["head_dim"] * QWEN35["rotary"]) // 2, "attention_scaling": 1.0}
            la = model.model.layers[0].linear_attn
            checks["linear_attn"] = sorted(k for k, _ in la.named_parameters())
        else:
            checks["layer0_dense"] = hasattr(model.model.layers[0].mlp, "gate_proj")
            mlp1 = model.model.layers[1].mlp
            checks["moe"] = {k: getattr(mlp1, k, None) for k in ("n_group", "topk_group", "routed_scaling_factor",
                                                                   "norm_topk_prob", "top_k")}
            checks["expert_shapes"] = {k: list(v.shape) for k, v in mlp1.experts.state_dict().items()}
            checks["qk_norm"] = hasattr(model.model.layers[0].self_attn, "q_norm")
            checks["want"] = {"inv_freq_len": GLM["head_dim"] // 4, "attention_scaling": 1.0}
    except Exception as e:  # noqa: BLE001
        checks["error"] = repr(e)
    print("structure:", json.dumps(checks, default=str))
    # The loaded parameters must be the canonical tensors (BF16-exact): compare every one that keeps its name.
    loaded = model.state_dict()
    same = sum(1 for k, v in sd.items() if k in loaded and loaded[k].shape == v.shape and torch.equal(loaded[k].float(), v))
    print(f"{same} of {len(sd)} tensors load unchanged under their own name (fused/renamed ones are converted)")
    if arch == "minimax_m2" and same != len(sd):
        raise SystemExit(f"only {same} of {len(sd)} tensors come back from save_pretrained unchanged")

    logits = []
    with torch.no_grad():
        for s in seqs:
            logits.append(model(torch.tensor([s])).logits[0].float())
        n_new = 48
        prompt = seqs[0]
        gen_ids = model.generate(torch.tensor([prompt]), max_new_tokens=n_new, min_new_tokens=n_new, do_sample=False,
                                 num_beams=1, pad_token_id=cfg.pad_token_id, eos_token_id=None)
        greedy = gen_ids[0, len(prompt):].tolist()
        ids = list(prompt)
        for _ in range(n_new):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
        by_hand = ids[len(prompt):]
    print("greedy generate():", greedy)
    if arch == "deepseek_v4":
        dsv4_diagnostics(model, seqs, prompt, n_new)
    if by_hand != greedy:
        print("WARNING: generate() differs from step-by-step argmax (full recompute):", by_hand)

    # Activation statistics: how often the clamp / grouping actually mattered (printed, for the README).
    print("logits std per sequence:", [round(float(l.std()), 3) for l in logits])
    routing = {}
    try:
        routing = routing_of(model, arch, seqs[0])
        print("routing of sequence 0, layer", min(routing) if routing else None, ":",
              routing[min(routing)][:3] if routing else None)
    except Exception:  # noqa: BLE001
        traceback.print_exc()

    mxfp4_check = None
    if mx:
        # The MXFP4 form of the same experts: blocks/scales under the names of openai/gpt-oss-*.
        sd_mx = {k: v for k, v in sd.items() if k not in mx}
        for k, (blocks, scales) in mx.items():
            sd_mx[k + "_blocks"] = blocks
            sd_mx[k + "_scales"] = scales
        mdir = out.parent / (out.name + "-mxfp4-check")
        mdir.mkdir(exist_ok=True)
        save(sd_mx, mdir / "model.safetensors")
        cfg.save_pretrained(mdir)
        cj = json.loads((mdir / "config.json").read_text())
        cj["quantization_config"] = {"quant_method": "mxfp4", "modules_to_not_convert": [
            "model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}
        (mdir / "config.json").write_text(json.dumps(cj, indent=2))
        try:
            kwargs = {}
            try:
                from transformers import Mxfp4Config
                kwargs["quantization_config"] = Mxfp4Config(dequantize=True)
            except Exception:  # noqa: BLE001
                pass
            m2 = Model.from_pretrained(mdir, torch_dtype=torch.float32, attn_implementation="eager", **kwargs)
            m2 = m2.float().eval()
            with torch.no_grad():
                l2 = m2(torch.tensor([seqs[2]])).logits[0].float()
            d = (l2 - logits[2]).abs().max().item()
            mxfp4_check = {"max_abs_logit_diff": d}
            print("MXFP4 checkpoint form through transformers: max |dlogit| =", d)
        except Exception as e:  # noqa: BLE001
            mxfp4_check = {"error": repr(e)[:400]}
            print("MXFP4 checkpoint form could not be checked by transformers:", repr(e)[:400])

    all_logits = torch.cat(logits, 0).contiguous()
    logits_file = "logits.bin"
    shared_check = None
    if arch == "qwen3_next":
        # The fixture keeps only what differs from qwen3-5-moe-tiny (the same weights): the fused projections, in
        # their own file; a test puts it beside that fixture's model.safetensors. The logits too, when transformers
        # computes the same for both architectures.
        full = out / "model.safetensors"
        save({k: v for k, v in sd.items() if "in_proj_qkvz" in k or "in_proj_ba" in k}, out / "linear-attn.safetensors")
        full.unlink()
        sib = out.parent / "qwen3-5-moe-tiny" / "logits.bin"
        if sib.exists():
            import numpy as np
            other = torch.from_numpy(np.fromfile(sib, dtype="<f4")).reshape(all_logits.shape)
            d = float((other - all_logits).abs().max())
            shared_check = {"max_abs_logit_diff_vs_qwen3_5_moe": d}
            print("Qwen3-Next vs Qwen3.5-MoE on the same weights: max |dlogit| =", d)
            if d <= 1e-4:
                logits_file = "../qwen3-5-moe-tiny/logits.bin"
    if logits_file == "logits.bin":
        all_logits.numpy().astype("<f4").tofile(out / "logits.bin")
    meta = {
        "made_by": "scripts/golden/make_arch_golden.py " + arch,
        "transformers": transformers.__version__, "torch": torch.__version__, "seed": SEED,
        "architecture": arch, "vocab_size": VOCAB,
        "sequences": seqs, "greedy_prompt_index": 0, "greedy_new_tokens": greedy,
        "greedy_step_by_step": by_hand,
        "logits_file": logits_file, "logits_shape": list(all_logits.shape),
        "reference_dtype": "float32 compute on BF16-rounded weights (transformers from_pretrained of this folder)",
        "rope": rope_info(model), "routing_sequence0": {str(k): v for k, v in routing.items()},
        "structure": checks,
    }
    if mxfp4_check is not None:
        meta["mxfp4_form_check"] = mxfp4_check
    if shared_check is not None:
        meta["shared_with_qwen3_5_moe"] = shared_check
    (out / "golden.json").write_text(json.dumps(meta, indent=1))
    gen_cfg = {"eos_token_id": cfg.eos_token_id, "pad_token_id": cfg.pad_token_id, "do_sample": False}
    (out / "generation_config.json").write_text(json.dumps(gen_cfg, indent=1))
    if arch == "glm_moe_dsa":
        glm5_readme(out, meta, [len(s) for s in seqs], any(k.endswith("gate_up_proj") for k in sd))
    if arch == "qwen3":
        qwen3_dense_readme(out, meta, [len(s) for s in seqs])
    if arch == "qwen3_5":
        qwen35_dense_readme(out, meta, [len(s) for s in seqs])
    if arch == "minimax_m2":
        minimax_readme(out, meta, [len(s) for s in seqs], saved_names)
    print("sequence lengths", [len(s) for s in seqs], "rope", meta["rope"].get("attention_scaling"))


def glm5_readme(out, meta, lengths, fused):
    c = GLM5
    names = ("transformers' own tensor names (its state dict, what its `save_pretrained` writes: the routed experts "
             "as 3-D `gate_up_proj` / `down_proj`)") if fused else (
             "GLM's published tensor names (per-expert `mlp.experts.E.{gate,up,down}_proj.weight`: this transformers "
             "did not load the 3-D names)")
    (out / "README.md").write_text(f"""# glm-moe-dsa-tiny — golden fixture for GLM-5 (latent attention with the sparse-attention indexer)

A small `GlmMoeDsaForCausalLM` with random BF16 weights (seed {SEED + 5}; the correction bias F32 as real checkpoints
store it) and what PyTorch + transformers compute for it: {c["layers"]} layers, hidden {c["hidden"]}, multi-head
latent attention with {c["heads"]} heads (q rank {c["q_lora"]} with its RMSNorm, KV rank {c["kv_lora"]} with its
RMSNorm, nope {c["nope"]} + rope {c["rope"]} per head, values {c["v"]}; RoPE on adjacent pairs, as transformers 5.17
runs GLM-5, here and in the indexer) and DeepSeek's sparse attention: an indexer of {c["index_heads"]} heads of
{c["index_dim"]} (its query from
the normalized low-rank query, its key through a LayerNorm with bias, RoPE on the first {c["rope"]} dims of each)
keeping the best {c["index_topk"]} positions per query — fewer than every sequence's length, so the pick matters
from position {c["index_topk"]} on; layer 0 a dense SwiGLU FFN ({c["ff"]}), layers 1–{c["layers"] - 1} MoE:
{c["experts"]} experts (FFN {c["moe_ff"]}) top-{c["top_k"]}, sigmoid router with `e_score_correction_bias`, no
groups, renormalised weights, routed scaling {c["scaling"]}, one shared expert; vocabulary {VOCAB} (the layout of a
cut tokenizer; no tokenizer ships: sequences are token ids). {names}.

| file | what |
| --- | --- |
| config.json, generation_config.json, model.safetensors | the HF checkpoint |
| golden.json | {len(lengths)} sequences ({", ".join(map(str, lengths))} tokens), transformers' greedy `generate()` ({len(meta["greedy_new_tokens"])} tokens) of sequence 0, RoPE tables, routing of sequence 0, what transformers built (`structure`) |
| logits.bin | float32 logits of every position ([{meta["logits_shape"][0]} × {meta["logits_shape"][1]}], little-endian) |

Made by `scripts/golden/make_arch_golden.py glm_moe_dsa OUT_DIR` (transformers {meta["transformers"]}, torch
{meta["torch"]}; CPU is enough). The reference computes in float32 on the BF16-rounded weights. Ties in the
indexer's top-k make its pick ambiguous (torch and the engine may keep different positions of equal score); with
{c["index_heads"]} heads a score of exactly 0 (every ReLU off) is rare.
""")


if __name__ == "__main__":
    main()
