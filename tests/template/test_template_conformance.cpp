// Conformance of chat-template rendering with the shared test data (../shared/testdata/chat-templates, README §2):
// every full expected output byte for byte, the generation-prompt suffix cases, and the `ft template` command on a
// template file, an HF tokenizer_config.json and a GGUF file.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "format/gguf.h"
#include "ft/chat_template.h"
#include "ft/error.h"
#include "ft_test.h"
#include "tokenizer/chat_template.h"

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

const fs::path kData = fs::path(FT_TESTDATA_DIR) / "chat-templates";
const char* kNow = "2026-01-15 12:00:00";  // the clock the reference renders used

std::string read_all(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

ojson load(const char* file) { return ojson::parse(read_all(kData / file)); }

std::string render(const fs::path& tpl, const ojson& vars) {
    ft::jinja::Template t(read_all(tpl), tpl.filename().string());
    ft::jinja::RenderOptions o;
    o.now = ft::jinja::parse_fixed_time(kNow);
    return ft::chat::render_json_context(t, vars, o);
}

std::string first_difference(const std::string& a, const std::string& b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    std::size_t from = i > 30 ? i - 30 : 0;
    return "at byte " + std::to_string(i) + ": got " + ojson(a.substr(from, 90)).dump(-1, ' ', false, ojson::error_handler_t::replace) +
           " want " + ojson(b.substr(from, 90)).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

struct RunResult {
    int code;
    QByteArray out;
    QByteArray err;
};

RunResult run_ft(const QStringList& args) {
    QProcess p;
    p.start(FT_EXE, args);
    p.waitForFinished(60000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

}  // namespace

class TestTemplateConformance : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!fs::exists(kData)) QSKIP("shared test data (chat-templates) not present");
    }

    // README §2d: 91 renders by Jinja2 3.1.6 configured like HF transformers.
    void jinja2_rendered_cases() {
        ojson d = load("jinja2-rendered-cases.json");
        int pass = 0;
        QStringList failures;
        for (const auto& c : d["cases"]) {
            const std::string id = c["id"].get<std::string>();
            try {
                std::string out = render(kData / c["template_file"].get<std::string>(), c["variables"]);
                if (out == c["expected_output"].get<std::string>()) ++pass;
                else failures << QString::fromStdString(id + ": " + first_difference(out, c["expected_output"].get<std::string>()));
            } catch (const ft::Error& e) {
                failures << QString::fromStdString(id + ": " + e.what());
            }
        }
        qInfo("jinja2-rendered-cases.json: %d / %zu byte-identical", pass, d["cases"].size());
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
        QCOMPARE(pass, 91);
    }

    // README §2b: llama.cpp's test-chat-template.cpp cases, Jinja expectations (system_polyfill cases are fed the
    // messages llama.cpp rewrote, messages_as_rendered).
    void llama_cpp_template_cases_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("cases") << "llama.cpp-test-chat-template-cases.json";
        QTest::newRow("more") << "llama.cpp-test-chat-template-cases-more.json";
    }
    void llama_cpp_template_cases() {
        QFETCH(QString, file);
        ojson d = load(file.toUtf8().constData());
        int pass = 0, polyfilled = 0;
        QStringList failures;
        for (const auto& c : d["cases"]) {
            const bool polyfill = c["system_polyfill"].get<bool>();
            polyfilled += polyfill;
            ojson vars = ojson::object();
            vars["messages"] = polyfill ? c["messages_as_rendered"] : c["messages"];
            vars["bos_token"] = c["bos_token"];
            vars["eos_token"] = c["eos_token"];
            vars["add_generation_prompt"] = c["add_generation_prompt"];
            const std::string name = c["name"].get<std::string>();
            try {
                std::string out = render(kData / c["template_file"].get<std::string>(), vars);
                if (out == c["expected_output"].get<std::string>()) ++pass;
                else failures << QString::fromStdString(name + ": " + first_difference(out, c["expected_output"].get<std::string>()));
            } catch (const ft::Error& e) {
                failures << QString::fromStdString(name + ": " + e.what());
            }
        }
        qInfo("%s: %d / %zu byte-identical (%d with the system polyfill)", qPrintable(file), pass, d["cases"].size(),
              polyfilled);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
        QCOMPARE(pass, static_cast<int>(d["cases"].size()));
        QVERIFY(pass >= 17);
    }

    // README §2c: the add_generation_prompt=true rendering ends with expected_output_suffix, and what it adds after
    // the longest common prefix with the rendering where add_generation_prompt is undefined is
    // expected_generation_prompt.
    void generation_prompt_cases_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("cases") << "llama.cpp-test-chat-generation-prompt-cases.json";
        QTest::newRow("more") << "llama.cpp-test-chat-generation-prompt-cases-more.json";
    }
    void generation_prompt_cases() {
        QFETCH(QString, file);
        ojson d = load(file.toUtf8().constData());
        int pass = 0;
        for (const auto& c : d["cases"]) {
            ojson vars = ojson::object();
            vars["messages"] = c["messages"];
            for (auto it = c["variables"].begin(); it != c["variables"].end(); ++it) vars[it.key()] = it.value();
            const fs::path tpl = kData / c["template_file"].get<std::string>();
            std::string without = render(tpl, vars);
            vars["add_generation_prompt"] = c["add_generation_prompt"];
            std::string with = render(tpl, vars);
            const std::string suffix = c["expected_output_suffix"].get<std::string>();
            const std::string gen = c["expected_generation_prompt"].get<std::string>();
            QVERIFY2(with.size() >= suffix.size() && with.compare(with.size() - suffix.size(), suffix.size(), suffix) == 0,
                     qPrintable(QString::fromStdString(c["template_file"].get<std::string>() + ": ends with " +
                                                       ojson(with.substr(with.size() > 60 ? with.size() - 60 : 0)).dump())));
            std::size_t lcp = 0;
            while (lcp < with.size() && lcp < without.size() && with[lcp] == without[lcp]) ++lcp;
            QCOMPARE(QString::fromStdString(with.substr(lcp)), QString::fromStdString(gen));
            ++pass;
        }
        qInfo("%s: %d / %zu pass", qPrintable(file), pass, d["cases"].size());
        QCOMPARE(pass, static_cast<int>(d["cases"].size()));
    }

    // `ft template --template F --context C --now T` prints exactly the rendered prompt.
    void cli_renders_template_file_with_context() {
        ojson d = load("jinja2-rendered-cases.json");
        QTemporaryDir tmp;
        int checked = 0;
        for (const auto& c : d["cases"]) {
            const std::string id = c["id"].get<std::string>();
            // one gpt-oss case (strftime_now) and one tool round trip are enough here
            if (id.rfind("openai-gpt-oss-120b/", 0) != 0 && id.find("tool") == std::string::npos) continue;
            const QString ctx = tmp.filePath(QString("ctx%1.json").arg(checked));
            {
                std::ofstream f(ctx.toStdString(), std::ios::binary);
                f << c["variables"].dump();
            }
            auto r = run_ft({"template", "--template",
                             QString::fromStdString((kData / c["template_file"].get<std::string>()).string()),
                             "--context", ctx, "--now", kNow});
            QVERIFY2(r.code == 0, r.err.constData());
            QCOMPARE(r.out, QByteArray::fromStdString(c["expected_output"].get<std::string>()));
            if (++checked >= 4) break;
        }
        QVERIFY(checked >= 2);
    }

    // `ft template MODEL --messages …` with an HF tokenizer_config.json (Qwen3's, whose template is Qwen3-0.6B's).
    void cli_renders_hf_config_with_messages() {
        const fs::path cfg = fs::path(FT_TESTDATA_DIR) / "hf-tokenizers" / "qwen3" / "tokenizer_config.json";
        if (!fs::exists(cfg)) QSKIP("hf-tokenizers/qwen3 not present");
        ojson d = load("jinja2-rendered-cases.json");
        QTemporaryDir tmp;
        int checked = 0;
        for (const auto& c : d["cases"]) {
            if (c["template_file"] != "Qwen-Qwen3-0.6B.jinja") continue;
            const ojson& v = c["variables"];
            if (v["bos_token"] != "" || v["eos_token"] != "<|im_end|>") continue;
            QStringList args = {"template", QString::fromStdString(cfg.string())};
            auto write = [&](const char* name, const ojson& j) {
                const QString p = tmp.filePath(QString("%1%2.json").arg(name).arg(checked));
                std::ofstream f(p.toStdString(), std::ios::binary);
                f << j.dump();
                return p;
            };
            args << "--messages" << write("messages", v["messages"]);
            if (v.contains("tools")) args << "--tools" << write("tools", v["tools"]);
            if (!v.value("add_generation_prompt", false)) args << "--no-generation-prompt";
            if (v.contains("enable_thinking")) args << "--enable-thinking" << (v["enable_thinking"].get<bool>() ? "true" : "false");
            auto r = run_ft(args);
            QVERIFY2(r.code == 0, r.err.constData());
            QCOMPARE(r.out, QByteArray::fromStdString(c["expected_output"].get<std::string>()));
            ++checked;
        }
        qInfo("Qwen3 tokenizer_config.json via ft template: %d cases", checked);
        QVERIFY(checked >= 3);
    }

    // A GGUF's tokenizer.chat_template with BOS/EOS looked up in tokenizer.ggml.tokens.
    void gguf_chat_template_and_special_tokens() {
        QTemporaryDir tmp;
        const fs::path path = tmp.filePath("tiny.gguf").toStdString();
        {
            ft::gguf::Writer w(path);
            w.set("general.architecture", ft::gguf::Value::string("llama"));
            w.set("tokenizer.ggml.tokens", ft::gguf::Value::string_array(std::vector<std::string>{"<unk>", "<s>", "</s>", "a"}));
            w.set("tokenizer.ggml.bos_token_id", ft::gguf::Value::u32(1));
            w.set("tokenizer.ggml.eos_token_id", ft::gguf::Value::u32(2));
            w.set("tokenizer.chat_template",
                  ft::gguf::Value::string("{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{{ eos_token }}"
                                          "{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}"));
            w.set("tokenizer.chat_template.tool_use", ft::gguf::Value::string("tools={{ tools | length }}"));
            w.write_header();
            w.finish();
        }
        ft::ChatTemplateSource src = ft::load_chat_template(path);
        QCOMPARE(QString::fromStdString(src.bos_token), QString("<s>"));
        QCOMPARE(QString::fromStdString(src.eos_token), QString("</s>"));
        ft::ChatTemplate tpl(src);
        ft::ChatRenderRequest req;
        req.messages_json = R"([{"role": "user", "content": "hi"}])";
        QCOMPARE(QString::fromStdString(tpl.apply(req)), QString("<s>[user]hi</s>[assistant]"));
        req.add_generation_prompt = false;
        QCOMPARE(QString::fromStdString(tpl.apply(req)), QString("<s>[user]hi</s>"));

        ft::ChatTemplate named(ft::load_chat_template(path, "tool_use"));
        req.tools_json = R"([{"type": "function"}, {"type": "function"}])";
        QCOMPARE(QString::fromStdString(named.apply(req)), QString("tools=2"));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::load_chat_template(path, "nope"));

        QTemporaryDir tmp2;
        const QString msgs = tmp2.filePath("m.json");
        {
            std::ofstream f(msgs.toStdString());
            f << R"([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])";
        }
        auto r = run_ft({"template", QString::fromStdString(path.string()), "--messages", msgs});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("<s>[system]S</s>[user]U</s>[assistant]"));

        // A GGUF without a template: MODEL then only supplies BOS/EOS to a --template file.
        const fs::path bare = tmp.filePath("bare.gguf").toStdString();
        {
            ft::gguf::Writer w(bare);
            w.set("tokenizer.ggml.tokens", ft::gguf::Value::string_array(std::vector<std::string>{"<B>", "<E>"}));
            w.set("tokenizer.ggml.bos_token_id", ft::gguf::Value::u32(0));
            w.set("tokenizer.ggml.eos_token_id", ft::gguf::Value::u32(1));
            w.write_header();
            w.finish();
        }
        const QString tfile = tmp2.filePath("t.jinja");
        {
            std::ofstream f(tfile.toStdString());
            f << "{{ bos_token }}{{ messages | length }}{{ eos_token }}\n";
        }
        r = run_ft({"template", QString::fromStdString(bare.string()), "--messages", msgs});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("no chat template"), r.err.constData());
        r = run_ft({"template", QString::fromStdString(bare.string()), "--template", tfile, "--messages", msgs});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("<B>2<E>"));
    }

    // OpenAI clients send tool-call arguments as JSON strings; templates expect objects (HF convention).
    void apply_turns_string_arguments_into_objects() {
        ft::ChatTemplate tpl(ft::ChatTemplateSource{
            "{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}",
            "", "", "inline"});
        ft::ChatRenderRequest req;
        req.messages_json =
            "[{\"role\": \"assistant\", \"content\": null, \"tool_calls\": ["
            "{\"id\": \"a\", \"type\": \"function\", \"function\": {\"name\": \"f\", "
            "\"arguments\": \"{\\\"b\\\": 1, \\\"a\\\": [\\\"x\\\"]}\"}}, "
            "{\"id\": \"b\", \"type\": \"function\", \"function\": {\"name\": \"g\", \"arguments\": \"not json\"}}]}]";
        QCOMPARE(QString::fromStdString(tpl.apply(req)), QString(R"({"b": 1, "a": ["x"]}"not json")"));
        req.messages_json = R"([{"content": "no role"}])";
        QVERIFY_THROWS_EXCEPTION(ft::Error, tpl.apply(req));
    }

    void cli_errors_are_clear() {
        QTemporaryDir tmp;
        const QString bad = tmp.filePath("bad.jinja");
        {
            std::ofstream f(bad.toStdString());
            f << "line one\n{% for x in xs %}\n{{ x | no_such_filter }}\n{% endfor %}\n";
        }
        const QString ctx = tmp.filePath("c.json");
        {
            std::ofstream f(ctx.toStdString());
            f << R"({"xs": [1]})";
        }
        auto r = run_ft({"template", "--template", bad, "--context", ctx});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("line 3") && r.err.contains("no_such_filter"), r.err.constData());
        r = run_ft({"template", "--template", bad});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--messages") || r.err.contains("--context"), r.err.constData());
    }
};

FT_TEST_MAIN(TestTemplateConformance)
#include "test_template_conformance.moc"
