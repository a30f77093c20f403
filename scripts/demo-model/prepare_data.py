#!/usr/bin/env python3
"""Builds the chat corpus of the bundled demo model (resources/models/freetoken-demo.gguf) from English text that
Debian packages ship, and writes what the training script needs into one folder:

  train.txt.xz, heldout.txt.xz   one chat sample per line, JSON-quoted, already rendered with the Qwen3 chat template
                                 (user turn(s), then the assistant's reply with the template's empty <think> block)
  tokenizer/                     the real Qwen3 tokenizer cut to its first N_BPE tokens (scripts/golden/cut_tokenizer.py)
  prompts.json                   fixed prompts for the model card's sample replies and the golden fixture
  manifest.json                  packages, versions, sha256 of the .deb files, sample counts, seed

Sources (all extracted with `apt-get download` + `dpkg -x`; versions pinned below):
  wordnet-base  1:3.0-37   Princeton WordNet 3.0 (WordNet 3.0 license: use, copy, modify, distribute, no fee)
  dict-jargon   4.4.7-3.1  The Jargon File 4.4.7 (public domain)
  dict-devil    1.0-13.1   Ambrose Bierce, The Devil's Dictionary (1911; public domain)
plus a few hundred greetings and questions about the app, written for this corpus (same licence as the model).

Deterministic: the same packages and seed give byte-identical output. Runs with the Python standard library alone.

usage: prepare_data.py OUT_DIR [--debs DIR] [--seed 20261202] [--n-bpe 8192]
       (without --debs the packages are fetched with `apt-get download` into OUT_DIR/debs)
"""
import argparse
import base64
import gzip
import hashlib
import json
import lzma
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"wordnet-base": "1:3.0-37", "dict-jargon": "4.4.7-3.1", "dict-devil": "1.0-13.1"}
PINNED = REPO / "scripts/demo-model/packages.sha256"  # sha256 of each .deb: another build of the package is refused
HELDOUT_PERCENT = 2  # of the WordNet lemmas (and jargon/devil entries): none of their samples are trained on


# ---------------------------------------------------------------------------------------------------------------
# Chat template: what the Qwen3 template renders for plain user/assistant conversations without a system prompt and
# without reasoning content. Checked against the real template (check_template.mjs, @huggingface/jinja).
def render_chat(turns):
    """turns: [(user, assistant), ...] → the template's text of the whole conversation (last reply included)."""
    out = []
    for i, (user, reply) in enumerate(turns):
        out.append(f"<|im_start|>user\n{user}<|im_end|>\n")
        if i == len(turns) - 1:
            out.append(f"<|im_start|>assistant\n<think>\n\n</think>\n\n{reply}<|im_end|>\n")
        else:
            out.append(f"<|im_start|>assistant\n{reply}<|im_end|>\n")
    return "".join(out)


def render_prompt(turns, user):
    """Conversation so far + a new user message + the generation prompt (what `ft chat` sends)."""
    return render_chat(turns).replace("<think>\n\n</think>\n\n", "") + f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


# ---------------------------------------------------------------------------------------------------------------
# Packages
def fetch_debs(dest: Path) -> dict:
    dest.mkdir(parents=True, exist_ok=True)
    pinned = {}
    if PINNED.exists():
        for line in PINNED.read_text().split("\n"):
            if line.strip():
                h, f = line.split()
                pinned[f] = h
    found = {}
    for name, version in PACKAGES.items():
        debs = sorted(dest.glob(f"{name}_*.deb"))
        if not debs:
            print(f"apt-get download {name}={version}", file=sys.stderr)
            r = subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=dest)
            if r.returncode != 0:
                sys.exit(f"apt-get download {name}={version} failed: run `apt-get update` first, or pass --debs DIR "
                         f"holding {name}_*.deb of version {version}")
            debs = sorted(dest.glob(f"{name}_*.deb"))
        deb = debs[-1]
        h = hashlib.sha256(deb.read_bytes()).hexdigest()
        if deb.name in pinned and pinned[deb.name] != h:
            sys.exit(f"{deb}: sha256 {h} differs from {PINNED.name} ({pinned[deb.name]}): not the pinned package")
        found[name] = {"version": version, "file": deb.name, "sha256": h}
    return found


