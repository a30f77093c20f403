#!/usr/bin/env python3
"""Writes the agent part of the demo model's corpus: one-tool tasks as Claude Code and the Codex CLI send them, so
that the bundled model can complete "read a file / list the folder / run a command, then answer from the result"
with the real agents offline.

Each sample starts from a request a real CLI sent (tests/data/agents: Claude Code 2.1.332's request after a Read or
Bash call, recorded against a scripted stand-in server; Codex 0.171.0's request after an exec_command call), with its
working folder, date, instruction, tool call, tool result and final answer replaced, and is rendered by `ft template
--request` — the server's own parser and chat template, so the text is exactly what `ft serve` gives the model. To
keep that fast, each (agent, tool) shape is rendered once with placeholders and filled in here; a sample of every
shape is rendered again in full by `ft` and must be byte-identical.

File names are WordNet nouns or, in three training samples in four, the cut tokenizer's whole-word tokens, each in turn
(so that every common word a user names a file after was copied into a tool call at least once).

Output (beside prepare_data.py's corpus): agents.txt.xz (training) and agents_heldout.txt.xz (file names — WordNet
nouns only —, words and folders none of the training samples use), JSON lines {"agent", "task", "p1", "c1", "p2", "c2", "text"}: p1 is the
prompt of the first request (the server's rendering, generation prompt included), c1 the model's expected tool call,
p2 the prompt of the second request (after the tool ran), c2 the expected answer; text is what the model trains on
(p1 + c1, then the tool result and c2).

usage: prepare_agents.py OUT_DIR --ft PATH/TO/ft --model resources/models/freetoken-demo.gguf [--samples N]
"""
import argparse
import json
import lzma
import random
import re
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENTS = REPO / "tests/data/agents"
THINK = "<think>\n\n</think>\n\n"
ASSISTANT = "<|im_start|>assistant\n"
END = "<|im_end|>"

# Placeholders: plain words the templates copy unchanged (no JSON escaping, no whitespace trimming).
PH = {k: f"QQ{k.upper()}QQ" for k in ("cwd", "date", "instr", "arg", "result", "answer", "desc")}


def words_from_wordnet(debs: Path):
    """Lower-case single-word nouns of 4–9 letters from wordnet-base's index.noun (the .deb prepare_data.py fetched)."""
    deb = next(debs.glob("wordnet-base_*.deb"))
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["dpkg-deb", "-x", str(deb), d], check=True)
        idx = next(Path(d).rglob("index.noun"))
        out = []
        for line in idx.read_text(errors="replace").splitlines():
            if line.startswith(" "):
                continue
            w = line.split(" ", 1)[0]
            if w.isalpha() and w.islower() and 4 <= len(w) <= 9:
                out.append(w)
    return sorted(set(out))


def words_from_vocabulary(tokenizer_json: Path):
    """The cut tokenizer's whole-word tokens (a leading space, then 3+ lower-case letters): the common words users
    name files after ("note", "main", "config"). A file name copied from the instruction is such a token with its
    space there and the same word without it in the tool call's JSON: the model learns that pair per token, so every
    one of them appears in a file name (the WordNet nouns alone, 2,000 of 60,000 drawn, missed most: Claude Code
    asked to read note.txt read dict.txt)."""
    vocab = json.loads(tokenizer_json.read_text())["model"]["vocab"]
    return sorted({t[1:] for t in vocab if t.startswith("\u0120") and len(t) >= 4 and t[1:].isascii()
                   and t[1:].isalpha() and t[1:].islower()})


class Cycle:
    """Items in a shuffled order, reshuffled after each pass: every one used before any is used again."""
    def __init__(self, items):
        self.items, self.pos = list(items), len(items)

    def __bool__(self):
        return bool(self.items)

    def next(self, rng):
        if self.pos == len(self.items):
            rng.shuffle(self.items)
            self.pos = 0
        self.pos += 1
        return self.items[self.pos - 1]


class Renderer:
    def __init__(self, ft, model):
        self.ft, self.model = ft, model

    def render(self, request):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(request, f)
            name = f.name
        try:
            r = subprocess.run([self.ft, "template", self.model, "--request", name, "--no-generation-prompt"],
                               capture_output=True, check=True)
        finally:
            Path(name).unlink()
        return r.stdout.decode("utf-8")


# ---- request shapes ------------------------------------------------------------------------------------------
def claude_request(base, v):
    """Claude Code's request after its tool call, with v's fields (placeholders or values) and the final answer."""
    req = json.loads(json.dumps(base))
    b = req["body"]
    msgs = b["messages"]
    msgs[0]["content"][-1]["text"] = v["instr"]
    env = msgs[1]["content"] if isinstance(msgs[1]["content"], str) else msgs[1]["content"][0]["text"]
    env = re.sub(r"Primary working directory: .*", "Primary working directory: " + v["cwd"].replace("\\", "\\\\"), env)
    env = re.sub(r"Today's date is .*\.", "Today's date is " + v["date"] + ".", env)
    if isinstance(msgs[1]["content"], str):
        msgs[1]["content"] = env
    else:
        msgs[1]["content"][0]["text"] = env
    use = msgs[2]["content"][0]
    if use["name"] == "Read":
        use["input"] = {"file_path": v["arg"]}
    else:
        use["input"] = {"command": v["arg"], "description": v["desc"]}
    msgs[3]["content"][0]["content"] = v["result"]
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": v["answer"]}]})
    return req


