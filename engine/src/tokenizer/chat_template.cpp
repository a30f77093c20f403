#include "tokenizer/chat_template.h"

#include <fstream>
#include <sstream>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft {

namespace chat {

namespace {
jinja::Value convert(const nlohmann::ordered_json& j, int depth);
}

jinja::Value json_to_value(const nlohmann::ordered_json& j) { return convert(j, 0); }

namespace {
jinja::Value convert(const nlohmann::ordered_json& j, int depth) {
    using jinja::Value;
    if (depth > Value::kMaxDepth)
        throw Error(ErrorCode::invalid_argument,
                    "template input nests deeper than " + std::to_string(Value::kMaxDepth) + " levels");
    switch (j.type()) {
        case nlohmann::json::value_t::null: return Value::none();
        case nlohmann::json::value_t::boolean: return Value::boolean(j.get<bool>());
        case nlohmann::json::value_t::number_integer: return Value::integer(j.get<std::int64_t>());
        case nlohmann::json::value_t::number_unsigned: {
            auto u = j.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(INT64_MAX)) return Value::floating(static_cast<double>(u));
            return Value::integer(static_cast<std::int64_t>(u));
        }
        case nlohmann::json::value_t::number_float: return Value::floating(j.get<double>());
        case nlohmann::json::value_t::string: return Value::string(j.get<std::string>());
        case nlohmann::json::value_t::array: {
            jinja::List items;
            items.reserve(j.size());
            for (const auto& e : j) items.push_back(convert(e, depth + 1));
            return Value::list(std::move(items));
        }
        case nlohmann::json::value_t::object: {
            Value d = Value::dict();
            auto& dict = d.mutable_dict();
            dict.entries.reserve(j.size());
            for (auto it = j.begin(); it != j.end(); ++it) dict.entries.emplace_back(it.key(), convert(it.value(), depth + 1));
            return d;
        }
        default: return Value::none();
    }
}
}  // namespace

std::string render_json_context(const jinja::Template& tpl, const nlohmann::ordered_json& context,
                                 const jinja::RenderOptions& options) {
    if (!context.is_object())
        throw Error(ErrorCode::invalid_argument, "template context must be a JSON object of variables",
                    "write it as {\"messages\": [...], \"add_generation_prompt\": true, …}");
    jinja::Variables vars;
    for (auto it = context.begin(); it != context.end(); ++it) vars.emplace_back(it.key(), json_to_value(it.value()));
    return tpl.render(vars, options);
}

nlohmann::ordered_json normalize_messages(const nlohmann::ordered_json& messages) {
    if (!messages.is_array())
        throw Error(ErrorCode::invalid_argument, "messages must be a JSON array", "[{\"role\": \"user\", \"content\": \"Hi\"}]");
    nlohmann::ordered_json out = messages;
    for (std::size_t i = 0; i < out.size(); ++i) {
        auto& m = out[i];
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
            throw Error(ErrorCode::invalid_argument,
                        "messages[" + std::to_string(i) + "] must be an object with a string \"role\"");
        if (!m.contains("tool_calls") || !m["tool_calls"].is_array()) continue;
        for (auto& call : m["tool_calls"]) {
            if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
            auto& fn = call["function"];
            if (!fn.contains("arguments") || !fn["arguments"].is_string()) continue;
            auto parsed = nlohmann::ordered_json::parse(fn["arguments"].get<std::string>(), nullptr, false);
            if (!parsed.is_discarded() && parsed.is_object()) fn["arguments"] = std::move(parsed);
        }
    }
    return out;
}

}  // namespace chat

namespace {

nlohmann::ordered_json parse_json(const std::string& text, const std::string& what) {
    try {
        return nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorCode::invalid_argument, what + " is not valid JSON: " + e.what());
    }
}

std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw Error(ErrorCode::not_found, "cannot open " + path_to_utf8(p));
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string token_string(const nlohmann::ordered_json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_object() && j.contains("content") && j["content"].is_string()) return j["content"].get<std::string>();
    return {};
}

