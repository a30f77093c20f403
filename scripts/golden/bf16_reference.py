#!/usr/bin/env python3
# Usage (GPU machine, repo root, fixtures unpacked): python3 scripts/golden/bf16_reference.py glm-moe-dsa-tiny ...
# Prints the figures test_golden_arch takes as bf16_reference_* for its fast-GPU bounds.
# transformers in BF16 against the fixture's f32 logits (what test_golden_arch's fast GPU bounds are measured from).
import json, sys, torch, numpy as np
from transformers import AutoModelForCausalLM
def run(name):
    d = f"tests/data/{name}"
    g = json.load(open(f"{d}/golden.json"))
    ref = np.fromfile(f"{d}/{g['logits_file']}", dtype=np.float32).reshape(g['logits_shape'])
    m = AutoModelForCausalLM.from_pretrained(d, dtype=torch.bfloat16).cuda().eval()
    outs = []
    with torch.no_grad(), torch.autocast('cuda', dtype=torch.bfloat16):
        for s in g['sequences']:
            outs.append(m(torch.tensor([s]).cuda()).logits[0].float().cpu().numpy())
        got = np.concatenate(outs)
        cos = (got * ref).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(ref, axis=1))
        top1 = (got.argmax(1) == ref.argmax(1)).sum()
        p = torch.tensor([g['sequences'][g['greedy_prompt_index']]]).cuda()
        ids = []
        for _ in range(len(g['greedy_step_by_step'])):  # full recompute, as greedy_step_by_step was made
            nxt = int(m(p).logits[0, -1].float().argmax())
            ids.append(nxt); p = torch.cat([p, torch.tensor([[nxt]]).cuda()], 1)
    same = next((i for i, (a, b) in enumerate(zip(ids, g['greedy_step_by_step'])) if a != b), len(ids))
    print(f"{name}: transformers BF16: min cosine {cos.min():.6f}, {(cos < 0.999).sum()} of {len(cos)} positions under 0.999, "
          f"top-1 {top1}/{len(cos)}, greedy (full recompute) equal for {same} of {len(ids)}")

for name in sys.argv[1:]:
    try: run(name)
    except Exception as e: print(name, 'failed:', repr(e)[:300])