def codex_request(base, v):
    req = json.loads(json.dumps(base))
    items = req["body"]["input"]
    for it in items:
        if it.get("type") != "message" or it.get("role") != "user":
            continue
        t = it["content"][0]["text"]
        if t.startswith("<environment_context>"):
            t = re.sub(r"<cwd>.*?</cwd>", "<cwd>" + v["cwd"] + "</cwd>", t)
            t = re.sub(r"<root>.*?</root>", "<root>" + v["cwd"] + "</root>", t)
            t = re.sub(r"<current_date>.*?</current_date>", "<current_date>" + v["date"] + "</current_date>", t)
            it["content"][0]["text"] = t
        elif not t.startswith("<"):
            it["content"][0]["text"] = v["instr"]
    call = next(it for it in items if it.get("type") == "function_call")
    call["arguments"] = json.dumps({"cmd": v["arg"]})
    out = next(it for it in items if it.get("type") == "function_call_output")
    out["output"] = v["result"]
    items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": v["answer"]}]})
    return req


def codex_output(rng, text):
    """exec_command's output as Codex 0.171.0 returns it (tests/data/agents/codex-0.171.0/turn4.json)."""
    return (f"Chunk ID: {rng.randrange(16 ** 6):06x}\nWall time: {rng.uniform(0.01, 0.4):.4f} seconds\n"
            f"Process exited with code 0\nOriginal token count: {max(1, len(text) // 4)}\nOutput:\n{text}\n")


# ---- tasks ---------------------------------------------------------------------------------------------------
READ_SECRET = ["Read {f} and reply with the secret word in it.", "What is the secret word in {f}?",
               "Read the file {f} in this folder and tell me the secret word in it.",
               "Open {f} and tell me the secret word.", "Find the secret word in {f}."]
READ_ALL = ["What does {f} say?", "Show me what is in {f}.", "Read {f} and tell me what it says.",
            "Print the contents of {f}.", "Read the file {f}."]
LIST = ["List the files in this folder.", "What files are in this folder?", "Which files are here?",
        "Show me the files in the current directory."]
RUN = ["Run `{c}` and tell me what it prints.", "Run the command `{c}`.", "What does `{c}` print?",
       "Execute `{c}` and show me the output."]
FILLER = ["Remember to water the {a}.", "Buy a {a} and a {b}.", "Meeting about the {a} on Monday.",
          "The {a} is in the {b}.", "Call the {a} tomorrow.", "Notes on the {a}.", "Ask about the {b}."]
EXTS = [".txt", ".md", ".txt", ".log", ".cfg", ".py", ".json", ".txt"]
DIRS = ["", "", "", "", "docs/", "notes/", "src/", "data/"]


def make_task(rng, words, kind, agent):
    words, stems = words
    w = lambda: rng.choice(words)
    # Three file names in four are common words (the tokenizer's, each in turn for each agent), the rest WordNet nouns.
    stems = stems.get(agent)
    v = {}
    if kind in ("secret", "content"):
        f = rng.choice(DIRS) + (stems.next(rng) if stems and rng.random() < 0.75 else w()) + rng.choice(EXTS)
        secret = w()
        lines = [rng.choice(FILLER).format(a=w(), b=w()) for _ in range(rng.randrange(0, 3))]
        if kind == "secret":
            lines.insert(rng.randrange(len(lines) + 1), f"The secret word is {secret}.")
            v["answer"] = f"The secret word is {secret}."
            v["instr"] = rng.choice(READ_SECRET).format(f=f)
        else:
            lines = lines or [rng.choice(FILLER).format(a=w(), b=w())]
            v["answer"] = f"{f} says:\n" + "\n".join(lines)
            v["instr"] = rng.choice(READ_ALL).format(f=f)
        body = "\n".join(lines) + "\n"
        if agent == "claude-code":
            # Read's result: numbered lines "N\t…", the line after the last newline included (tool-read.json).
            v["result"] = "\n".join(f"{i + 1}\t{l}" for i, l in enumerate(body.split("\n")))
            v["arg"] = f
        else:
            v["result"] = codex_output(rng, body.rstrip("\n"))
            v["arg"] = f"cat {f}"
        v["tool"] = "read"
    elif kind == "list":
        names = sorted({w() + rng.choice(EXTS) for _ in range(rng.randrange(1, 5))})
        v["instr"] = rng.choice(LIST)
        v["answer"] = "The files here: " + ", ".join(names) + "."
        v["arg"], v["desc"] = "ls", "List the files in the working folder"
        v["result"] = "\n".join(names) if agent == "claude-code" else codex_output(rng, "\n".join(names))
        v["tool"] = "bash"
    else:  # run: echo a word, or pwd
        if rng.random() < 0.7:
            word = w()
            cmd, out = f"echo {word}", word
        else:
            cmd, out = "pwd", None
        v["instr"] = rng.choice(RUN).format(c=cmd)
        v["arg"], v["desc"] = cmd, "Run the command the user gave"
        v["tool"] = "bash"
        v["_out"] = out
    return v