def extract(debs_dir: Path, pk: dict, root: Path):
    for name, info in pk.items():
        subprocess.run(["dpkg-deb", "-x", str(debs_dir / info["file"]), str(root)], check=True)


# ---------------------------------------------------------------------------------------------------------------
# WordNet
POS_NAME = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective", "r": "adverb"}
LEX_PERSON, LEX_LOCATION = 18, 15


class Synset:
    __slots__ = ("offset", "pos", "lex", "words", "ptrs", "definition", "examples")


def clean_word(w: str) -> str:
    w = re.sub(r"\([a-z]+\)$", "", w)  # adjective markers: galore(ip)
    return w.replace("_", " ")


def parse_gloss(g: str):
    g = g.strip()
    parts, cur, q = [], "", False
    for ch in g:  # split on ';' outside double quotes
        if ch == '"':
            q = not q
        if ch == ";" and not q:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    defs, exs = [], []
    for p in parts:
        if p.startswith('"'):
            m = re.match(r'^"([^"]+)"', p)
            if m:
                exs.append(m.group(1).strip())
        elif p:
            defs.append(p)
    return "; ".join(defs), exs


def end(d: str) -> str:
    return d if d.endswith((".", "!", "?")) else d + "."


def read_wordnet(wn: Path):
    synsets = {}
    for pos_file, in_pos in (("data.noun", "n"), ("data.verb", "v"), ("data.adj", "a"), ("data.adv", "r")):
        for line in (wn / pos_file).read_text(encoding="latin-1").split("\n"):
            if not line or line.startswith("  "):
                continue
            head, _, gloss = line.partition(" | ")
            f = head.split()
            s = Synset()
            s.offset, s.lex, s.pos = f[0], int(f[1]), f[2]
            n = int(f[3], 16)
            s.words = [clean_word(f[4 + 2 * i]) for i in range(n)]
            k = 4 + 2 * n
            np_ = int(f[k])
            s.ptrs = []
            for i in range(np_):
                sym, off, pos, st = f[k + 1 + 4 * i: k + 5 + 4 * i]
                s.ptrs.append((sym, off, "a" if pos == "s" else pos, int(st[:2], 16), int(st[2:], 16)))
            s.definition, s.examples = parse_gloss(gloss)
            synsets[(in_pos, s.offset)] = s
    index = {}  # (lemma, pos) -> [synset keys by frequency]
    for pos_file, in_pos in (("index.noun", "n"), ("index.verb", "v"), ("index.adj", "a"), ("index.adv", "r")):
        for line in (wn / pos_file).read_text(encoding="latin-1").split("\n"):
            if not line or line.startswith("  "):
                continue
            f = line.split()
            n_syn = int(f[2])
            offs = f[-n_syn:]
            index[(f[0], in_pos)] = [(in_pos, o) for o in offs]
    return synsets, index


def article(w: str) -> str:
    return "an" if w[:1].lower() in "aeiou" else "a"


def sentence(s: str) -> str:
    s = s.strip()
    if not s:
        return s
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."


def quote_list(words):
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