// chat_template as a string or as HF's list of {name, template}.
std::optional<std::string> pick_template(const nlohmann::ordered_json& t, const std::string& name,
                                         const std::string& origin) {
    const std::string want = name.empty() ? "default" : name;
    if (t.is_string()) {
        if (want != "default")
            throw Error(ErrorCode::not_found, origin + ": has a single chat template, no template named '" + name + "'");
        return t.get<std::string>();
    }
    if (t.is_array()) {
        std::string names;
        for (const auto& e : t) {
            if (!e.is_object() || !e.contains("name") || !e.contains("template") || !e["template"].is_string())
                throw Error(ErrorCode::invalid_file, origin + ": chat_template list entries need \"name\" and \"template\"");
            std::string n = e["name"].is_string() ? e["name"].get<std::string>() : "";
            if (n == want) return e["template"].get<std::string>();
            names += (names.empty() ? "" : ", ") + n;
        }
        throw Error(ErrorCode::not_found, origin + ": no chat template named '" + want + "' (has: " + names + ")",
                    "pick one of those names");
    }
    if (t.is_null()) return std::nullopt;
    throw Error(ErrorCode::invalid_file, origin + ": chat_template must be a string or a list of named templates");
}

ChatTemplateSource from_gguf(const std::filesystem::path& path, const std::string& name, bool require) {
    auto reader = gguf::Reader::open(path);
    ChatTemplateSource src;
    std::string key = name.empty() || name == "default" ? "tokenizer.chat_template" : "tokenizer.chat_template." + name;
    auto tmpl = reader.metadata().opt_string(key);
    if (!tmpl && require)
        throw Error(ErrorCode::not_found, path_to_utf8(path) + ": no chat template (" + key + ")",
                    "pass one with ft template --template FILE.jinja");
    if (tmpl) src.text = std::string(*tmpl);
    src.origin = path_to_utf8(path.filename()) + ": " + key;
    const gguf::Value* tokens = reader.find("tokenizer.ggml.tokens");
    auto token_text = [&](const char* id_key) -> std::string {
        auto id = reader.metadata().opt_u64(id_key);
        if (!id || !tokens) return {};
        auto list = tokens->as_strings({});
        if (*id >= list.size())
            throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": " + id_key + " = " + std::to_string(*id) +
                                                     " is out of range (" + std::to_string(list.size()) + " tokens)");
        return std::string(list[*id]);
    };
    src.bos_token = token_text("tokenizer.ggml.bos_token_id");
    src.eos_token = token_text("tokenizer.ggml.eos_token_id");
    return src;
}

ChatTemplateSource from_config(const std::filesystem::path& config, const std::string& name,
                               const std::filesystem::path& dir, bool require) {
    ChatTemplateSource src;
    nlohmann::ordered_json cfg;
    if (std::filesystem::exists(config)) {
        try {
            cfg = nlohmann::ordered_json::parse(read_file(config));
        } catch (const nlohmann::json::exception& e) {
            throw Error(ErrorCode::invalid_file, path_to_utf8(config) + ": not valid JSON: " + e.what());
        }
        if (!cfg.is_object()) throw Error(ErrorCode::invalid_file, path_to_utf8(config) + ": not a JSON object");
        if (cfg.contains("bos_token")) src.bos_token = token_string(cfg["bos_token"]);
        if (cfg.contains("eos_token")) src.eos_token = token_string(cfg["eos_token"]);
    }
    // Newer transformers save the template beside the config.
    const auto jinja_file = dir / "chat_template.jinja";
    if ((name.empty() || name == "default") && std::filesystem::exists(jinja_file)) {
        src.text = read_file(jinja_file);
        src.origin = path_to_utf8(jinja_file);
        return src;
    }
    if (cfg.is_object() && cfg.contains("chat_template")) {
        if (auto t = pick_template(cfg["chat_template"], name, path_to_utf8(config))) {
            src.text = *t;
            src.origin = path_to_utf8(config) + ": chat_template";
            return src;
        }
    }
    const auto ct_json = dir / "chat_template.json";
    if (std::filesystem::exists(ct_json)) {
        auto j = parse_json(read_file(ct_json), path_to_utf8(ct_json));
        if (j.is_object() && j.contains("chat_template")) {
            if (auto t = pick_template(j["chat_template"], name, path_to_utf8(ct_json))) {
                src.text = *t;
                src.origin = path_to_utf8(ct_json) + ": chat_template";
                return src;
            }
        }
    }
    if (!require) return src;
    throw Error(ErrorCode::not_found, path_to_utf8(dir) + ": no chat template found (tokenizer_config.json chat_template, "
                                                      "chat_template.jinja or chat_template.json)",
                "pass one with ft template --template FILE.jinja");
}

