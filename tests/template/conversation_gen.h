// Deterministic generator of chat-template contexts for the differential test: conversations with system / user /
// assistant / tool messages, tool definitions, tool calls with object arguments, reasoning content, thinking
// switches and Unicode text. The same seed gives the same contexts on every platform (own PRNG and range mapping,
// no std:: distributions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ft::test {

using ojson = nlohmann::ordered_json;

class Rng {
public:
    explicit Rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {  // splitmix64
        std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
    bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
    template <class T>
    const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

private:
    std::uint64_t s_;
};

inline std::string gen_text(Rng& r) {
    static const std::vector<std::string> frags = {
        "Hello!",
        "What is the capital of France?",
        "Please summarise the following paragraph in two sentences.",
        "Sure, here is the answer.",
        "The quick brown fox jumps over the lazy dog.",
        "Ünïcödé tëxt with àccents, ß and Œ.",
        "日本語のテキストです。東京は首都です。",
        "中文内容：请帮我写一首诗。",
        "한국어 문장입니다.",
        "Русский текст: привет, мир!",
        "Ελληνικά γράμματα αβγ.",
        "العربية: مرحبا بالعالم",
        "emoji 🎉🚀👩‍💻 and flags 🇫🇷",
        "code:\n```python\ndef f(x):\n    return x * 2\n```",
        "line one\nline two\n\nline four",
        "\n\nstarts with newlines",
        "ends with newlines\n\n",
        "tabs\tand\ttabs",
        "quotes: 'single' \"double\" `back`",
        "backslashes \\ and \\n literal",
        "braces {{ not_a_variable }} and {% not_a_tag %} and {# not a comment #}",
        "JSON-ish: {\"a\": 1, \"b\": [true, null]}",
        "math: 2 + 2 = 4, 10 % 3 = 1, x**2",
        "<tool_call>looks like a tag</tool_call>",
        "a",
        "Combining marks: e\xcc\x81 a\xcc\x8a",
    };
    std::string s = r.pick(frags);
    std::size_t extra = r.below(3);
    for (std::size_t i = 0; i < extra; ++i) s += (r.chance(50) ? " " : "\n") + r.pick(frags);
    return s;
}

inline ojson gen_tool(Rng& r, int which) {
    ojson params = ojson::object();
    params["type"] = "object";
    ojson props = ojson::object();
    ojson required = ojson::array();
    auto prop = [&](const std::string& name, ojson schema, bool req) {
        props[name] = std::move(schema);
        if (req) required.push_back(name);
    };
    std::string name, desc;
    switch (which) {
        case 0:
            name = "get_weather";
            desc = "Get the current weather for a location.";
            prop("location", {{"type", "string"}, {"description", "City and country, e.g. Paris, France"}}, true);
            prop("unit", {{"type", "string"}, {"enum", {"celsius", "fahrenheit"}}, {"description", "Temperature unit"}},
                 r.chance(50));
            break;
        case 1:
            name = "search_web";
            desc = "Search the web and return the top results.";
            prop("query", {{"type", "string"}, {"description", "Search query"}}, true);
            prop("max_results", {{"type", "integer"}, {"description", "How many results"}, {"default", 5}}, false);
            break;
        case 2:
            name = "run_python";
            desc = "Run Python code in a sandbox and return stdout.";
            prop("code", {{"type", "string"}}, true);
            prop("timeout", {{"type", "number"}, {"description", "Seconds"}}, false);
            break;
        case 3:
            name = "set_alarm";
            desc = "Set an alarm — supports ünïcode descriptions.";
            prop("time", {{"type", "string"}, {"description", "HH:MM"}}, true);
            prop("days", {{"type", "array"}, {"items", {{"type", "string"}}}}, false);
            prop("enabled", {{"type", "boolean"}, {"description", "On or off"}}, false);
            break;
        default:
            name = "create_event";
            desc = "Create a calendar event.";
            prop("title", {{"type", "string"}}, true);
            prop("attendees", {{"type", "array"}, {"items", {{"type", "object"}, {"properties", {{"email", {{"type", "string"}}}}}}}},
                 false);
            prop("details", {{"type", "object"}, {"properties", {{"room", {{"type", "string"}}}, {"floor", {{"type", "integer"}}}}}},
                 false);
            break;
    }
    params["properties"] = std::move(props);
    params["required"] = std::move(required);
    ojson fn = ojson::object();
    fn["name"] = name;
    if (!r.chance(10)) fn["description"] = desc;
    fn["parameters"] = std::move(params);
    ojson tool = ojson::object();
    tool["type"] = "function";
    tool["function"] = std::move(fn);
    return tool;
}

inline ojson gen_arguments(Rng& r, const ojson& tool) {
    ojson args = ojson::object();
    for (auto it = tool["function"]["parameters"]["properties"].begin();
         it != tool["function"]["parameters"]["properties"].end(); ++it) {
        if (r.chance(25)) continue;
        const std::string type = it.value().value("type", "string");
        if (type == "string") {
            if (it.value().contains("enum")) args[it.key()] = it.value()["enum"][r.below(it.value()["enum"].size())];
            else args[it.key()] = gen_text(r);
        } else if (type == "integer") {
            args[it.key()] = static_cast<std::int64_t>(r.below(1000)) - 100;
        } else if (type == "number") {
            static const std::vector<double> nums = {0.5, 2.25, -1.5, 30.0 + 0.125, 1e-3};
            args[it.key()] = r.pick(nums);
        } else if (type == "boolean") {
            continue;  // a bare boolean prints True (Jinja2) vs true (reference): see kReferenceBugs
        } else if (type == "array") {
            ojson a = ojson::array();
            for (std::size_t i = 0, n = r.below(3); i < n; ++i) a.push_back(r.chance(50) ? ojson(gen_text(r)) : ojson({{"email", "a@b.c"}}));
            args[it.key()] = std::move(a);
        } else {
            args[it.key()] = {{"room", gen_text(r)}, {"floor", static_cast<std::int64_t>(r.below(9))}, {"tags", {"x", nullptr, false}}};
        }
    }
    return args;
}

inline std::string gen_call_id(Rng& r) {
    static const char* alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string id;
    for (int i = 0; i < 9; ++i) id += alnum[r.below(62)];
    return id;
}

// One template context: messages, tools, add_generation_prompt, bos/eos, enable_thinking, and a few extra
// variables some templates read (reasoning_effort, builtin_tools, …).
inline ojson gen_context(Rng& r) {
    ojson tools = ojson::array();
    const bool with_tools = r.chance(50);
    if (with_tools) {
        std::size_t n = 1 + r.below(3);
        std::size_t start = r.below(5);
        for (std::size_t i = 0; i < n; ++i) tools.push_back(gen_tool(r, static_cast<int>((start + i) % 5)));
    }
    ojson msgs = ojson::array();
    auto message = [](const char* role, ojson content) {
        ojson m = ojson::object();
        m["role"] = role;
        m["content"] = std::move(content);
        return m;
    };
    if (r.chance(50)) msgs.push_back(message("system", gen_text(r)));
    const bool odd = r.chance(6);  // structurally unusual conversations exercise templates' raise_exception paths
    std::size_t turns = 1 + r.below(4);
    for (std::size_t t = 0; t < turns; ++t) {
        // User messages are kept distinct: templates compare messages with ==, which the reference does by
        // identity (Jinja2: by value), see kReferenceBugs.
        std::string text = r.chance(3) ? std::string() : gen_text(r);
        for (const auto& m : msgs)
            if (m["role"] == "user" && m["content"] == text) text += " (" + std::to_string(msgs.size()) + ")";
        msgs.push_back(message("user", text));
        if (odd && r.chance(30)) msgs.push_back(message(r.chance(50) ? "user" : "system", gen_text(r) + " (odd)"));
        bool last = t + 1 == turns;
        if (last && r.chance(60)) break;
        if (with_tools && r.chance(40)) {
            // (content null is left out: printing None differs in the reference, see kReferenceBugs)
            ojson a = message("assistant", r.chance(40) ? ojson("") : ojson(gen_text(r)));
            if (r.chance(30)) a["reasoning_content"] = gen_text(r);
            ojson calls = ojson::array();
            std::size_t ncalls = 1 + r.below(2);
            for (std::size_t c = 0; c < ncalls; ++c) {
                const ojson& tool = tools[r.below(tools.size())];
                ojson call = ojson::object();
                call["id"] = gen_call_id(r);
                call["type"] = "function";
                call["function"] = {{"name", tool["function"]["name"]}, {"arguments", gen_arguments(r, tool)}};
                calls.push_back(std::move(call));
            }
            a["tool_calls"] = calls;
            msgs.push_back(std::move(a));
            for (const auto& call : calls) {
                ojson tm = message("tool", r.chance(50) ? ojson(gen_text(r)) : ojson("{\"result\": \"ok\", \"value\": 42}"));
                tm["tool_call_id"] = call["id"];
                if (r.chance(50)) tm["name"] = call["function"]["name"];
                msgs.push_back(std::move(tm));
            }
            if (last && r.chance(50)) break;
        }
        ojson a = message("assistant", ojson(gen_text(r)));
        if (r.chance(25)) a["reasoning_content"] = gen_text(r);
        else if (r.chance(10)) a["content"] = "<think>\n" + gen_text(r) + "\n</think>\n\n" + gen_text(r);
        msgs.push_back(std::move(a));
    }
    if (odd && r.chance(50) && !msgs.empty()) msgs.erase(msgs.begin());
    // Some clients send an empty tool_calls list on every message (and the reference cannot loop over an undefined
    // tool_calls, e.g. in Phi-4-mini's template).
    if (r.chance(30))
        for (auto& m : msgs)
            if (m["role"] != "tool" && !m.contains("tool_calls")) m["tool_calls"] = ojson::array();

    ojson ctx = ojson::object();
    ctx["messages"] = std::move(msgs);
    if (with_tools) ctx["tools"] = std::move(tools);
    else if (r.chance(10)) ctx["tools"] = ojson::array();
    if (!r.chance(10)) ctx["add_generation_prompt"] = r.chance(60);
    static const std::vector<std::pair<std::string, std::string>> bos_eos = {
        {"", ""}, {"<s>", "</s>"}, {"<|begin_of_text|>", "<|eot_id|>"}, {"", "<|im_end|>"},
        {"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"}};
    const auto& be = r.pick(bos_eos);
    ctx["bos_token"] = be.first;
    ctx["eos_token"] = be.second;
    std::size_t think = r.below(3);
    if (think == 1) ctx["enable_thinking"] = true;
    if (think == 2) ctx["enable_thinking"] = false;
    if (r.chance(20)) ctx["reasoning_effort"] = r.pick(std::vector<std::string>{"low", "medium", "high"});
    if (r.chance(10)) ctx["builtin_tools"] = {"brave_search", "wolfram_alpha"};
    if (r.chance(10)) ctx["tools_in_user_message"] = r.chance(50);
    return ctx;
}

// A random template mixing text with spaces/tabs/newlines and {{ }}, {% %}, {# #} tags with -/+ modifiers, if/else,
// for and set: exercises trim_blocks, lstrip_blocks and whitespace control. Renders with {"x": "X"}.
inline std::string gen_whitespace_template(Rng& r, int depth = 0) {
    static const std::vector<std::string> texts = {"", " ", "  ", "\n", "\n\n", " \n", "\n  ", "a", " a ", "a\n", "\n a \n ", "\t", "x\n\t "};
    auto tag = [&](char kind, const std::string& body) {
        const bool var = kind == '{';
        // '+' is rare: the npm reference does not implement it (Jinja2 does; see the differential test).
        std::string l = r.chance(30) ? (var || r.chance(85) ? "-" : "+") : "";
        std::string rr = r.chance(30) ? (var || r.chance(85) ? "-" : "+") : "";
        if (kind == '{') return "{{" + l + " " + body + " " + rr + "}}";
        if (kind == '#') return "{#" + l + " " + body + " " + rr + "#}";
        return "{%" + l + " " + body + " " + rr + "%}";
    };
    std::string out;
    for (std::size_t n = 1 + r.below(5); n > 0; --n) {
        out += r.pick(texts);
        std::size_t c = r.below(100);
        if (c < 25) out += tag('{', r.chance(50) ? "x" : "\"v\"");
        else if (c < 40) out += tag('#', "c");
        else if (c < 60 && depth < 2) {
            out += tag('%', r.chance(50) ? "if true" : "if false") + gen_whitespace_template(r, depth + 1);
            if (r.chance(40)) out += tag('%', "else") + gen_whitespace_template(r, depth + 1);
            out += tag('%', "endif");
        } else if (c < 75 && depth < 2) {
            out += tag('%', "for i in [1, 2]") + gen_whitespace_template(r, depth + 1) + tag('%', "endfor");
        } else if (c < 85) {
            out += tag('%', "set y = 1");
        }
        out += r.pick(texts);
    }
    if (depth == 0 && r.chance(30)) out += "\n";
    return out;
}

}  // namespace ft::test