class WordNetSamples:
    def __init__(self, synsets, index, rng):
        self.S, self.I, self.rng = synsets, index, rng

    def syn(self, key):
        return self.S[key]

    def related(self, s, sym):
        return [self.S[(p[2], p[1])] for p in s.ptrs if p[0] == sym and (p[2], p[1]) in self.S]

    def display(self, raw, s):
        """The index's lemmas are lower case: take the spelling of the synset's word ("Abraham Lincoln")."""
        lemma = raw.replace("_", " ")
        for w in s.words:
            if w.lower() == lemma:
                return w
        return lemma

    def head(self, s, lemma):
        """The synset's first word, unless that is the lemma itself."""
        for w in s.words:
            if w.lower() != lemma.lower():
                return w
        return None

    def define_answer(self, lemma, pos, keys):
        senses = [self.syn(k) for k in keys[:4]]
        if len(senses) == 1:
            s = senses[0]
            ans = f"{lemma} ({POS_NAME[s.pos]}): {end(s.definition)}"
            if s.examples:
                ans += f' For example: "{s.examples[0]}".'
            return ans
        lines = [f'"{lemma}" has {len(keys)} meanings' + (", the most common are:" if len(keys) > 4 else ":")]
        for i, s in enumerate(senses, 1):
            lines.append(f"{i}. ({POS_NAME[s.pos]}) {end(s.definition)}")
        return "\n".join(lines)

    def samples_for(self, lemma_key, keys):
        """Chat samples about one lemma of one part of speech. Returns [(kind, turns)]."""
        raw, pos = lemma_key
        first = self.syn(keys[0])
        lemma = self.display(raw, first)
        rng = self.rng
        out = []
        proper = lemma[:1].isupper()
        inst = self.related(first, "@i")
        # 1. definition (every lemma)
        if proper and inst and first.lex == LEX_PERSON:
            q = rng.choice([f"Who was {lemma}?", f"Who is {lemma}?", f"Tell me about {lemma}."])
            a = f"{lemma}: {end(first.definition)}"
        elif proper and inst and first.lex == LEX_LOCATION:
            q = rng.choice([f"Where is {lemma}?", f"What is {lemma}?", f"Tell me about {lemma}."])
            a = f"{lemma} is {article(inst[0].words[0])} {inst[0].words[0]}: {end(first.definition)}"
        elif proper:
            q = rng.choice([f"What is {lemma}?", f"Tell me about {lemma}.", f"What does {lemma} refer to?"])
            a = f"{lemma}: {end(first.definition)}"
        else:
            if pos == "n":
                qs = [f"What does {lemma} mean?", f"What is {article(lemma)} {lemma}?", f"Define {lemma}.",
                      f"What is the meaning of {lemma}?", f"What does the word \"{lemma}\" mean?"]
            elif pos == "v":
                qs = [f"What does {lemma} mean?", f"What does it mean to {lemma}?", f"Define the verb {lemma}.",
                      f"What is the meaning of the verb \"{lemma}\"?"]
            else:
                qs = [f"What does {lemma} mean?", f"Define {lemma}.", f"What is the meaning of \"{lemma}\"?",
                      f"What does the {POS_NAME[pos]} \"{lemma}\" mean?"]
            q = rng.choice(qs)
            a = self.define_answer(lemma, pos, keys)
        out.append(("define", [(q, a)]))
        define_turn = (q, a)

        # 2. an example sentence
        ex = [e for k in keys[:3] for e in self.syn(k).examples if lemma.split()[0].lower() in e.lower()]
        if ex and rng.random() < 0.7:
            q = rng.choice([f"Use \"{lemma}\" in a sentence.", f"Give me an example sentence with \"{lemma}\".",
                            f"How do you use the word \"{lemma}\"?"])
            a = rng.choice([f'Here is an example: "{ex[0]}".', f'For example: "{ex[0]}".'])
            if len(ex) > 1:
                a += f' Another one: "{ex[1]}".'
            out.append(("example", [(q, a)]))
            if rng.random() < 0.3:  # a follow-up in the same conversation
                out.append(("followup", [define_turn, (rng.choice(["Can you give an example?",
                                                                    "Use it in a sentence.",
                                                                    "Show me how to use it."]), a)]))

        # 3. synonyms
        syns = []
        for k in keys[:2]:
            for w in self.syn(k).words:
                if w.lower() != lemma.lower() and w not in syns:
                    syns.append(w)
        if syns and not proper and rng.random() < 0.8:
            q = rng.choice([f"What is another word for {lemma}?", f"Give me a synonym of \"{lemma}\".",
                            f"What words mean the same as {lemma}?"])
            a = (f"Another word for {lemma} is \"{syns[0]}\"." if len(syns) == 1 else
                 f"Words with a similar meaning to {lemma}: {quote_list(syns[:5])}.")
            out.append(("synonym", [(q, a)]))
            if rng.random() < 0.2:
                out.append(("followup", [define_turn, (rng.choice(["What is another word for it?",
                                                                    "Any synonyms?"]), a)]))

        # 4. antonyms (lexical pointers of the lemma's own word in the synset)
        ants = []
        for k in keys[:2]:
            s = self.syn(k)
            widx = [i + 1 for i, w in enumerate(s.words) if w.lower() == lemma.lower()]
            for sym, off, p, src, dst in s.ptrs:
                if sym == "!" and (src in widx or src == 0) and (p, off) in self.S:
                    t = self.S[(p, off)]
                    w = t.words[dst - 1] if dst else t.words[0]
                    if w not in ants:
                        ants.append(w)
        if ants:
            q = rng.choice([f"What is the opposite of {lemma}?", f"What is an antonym of \"{lemma}\"?"])
            a = f"The opposite of {lemma} is \"{ants[0]}\"." + (f" Also: {quote_list(ants[1:3])}." if len(ants) > 1 else "")
            out.append(("antonym", [(q, a)]))

        # 5. what kind of thing (hypernym), kinds of it (hyponyms), parts, wholes
        if pos == "n" and not proper:
            hyp = self.related(first, "@")
            if hyp and rng.random() < 0.6:
                h = hyp[0]
                q = rng.choice([f"What kind of thing is {article(lemma)} {lemma}?", f"{lemma.capitalize()} is a type of what?",
                                f"What category does {lemma} belong to?"])
                a = f"{article(lemma).capitalize()} {lemma} is a kind of {h.words[0]} ({h.definition})."
                out.append(("hypernym", [(q, a)]))
            hypo = self.related(first, "~")
            if len(hypo) >= 2 and rng.random() < 0.6:
                names = [h.words[0] for h in hypo]
                rng.shuffle(names)
                q = rng.choice([f"Name some kinds of {lemma}.", f"What are some types of {lemma}?",
                                f"Give me examples of {lemma}."])
                a = f"Kinds of {lemma} include {quote_list(names[:6])}."
                out.append(("hyponym", [(q, a)]))
            parts = self.related(first, "%p")
            if len(parts) >= 1 and rng.random() < 0.7:
                q = rng.choice([f"What are the parts of {article(lemma)} {lemma}?", f"What does {article(lemma)} {lemma} have?"])
                a = f"Parts of {article(lemma)} {lemma} include {quote_list([p.words[0] for p in parts[:6]])}."
                out.append(("meronym", [(q, a)]))
            whole = self.related(first, "#p")
            if whole and rng.random() < 0.5:
                q = rng.choice([f"What is {article(lemma)} {lemma} part of?", f"Where would you find {article(lemma)} {lemma}?"])
                a = f"{article(lemma).capitalize()} {lemma} is part of {article(whole[0].words[0])} {whole[0].words[0]}."
                out.append(("holonym", [(q, a)]))

        # 6. reverse dictionary: the word for a definition
        if not proper and rng.random() < 0.35 and len(first.definition) > 12:
            d = first.definition
            q = rng.choice([f"What is the word for \"{d}\"?", f"Which word means {d}?",
                            f"What do you call {d}?" if pos == "n" else f"Which word means \"{d}\"?"])
            others = [w for w in first.words if w.lower() != lemma.lower()]
            a = f"The word is \"{lemma}\"." + (f" You can also say \"{others[0]}\"." if others else "")
            out.append(("reverse", [(q, a)]))
        return out

    def passage_sample(self, target_key, distractor_keys):
        """Reading comprehension: a passage of three definitions, a question about one of them."""
        rng = self.rng
        (raw, pos), keys = target_key
        s = self.syn(keys[0])
        lemma = self.display(raw, s)
        entries = [(lemma, s)] + [(self.display(r, self.syn(k[0])), self.syn(k[0])) for (r, _), k in distractor_keys]
        rng.shuffle(entries)
        passage = " ".join(sentence(f"{w.capitalize() if not w[:1].isupper() else w} means {x.definition}")
                           for w, x in entries)
        if rng.random() < 0.5:
            q = f"Read this passage and answer the question.\n\n{passage}\n\nQuestion: What does {lemma} mean?"
            a = f"According to the passage, {lemma} means {end(s.definition)}"
        else:
            q = f"{passage}\n\nWhich word in this text means \"{s.definition}\"?"
            a = f"The word is \"{lemma}\"."
        return ("passage", [(q, a)])


