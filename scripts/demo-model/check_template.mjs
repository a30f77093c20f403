// Renders conversations with the real Qwen3 chat template through @huggingface/jinja (tests/reference, installed by
// scripts/test.sh) and compares with what prepare_data.py wrote. Reads JSON from stdin:
//   [{"messages": [{role, content}, ...], "add_generation_prompt": bool, "expected": "..."}]
// Prints the number checked; exits 1 on the first difference.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(path.join(repo, "tests/reference/package.json"));
const { Template } = require("@huggingface/jinja");
const cfg = JSON.parse(readFileSync(path.join(repo, "resources/tokenizers/qwen3/tokenizer_config.json"), "utf8"));
const tpl = new Template(cfg.chat_template);
const cases = JSON.parse(readFileSync(0, "utf8"));
let n = 0;
for (const c of cases) {
  const got = tpl.render({ messages: c.messages, add_generation_prompt: c.add_generation_prompt });
  if (got !== c.expected) {
    console.error("template differs:\n--- expected (prepare_data.py)\n" + JSON.stringify(c.expected) + "\n--- Jinja\n" + JSON.stringify(got));
    process.exit(1);
  }
  n++;
}
console.log(`${n} conversations render identically`);
