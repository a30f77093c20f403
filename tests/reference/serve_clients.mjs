// Drives a running `ft serve` with the official OpenAI and Anthropic npm clients (pinned in package.json).
//   node serve_clients.mjs clients URL MODEL API_KEY    the protocol checks (chat, responses, streams, tools, errors, …)
//   node serve_clients.mjs load URL MODEL API_KEY [CLIENTS] [REQUESTS]   concurrent clients vs the same requests alone
//   node serve_clients.mjs codex-shapes URL MODEL API_KEY DIR   the recorded requests of the Codex CLI (DIR/turn*.json:
//                                              path, headers, body), each streamed and not, through the openai SDK
//   node serve_clients.mjs agent-shapes URL MODEL API_KEY DIR   the recorded requests of an agent CLI (DIR/turn*.json:
//                                              path, headers, body), each streamed and not, through the official SDK
// Prints one line per check; exits 1 on the first failure (with what was expected and what came back).
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const [mode, url, model, apiKey] = process.argv.slice(2);
const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0, timeout: 120000 });
const anthropic = new Anthropic({ baseURL: url, apiKey, maxRetries: 0, timeout: 120000 });

function check(cond, what, detail) {
  if (!cond) {
    console.error(`FAIL: ${what}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`);
    process.exit(1);
  }
}
// The text of a response's message items (the SDK's finalResponse() has no output_text helper field).
function responseText(r) {
  return r.output.filter((o) => o.type === 'message').flatMap((o) => o.content).filter((c) => c.type === 'output_text').map((c) => c.text).join('');
}
function ok(what) { console.log(`ok - ${what}`); }
async function expectError(promise, status, what) {
  try {
    await promise;
  } catch (e) {
    check(e.status === status, `${what}: HTTP ${status}`, `${e.status} ${e.message}`);
    return e;
  }
  check(false, `${what}: expected HTTP ${status}, got success`);
}

const greedy = { temperature: 0, seed: 7 };
const weather = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

