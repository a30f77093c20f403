#!/usr/bin/env python3
"""Drives a running `ft serve` on the GPU machine (standard library only: the machine has no network).

  agent     an agent's two turns over a shared ~4k-token prefix (system prompt + tool definitions + history):
            TTFT of turn 1 and of turn 2 (which reuses the prefix from the KV prefix cache), streamed
  rebuild   the stats feed (GET /v1/stats at 10 Hz) while a long greedy reply streams and the expert cache and KV
            cache are rebuilt live (POST /v1/cache/rebuild: shrink, grow back, and one past the budget that must be
            rejected); writes one JSON line per sample and prints a summary
Usage: serve_probe.py URL agent|rebuild OUT_FILE
"""
import json
import sys
import threading
import time
import urllib.request

URL = sys.argv[1].rstrip("/")
WORDS = ("the model reads tokens from the cache and computes experts on the GPU while the CPU takes the rest of "
         "the misses so that each layer finishes at the same time as the link delivers its bytes").split()


def post(path, body, stream=False, timeout=600):
    req = urllib.request.Request(URL + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=timeout)


def get(path):
    with urllib.request.urlopen(URL + path, timeout=30) as r:
        return json.loads(r.read())


def model_id():
    return get("/v1/models")["data"][0]["id"]


def chat_stream(messages, max_tokens, ignore_eos=False):
    """Streams one chat completion; returns (ttft_s, total_s, text, usage)."""
    body = {"model": model_id(), "messages": messages, "max_tokens": max_tokens, "temperature": 0, "stream": True,
            "stream_options": {"include_usage": True}}
    if ignore_eos:
        body["ignore_eos"] = True
    t0 = time.perf_counter()
    ttft, text, usage = None, [], None
    with post("/v1/chat/completions", body, stream=True) as r:
        for raw in r:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            ev = json.loads(data)
            if ev.get("usage"):
                usage = ev["usage"]
            for ch in ev.get("choices", []):
                d = ch.get("delta", {})
                piece = (d.get("content") or "") + (d.get("reasoning_content") or "")
                if piece and ttft is None:
                    ttft = time.perf_counter() - t0
                text.append(piece)
    return ttft, time.perf_counter() - t0, "".join(text), usage


def agent(out):
    system = "You are a coding agent. Tools: " + " ".join(WORDS[i % len(WORDS)] for i in range(3900))
    history = [{"role": "system", "content": system},
               {"role": "user", "content": "Read the file and explain the cache policy. " + " ".join(WORDS[:40])}]
    t1, total1, reply, u1 = chat_stream(history, 64)
    history += [{"role": "assistant", "content": reply}, {"role": "user", "content": "Now summarise it in one line."}]
    t2, total2, _, u2 = chat_stream(history, 64)
    res = {"turn1_ttft_ms": 1e3 * t1, "turn2_ttft_ms": 1e3 * t2, "ratio": t2 / t1, "turn1_prompt_tokens": u1["prompt_tokens"],
           "turn2_prompt_tokens": u2["prompt_tokens"], "stats": {k: get("/v1/stats").get(k) for k in
                                                                  ("prefix_hit_tokens_total", "prefill_tokens_total", "kv_pages_cached")}}
    print(f"agent: turn 1 TTFT {res['turn1_ttft_ms']:.1f} ms ({u1['prompt_tokens']} prompt tokens), turn 2 TTFT "
          f"{res['turn2_ttft_ms']:.1f} ms ({u2['prompt_tokens']} prompt tokens): {100 * res['ratio']:.1f} % of turn 1; "
          f"engine: {res['stats']}")
    json.dump(res, open(out, "w"), indent=1)


def rebuild(out):
    s0 = get("/v1/stats")
    plan = s0["plan"]
    slots, kv = plan["expert_slots"], plan["kv_tokens"]
    samples, stop = [], threading.Event()

    def feed():
        t0 = time.perf_counter()
        while not stop.is_set():
            s = get("/v1/stats")
            samples.append({"t": time.perf_counter() - t0, "state": s["state"], "running": s["running"],
                            "decode_tok_s": s["decode_tok_s"], "slots": s["cache"]["slots"],
                            "hit_rate": s["cache"]["hit_rate"], "fetched_per_token": s["cache"]["fetched_per_token"],
                            "cpu_per_token": s["cache"]["cpu_per_token"], "vram": s["vram"], "pcie": s["pcie"],
                            "kv_tokens": s["plan"]["kv_tokens"]})
            time.sleep(0.1)

    th = threading.Thread(target=feed)
    th.start()
    result = {}
    gen = threading.Thread(target=lambda: result.update(
        r=chat_stream([{"role": "user", "content": "Write a long story about caches."}], 1500, ignore_eos=True)))
    gen.start()
    time.sleep(2)
    steps = [("shrink", {"moe_slots": slots // 2, "kv_tokens": kv}), ("grow", {"moe_slots": slots, "kv_tokens": kv}),
             ("past the budget", {"moe_slots": plan["max_expert_slots"] + 2000})]
    verdicts = []
    for name, body in steps:
        t = time.perf_counter()
        try:
            with post("/v1/cache/rebuild", body) as r:
                v = json.loads(r.read())
        except urllib.error.HTTPError as e:
            v = json.loads(e.read())
        verdicts.append({"step": name, "request": body, "accepted": v.get("accepted"), "reason": v.get("reason"),
                         "ms": 1e3 * (time.perf_counter() - t)})
        print(f"rebuild {name} {body}: {'accepted' if v.get('accepted') else 'rejected: ' + str(v.get('reason'))} "
              f"in {verdicts[-1]['ms']:.0f} ms")
        time.sleep(2)
    gen.join()
    stop.set()
    th.join()
    ttft, total, text, usage = result["r"]
    print(f"the reply kept streaming: {usage['completion_tokens']} tokens in {total:.1f} s")
    json.dump({"verdicts": verdicts, "samples": samples}, open(out, "w"))
    for s in samples[:: max(1, len(samples) // 40)]:
        v = s["vram"]
        print(f"  t={s['t']:5.1f}s {s['state']:8s} slots {s['slots']:5d} experts {v['experts'] / 2**30:5.2f} GiB "
              f"kv {v['kv'] / 2**30:4.2f} free {v['free'] / 2**30:5.2f} hit {100 * s['hit_rate']:5.1f} % "
              f"fetch {s['pcie']['fetch_gbps']:5.1f} GB/s  {s['decode_tok_s'] or 0:6.1f} tok/s")


{"agent": agent, "rebuild": rebuild}[sys.argv[2]](sys.argv[3])
