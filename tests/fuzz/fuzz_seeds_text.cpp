// Seeds of the text fuzzers (tool-call parsers, chat templates, tokenizer.json), written here so the committed
// corpus can be rebuilt with fuzz_make_corpus.
#include <cstring>

#include "fuzz_seeds.h"

namespace ft::fuzz {

namespace {

std::vector<std::byte> bytes_of(std::string_view s) {
    std::vector<std::byte> b(s.size());
    if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
    return b;
}

// [format][flags][split seed] + text (see tool_parser_one_input).
Seed parser_seed(std::string name, int format, int flags, std::string_view text) {
    std::string s;
    s += static_cast<char>(format);
    s += static_cast<char>(flags);
    s += static_cast<char>(0x5a);
    s += text;
    return {std::move(name), bytes_of(s)};
}

const std::string kCallsBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "begin\xef\xbd\x9c>";
const std::string kCallsEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "end\xef\xbd\x9c>";
const std::string kCallBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "begin\xef\xbd\x9c>";
const std::string kCallEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "end\xef\xbd\x9c>";
const std::string kSep = "<\xef\xbd\x9ctool\xe2\x96\x81" "sep\xef\xbd\x9c>";

}  // namespace

std::vector<Seed> tool_parser_seeds() {
    std::vector<Seed> out;
    out.push_back(parser_seed("seed-qwen3", 1, 8,
                              "<think>\nweather\n</think>\n\nOk.\n<tool_call>\n{\"name\": \"f\", \"arguments\": "
                              "{\"s\": \"Paris\", \"n\": 3, \"a\": [1, 2.5e-1, true, null]}}\n</tool_call>\n"
                              "<tool_call>\n{\"arguments\": {}, \"name\": \"g\"}\n</tool_call>"));
    out.push_back(parser_seed("seed-qwen3-open-think", 1, 1, "hmm\n</think>\n\nThe answer is 4."));
    out.push_back(parser_seed("seed-qwen3-coder", 2, 8 | 1,
                              "plan\n</think>\n\n<tool_call>\n<function=f>\n<parameter=s>\nmulti\nline \"q\"\n"
                              "</parameter>\n<parameter=n>\n7\n</parameter>\n<parameter=b>\ntrue\n</parameter>\n"
                              "<parameter=o>\n{\"k\": [1]}\n</parameter>\n</function>\n</tool_call>"));
    out.push_back(parser_seed("seed-deepseek-r1", 3, 1,
                              "think\n</think>\n\nSure." + kCallsBegin + kCallBegin + "function" + kSep +
                                  "f\n```json\n{\"s\": \"x\"}\n```" + kCallEnd + kCallsEnd));
    out.push_back(parser_seed("seed-deepseek-v31", 3, 0,
                              kCallsBegin + kCallBegin + "f" + kSep + "{\"n\": -1.5E+3}" + kCallEnd + "\n" +
                                  kCallBegin + "g" + kSep + "{}" + kCallEnd + kCallsEnd));
    out.push_back(parser_seed("seed-glm", 4, 8,
                              "\n<think>need tool</think>\nOk.\n<tool_call>f\n<arg_key>s</arg_key>\n<arg_value>B"
                              "\xe5\x8c\x97</arg_value>\n<arg_key>n</arg_key>\n<arg_value>2</arg_value>\n</tool_call>"));
    out.push_back(parser_seed("seed-harmony", 5, 0,
                              "<|channel|>analysis<|message|>Need f.<|end|><|start|>assistant<|channel|>commentary "
                              "to=functions.f <|constrain|>json<|message|>{\"s\":\"x\"}<|call|>"));
    out.push_back(parser_seed("seed-harmony-final", 5, 0,
                              "<|channel|>analysis<|message|>Hi.<|end|><|start|>assistant<|channel|>final"
                              "<|message|>Hello!<|return|>"));
    return out;
}

std::vector<Seed> chat_template_seeds() {
    std::vector<Seed> out;
    const std::string messages =
        R"([{"role":"system","content":"S"},{"role":"user","content":"What is the weather?"},)"
        R"({"role":"assistant","content":"","reasoning_content":"use f","tool_calls":[{"id":"c0","type":"function",)"
        R"("function":{"name":"f","arguments":"{\"s\":\"Paris\",\"n\":2}"}}]},)"
        R"({"role":"tool","tool_call_id":"c0","content":"sunny"},{"role":"user","content":[{"type":"text","text":"ok"}]}])";
    auto seed = [&](std::string name, const std::string& tpl) {
        out.push_back({std::move(name), bytes_of(tpl + std::string(1, '\0') + messages)});
    };
    // The constructs the real chat templates use (Qwen3, DeepSeek, GLM, gpt-oss): loops with loop.*, namespace,
    // macros, string methods, filters, tests, slicing, tojson, raise_exception.
    seed("seed-chatml",
         "{%- set ns = namespace(last=-1) -%}{%- for m in messages -%}{%- if m.role == 'user' -%}"
         "{%- set ns.last = loop.index0 -%}{%- endif -%}{%- endfor -%}"
         "{%- for m in messages -%}<|im_start|>{{ m.role }}\n"
         "{%- if m.content is string -%}{{ m.content | trim }}{%- else -%}{%- for c in m.content -%}{{ c.text }}"
         "{%- endfor -%}{%- endif -%}"
         "{%- if m.reasoning_content and loop.index0 > ns.last -%}<think>\n{{ m.reasoning_content.strip('\\n') }}"
         "\n</think>{%- endif -%}"
         "{%- for tc in m.tool_calls or [] -%}<tool_call>\n{{ {'name': tc.function.name, 'arguments': "
         "tc.function.arguments} | tojson }}\n</tool_call>{%- endfor -%}<|im_end|>\n{%- endfor -%}"
         "{%- if add_generation_prompt -%}<|im_start|>assistant\n<think>\n{%- endif -%}");
    seed("seed-macros",
         "{%- macro render(v, d=0) -%}{%- if v is mapping -%}{%- for k, x in v | dictsort -%}{{ k }}={{ render(x, d+1) }};"
         "{%- endfor -%}{%- elif v is iterable and v is not string -%}[{{ v | map('string') | join(',') }}]"
         "{%- else -%}{{ v }}{%- endif -%}{%- endmacro -%}"
         "{%- for t in tools -%}{{ render(t.function.parameters) }}{{ t.function.name | upper }}{%- endfor -%}"
         "{{ messages[1:3] | length }}{{ messages[-1].role[:2] }}{{ (messages | selectattr('role', 'equalto', 'tool')"
         " | list | length) }}{{ 'a,b,c'.split(',')[1] }}{{ '%s-%d' % ('x', 3) }}{{ range(3) | sum }}"
         "{{ messages[0].content.startswith('S') }}{{ bos_token ~ eos_token }}"
         "{%- if messages | length > 99 -%}{{ raise_exception('too many') }}{%- endif -%}"
         "{{ strftime_now('%Y-%m-%d') }}{{ none is none }}{{ 1 if true else 2 }}{{ [1,2,3] | reverse | first }}");
    seed("seed-harmony-like",
         "{%- for m in messages -%}{%- if m.role == 'assistant' and m.tool_calls -%}{%- for tc in m.tool_calls -%}"
         "<|start|>assistant to=functions.{{ tc.function.name }}<|channel|>commentary json<|message|>"
         "{{ tc.function.arguments | tojson }}<|call|>{%- endfor -%}{%- elif m.role == 'tool' -%}"
         "<|start|>functions.f to=assistant<|channel|>commentary<|message|>{{ m.content | tojson }}<|end|>"
         "{%- else -%}<|start|>{{ m.role }}<|message|>{{ m.content if m.content is string else '' }}<|end|>"
         "{%- endif -%}{%- endfor -%}{%- if add_generation_prompt %}<|start|>assistant{% endif %}");
    return out;
}

