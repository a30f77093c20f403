#!/usr/bin/env python3
"""How far a golden fixture's logits move when transformers itself runs its matrix products in BF16.

Usage (GPU machine, CPU torch is enough): python3 scripts/golden/bf16_sensitivity.py tests/data/gpt-oss-tiny ...

For each fixture folder (config.json, model.safetensors, golden.json, logits.bin): the float32 reference logits of
every position (logits.bin, as made by make_arch_golden.py / make_qwen3_moe_golden.py) against the same model run
under torch.autocast(bfloat16), which rounds the operands of every matrix product to BF16 and keeps the rest in f32
(what the engine's fast GPU prefill does; its attention uses f16 operands instead). Prints the minimum cosine, the
top-1 agreement and, for MoE models, how many routing decisions (the top-k expert set of one token in one layer)
differ. A low cosine here says the fixture itself is that sensitive to BF16, whatever engine runs it.
"""
import json
import pathlib
import sys

import torch
from transformers import AutoModelForCausalLM


def cosines(a, b):
    return torch.nn.functional.cosine_similarity(a.double(), b.double(), dim=-1)


def topk_sets(model, ids, autocast):
    """Per MoE layer, the expert ids each token picked (hooks on the router module), for one forward."""
    picks, hooks = {}, []
    for i, layer in enumerate(model.model.layers):
        mlp = layer.mlp
        router = getattr(mlp, "router", None) or getattr(mlp, "gate", None)
        if router is None or not hasattr(mlp, "experts"):
            continue

        def hook(mod, inp, out, i=i):
            # gpt-oss router: (scores, indices); qwen3_moe gate: logits; glm4_moe gate: (indices, weights).
            if isinstance(out, tuple):
                idx = next(t for t in out if t.dtype in (torch.int64, torch.int32))
            else:
                idx = torch.topk(out.float(), model.config.num_experts_per_tok, dim=-1).indices
            picks[i] = [frozenset(r.tolist()) for r in idx.reshape(-1, idx.shape[-1])]

        hooks.append(router.register_forward_hook(hook))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        logits = model(torch.tensor([ids])).logits[0].float()
    for h in hooks:
        h.remove()
    return logits, picks


def main():
    for folder in sys.argv[1:]:
        d = pathlib.Path(folder)
        golden = json.loads((d / "golden.json").read_text())
        vocab = golden["vocab_size"]
        ref = torch.frombuffer(bytearray((d / "logits.bin").read_bytes()), dtype=torch.float32).reshape(-1, vocab)
        model = AutoModelForCausalLM.from_pretrained(d, torch_dtype=torch.float32, attn_implementation="eager").eval()
        at, cos, top1, flips, decisions = 0, [], 0, 0, 0
        for s in golden["sequences"]:
            f32, picks32 = topk_sets(model, s, False)
            b16, picks16 = topk_sets(model, s, True)
            want = ref[at:at + len(s)]
            at += len(s)
            c = cosines(b16, want)
            cos.append(c)
            top1 += int((b16.argmax(-1) == want.argmax(-1)).sum())
            drift = float(cosines(f32, want).min())
            if drift < 0.99999:
                print(f"  note: this transformers' f32 run differs from logits.bin (min cosine {drift:.6f})")
            for layer, sets in picks32.items():
                other = picks16.get(layer, [])
                decisions += len(sets)
                flips += sum(1 for x, y in zip(sets, other) if x != y)
        c = torch.cat(cos)
        print(f"{d.name}: BF16 matrix products vs f32 reference: min cosine {float(c.min()):.6f}, "
              f"positions under 0.999: {int((c < 0.999).sum())} of {c.numel()}, top-1 same {top1}/{c.numel()}, "
              f"routing decisions changed {flips} of {decisions}")


if __name__ == "__main__":
    main()