async function clients() {
  // Models.
  const models = await openai.models.list();
  check(models.data.some((m) => m.id === model), 'models.list has the served model', models.data);
  ok('openai models.list');

  // Chat, non-streamed and streamed: the same greedy text.
  const messages = [{ role: 'system', content: 'You are brief.' }, { role: 'user', content: 'Say hello in three words.' }];
  const full = await openai.chat.completions.create({ model, messages, max_tokens: 24, ...greedy });
  const msg = full.choices[0].message;
  check(full.object === 'chat.completion' && typeof full.id === 'string', 'chat.completion shape', full);
  check(typeof msg.content === 'string' || msg.content === null, 'message content', msg);
  check(full.usage.prompt_tokens > 0 && full.usage.completion_tokens > 0, 'usage', full.usage);
  check(['stop', 'length'].includes(full.choices[0].finish_reason), 'finish_reason', full.choices[0]);
  ok(`chat non-streamed (${full.usage.completion_tokens} tokens)`);

  const stream = await openai.chat.completions.create({ model, messages, max_tokens: 24, ...greedy, stream: true, stream_options: { include_usage: true } });
  let text = '', reasoning = '', usage = null, finish = null, chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    check(chunk.object === 'chat.completion.chunk' && chunk.id === chunk.id, 'chunk shape', chunk);
    if (chunk.usage) usage = chunk.usage;
    const c = chunk.choices[0];
    if (!c) continue;
    if (c.delta.content) text += c.delta.content;
    if (c.delta.reasoning_content) reasoning += c.delta.reasoning_content;
    if (c.finish_reason) finish = c.finish_reason;
  }
  check(text === (msg.content ?? ''), 'streamed text equals non-streamed text', { streamed: text, whole: msg.content });
  check(reasoning === (msg.reasoning_content ?? ''), 'streamed reasoning equals non-streamed', { streamed: reasoning, whole: msg.reasoning_content });
  check(usage && usage.completion_tokens === full.usage.completion_tokens && usage.prompt_tokens === full.usage.prompt_tokens,
    'stream usage (include_usage) equals non-streamed usage', { usage, full: full.usage });
  check(finish === full.choices[0].finish_reason, 'stream finish_reason', finish);
  ok(`chat streamed in ${chunks} chunks equals non-streamed`);

  // stop, max_completion_tokens, logprobs.
  const lp = await openai.chat.completions.create({ model, messages, max_completion_tokens: 6, ...greedy, logprobs: true, top_logprobs: 2 });
  const lpc = lp.choices[0].logprobs.content;
  check(lp.usage.completion_tokens <= 6, 'max_completion_tokens', lp.usage);
  check(lpc.length > 0 && lpc.length <= lp.usage.completion_tokens, 'logprobs per token', lpc.length);
  check(lpc.every((e) => e.logprob <= 0 && e.top_logprobs.length === 2 && Array.isArray(e.bytes)), 'logprob entries', lpc[0]);
  check(Math.abs(lpc[0].logprob - lpc[0].top_logprobs[0].logprob) < 1e-4, 'greedy token is the top alternative', lpc[0]);
  ok('logprobs/top_logprobs');
  if (text.length > 4) {
    const stopAt = text.slice(2, 4);
    const st = await openai.chat.completions.create({ model, messages, max_tokens: 24, ...greedy, stop: [stopAt] });
    check(!(st.choices[0].message.content ?? '').includes(stopAt), 'stop string not in the output', { stopAt, out: st.choices[0].message.content });
    ok('stop');
  }
  const jo = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Give me JSON.' }], max_tokens: 4, ...greedy, response_format: { type: 'json_object' } });
  check(jo.choices.length === 1, 'response_format json_object accepted', jo);
  ok('response_format json_object accepted');

  // Tool-call round trip, request side: tools, the model's call and the tool's result go in and render.
  const tr = await openai.chat.completions.create({
    model, max_tokens: 8, ...greedy, tools: [weather], tool_choice: 'auto', parallel_tool_calls: false,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
    ],
  });
  check(tr.usage.prompt_tokens > full.usage.prompt_tokens, 'tool round trip renders tools and results into the prompt', tr.usage);
  for (const c of tr.choices[0].message.tool_calls ?? []) check(JSON.parse(c.function.arguments) !== null, 'tool call arguments are JSON', c);
  ok('tool-call round trip (request side)');

  // Legacy completions, streamed equals non-streamed.
  const prompt = 'The capital of France is';
  const comp = await openai.completions.create({ model, prompt, max_tokens: 12, ...greedy });
  let ctext = '';
  for await (const c of await openai.completions.create({ model, prompt, max_tokens: 12, ...greedy, stream: true })) ctext += c.choices[0]?.text ?? '';
  check(comp.object === 'text_completion' && ctext === comp.choices[0].text, 'completions streamed equals non-streamed', { ctext, text: comp.choices[0].text });
  ok('completions');

  // Responses API: the same conversation as the chat above gives the same prompt and, greedy, the same text;
  // streamed (the typed events, through the SDK's accumulating stream helper) equals non-streamed.
  const rreq = { model, instructions: 'You are brief.', input: 'Say hello in three words.', max_output_tokens: 24, temperature: 0 };
  const rr = await openai.responses.create(rreq);
  check(rr.object === 'response' && rr.id.startsWith('resp_') && ['completed', 'incomplete'].includes(rr.status), 'response shape', rr);
  check(rr.usage.input_tokens === full.usage.prompt_tokens && rr.usage.output_tokens === full.usage.completion_tokens &&
    rr.usage.total_tokens === rr.usage.input_tokens + rr.usage.output_tokens, 'responses usage equals the chat usage', { r: rr.usage, chat: full.usage });
  check(rr.output_text === (msg.content ?? ''), 'responses text equals the chat text', { responses: rr.output_text, chat: msg.content });
  check(rr.store === true, 'responses: stored by default (store: true)', rr.store);
  const rs = openai.responses.stream(rreq);
  const rtypes = [];
  let rdelta = '', seqOk = true, rend = null;
  for await (const ev of rs) {
    if (ev.sequence_number !== rtypes.length) seqOk = false;
    rtypes.push(ev.type);
    rend = ev;
    if (ev.type === 'response.output_text.delta') rdelta += ev.delta;
  }
  const rfinal = await rs.finalResponse();
  check(seqOk, 'responses stream: sequence_number counts up from 0', rtypes);
  check(rtypes[0] === 'response.created' && rtypes[1] === 'response.in_progress' &&
    ['response.completed', 'response.incomplete'].includes(rtypes.at(-1)), 'responses event order', rtypes);
  for (const t of ['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done'])
    check(!rr.output_text || rtypes.includes(t), `responses stream has ${t}`, rtypes);
  check(rdelta === rr.output_text && responseText(rfinal) === rr.output_text, 'responses streamed text equals non-streamed', { rdelta, final: responseText(rfinal), whole: rr.output_text });
  // (The SDK's final snapshot takes the server's object only from response.completed; response.incomplete, sent when
  // max_output_tokens cut the answer, carries it too.)
  check(rend.response.status === rr.status && rend.response.usage.output_tokens === rr.usage.output_tokens &&
    rend.response.usage.input_tokens === rr.usage.input_tokens, 'responses stream usage and status', rend.response);
  // The raw stream (create with stream: true) ends with the same response object.
  let rlast = null;
  for await (const ev of await openai.responses.create({ ...rreq, stream: true })) rlast = ev;
  check(['response.completed', 'response.incomplete'].includes(rlast.type) && responseText(rlast.response) === rr.output_text,
    'responses raw stream ends with the whole response', rlast);
  ok(`responses, streamed (${rtypes.length} events) equals non-streamed and the chat text`);

  // Responses function-call round trip: flat function tools, the model's call and our output sent back as items.
  const rtool = { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: weather.function.parameters };
  const rt1 = await openai.responses.create({ model, input: 'Weather in Paris?', tools: [rtool], max_output_tokens: 8, temperature: 0 });
  for (const o of rt1.output) {
    check(['message', 'reasoning', 'function_call'].includes(o.type), 'responses output item type', o);
    if (o.type === 'function_call') check(typeof o.call_id === 'string' && typeof o.name === 'string' && typeof o.arguments === 'string', 'function_call item', o);
  }
  const rt2 = await openai.responses.create({
    model, tools: [rtool], tool_choice: 'auto', parallel_tool_calls: false, max_output_tokens: 8, temperature: 0, reasoning: { effort: 'low' },
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny, 21 C' },
    ],
  });
  check(rt2.usage.input_tokens > rt1.usage.input_tokens + 10, 'responses: function_call and its output render into the prompt', { first: rt1.usage, second: rt2.usage });
  check(rt2.tools[0].name === 'get_weather' && rt2.parallel_tool_calls === false, 'responses repeat the request settings', rt2);
  ok('responses function-call round trip (request side)');
  let e0 = await expectError(openai.responses.create({ model, input: 'hi', previous_response_id: 'resp_123' }), 400, 'responses previous_response_id');
  check(e0.error?.type === 'invalid_request_error' && e0.param === 'previous_response_id' && e0.code === 'previous_response_not_found', 'responses 400 shape', e0.error);
  e0 = await expectError(openai.responses.create({ model: 'no-such-model', input: 'hi' }), 404, 'responses unknown model');
  check(e0.code === 'model_not_found', 'responses 404 shape', e0.error);
  e0 = await expectError(openai.responses.create({ model, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/y.png' }] }] }), 400, 'responses image input');
  check(e0.param === 'input[0].content[0].type', 'responses error names the field', e0.error);
  ok('responses errors');

  // Responses as the Codex CLI sends them (the shapes recorded from codex 0.171 against ft serve, trimmed): developer
  // messages, a namespace tool, a custom (freeform) tool, built-in tools, store: false, include, prompt_cache_key,
  // client_metadata, reasoning.summary, text.verbosity, unknown fields; then a history with a namespace call, a
  // custom tool call, a local_shell call and their outputs, an encrypted-only reasoning item. Streamed (Codex only
  // streams) and not: the same prompt, the last event response.completed with the usage Codex reads.
  const codexTools = [
    { type: 'function', name: 'exec_command', description: 'Runs a command in a PTY.', strict: false,
      parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'], additionalProperties: false } },
    { type: 'namespace', name: 'multi_agent_v1', description: 'Tools for spawning and managing sub-agents.', tools: [
      { type: 'function', name: 'close_agent', description: 'Close an agent.', strict: false,
        parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] } }] },
    { type: 'custom', name: 'apply_patch', description: 'Edit files with a patch.',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' } },
    { type: 'web_search', external_web_access: true },
    { type: 'image_generation' },
  ];
  const developer = (text) => ({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
  const userItem = (text) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const codexReq = {
    model, input: [developer('You are a coding agent.'), developer('<skills_instructions/>'),
      userItem('<environment_context><cwd>/tmp/w</cwd></environment_context>'), userItem('Read notes.txt.')],
    tools: codexTools, tool_choice: 'auto', parallel_tool_calls: true, reasoning: { summary: 'auto' }, store: false,
    include: ['reasoning.encrypted_content'], prompt_cache_key: 'thread-1', service_tier: 'default',
    text: { verbosity: 'low' }, client_metadata: { thread_id: 'thread-1' }, max_output_tokens: 16, temperature: 0,
  };
  const cx = await openai.responses.create({ ...codexReq, unknown_future_field: { x: 1 } });
  check(cx.status !== 'failed' && cx.store === false && cx.tools.length === codexTools.length && cx.tools[1].type === 'namespace',
    'codex shape: answered, repeats the tools as sent', cx);
  for (const o of cx.output) {
    check(['message', 'reasoning', 'function_call', 'custom_tool_call'].includes(o.type), 'codex shape: output item type', o);
    if (o.type === 'function_call') check(!o.name.includes('.'), 'codex shape: a namespace call comes back as {name, namespace}', o);
    if (o.type === 'custom_tool_call') check(typeof o.input === 'string', 'codex shape: custom_tool_call input', o);
  }
  const cxTypes = [];
  let cxLast = null;
  for await (const ev of await openai.responses.create({ ...codexReq, stream: true })) { cxTypes.push(ev.type); cxLast = ev; }
  check(cxTypes[0] === 'response.created' && cxLast.type === 'response.' + cx.status, 'codex shape: stream order', cxTypes);
  check(cxLast.response.usage.input_tokens === cx.usage.input_tokens && typeof cxLast.response.usage.input_tokens_details?.cached_tokens === 'number',
    'codex shape: the same prompt streamed, usage with cached_tokens', { s: cxLast.response.usage, w: cx.usage });
  check(cxLast.response.usage.input_tokens_details.cached_tokens > 0, 'codex shape: the repeated prompt came from the prefix cache', cxLast.response.usage);
  const cxHistory = await openai.responses.create({ ...codexReq, input: [...codexReq.input,
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
    { type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{"target":"a1"}', call_id: 'call_1' },
    { type: 'function_call_output', call_id: 'call_1', output: 'closed' },
    { type: 'custom_tool_call', status: 'completed', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Done!' },
    { type: 'local_shell_call', call_id: 'call_3', status: 'completed', action: { type: 'exec', command: ['cat', 'notes.txt'] } },
    { type: 'local_shell_call_output', call_id: 'call_3', output: 'The secret word is pelican.' },
    { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is pelican.' }] },
    userItem('Thanks.')] });
  check(cxHistory.usage.input_tokens > cx.usage.input_tokens + 30, 'codex shape: the calls and their outputs render into the prompt', { first: cx.usage, history: cxHistory.usage });
  // A probe with an empty input and one output token; a tool type nobody knows is left out (the server logs it).
  const probe = await openai.responses.create({ model, instructions: 'hi', input: [], max_output_tokens: 1, store: false });
  check(probe.usage.output_tokens <= 1, 'empty-input probe', probe);
  const odd = await openai.responses.create({ model, input: 'hi', max_output_tokens: 2, tools: [{ type: 'hologram', name: 'h' }] });
  check(odd.tools.length === 0, 'an unknown tool type is left out', odd.tools);
  ok(`responses as Codex sends them (${cx.usage.input_tokens} and ${cxHistory.usage.input_tokens} prompt tokens, ${cxTypes.length} events)`);

  // Stored responses: previous_response_id continues a stored conversation; GET, input_items, DELETE; store: false
  // keeps nothing.
  const s1 = await openai.responses.create({ model, input: 'Remember the word pelican.', max_output_tokens: 8, temperature: 0 });
  const got = await openai.responses.retrieve(s1.id);
  check(got.id === s1.id && JSON.stringify(got.output) === JSON.stringify(s1.output) && got.store === true, 'GET /v1/responses/{id}', got);
  const items = await openai.responses.inputItems.list(s1.id);
  check(items.data.length === 1 && items.data[0].role === 'user', 'GET /v1/responses/{id}/input_items', items.data);
  const s2 = await openai.responses.create({ model, previous_response_id: s1.id, input: 'Which word?', max_output_tokens: 8, temperature: 0 });
  check(s2.previous_response_id === s1.id && s2.usage.input_tokens > s1.usage.input_tokens + 3, 'previous_response_id: the stored turn is in the prompt', { s1: s1.usage, s2: s2.usage });
  const s3 = await openai.responses.create({ model, previous_response_id: s2.id, input: 'Again?', max_output_tokens: 4, temperature: 0 });
  check(s3.usage.input_tokens > s2.usage.input_tokens, 'previous_response_id: a chain of three', { s2: s2.usage, s3: s3.usage });
  const del = await openai.responses.delete(s1.id).then(() => true, (e) => e);
  check(del === true, 'DELETE /v1/responses/{id}', del);
  await expectError(openai.responses.retrieve(s1.id), 404, 'a deleted response');
  e0 = await expectError(openai.responses.create({ model, previous_response_id: s1.id, input: 'x', max_output_tokens: 2 }), 400, 'previous_response_id of a deleted response');
  check(e0.param === 'previous_response_id', 'names previous_response_id', e0.error);
  await expectError(openai.responses.retrieve(cx.id), 404, 'a store: false response is not kept');
  const s4 = await openai.responses.create({ model, previous_response_id: s2.id, input: 'Still there?', max_output_tokens: 2 });
  check(s4.previous_response_id === s2.id, 'a response survives the deletion of the one before it', s4);
  ok('stored responses: previous_response_id, GET, input_items, DELETE, store: false');

  // Anthropic: messages, streamed equals non-streamed, event order, count_tokens.
  const amsg = { model, max_tokens: 24, temperature: 0, system: [{ type: 'text', text: 'You are brief.' }], messages: [{ role: 'user', content: 'Say hello in three words.' }] };
  const am = await anthropic.messages.create(amsg);
  check(am.type === 'message' && am.role === 'assistant' && Array.isArray(am.content), 'anthropic message shape', am);
  check(['end_turn', 'max_tokens'].includes(am.stop_reason), 'anthropic stop_reason', am.stop_reason);
  const atext = am.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  const events = [];
  const as = anthropic.messages.stream(amsg);
  for await (const ev of as) events.push(ev.type);
  const fm = await as.finalMessage();
  const stext = fm.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  check(stext === atext, 'anthropic streamed text equals non-streamed', { stext, atext });
  check(events[0] === 'message_start' && events.at(-1) === 'message_stop' && events.includes('message_delta'), 'anthropic event order', events);
  // Anthropic's usage splits the prompt into computed (input_tokens) and prefix-cache (cache_read_input_tokens) tokens.
  const promptOf = (u) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  check(fm.usage.output_tokens === am.usage.output_tokens && promptOf(fm.usage) === promptOf(am.usage), 'anthropic stream usage', fm.usage);
  check(fm.usage.cache_read_input_tokens > 0, 'the repeated prompt came from the prefix cache (cache_read_input_tokens)', fm.usage);
  ok(`anthropic messages, streamed (${events.length} events) equals non-streamed`);

  const thinking = anthropic.messages.stream({ ...amsg, thinking: { type: 'enabled', budget_tokens: 1024 } });
  for await (const ev of thinking) {
    if (ev.type === 'content_block_start') check(['text', 'thinking', 'tool_use'].includes(ev.content_block.type), 'block type', ev);
  }
  const tm = await thinking.finalMessage();
  check(tm.content.every((b) => ['text', 'thinking', 'tool_use'].includes(b.type)), 'thinking stream blocks', tm.content);
  ok('anthropic thinking stream');

  const ct = await anthropic.messages.countTokens({ model, system: amsg.system, messages: amsg.messages });
  check(ct.input_tokens === promptOf(am.usage), 'count_tokens equals the message input tokens', { ct, usage: am.usage });
  ok(`count_tokens (${ct.input_tokens})`);

  const atool = await anthropic.messages.create({
    model, max_tokens: 8, temperature: 0,
    tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: weather.function.parameters }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  });
  check(promptOf(atool.usage) > promptOf(am.usage), 'anthropic tool_use/tool_result render into the prompt', atool.usage);
  for (const b of atool.content) if (b.type === 'tool_use') check(typeof b.input === 'object', 'tool_use input', b);
  ok('anthropic tool round trip (request side)');

  // Error shapes.
  let e = await expectError(openai.chat.completions.create({ model: 'no-such-model', messages }), 404, 'openai unknown model');
  check(e.code === 'model_not_found' && e.error?.type === 'invalid_request_error', 'openai error shape', e.error);
  e = await expectError(anthropic.messages.create({ ...amsg, model: 'no-such-model' }), 404, 'anthropic unknown model');
  check(e.error?.type === 'error' && e.error?.error?.type === 'not_found_error', 'anthropic error shape', e.error);
  const long = 'hello '.repeat(3000);
  e = await expectError(openai.chat.completions.create({ model, messages: [{ role: 'user', content: long }] }), 400, 'openai context overflow');
  check(e.code === 'context_length_exceeded', 'context_length_exceeded', e.error);
  e = await expectError(anthropic.messages.create({ ...amsg, messages: [{ role: 'user', content: long }] }), 400, 'anthropic context overflow');
  check(e.error?.error?.type === 'invalid_request_error', 'anthropic overflow shape', e.error);
  e = await expectError(openai.chat.completions.create({ model, messages, temperature: 5 }), 400, 'openai bad temperature');
  check(e.param === 'temperature', 'error names the field', e.error);
  const wrongKey = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await expectError(wrongKey.models.list(), 401, 'wrong API key');
  const wrongKeyA = new Anthropic({ baseURL: url, apiKey: 'wrong', maxRetries: 0 });
  e = await expectError(wrongKeyA.messages.create(amsg), 401, 'anthropic wrong API key');
  check(e.error?.error?.type === 'authentication_error', 'anthropic 401 shape', e.error);
  const raw = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` }, body: '{"model": ' });
  const rawBody = await raw.json();
  check(raw.status === 400 && rawBody.error.type === 'invalid_request_error' && /JSON/.test(rawBody.error.message), 'malformed JSON: 400', rawBody);
  check(raw.headers.get('access-control-allow-origin') === null, 'no CORS headers by default');
  const pre = await fetch(`${url}/v1/chat/completions`, { method: 'OPTIONS' });
  check(pre.status === 405 && pre.headers.get('access-control-allow-origin') === null, 'no CORS preflight by default', pre.status);
  const nf = await fetch(`${url}/v1/nothing`, { headers: { Authorization: `Bearer ${apiKey}` } });
  check(nf.status === 404 && (await nf.json()).error, 'unknown route: 404 with an error body');
  ok('error shapes');

  // The non-streamed disconnect runs in its own mode ('disconnect') against a long-context server.
  {
    // A non-streamed answer that takes longer than 2 s (it waits behind 4 long streams for a decode slot) comes
    // with leading keep-alive spaces and still parses, with the official client too.
    const busy = Array.from({ length: 4 }, (_, i) => openai.completions.create({ model, prompt: `Story ${i}:`, max_tokens: 1000, temperature: 0, stream: true })
      .then(async (st) => { for await (const _ of st); }));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const resp = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ model, prompt: 'Once upon a time', max_tokens: 1000, temperature: 0 }) });
    const text = await resp.text();
    const ms = Date.now() - t0;
    check(resp.status === 200 && JSON.parse(text).object === 'text_completion', 'slow non-streamed answer parses', text.slice(0, 200));
    // The server answers 200 at 2 s and sends its first space a second later.
    if (ms > 3500) check(text.startsWith(' '), 'keep-alive spaces before the JSON', text.slice(0, 20));
    const viaClient = await openai.completions.create({ model, prompt: 'Once upon a time', max_tokens: 1000, temperature: 0 });
    check(viaClient.choices[0].text === JSON.parse(text).choices[0].text, 'same answer through the official client', viaClient.choices[0].text);
    await Promise.all(busy);
    ok(`slow non-streamed answer (${ms} ms${ms > 3500 ? ', after keep-alive spaces' : ''})`);
  }

  // GET /v1/requests lists a running request; POST /v1/requests/{id}/cancel stops it (the stream then ends).
  {
    const auth = { headers: { 'x-api-key': apiKey } };
    const s = await openai.chat.completions.create({ model, messages, max_tokens: 3000, temperature: 1, seed: 5, stream: true });
    const it = s[Symbol.asyncIterator]();
    await it.next();
    const list = (await (await fetch(`${url}/v1/requests`, auth)).json()).requests;
    check(list.length === 1 && list[0].endpoint === '/v1/chat/completions' && list[0].stream === true && list[0].prompt_tokens > 0,
      'GET /v1/requests lists the running request', list);
    const c = await fetch(`${url}/v1/requests/${list[0].id}/cancel`, { method: 'POST', ...auth });
    check(c.status === 200, 'cancel answers 200', c.status);
    let n = 0;
    for (let r = await it.next(); !r.done; r = await it.next()) n++;
    check(n < 3000, 'the cancelled stream ended early', n);
    ok(`requests list + cancel (stream ended after ${n} more chunks)`);
  }

  // A client that goes away cancels its generation.
  const ac = new AbortController();
  const before = (await (await fetch(`${url}/v1/stats`, { headers: { 'x-api-key': apiKey } })).json()).generated_tokens_total;
  try {
    const s = await openai.chat.completions.create({ model, messages, max_tokens: 3000, temperature: 1, seed: 3, stream: true }, { signal: ac.signal });
    let n = 0;
    for await (const _ of s) if (++n === 3) ac.abort();
  } catch (err) {
    check(err.name === 'AbortError' || /abort/i.test(String(err)), 'abort error', String(err));
  }
  let inflight = -1;
  for (let i = 0; i < 50 && inflight !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    inflight = (await (await fetch(`${url}/v1/requests`, { headers: { 'x-api-key': apiKey } })).json()).requests.length;
  }
  const after = (await (await fetch(`${url}/v1/stats`, { headers: { 'x-api-key': apiKey } })).json()).generated_tokens_total;
  check(inflight === 0, 'the aborted request is gone from /v1/requests', inflight);
  check(after - before < 3000, 'the aborted generation stopped early', { before, after });
  ok(`client disconnect cancels (${after - before} tokens generated)`);
}

// A non-streamed client that goes away cancels its generation too (the server sends keep-alive spaces after 2 s, which
// is where it notices). Run against a server with a 16k context, so the 15,000-token request runs for seconds even on
// a fast machine.
async function disconnect() {
  const messages = [{ role: 'user', content: 'Tell a very long story.' }];
  const auth = { headers: { 'x-api-key': apiKey } };
  let seen = false;
  for (let seed = 11; seed < 16 && !seen; seed++) {
    const ac = new AbortController();
    const p = openai.chat.completions.create({ model, messages, max_tokens: 15000, temperature: 1, seed, ignore_eos: true }, { signal: ac.signal }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 2600));
    seen = (await (await fetch(`${url}/v1/requests`, auth)).json()).requests.length === 1;
    ac.abort();
    const r = await p;
    if (!seen) continue;  // finished within 2.6 s (a very fast machine): try another seed
    check(r instanceof Error, 'the aborted request rejects', r);
    let left = -1;
    for (let i = 0; i < 60 && left !== 0; i++) {
      await new Promise((res) => setTimeout(res, 100));
      left = (await (await fetch(`${url}/v1/requests`, auth)).json()).requests.length;
    }
    check(left === 0, 'the abandoned non-streamed request was cancelled', left);
  }
  check(seen, 'a long non-streamed request was running at 2.6 s');
  ok('non-streamed client disconnect cancels');
}

async function load(nClients, nRequests) {
  const prompts = [];
  for (let c = 0; c < nClients; c++) for (let r = 0; r < nRequests; r++) prompts.push({ c, r, content: `Client ${c} request ${r}: count to ten.` });
  const ask = (p) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: p.content }], max_tokens: 8, temperature: 0 });
  // Alone first (one at a time), then all clients at once.
  const alone = new Map();
  for (const p of prompts) alone.set(p.content, (await ask(p)).choices[0].message.content);
  const t0 = Date.now();
  const ids = new Set();
  const results = await Promise.all(Array.from({ length: nClients }, async (_, c) => {
    const out = [];
    for (let r = 0; r < nRequests; r++) {
      const p = prompts[c * nRequests + r];
      const res = await ask(p);
      ids.add(res.id);
      out.push({ p, text: res.choices[0].message.content });
    }
    return out;
  }));
  const flat = results.flat();
  check(flat.length === prompts.length, 'every request completed', flat.length);
  check(ids.size === prompts.length, 'no response lost or duplicated (distinct ids)', ids.size);
  for (const { p, text } of flat) check(text === alone.get(p.content), `client ${p.c} request ${p.r}: greedy output equals the request alone`, { together: text, alone: alone.get(p.content) });
  ok(`load: ${nClients} clients x ${nRequests} requests in ${Date.now() - t0} ms, all equal to the requests alone`);
}

// With --max-queue 1: while one request generates, another is answered 429 in each protocol's error shape.
async function queue() {
  const ac = new AbortController();
  const first = await openai.chat.completions.create(
    { model, messages: [{ role: 'user', content: 'Write a long story.' }], max_tokens: 1000, temperature: 0, stream: true }, { signal: ac.signal });
  const it = first[Symbol.asyncIterator]();
  await it.next();  // the first request is now generating
  const e = await expectError(openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }), 429, 'openai: queue full');
  check(e.error?.type === 'rate_limit_error' && e.headers?.get?.('retry-after') === '1', 'openai 429 shape and Retry-After', e.error);
  const a = await expectError(anthropic.messages.create({ model, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] }), 429, 'anthropic: queue full');
  check(a.error?.error?.type === 'rate_limit_error', 'anthropic 429 shape', a.error);
  ac.abort();
  try { while (!(await it.next()).done); } catch { /* aborted */ }
  // The slot frees once the aborted request is cancelled: a new request is served again.
  let served = false;
  for (let i = 0; i < 50 && !served; i++) {
    try {
      await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
      served = true;
    } catch (err) {
      check(err.status === 429, 'only 429 while the slot frees', err.status);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  check(served, 'served again after the first request was cancelled');
  ok('bounded queue: 429 while full, served again after');

  // This server also runs with --max-body 4K and --cors http://example.test.
  const big = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x'.repeat(8000) }] }) });
  check(big.status === 413 && (await big.json()).error.type === 'request_too_large', 'body over --max-body: 413', big.status);
  const pre = await fetch(`${url}/v1/messages`, { method: 'OPTIONS', headers: { Origin: 'http://example.test' } });
  check(pre.status === 204 && pre.headers.get('access-control-allow-origin') === 'http://example.test' &&
    /x-api-key/.test(pre.headers.get('access-control-allow-headers')), 'CORS preflight', pre.status);
  const m = await fetch(`${url}/v1/models`, { headers: { 'x-api-key': apiKey } });
  check(m.headers.get('access-control-allow-origin') === 'http://example.test', 'CORS header with --cors');
  ok('body limit 413, CORS when asked');
}

// Requests an agent CLI really sent (tests/data/agents/<cli>/turn*.json), replayed through the official Anthropic SDK's
// beta surface (?beta=true and the anthropic-beta header, as Claude Code sends them), streamed and not, with a small
// max_tokens: each is answered, and both modes and count_tokens agree on the prompt's size.
async function agentShapes(dir) {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const files = fs.readdirSync(dir).filter((f) => /^turn\d+\.json$/.test(f)).sort();
  check(files.length >= 2, `recorded turns in ${dir}`, files);
  const promptOf = (u) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  for (const f of files) {
    const rec = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const betas = (rec.headers['anthropic-beta'] ?? '').split(',').filter(Boolean);
    const body = { ...rec.body, model, max_tokens: 8, temperature: 0 };
    delete body.stream;
    const whole = await anthropic.beta.messages.create({ ...body, betas });
    check(whole.type === 'message' && whole.role === 'assistant' && Array.isArray(whole.content), `${f}: a message`, whole);
    const events = [];
    const st = anthropic.beta.messages.stream({ ...body, betas });
    for await (const ev of st) events.push(ev.type);
    const streamed = await st.finalMessage();
    check(events[0] === 'message_start' && events.at(-1) === 'message_stop', `${f}: event order`, events);
    check(promptOf(streamed.usage) === promptOf(whole.usage), `${f}: the same prompt streamed and not`, { s: streamed.usage, w: whole.usage });
    check(streamed.usage.cache_read_input_tokens > 0, `${f}: the repeated prompt came from the prefix cache`, streamed.usage);
    const { max_tokens, temperature, ...countable } = body;
    const ct = await anthropic.beta.messages.countTokens({ ...countable, betas });
    check(ct.input_tokens === promptOf(whole.usage), `${f}: count_tokens`, { ct, usage: whole.usage });
    ok(`${f} (${rec.path}): ${promptOf(whole.usage)} prompt tokens, streamed (${events.length} events) and not, count_tokens`);
  }
}

// Requests the Codex CLI really sent (tests/data/agents/codex-*/turn*.json), replayed through the official openai SDK
// with their Codex headers, streamed (as Codex reads them) and not, with a small max_output_tokens: each is answered,
// both modes agree on the prompt, the stream counts its sequence numbers and ends with the response object carrying
// the usage Codex reads (input_tokens_details.cached_tokens: the repeat came from the prefix cache), and every output
// item is of a type Codex reads, a namespace call under its own name with its namespace.
async function codexShapes(dir) {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const files = fs.readdirSync(dir).filter((f) => /^turn\d+\.json$/.test(f)).sort();
  check(files.length >= 2, `recorded turns in ${dir}`, files);
  for (const f of files) {
    const rec = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const body = { ...rec.body, model, max_output_tokens: 8, temperature: 0 };
    delete body.stream;
    const opts = { headers: rec.headers };
    const whole = await openai.responses.create(body, opts);
    check(whole.object === 'response' && ['completed', 'incomplete'].includes(whole.status) && whole.store === false,
      `${f}: a response`, whole);
    for (const o of whole.output) {
      check(['message', 'reasoning', 'function_call', 'custom_tool_call'].includes(o.type), `${f}: output item type`, o);
      if (o.type === 'function_call') check(!o.name.includes('.'), `${f}: a namespace call as {name, namespace}`, o);
    }
    const types = [];
    let last = null, seqOk = true;
    for await (const ev of await openai.responses.create({ ...body, stream: true }, opts)) {
      if (ev.sequence_number !== types.length) seqOk = false;
      types.push(ev.type);
      last = ev;
    }
    check(seqOk && types[0] === 'response.created' && last.type === `response.${whole.status}`, `${f}: event order`, types);
    const u = last.response.usage;
    check(u.input_tokens === whole.usage.input_tokens, `${f}: the same prompt streamed and not`, { s: u, w: whole.usage });
    check(u.input_tokens_details.cached_tokens > 0, `${f}: the repeated prompt came from the prefix cache`, u);
    ok(`${f}: ${u.input_tokens} prompt tokens (${u.input_tokens_details.cached_tokens} cached), streamed (${types.length} events) and not`);
  }
}

try {
  if (mode === 'clients') await clients();
  else if (mode === 'codex-shapes') await codexShapes(process.argv[6]);
  else if (mode === 'agent-shapes') await agentShapes(process.argv[6]);
  else if (mode === 'queue') await queue();
  else if (mode === 'disconnect') await disconnect();
  else if (mode === 'load') await load(Number(process.argv[6] ?? 32), Number(process.argv[7] ?? 3));
  else check(false, `unknown mode ${mode}`);
} catch (err) {
  console.error(`FAIL: ${err.stack ?? err}`);
  process.exit(1);
}