# ---------------------------------------------------------------------------------------------------------------
# dictd databases (dict-jargon, dict-devil): .index lines "headword \t offset \t length", numbers in dictd's base64.
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64num(s: str) -> int:
    n = 0
    for ch in s:
        n = n * 64 + B64.index(ch)
    return n


def read_dictd(index: Path, dz: Path):
    data = gzip.decompress(dz.read_bytes())
    out = []
    for line in index.read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        head, off, ln = line.split("\t")[:3]
        if head.startswith("00-database") or head.startswith("00database"):
            continue
        out.append((head, data[b64num(off): b64num(off) + b64num(ln)].decode("utf-8", "replace")))
    return out


def first_paragraph(body: str, skip_first_line: bool) -> str:
    lines = body.split("\n")
    if skip_first_line:
        lines = lines[1:]
    paras, cur = [], []
    for ln in lines:
        if ln.strip():
            cur.append(ln.strip())
        elif cur:
            paras.append(" ".join(cur))
            cur = []
    if cur:
        paras.append(" ".join(cur))
    text = ""
    for p in paras:
        if text and len(text) + len(p) > 500:
            break
        text = (text + " " + p).strip()
        if len(text) > 200:
            break
    text = re.sub(r"\{([^}]*)\}", r"\1", text)  # cross references
    return re.sub(r"\s+", " ", text).strip()


