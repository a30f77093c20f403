// Reference side of test_tokenizer_diff: encodes a batch of strings with @huggingface/tokenizers (the engine
// transformers.js uses) and writes the ids.
//   node hf_encode.mjs REFERENCE_DIR JOB.json OUT.json
// JOB.json: {"tokenizer": path, "config": path or "", "strings": [...]}
// OUT.json: [[ids of string 0], [ids of string 1], ...]   (add_special_tokens = false)
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [refDir, jobPath, outPath] = process.argv.slice(2);
const require = createRequire(join(refDir, "package.json"));
const mod = await import(pathToFileURL(require.resolve("@huggingface/tokenizers")).href);
const Tokenizer = mod.Tokenizer ?? mod.default.Tokenizer;

const job = JSON.parse(readFileSync(jobPath, "utf8"));
const tokenizerJson = JSON.parse(readFileSync(job.tokenizer, "utf8"));
const config = job.config ? JSON.parse(readFileSync(job.config, "utf8")) : {};
const tokenizer = new Tokenizer(tokenizerJson, config);
const out = job.strings.map((s) => tokenizer.encode(s, { add_special_tokens: false }).ids);
writeFileSync(outPath, JSON.stringify(out));