def fill(shape, v):
    """A rendered shape with its placeholders replaced by v's values."""
    s = shape
    for k, ph in PH.items():
        if ph in s:
            s = s.replace(ph, v[k])
    return s


def split(R):
    """R: a whole rendered conversation (no generation prompt). Returns p1, c1, p2, c2, text (see the docstring)."""
    i1 = R.index(ASSISTANT) + len(ASSISTANT)
    e1 = R.index(END, i1) + len(END)
    i2 = R.index(ASSISTANT, e1) + len(ASSISTANT)
    p1, p2, c2 = R[:i1], R[:i2], R[i2:]
    if not c2.startswith(THINK):
        raise SystemExit("the final answer does not start with the empty think block: the template changed?")
    c1 = THINK + R[i1:e1]
    return p1, c1, p2, c2, p1 + c1 + R[e1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--ft", required=True)
    ap.add_argument("--model", default=str(REPO / "resources/models/freetoken-demo.gguf"))
    ap.add_argument("--samples", type=int, default=8000, help="training samples per agent")
    ap.add_argument("--heldout", type=int, default=60, help="held-out samples per agent")
    ap.add_argument("--seed", type=int, default=20261207)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    words = words_from_wordnet(a.out / "debs")
    rng.shuffle(words)
    held_words, train_words = words[:len(words) // 20], words[len(words) // 20:]
    # The common-word file names are all in training (the held-out samples name their files after held-out nouns).
    stems = words_from_vocabulary(a.out / "tokenizer/tokenizer.json")
    held_words, train_words = (held_words, {}), (train_words, {agent: Cycle(stems) for agent in ("claude-code", "codex")})
    ren = Renderer(a.ft, a.model)
    bases = {
        ("claude-code", "read"): json.loads((AGENTS / "claude-code-2.1.332/tool-read.json").read_text()),
        ("claude-code", "bash"): json.loads((AGENTS / "claude-code-2.1.332/tool-bash.json").read_text()),
        ("codex", "read"): json.loads((AGENTS / "codex-0.171.0/turn4.json").read_text()),
        ("codex", "bash"): json.loads((AGENTS / "codex-0.171.0/turn4.json").read_text()),
    }
    make = {"claude-code": claude_request, "codex": codex_request}
    shapes = {key: ren.render(make[key[0]](base, PH)) for key, base in bases.items()}
    for key, s in shapes.items():
        for ph in PH.values():
            if ph != PH["desc"] or key == ("claude-code", "bash"):
                assert s.count(ph) <= 2, (key, ph)

    def sample(agent, ws, r):
        kind = r.choices(["secret", "content", "list", "run"], [4, 2, 1.5, 1.5])[0]
        v = make_task(r, ws, kind, agent)
        v["cwd"] = r.choice(["/tmp/", "/home/", "/work/", "/srv/"]) + "/".join(r.choice(ws[0]) for _ in range(r.randrange(1, 3)))
        v["date"] = f"20{r.randrange(24, 28)}-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d}"
        if "_out" in v:
            out = v.pop("_out") or v["cwd"]
            v["result"] = out if agent == "claude-code" else codex_output(r, out)
            v["answer"] = f"It prints: {out}"
        v.setdefault("desc", "")
        return {"agent": agent, "task": kind, **dict(zip(("p1", "c1", "p2", "c2", "text"), split(fill(shapes[(agent, v["tool"])], v)))), "_v": v}

    # Check the placeholder route against full renders by ft, for every shape and task kind.
    checked = 0
    for agent in ("claude-code", "codex"):
        r = random.Random(a.seed + 1)
        seen = set()
        while len(seen) < 4:
            s = sample(agent, train_words, r)
            if s["task"] in seen:
                continue
            seen.add(s["task"])
            full = ren.render(make[agent](bases[(agent, s["_v"]["tool"])], s["_v"]))
            if split(full)[4] != s["text"]:
                raise SystemExit(f"{agent} {s['task']}: the placeholder rendering differs from ft's own")
            checked += 1
    print(f"placeholder rendering checked against ft on {checked} samples: identical")

    for name, ws, n, seed in (("agents", train_words, a.samples, a.seed), ("agents_heldout", held_words, a.heldout, a.seed + 2)):
        r = random.Random(seed)
        rows = []
        for i in range(n):
            for agent in ("claude-code", "codex"):
                s = sample(agent, ws, r)
                s.pop("_v")
                rows.append(json.dumps(s, ensure_ascii=False))
        (a.out / f"{name}.txt.xz").write_bytes(lzma.compress(("\n".join(rows) + "\n").encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
        print(f"{name}: {len(rows)} samples")


if __name__ == "__main__":
    main()
