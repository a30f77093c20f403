// Reference renderer for the chat-template differential test: renders a batch of (template, context) cases with
// @huggingface/jinja (the Jinja engine of transformers.js), in one process.
//
//   node jinja_reference.mjs MODULES_DIR BATCH.json RESULTS.json
//
// BATCH.json: {"now": "YYYY-MM-DDTHH:MM:SS", "templates": {"key": "source", …}, "cases": [{"template": key,
// "context": {…}}, …]}. RESULTS.json: [{"ok": true, "output": "…"} | {"ok": false, "error": "…"}, …] in case order.
// @huggingface/jinja's Template already lexes with trim_blocks and lstrip_blocks (as HF transformers configures
// Jinja2) and its tojson defaults to json.dumps' ", " / ": " separators with non-ASCII kept; strftime_now is pinned
// here: the context carries a function of that name, and Environment.set lets it replace the global (render()
// declares the globals first, then the context variables, and declaring a name twice is otherwise an error).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulesDir, batchPath, resultsPath] = process.argv.slice(2);
const jinja = await import(pathToFileURL(path.join(modulesDir, '@huggingface', 'jinja', 'dist', 'index.js')).href);
const batch = JSON.parse(fs.readFileSync(batchPath, 'utf8'));

const now = new Date(batch.now);  // parsed as local time, like the C++ side's pinned local clock
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
                'November', 'December'];
const pad2 = (n) => (n < 10 ? '0' + n : String(n));
// Same conversions as @huggingface/jinja's own strftime (%Y %m %d %b %B %H %M %%), on the pinned clock.
function strftime_now(format) {
  return format.replace(/%[YmdbBHM%]/g, (t) => {
    switch (t) {
      case '%Y': return String(now.getFullYear());
      case '%m': return pad2(now.getMonth() + 1);
      case '%d': return pad2(now.getDate());
      case '%b': return months[now.getMonth()].slice(0, 3);
      case '%B': return months[now.getMonth()];
      case '%H': return pad2(now.getHours());
      case '%M': return pad2(now.getMinutes());
      case '%%': return '%';
      default: return t;
    }
  });
}

const declare = jinja.Environment.prototype.set;
jinja.Environment.prototype.set = function (name, value) {
  if (name === 'strftime_now') this.variables.delete(name);
  return declare.call(this, name, value);
};

const compiled = new Map();
const results = [];
for (const c of batch.cases) {
  try {
    let tpl = compiled.get(c.template);
    if (tpl === undefined) {
      try {
        tpl = new jinja.Template(batch.templates[c.template]);
      } catch (e) {
        tpl = e instanceof Error ? e : new Error(String(e));
      }
      compiled.set(c.template, tpl);
    }
    if (tpl instanceof Error) throw tpl;
    const output = tpl.render({ ...c.context, strftime_now });
    results.push({ ok: true, output });
  } catch (e) {
    results.push({ ok: false, error: String(e && e.message ? e.message : e) });
  }
}
fs.writeFileSync(resultsPath, JSON.stringify(results));
