#!/usr/bin/env python3
"""Cuts the real Qwen3 tokenizer down to its first N byte-level BPE tokens (the 256 byte symbols and the first
N-256 merges, which in this vocabulary produce exactly ids 256..N-1) plus all 26 added/special tokens, renumbered
to N..N+25. The result is a genuine, smaller Qwen3-style tokenizer (same pre-tokenizer, normalizer, decoder, chat
template) for the golden test model, whose embedding table must stay small.

usage: cut_tokenizer.py SRC_DIR DST_DIR [N]      (SRC_DIR holds tokenizer.json and tokenizer_config.json)
"""
import json
import sys
from pathlib import Path


def main() -> None:
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
    tok = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    cfg = json.loads((src / "tokenizer_config.json").read_text(encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    merges = tok["model"]["merges"]
    inv = {i: s for s, i in vocab.items()}
    new_vocab = {inv[i]: i for i in range(n)}
    new_merges = merges[: n - 256]
    for rank, (a, b) in enumerate(new_merges):
        assert vocab[a + b] == 256 + rank, f"merge {rank} does not produce id {256 + rank}"
        assert vocab[a] < 256 + rank and vocab[b] < 256 + rank
    tok["model"]["vocab"] = new_vocab
    tok["model"]["merges"] = new_merges
    remap = {}
    for k, added in enumerate(tok["added_tokens"]):
        remap[str(added["id"])] = n + k
        added["id"] = n + k
    if "added_tokens_decoder" in cfg:
        cfg["added_tokens_decoder"] = {str(remap[old]): v for old, v in cfg["added_tokens_decoder"].items()}
    dst.mkdir(parents=True, exist_ok=True)
    (dst / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    (dst / "tokenizer_config.json").write_text(json.dumps(cfg, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"{dst}: {n} BPE tokens, {len(new_merges)} merges, {len(tok['added_tokens'])} added tokens at {n}..")


if __name__ == "__main__":
    main()
