#!/usr/bin/env python3
"""Cross-check of test_tokenizer_diff's batches with Python `tokenizers` (HF's Rust implementation), for a machine
that has it (not needed by CI). Usage, after test_tokenizer_diff has run:
    python3 tests/tokenizer/hf_python_check.py BUILD/test-tokenizer-diff [TOKENIZER_DIR_OVERRIDE]
For every <name>.job.json it encodes the strings (add_special_tokens=False) and compares with <name>.ours.json
(ours) and <name>.out.json (@huggingface/tokenizers). TOKENIZER_DIR_OVERRIDE: a folder holding the job's
tokenizer files under their base names, for when the job's absolute paths do not exist on this machine.
"""
import json
import os
import sys

from tokenizers import Tokenizer

work = sys.argv[1]
override = sys.argv[2] if len(sys.argv) > 2 else None
bad = 0
for name in sorted(os.listdir(work)):
    if not name.endswith('.job.json'):
        continue
    stem = name[:-len('.job.json')]
    job = json.load(open(os.path.join(work, name), encoding='utf-8'))
    path = job['tokenizer']
    if not os.path.exists(path) and override:
        base = os.path.basename(path)
        path = os.path.join(override, stem + '.' + base if base == 'tokenizer.json' else base)
    tok = Tokenizer.from_file(path)
    ref = [e.ids for e in tok.encode_batch(job['strings'], add_special_tokens=False)]
    ours = json.load(open(os.path.join(work, stem + '.ours.json')))
    node = json.load(open(os.path.join(work, stem + '.out.json')))
    d_ours = [i for i in range(len(ref)) if ref[i] != ours[i]]
    d_node = [i for i in range(len(ref)) if ref[i] != node[i]]
    print(f'{stem}: {len(ref)} strings; python tokenizers vs ours: {len(d_ours)} differences; '
          f'vs @huggingface/tokenizers: {len(d_node)} differences')
    for i in d_ours[:5]:
        print('  ', repr(job['strings'][i]), '\n     python', ref[i], '\n     ours  ', ours[i])
    bad += len(d_ours)
sys.exit(1 if bad else 0)
