#!/usr/bin/env python3
"""Golden fixtures for the engine's Qwen3-MoE path, made with PyTorch + transformers (run on the GPU machine, which
has them; CPU is enough). Writes, into OUT_DIR:

  config.json, generation_config.json  a small Qwen3MoeForCausalLM (4 layers, hidden 128, 16 experts top-4,
                                       vocabulary: the first 4096 Qwen3 BPE tokens + 26 specials, padded to 4160)
  model.safetensors                    BF16 weights under the Hugging Face checkpoint names of real Qwen3-MoE
                                       models (per-expert mlp.experts.E.{gate,up,down}_proj.weight)
  golden.json                          token sequences, greedy continuation by transformers' generate(), metadata
  logits.bin                           float32 little-endian logits [sum of sequence lengths × vocab], sequences in
                                       golden.json order, every position

Weights are drawn in float32 with a fixed seed, then rounded to BF16; the reference runs in float32 on the rounded
weights, so an engine computing in float32 from the BF16 file should match it to float rounding.

usage: make_qwen3_moe_golden.py TOKENIZER_DIR OUT_DIR
"""
import json
import math
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file, load_file
from tokenizers import Tokenizer
import transformers
from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

N_BPE, N_SPECIAL, VOCAB = 4096, 26, 4160
SEED = 1234


def make_config():
    kw = dict(vocab_size=VOCAB, hidden_size=128, intermediate_size=256, moe_intermediate_size=64,
              num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
              num_experts=16, num_experts_per_tok=4, norm_topk_prob=True, rms_norm_eps=1e-6,
              max_position_embeddings=4096, tie_word_embeddings=False, decoder_sparse_step=1, mlp_only_layers=[],
              attention_bias=False, bos_token_id=N_BPE, eos_token_id=N_BPE + 2, pad_token_id=N_BPE,
              router_aux_loss_coef=0.0, output_router_logits=False)
    try:
        cfg = Qwen3MoeConfig(**kw, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})
    except TypeError:
        cfg = Qwen3MoeConfig(**kw, rope_theta=1000000.0)
    if getattr(cfg, "rope_theta", None) not in (None, 1000000.0):
        cfg.rope_theta = 1000000.0
    cfg._attn_implementation = "eager"
    return cfg


def init_weights(model):
    g = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("embed_tokens.weight"):
                p.copy_(torch.randn(p.shape, generator=g))
            elif name.endswith("lm_head.weight"):
                p.copy_(torch.randn(p.shape, generator=g) * (3.0 / math.sqrt(p.shape[-1])))
            else:
                fan_in = p.shape[-1] if p.dim() >= 2 else p.shape[0]
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(fan_in))
            p.copy_(p.to(torch.bfloat16).to(torch.float32))  # the file holds BF16: make the reference see that


def legacy_state_dict(model, layout):
    """HF checkpoint names of real Qwen3-MoE models. transformers 5 may fuse experts into 3-D parameters; split them
    per `layout` = (gate_first, transposed)."""
    out = {}
    for name, t in model.state_dict().items():
        if ".mlp.experts." in name and not name.split(".mlp.experts.")[1][0].isdigit():
            prefix, leaf = name.split(".mlp.experts.")
            gate_first, transposed = layout
            if leaf.startswith("gate_up_proj"):
                for e in range(t.shape[0]):
                    w = t[e].T if transposed else t[e]  # → [2F, H]
                    f = w.shape[0] // 2
                    gate, up = (w[:f], w[f:]) if gate_first else (w[f:], w[:f])
                    out[f"{prefix}.mlp.experts.{e}.gate_proj.weight"] = gate.contiguous()
                    out[f"{prefix}.mlp.experts.{e}.up_proj.weight"] = up.contiguous()
            elif leaf.startswith("down_proj"):
                for e in range(t.shape[0]):
                    w = t[e].T if transposed else t[e]  # → [H, F]
                    out[f"{prefix}.mlp.experts.{e}.down_proj.weight"] = w.contiguous()
            else:
                raise SystemExit(f"unknown fused expert parameter {name} {tuple(t.shape)}")
        else:
            out[name] = t.contiguous()
    return out