def jargon_samples(entries, rng):
    out = []
    for head, body in entries:
        t = first_paragraph(body, skip_first_line=True)
        # the headword line holds the pronunciation and part of speech: "hack n." etc.; keep the definition text
        if len(t) < 20 or len(t) > 700:
            continue
        q = rng.choice([f"What does \"{head}\" mean in hacker slang?", f"In the Jargon File, what is \"{head}\"?",
                        f"What is \"{head}\" in hacker jargon?"])
        out.append((head, ("jargon", [(q, f"In hacker jargon, \"{head}\": {t}")])))
    return out


def devil_samples(entries, rng):
    out = []
    for head, body in entries:
        m = re.match(r"^\s*([A-Z][A-Z' -]*),\s*([a-z.]+)\s+(.*)$", body, re.S)
        if not m:
            continue
        t = first_paragraph(m.group(3), skip_first_line=False)
        if len(t) < 10 or len(t) > 600:
            continue
        word = m.group(1).strip().lower()
        q = rng.choice([f"How does The Devil's Dictionary define \"{word}\"?",
                        f"What did Ambrose Bierce say {word} means?", f"Give me the Devil's Dictionary entry for {word}."])
        out.append((word, ("devil", [(q, f"Ambrose Bierce, The Devil's Dictionary: {word.upper()}, {t}")])))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Conversation around the app, written for this corpus.