std::vector<Seed> tokenizer_json_seeds() {
    std::vector<Seed> out;
    // Byte-level BPE (Qwen/GPT-2 style): Split regex + ByteLevel, merges in both forms, added tokens, a post-processor.
    out.push_back({"seed-bytelevel.json", bytes_of(R"({"version":"1.0",
 "added_tokens":[{"id":9,"content":"<|im_start|>","special":true},{"id":10,"content":"<|im_end|>","special":true,"lstrip":true},
   {"id":11,"content":"<x>","special":false,"rstrip":true}],
 "normalizer":{"type":"NFC"},
 "pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\p{N}{1,3}| ?\\p{L}+|\\s+"},"behavior":"Isolated","invert":false},
   {"type":"ByteLevel","add_prefix_space":false,"use_regex":false}]},
 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|im_start|>"}},{"Sequence":{"id":"A"}}]},
 "decoder":{"type":"ByteLevel"},
 "model":{"type":"BPE","ignore_merges":false,"vocab":{"H":0,"e":1,"l":2,"o":3,"He":4,"ll":5,"\u0120":6,"w":7,"Hell":8},
   "merges":["H e","l l",["He","ll"]]}})")});
    // SentencePiece-style BPE: Replace + Prepend normalizers, byte fallback, unk, Digits.
    out.push_back({"seed-spm.json", bytes_of(R"({"normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
   {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
 "pre_tokenizer":{"type":"Digits","individual_digits":true},
 "model":{"type":"BPE","byte_fallback":true,"unk_token":"<unk>","vocab":{"<unk>":0,"<s>":1,"</s>":2,"<0x41>":3,"<0xC3>":4,
   "\u2581":5,"a":6,"\u2581a":7,"b":8},"merges":["\u2581 a"]},
 "added_tokens":[{"id":1,"content":"<s>","special":true},{"id":2,"content":"</s>","special":true}]})")});
    return out;
}

namespace {

// [endpoint][flags] + body (see request_one_input).
Seed request_seed(std::string name, int endpoint, int flags, std::string_view body) {
    std::string s;
    s += static_cast<char>(endpoint);
    s += static_cast<char>(flags);
    s += body;
    return {std::move(name), bytes_of(s)};
}

}  // namespace

std::vector<Seed> request_seeds() {
    std::vector<Seed> out;
    out.push_back(request_seed("seed-chat-tools", 0, 0,
        R"({"model":"tiny","messages":[{"role":"developer","content":"Be brief."},)"
        R"({"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},)"
        R"({"role":"assistant","content":null,"reasoning_content":"use f","tool_calls":[{"id":"c1","type":"function",)"
        R"("function":{"name":"f","arguments":"{\"s\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"sunny"}],)"
        R"("tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object",)"
        R"("properties":{"s":{"type":"string"}}}}}],"tool_choice":{"type":"function","function":{"name":"f"}},)"
        R"("parallel_tool_calls":false,"max_tokens":64,"temperature":0.5,"top_p":0.9,"seed":3,"stop":["END","\n\n\n"],)"
        R"("logprobs":true,"top_logprobs":2,"chat_template_kwargs":{"enable_thinking":true}})"));
    out.push_back(request_seed("seed-chat-stream", 0, 1,
        R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}],"stream":true,)"
        R"("stream_options":{"include_usage":true},"max_completion_tokens":5,"response_format":{"type":"json_object"},)"
        R"("reasoning_effort":"none","presence_penalty":0.5,"frequency_penalty":-0.5,"n":1,"ignore_eos":true})"));
    out.push_back(request_seed("seed-completion", 1, 0,
        R"({"model":"tiny","prompt":"Once upon a time","max_tokens":8,"logprobs":2,"echo":true,"stop":"x",)"
        R"("stream":false})"));
    out.push_back(request_seed("seed-completion-ids", 1, 1,
        R"({"model":"tiny","prompt":[1,2,3,4],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}})"));
    out.push_back(request_seed("seed-responses-tools", 2, 0,
        R"({"model":"tiny","instructions":"Be brief.","input":[{"role":"user","content":[{"type":"input_text",)"
        R"("text":"Weather?"}]},{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text",)"
        R"("text":"use f"}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"s\":\"x\"}"},)"
        R"({"type":"function_call_output","call_id":"c1","output":"sunny"},{"type":"message","role":"assistant",)"
        R"("content":[{"type":"output_text","text":"Sunny."}]},{"role":"user","content":"Thanks"}],)"
        R"("tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object",)"
        R"("properties":{"s":{"type":"string"}}},"strict":false}],"tool_choice":"auto","parallel_tool_calls":true,)"
        R"("max_output_tokens":32,"temperature":0,"top_p":1,"reasoning":{"effort":"low"},"store":false,)"
        R"("metadata":{"k":"v"},"text":{"format":{"type":"text"}}})"));
    out.push_back(request_seed("seed-responses-stream", 2, 1,
        R"({"model":"tiny","input":"Hello","stream":true,"max_output_tokens":4,"store":true,)"
        R"("tool_choice":{"type":"function","name":"f"},"tools":[{"type":"function","name":"f"}]})"));
    // The shapes the Codex CLI sends (recorded from codex 0.171 against ft serve): developer messages, a namespace
    // tool, a custom (freeform) tool, built-in and unknown tool types, store false, include, prompt_cache_key,
    // client_metadata; a history of a namespace call, a custom tool call, a local_shell call and their outputs, an
    // encrypted-only reasoning item. The harness's model output calls "f": a custom tool here, a namespace's function
    // (called by its bare name) in the next seed.
    out.push_back(request_seed("seed-responses-codex", 2, 0,
        R"({"model":"tiny","stream":true,"input":[{"type":"message","id":"msg_1","role":"developer","content":)"
        R"([{"type":"input_text","text":"You are Codex."}]},{"type":"message","role":"developer","content":[{"type":)"
        R"("input_text","text":"<skills/>"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":)"
        R"("<environment_context><cwd>/w</cwd></environment_context>"}]},{"type":"message","role":"user","content":)"
        R"([{"type":"input_text","text":"Read notes.txt"}]},{"type":"reasoning","id":"rs_1","summary":[],)"
        R"("encrypted_content":"gAAA"},{"type":"function_call","name":"close_agent","namespace":"multi_agent_v1",)"
        R"("arguments":"{\"target\":\"a\"}","call_id":"call_1"},{"type":"function_call_output","id":"fco_1",)"
        R"("call_id":"call_1","output":"closed"},{"type":"custom_tool_call","call_id":"call_2","name":"f",)"
        R"("input":"*** Begin Patch\n*** End Patch"},{"type":"custom_tool_call_output","call_id":"call_2","output":)"
        R"("Done"},{"type":"local_shell_call","call_id":"call_3","status":"completed","action":{"type":"exec",)"
        R"("command":["cat","notes.txt"]}},{"type":"local_shell_call_output","call_id":"call_3","output":"pelican"},)"
        R"({"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}],"tools":[)"
        R"({"type":"function","name":"exec_command","description":"Runs a command","strict":false,"parameters":)"
        R"({"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"],"additionalProperties":false}},)"
        R"({"type":"namespace","name":"multi_agent_v1","description":"Sub-agents.","tools":[{"type":"function",)"
        R"("name":"close_agent","strict":false,"parameters":{"type":"object","properties":{"target":{"type":)"
        R"("string"}}}}]},{"type":"custom","name":"f","description":"Edit files.","format":{"type":"grammar",)"
        R"("syntax":"lark","definition":"start: begin_patch hunk+ end_patch"}},{"type":"web_search",)"
        R"("external_web_access":true},{"type":"image_generation"},{"type":"hologram"}],"tool_choice":"auto",)"
        R"("parallel_tool_calls":true,"reasoning":{"summary":"auto"},"store":false,"include":)"
        R"(["reasoning.encrypted_content"],"prompt_cache_key":"019a","service_tier":"default","text":)"
        R"({"verbosity":"low"},"client_metadata":{"thread_id":"019a","x-codex-turn-metadata":"{}"}})"));
    out.push_back(request_seed("seed-responses-previous", 2, 1,
        R"({"model":"tiny","previous_response_id":"resp_seed","instructions":"Be brief.","input":[{"type":)"
        R"("function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"closed"}]}],)"
        R"("tools":[{"type":"namespace","name":"ns","tools":[{"type":"function","name":"f","parameters":)"
        R"({"type":"object"}},{"type":"function","name":"close_agent"}]},{"type":"local_shell"}],)"
        R"("store":true,"max_output_tokens":1,"stream":true})"));
    out.push_back(request_seed("seed-responses-probe", 2, 1,
        R"({"model":"tiny","instructions":"hi","input":[],"max_output_tokens":1,"stream":false,"store":false})"));
    out.push_back(request_seed("seed-messages-tools", 3, 0,
        R"({"model":"tiny","max_tokens":16,"system":[{"type":"text","text":"Be brief."}],)"
        R"("thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"f","description":"d",)"
        R"("input_schema":{"type":"object","properties":{"s":{"type":"string"}}}},{"type":"web_search_20250305",)"
        R"("name":"web_search"}],"tool_choice":{"type":"tool","name":"f","disable_parallel_tool_use":true},)"
        R"("messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":[{"type":"thinking",)"
        R"("thinking":"use f","signature":""},{"type":"text","text":"Let me check."},{"type":"tool_use","id":"u1",)"
        R"("name":"f","input":{"s":"x"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1",)"
        R"("content":[{"type":"text","text":"sunny"}],"is_error":false},{"type":"text","text":"and?"}]}],)"
        R"("stop_sequences":["END"],"temperature":0.7,"top_p":0.9,"top_k":20})"));
    out.push_back(request_seed("seed-messages-stream", 3, 1,
        R"({"model":"tiny","max_tokens":4,"stream":true,"messages":[{"role":"user","content":"Hi"}]})"));
    // The shapes Claude Code sends (tests/data/agents): a billing line heading the system prompt, a system turn
    // inside messages, a deferred tool, adaptive thinking, fields for Anthropic's own features.
    out.push_back(request_seed("seed-messages-agent", 3, 1,
        R"({"model":"tiny","max_tokens":32000,"stream":true,"system":[{"type":"text","text":)"
        R"("x-anthropic-billing-header: cc_version=2.1.332.54f; cc_entrypoint=sdk-cli;"},{"type":"text","text":"Be brief.",)"
        R"("cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":)"
        R"("<system-reminder>r</system-reminder>"},{"type":"document","source":{"type":"text","media_type":"text/plain",)"
        R"("data":"doc"}},{"type":"text","text":"Read note.txt"}]},{"role":"system","content":[{"type":"text","text":)"
        R"("# Environment"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},)"
        R"({"type":"redacted_thinking","data":"x"},{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"n"}}]},)"
        R"({"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"1\tpelican",)"
        R"("cache_control":{"type":"ephemeral"}}]}],"tools":[{"name":"Read","description":"d","input_schema":{"type":"object",)"
        R"("properties":{"file_path":{"type":"string"}}}},{"name":"Later","description":"d","input_schema":{"type":"object"},)"
        R"("defer_loading":true}],"metadata":{"user_id":"{\"session_id\":\"s\"}"},"thinking":{"type":"adaptive",)"
        R"("display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},)"
        R"("output_config":{"effort":"high"},"service_tier":"auto"})"));
    out.push_back(request_seed("seed-count-tokens", 4, 0,
        R"({"model":"tiny","system":"s","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],)"
        R"("tools":[{"name":"f","input_schema":{"type":"object"}}]})"));
    return out;
}

}  // namespace ft::fuzz