bool is_gguf(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    char magic[4] = {};
    return f.read(magic, 4) && std::string(magic, 4) == "GGUF";
}

jinja::RenderOptions options_for(const std::optional<std::string>& now) {
    jinja::RenderOptions o;
    if (now) o.now = jinja::parse_fixed_time(*now);
    return o;
}

}  // namespace

ChatTemplateSource load_chat_template(const std::filesystem::path& model, const std::string& name, bool require) {
    std::error_code ec;
    if (std::filesystem::is_directory(model, ec))
        return from_config(model / "tokenizer_config.json", name, model, require);
    if (!std::filesystem::exists(model, ec))
        throw Error(ErrorCode::not_found, path_to_utf8(model) + ": no such file or folder");
    if (is_gguf(model)) return from_gguf(model, name, require);
    auto dir = model.parent_path().empty() ? std::filesystem::path(".") : model.parent_path();
    if (model.extension() == ".json") {
        // tokenizer_config.json itself, or another file of the folder (tokenizer.json): read the folder's config.
        auto j = parse_json(read_file(model), path_to_utf8(model));
        if (j.is_object() && (j.contains("chat_template") || j.contains("bos_token") || j.contains("eos_token")))
            return from_config(model, name, dir, require);
        return from_config(dir / "tokenizer_config.json", name, dir, require);
    }
    throw Error(ErrorCode::invalid_file, path_to_utf8(model) + ": not a GGUF file, a Hugging Face folder or a JSON config",
                "pass a .gguf file, a model folder or its tokenizer_config.json");
}

struct ChatTemplate::Impl {
    ChatTemplateSource source;
    jinja::Template tpl;
    Impl(ChatTemplateSource s) : source(std::move(s)), tpl(source.text, source.origin.empty() ? "chat template" : source.origin) {}
};

ChatTemplate::ChatTemplate(ChatTemplateSource source) : impl_(std::make_unique<Impl>(std::move(source))) {}
ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

const ChatTemplateSource& ChatTemplate::source() const { return impl_->source; }

std::string ChatTemplate::apply(const ChatRenderRequest& req) const {
    nlohmann::ordered_json ctx = nlohmann::ordered_json::object();
    ctx["messages"] = chat::normalize_messages(parse_json(req.messages_json, "messages"));
    if (!req.tools_json.empty()) {
        auto tools = parse_json(req.tools_json, "tools");
        if (!tools.is_array() && !tools.is_null())
            throw Error(ErrorCode::invalid_argument, "tools must be a JSON array of tool definitions");
        ctx["tools"] = std::move(tools);
    }
    ctx["add_generation_prompt"] = req.add_generation_prompt;
    ctx["bos_token"] = impl_->source.bos_token;
    ctx["eos_token"] = impl_->source.eos_token;
    if (req.enable_thinking) ctx["enable_thinking"] = *req.enable_thinking;
    if (!req.extra_json.empty()) {
        auto extra = parse_json(req.extra_json, "extra variables");
        if (!extra.is_object()) throw Error(ErrorCode::invalid_argument, "extra variables must be a JSON object");
        for (auto it = extra.begin(); it != extra.end(); ++it) ctx[it.key()] = it.value();
    }
    return chat::render_json_context(impl_->tpl, ctx, options_for(req.now));
}

std::string ChatTemplate::render_context(const std::string& context_json, const std::optional<std::string>& now) const {
    return chat::render_json_context(impl_->tpl, parse_json(context_json, "template context"), options_for(now));
}

}  // namespace ft