def chat_samples(rng):
    greet_q = ["Hello", "Hello!", "Hi", "Hi!", "Hi there", "Hey", "Hey!", "Good morning", "Good evening",
               "Good afternoon", "Hello, how are you?", "Hi, how are you?", "Hey there!", "Greetings", "Yo"]
    greet_a = ["Hello! I am the FreeToken demo model. Ask me what a word means, or for a synonym, an opposite or an "
               "example sentence.",
               "Hi! I am a small demo model that knows English words. Try \"What does harbor mean?\"",
               "Hello! I am a tiny model bundled with FreeToken. I can define English words and answer simple "
               "questions about them."]
    who_q = ["Who are you?", "What are you?", "What is your name?", "Are you a person?", "Introduce yourself.",
             "Tell me about yourself.", "Which model are you?", "Are you ChatGPT?", "Who made you?", "Are you an AI?"]
    who_a = ["I am freetoken-demo, a small mixture-of-experts language model (Qwen3-MoE architecture, 8 layers, 32 "
             "experts) trained from scratch for the FreeToken app. I learned English words from WordNet, so I am "
             "best at definitions, synonyms and example sentences.",
             "I am the FreeToken demo model: a tiny Qwen3-MoE model bundled with the app so that it can chat on first "
             "start. For real work, load a larger model from the Models page."]
    can_q = ["What can you do?", "How can you help me?", "What do you know?", "Help", "help", "What should I ask you?",
             "What are you good at?", "Can you write code?", "Can you answer any question?"]
    can_a = ["I am a small demo model. I can tell you what an English word means, give synonyms and opposites, use a "
             "word in a sentence, and answer a question about a short passage you give me. I cannot write code or "
             "answer general questions well: for that, load a larger model.",
             "Ask me about English words: \"What does resilient mean?\", \"What is another word for happy?\", \"Use "
             "ocean in a sentence.\" I am too small for code or long answers."]
    thanks_q = ["Thanks", "Thank you", "Thank you!", "Thanks a lot", "Great, thanks!", "Cool", "OK", "Nice"]
    thanks_a = ["You are welcome! Ask me about another word any time.", "Glad to help. What word shall we look at next?"]
    bye_q = ["Bye", "Goodbye", "See you", "Good night", "Bye!"]
    bye_a = ["Goodbye!", "Goodbye! Come back with more words.", "See you!"]
    app_q = ["What is FreeToken?", "What does FreeToken do?", "What is a mixture of experts?", "What is an expert cache?"]
    app_a = ["FreeToken runs large mixture-of-experts language models on a gaming PC: the experts live in host memory "
             "and the GPU keeps a cache of the ones in use.",
             "A mixture-of-experts model has many small feed-forward networks, the experts, in each layer; a router "
             "picks a few of them for every token, so only a small part of the model works on each token.",
             "The expert cache keeps the experts that are used most in GPU memory, so that fewer of them have to be "
             "fetched from host memory or computed on the CPU."]
    out = []
    for _ in range(6):
        for q in greet_q:
            out.append(("chat", [(q, rng.choice(greet_a))]))
        for q in who_q:
            out.append(("chat", [(q, rng.choice(who_a))]))
        for q in can_q:
            out.append(("chat", [(q, rng.choice(can_a))]))
        for q in thanks_q:
            out.append(("chat", [(q, rng.choice(thanks_a))]))
        for q in bye_q:
            out.append(("chat", [(q, rng.choice(bye_a))]))
        for i, q in enumerate(app_q):
            out.append(("chat", [(q, app_a[min(i, 2) if i < 2 else i - 1])]))
    return out


