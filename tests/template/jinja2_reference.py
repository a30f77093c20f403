"""Second reference for the chat-template differential test: Python Jinja2 configured as Hugging Face transformers'
apply_chat_template does (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols, tojson =
json.dumps(ensure_ascii=False, indent, separators, sort_keys), raise_exception, strftime_now on a pinned clock).

    python3 jinja2_reference.py BATCH.json RESULTS.json

Same batch and result format as jinja_reference.mjs. Used only where python3 with jinja2 is installed.
"""
import datetime
import json
import sys

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def main():
    batch_path, results_path = sys.argv[1], sys.argv[2]
    with open(batch_path, encoding="utf-8") as f:
        batch = json.load(f)
    now = datetime.datetime.fromisoformat(batch["now"])

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)

    compiled = {}
    results = []
    for case in batch["cases"]:
        key = case["template"]
        if key not in compiled:
            try:
                compiled[key] = env.from_string(batch["templates"][key])
            except Exception as e:  # noqa: BLE001 - a template that does not compile raises for every case
                compiled[key] = e
        tpl = compiled[key]
        try:
            if isinstance(tpl, Exception):
                raise tpl
            results.append({"ok": True, "output": tpl.render(**case["context"])})
        except Exception as e:  # noqa: BLE001
            results.append({"ok": False, "error": f"{type(e).__name__}: {e}"})
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