def main():
    tok_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    cfg = make_config()
    model = Qwen3MoeForCausalLM(cfg).float().eval()
    init_weights(model)
    print("transformers", transformers.__version__, "torch", torch.__version__)
    print("state dict:", [(k, tuple(v.shape)) for k, v in list(model.state_dict().items())[:14]], "…")

    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    texts = [
        "The quick brown fox jumps over the lazy dog. In 2025, 1234 + 5678 = 6912!",
        "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    ]
    seqs = [tok.encode(t, add_special_tokens=False).ids for t in texts]
    g = torch.Generator().manual_seed(7)
    seqs.append(torch.randint(0, N_BPE + N_SPECIAL, (61,), generator=g).tolist())
    chat = "<|im_start|>user\nWhat is a mixture of experts?<|im_end|>\n<|im_start|>assistant\n"
    seqs.append(tok.encode(chat, add_special_tokens=False).ids)

    logits = []
    with torch.no_grad():
        for s in seqs:
            logits.append(model(torch.tensor([s])).logits[0].float())
        gen = model.generate(torch.tensor([seqs[0]]), max_new_tokens=64, min_new_tokens=64, do_sample=False,
                             num_beams=1, pad_token_id=N_BPE, eos_token_id=None)
        greedy = gen[0, len(seqs[0]):].tolist()
        # The same by hand (full recompute each step), to be sure generate() did plain greedy decoding.
        ids = list(seqs[0])
        for _ in range(64):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
        assert ids[len(seqs[0]):] == greedy, "generate() differs from step-by-step argmax"

    # Find the split of fused expert parameters (if any) that reloads to the same logits.
    fused = any(".mlp.experts." in k and not k.split(".mlp.experts.")[1][0].isdigit() for k in model.state_dict())
    layouts = [(True, False), (True, True), (False, False), (False, True)] if fused else [(True, False)]
    for layout in layouts:
        sd = {k: v.to(torch.bfloat16) for k, v in legacy_state_dict(model, layout).items()}
        save_file(sd, str(out / "model.safetensors"), metadata={"format": "pt"})
        cfg.save_pretrained(out)
        reloaded = Qwen3MoeForCausalLM.from_pretrained(out, torch_dtype=torch.float32).eval()
        with torch.no_grad():
            again = reloaded(torch.tensor([seqs[2]])).logits[0].float()
        diff = (again - logits[2]).abs().max().item()
        print("layout", layout, "reload max |Δlogit|", diff)
        if diff < 1e-4:
            break
    else:
        raise SystemExit("no expert layout reloads to the same logits")
    keys = sorted(load_file(str(out / "model.safetensors")).keys())
    print(len(keys), "tensors, e.g.", keys[:3], keys[-3:])

    all_logits = torch.cat(logits, 0).contiguous()
    all_logits.numpy().astype("<f4").tofile(out / "logits.bin")
    meta = {
        "made_by": "scripts/golden/make_qwen3_moe_golden.py",
        "transformers": transformers.__version__, "torch": torch.__version__, "seed": SEED,
        "vocab_size": VOCAB, "texts": texts + ["(random ids, seed 7)", chat],
        "sequences": seqs, "greedy_prompt_index": 0, "greedy_new_tokens": greedy,
        "logits_file": "logits.bin", "logits_shape": list(all_logits.shape),
        "reference_dtype": "float32 compute on BF16-rounded weights",
    }
    (out / "golden.json").write_text(json.dumps(meta, indent=1))
    gen_cfg = {"bos_token_id": N_BPE, "eos_token_id": [N_BPE + 2, N_BPE], "pad_token_id": N_BPE, "do_sample": False}
    (out / "generation_config.json").write_text(json.dumps(gen_cfg, indent=1))
    print("sequence lengths", [len(s) for s in seqs], "greedy", greedy[:16], "…")


if __name__ == "__main__":
    main()