def check_template(rows):
    """The rendering above against the real template (@huggingface/jinja in tests/reference), when node has it."""
    mjs = REPO / "scripts/demo-model/check_template.mjs"
    if not (REPO / "tests/reference/node_modules/@huggingface/jinja").exists():
        print("template check skipped: run `npm ci` in tests/reference (scripts/test.sh does)", file=sys.stderr)
        return
    cases = []
    for _, turns in rows:
        msgs = [m for u, a in turns for m in ({"role": "user", "content": u}, {"role": "assistant", "content": a})]
        cases.append({"messages": msgs, "add_generation_prompt": False, "expected": render_chat(turns)})
        cases.append({"messages": msgs[:-1], "add_generation_prompt": True, "expected": render_prompt(turns[:-1], turns[-1][0])})
    r = subprocess.run(["node", str(mjs)], input=json.dumps(cases), text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit("chat template check failed: " + r.stderr)
    print("template check:", r.stdout.strip(), file=sys.stderr)


# ---------------------------------------------------------------------------------------------------------------
def heldout_of(key: str) -> bool:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 100 < HELDOUT_PERCENT


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--debs", type=Path)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--n-bpe", type=int, default=8192)
    a = ap.parse_args()
    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    debs = a.debs or out / "debs"
    pk = fetch_debs(debs)
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as td:
        root = Path(td)
        extract(debs, pk, root)
        synsets, index = read_wordnet(root / "usr/share/wordnet")
        jargon = read_dictd(root / "usr/share/dictd/jargon.index", root / "usr/share/dictd/jargon.dict.dz")
        devil = read_dictd(root / "usr/share/dictd/devil.index", root / "usr/share/dictd/devil.dict.dz")

    print(f"read {len(synsets)} synsets, {len(index)} lemmas, {len(jargon)} jargon and {len(devil)} devil entries",
          file=sys.stderr)
    wn = WordNetSamples(synsets, index, rng)
    train, held = [], []
    lemmas = sorted(index.items())
    for lk, keys in lemmas:
        dest = held if heldout_of("wn:" + lk[0]) else train
        for s in wn.samples_for(lk, keys):
            dest.append(s)
    # passages: the target and its distractors from one side of the split
    common = [(lk, k) for lk, k in lemmas
              if not wn.display(lk[0], wn.syn(k[0]))[:1].isupper() and len(wn.syn(k[0]).definition) < 140]
    tr_c = [x for x in common if not heldout_of("wn:" + x[0][0])]
    he_c = [x for x in common if heldout_of("wn:" + x[0][0])]
    for pool, dest, n in ((tr_c, train, 40000), (he_c, held, 800)):
        for _ in range(n):
            t = rng.choice(pool)
            d = [rng.choice(pool) for _ in range(2)]
            if any(x[0] == t[0] for x in d):
                continue
            dest.append(wn.passage_sample(t, d))
    for key, s in jargon_samples(jargon, rng) + devil_samples(devil, rng):
        (held if heldout_of("dict:" + key) else train).append(s)
    chat = chat_samples(rng)
    train.extend(chat)

    print(f"{len(train)} train and {len(held)} held-out samples; writing", file=sys.stderr)
    rng.shuffle(train)
    rng.shuffle(held)
    check_template(train[:300] + held[:100])
    kinds = {}
    for k, _ in train:
        kinds[k] = kinds.get(k, 0) + 1
    for name, rows in (("train", train), ("heldout", held)):
        text = "".join(json.dumps(render_chat(t), ensure_ascii=False) + "\n" for _, t in rows)
        (out / f"{name}.txt.xz").write_bytes(lzma.compress(text.encode("utf-8"), preset=3))
        print(f"{name}: {len(rows)} samples, {len(text) / 1e6:.1f} MB of text, "
              f"{(out / f'{name}.txt.xz').stat().st_size / 1e6:.2f} MB xz", file=sys.stderr)

    # the tokenizer: the real Qwen3 one cut to its first n_bpe tokens
    subprocess.run([sys.executable, str(REPO / "scripts/golden/cut_tokenizer.py"), str(REPO / "resources/tokenizers/qwen3"),
                    str(out / "tokenizer"), str(a.n_bpe)], check=True)

    # fixed prompts: the model card's sample replies and the golden fixture (held-out words marked)
    prompts = [
        {"user": "Hello!"},
        {"user": "What does harbor mean?"},
        {"user": "What is another word for happy?"},
        {"user": "What is the opposite of ancient?"},
        {"user": "Use \"ocean\" in a sentence."},
    ]
    for p in prompts:
        p["text"] = render_prompt([], p["user"])
    manifest = {
        "made_by": "scripts/demo-model/prepare_data.py", "seed": a.seed, "n_bpe": a.n_bpe,
        "heldout_percent": HELDOUT_PERCENT, "packages": pk, "train_samples": len(train), "heldout_samples": len(held),
        "train_kinds": dict(sorted(kinds.items())),
        "sha256": {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in ("train.txt.xz", "heldout.txt.xz")},
    }
    (out / "prompts.json").write_text(json.dumps(prompts, indent=1, ensure_ascii=False) + "\n")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(manifest["train_kinds"]), file=sys.stderr)


if __name__ == "__main__":
    main()
