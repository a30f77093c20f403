// The model-running commands end to end through the real `ft` binary on the tiny golden model:
// ft run (text, ids, --logits-out), ft chat (a scripted conversation), ft bench cpu-moe; ft run / ft chat without
// --model on the bundled demo model.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>

#include "ft/gpu.h"
#include "ft_process.h"
#include "ft_test.h"

using ft::test::run_ft;

namespace {
const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

// The golden fixture's first prompt and its greedy continuation, as token-id strings.
bool golden_greedy(QStringList& prompt, QStringList& want) {
    QFile f(kModel + "/golden.json");
    if (!f.open(QIODevice::ReadOnly)) return false;
    const auto g = QJsonDocument::fromJson(f.readAll()).object();
    for (const auto& v : g["sequences"].toArray()[0].toArray()) prompt << QString::number(v.toInt());
    for (const auto& v : g["greedy_new_tokens"].toArray()) want << QString::number(v.toInt());
    return !prompt.isEmpty() && !want.isEmpty();
}
}  // namespace

class TestCliModel : public QObject {
    Q_OBJECT
private slots:
    // `ft template MODEL --request FILE`: an agent's recorded request rendered by the server's own parser and
    // template (what prepare_agents.py trains the demo model on); a bad request is refused as the server refuses it.
    void templateRendersARequestAsTheServerDoes() {
        const QString demo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
        const QString agents = QStringLiteral(FT_SOURCE_DIR "/tests/data/agents/");
        auto r = run_ft({"template", demo, "--request", agents + "claude-code-2.1.332/tool-read.json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString& cc = r.out;
        QVERIFY(cc.startsWith("<|im_start|>system\nYou are a Claude agent"));
        QVERIFY(!cc.contains("x-anthropic-billing-header"));  // dropped before rendering
        // The environment's system turn stays where Claude Code put it: after the first user turn.
        const auto instr = cc.indexOf("Read note.txt and reply with the secret word in it.");
        QVERIFY(instr > 0 && cc.indexOf("<|im_start|>system\n# Environment") > instr);
        QVERIFY(cc.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"Read\", \"arguments\": {\"file_path\": "
                            "\"note.txt\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n1\tThe secret word is "
                            "pelican.\n2\t\n</tool_response><|im_end|>"));
        QVERIFY(cc.endsWith("<|im_start|>assistant\n"));
        r = run_ft({"template", demo, "--request", agents + "claude-code-2.1.332/tool-read.json", "--no-generation-prompt"});
        QVERIFY2(r.code == 0 && r.out.endsWith("</tool_response><|im_end|>\n"), qPrintable(r.err));

        r = run_ft({"template", demo, "--request", agents + "codex-0.171.0/turn4.json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("{\"name\": \"exec_command\", \"arguments\": {\"cmd\": \"cat notes.txt\"}}"));
        QVERIFY(r.out.contains("multi_agent_v1.close_agent"));  // a namespace tool's functions, flattened
        QVERIFY(r.out.endsWith("<|im_start|>assistant\n"));

        QTemporaryDir dir;
        const QString bare = dir.filePath("bare.json"), bad = dir.filePath("bad.json"), broken = dir.filePath("broken.json");
        auto write = [](const QString& path, const QByteArray& text) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
        };
        QVERIFY(write(bare, R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"Hello."}]})"));
        QVERIFY(write(bad, R"({"model":"m","max_tokens":8,"messages":[{"role":"robot","content":"Hello."}]})"));
        QVERIFY(write(broken, R"({"model":"m","messages":[)"));
        r = run_ft({"template", demo, "--request", bare});
        QVERIFY2(r.code != 0 && r.err.contains("say which API the request is for") && r.err.contains("--api"), qPrintable(r.err));
        r = run_ft({"template", demo, "--request", bare, "--api", "messages"});
        QVERIFY2(r.code == 0 && r.out.endsWith("<|im_start|>user\nHello.<|im_end|>\n<|im_start|>assistant\n"), qPrintable(r.out + r.err));
        r = run_ft({"template", demo, "--request", bad, "--api", "messages"});
        QVERIFY2(r.code != 0 && r.err.contains("refused as the server would refuse it (400)") && r.err.contains("robot"),
                 qPrintable(r.err));
        r = run_ft({"template", demo, "--request", broken, "--api", "chat"});
        QVERIFY2(r.code != 0 && r.err.contains("not JSON"), qPrintable(r.err));
        r = run_ft({"template", demo, "--request", bare, "--api", "grpc"});
        QVERIFY2(r.code != 0 && r.err.contains("--api takes chat, responses or messages"), qPrintable(r.err));
    }

    void runGreedyIdsMatchesTransformers() {
        QStringList prompt, want;
        QVERIFY(golden_greedy(prompt, want));
        const auto r = run_ft({"run", "--model", kModel, "--device", "cpu", "--ids", prompt.join(','), "--max-tokens",
                               "64", "--temperature", "0", "--ignore-eos", "--print-ids"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.trimmed().endsWith(want.join(',')), qPrintable(r.out));
        QVERIFY(r.err.contains("decode") && r.err.contains("tok/s"));
    }

    // --device cuda: the golden greedy continuation on a machine with a GPU (exact prefill: the fixture's near-tied
    // routers; see test_golden_qwen3_moe.cpp); elsewhere a clear error that says to use the CPU (no GPU, or a build
    // without CUDA).
    void runOnCudaOrClearError() {
        QStringList prompt, want;
        QVERIFY(golden_greedy(prompt, want));
        const auto r = run_ft({"run", "--model", kModel, "--device", "cuda", "--exact-prefill", "--ids", prompt.join(','),
                               "--max-tokens", "64", "--temperature", "0", "--ignore-eos", "--print-ids"});
        if (ft::gpu_devices().empty()) {
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("error:") && r.err.contains("--device cpu"), qPrintable(r.err));
        } else {
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.out.trimmed().endsWith(want.join(',')), qPrintable(r.out));
        }
    }

    // ft bench decode on the GPU: a run with the device's copy bandwidth beside it; elsewhere the loader's clear error
    // (the bandwidth probe, which runs before the load, must not answer first with a CUDA runtime message).
    void benchDecodeOnCudaOrClearError() {
        QTemporaryDir tmp;
        const QString json = tmp.path() + "/d.json";
        const auto r = run_ft({"bench", "decode", "--model", kModel, "--device", "cuda", "--gen", "8", "--prompt-len", "16",
                               "--json", json});
        if (ft::gpu_devices().empty()) {
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("error:") && r.err.contains("--device cpu") && !r.err.contains("cudaSetDevice"),
                     qPrintable(r.err));
        } else {
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QFile f(json);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto o = QJsonDocument::fromJson(f.readAll()).object()["runs"].toArray().at(0).toObject();
            QVERIFY2(o["copy_gbs"].toDouble() > 0 && o["decode_tok_s"].toDouble() > 0, qPrintable(QJsonDocument(o).toJson()));
            // Hybrid with one and a half layers of expert slots: the CPU side of the handshake, per layer it served.
            const QString hj = tmp.path() + "/h.json";
            const auto h = run_ft({"bench", "decode", "--model", kModel, "--device", "cuda", "--backend", "hybrid",
                                   "--hybrid-fraction", "0.5", "--expert-slots", "24", "--gen", "16", "--prompt-len", "16",
                                   "--json", hj});
            QVERIFY2(h.code == 0, qPrintable(h.err));
            QVERIFY2(h.out.contains("CPU side, per layer"), qPrintable(h.out));
            QFile hf(hj);
            QVERIFY(hf.open(QIODevice::ReadOnly));
            const auto x = QJsonDocument::fromJson(hf.readAll()).object()["runs"].toArray().at(0).toObject();
            const double busy = x["cpu_busy_us_per_layer"].toDouble(), exec = x["cpu_executor_us_per_layer"].toDouble();
            QVERIFY2(x["cpu_layers_per_step"].toDouble() == 4 && exec > 0 && busy >= exec && x["cpu_gap_us_per_layer"].toDouble() > 0,
                     qPrintable(QJsonDocument(x).toJson()));
            // Warm start on: the load filled the cache (the stored use of earlier runs, or an even share); off: empty.
            QVERIFY2(x["warm_started"].toDouble() > 0 && h.out.contains("warm start"), qPrintable(h.out));
            const QString cj = tmp.path() + "/c.json";
            const auto c = run_ft({"bench", "decode", "--model", kModel, "--device", "cuda", "--backend", "hybrid",
                                   "--hybrid-fraction", "0.5", "--expert-slots", "24", "--gen", "8", "--prompt-len", "16",
                                   "--no-warm-start", "--json", cj});
            QVERIFY2(c.code == 0, qPrintable(c.err));
            QFile cf(cj);
            QVERIFY(cf.open(QIODevice::ReadOnly));
            const auto y = QJsonDocument::fromJson(cf.readAll()).object()["runs"].toArray().at(0).toObject();
            QCOMPARE(y["warm_started"].toDouble(), 0.0);
        }
    }

    // --no-warm-start is a bench option too (the GPU expert cache starts empty); on the CPU there is no such cache.
    void benchDecodeNoWarmStartOnCpu() {
        QTemporaryDir tmp;
        const QString json = tmp.path() + "/d.json";
        const auto r = run_ft({"bench", "decode", "--model", kModel, "--device", "cpu", "--gen", "4", "--prompt-len", "8",
                               "--no-warm-start", "--json", json});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto o = QJsonDocument::fromJson(f.readAll()).object()["runs"].toArray().at(0).toObject();
        QVERIFY2(o["decode_tok_s"].toDouble() > 0 && o["warm_started"].toDouble() == 0, qPrintable(QJsonDocument(o).toJson()));
    }

    void runLogitsOutWritesEveryPosition() {
        QTemporaryDir tmp;
        const QString out = tmp.path() + "/l.bin";
        const auto r = run_ft({"run", "--model", kModel, "--device", "cpu", "--ids", "785,3974,293", "--logits-out", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QFileInfo(out).size(), qint64(3) * 4160 * 4);
        // Position 0 of golden sequence 0 starts with token 785: its logits are the first row of logits.bin.
        std::ifstream a(out.toStdString(), std::ios::binary), b((kModel + "/logits.bin").toStdString(), std::ios::binary);
        std::vector<float> x(4160), y(4160);
        a.read(reinterpret_cast<char*>(x.data()), 4160 * 4);
        b.read(reinterpret_cast<char*>(y.data()), 4160 * 4);
        double maxd = 0;
        for (int i = 0; i < 4160; ++i) maxd = std::max(maxd, std::fabs(double(x[i]) - y[i]));
        QVERIFY2(maxd < 1e-4, qPrintable(QString::number(maxd)));
    }

    void runTextPromptStreams() {
        const auto r = run_ft({"run", "--model", kModel, "--prompt", "Hello", "--max-tokens", "5", "--seed", "4"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(!r.out.trimmed().isEmpty());
        QVERIFY(r.err.contains(QRegularExpression("prompt [1-9][0-9]* tokens, generated 5")));
    }

    void runBadInputsAreClearErrors() {
        auto r = run_ft({"run", "--model", kModel, "--ids", "1,x"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("not a token id"));
        r = run_ft({"run", "--model", "/nonexistent/model.gguf", "--prompt", "x"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("model not found: /nonexistent/model.gguf"), qPrintable(r.err));
        r = run_ft({"run", "--model", kModel, "--prompt", "x", "--temperature", "-1"});
        QVERIFY(r.code != 0 && r.err.contains("temperature"));
        r = run_ft({"run", "--model", kModel, "--prompt", "x", "--ids", "1"});
        QCOMPARE(r.code, 2);
    }

    void chatHoldsAConversation() {
        const auto r = run_ft({"chat", "--model", kModel, "--temperature", "0", "--max-tokens", "6"},
                              "Hello there!\nAnd again?\n/reset\n/bogus\n/system Be brief.\nThird.\n/quit\n");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(r.err.count(QStringLiteral("[6 tokens")), 3);
        QVERIFY(r.err.contains("(conversation reset)"));
        QVERIFY(r.err.contains("unknown command /bogus"));
        QVERIFY(r.err.contains("(system message set"));
    }

    // Without --model, `ft run` and `ft chat` load the bundled demo model (found in the source tree's
    // resources/models from a build tree): its greedy continuation of a golden prompt is transformers'
    // (tests/data/freetoken-demo), and the chat answers in the template's turns, ending at <|im_end|>.
    void withoutModelTheBundledDemoRuns() {
        QFile f(QStringLiteral(FT_SOURCE_DIR "/tests/data/freetoken-demo/golden.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto g = QJsonDocument::fromJson(f.readAll()).object();
        QStringList prompt, want;
        for (const auto& v : g["sequences"].toArray()[g["greedy_prompt_index"].toInt()].toArray())
            prompt << QString::number(v.toInt());
        for (const auto& v : g["greedy_new_tokens"].toArray()) want << QString::number(v.toInt());
        const auto r = run_ft({"run", "--device", "cpu", "--ids", prompt.join(','), "--max-tokens",
                               QString::number(want.size()), "--temperature", "0", "--ignore-eos", "--print-ids"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("using the bundled demo model") && r.err.contains("freetoken-demo.gguf"), qPrintable(r.err));
        QVERIFY2(r.out.trimmed().endsWith(want.join(',')), qPrintable(r.out));

        const auto c = run_ft({"chat", "--device", "cpu", "--temperature", "0", "--max-tokens", "64"}, "Hello!\n/quit\n");
        QVERIFY2(c.code == 0, qPrintable(c.err));
        QVERIFY2(c.err.contains("freetoken-demo"), qPrintable(c.err));
        // Its greedy reply to the greeting (resources/models/README.md, sample replies) starts by repeating it.
        QVERIFY2(c.out.contains("</think>\n\nHello"), qPrintable(c.out));
        QVERIFY2(c.err.contains("[") && !c.err.contains("[64 tokens"), qPrintable(c.err));  // stopped at <|im_end|>

        for (const char* cmd : {"run", "chat"}) {
            const auto h = run_ft({cmd, "--help"});
            QVERIFY2(h.out.contains("bundled demo model"), qPrintable(h.out));
        }
    }

    void benchCpuMoeWritesJson() {
        QTemporaryDir tmp;
        const QString json = tmp.path() + "/b.json";
        const auto r = run_ft({"bench", "cpu-moe", "--model", kModel, "--rounds", "1", "--json", json});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("of host read"));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto o = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(o["moe_layers"].toInt(), 4);
        QVERIFY(o["host_read_gbs"].toDouble() > 0.1);
        QVERIFY(o["expert_bytes"].toDouble() > 0);
        // The experts' own time is part of the layer's: their rate is the layer's or more.
        QVERIFY(o["experts_alone_gbs"].toDouble() >= o["expert_gbs"].toDouble());
        QVERIFY(o["experts_alone_fraction_of_host_read"].toDouble() > 0);
        QVERIFY(r.out.contains("the experts alone"));
        // The executor alone by experts per call (1, 2, 4 and 8 of the fixture's 16).
        const auto by = o["executor_by_experts"].toArray();
        QCOMPARE(by.size(), 4);
        for (int i = 0; i < by.size(); ++i) {
            const auto p = by.at(i).toObject();
            QCOMPARE(p["experts"].toInt(), 1 << i);
            QVERIFY2(p["us_per_call"].toDouble() > 0 && p["gbs"].toDouble() > 0, qPrintable(QJsonDocument(p).toJson()));
            // The phases lie inside the timed call.
            const double phases = p["us_to_input"].toDouble() + p["us_gate_up"].toDouble() + p["us_down"].toDouble();
            QVERIFY2(p["us_gate_up"].toDouble() > 0 && p["us_down"].toDouble() > 0 && phases <= p["us_per_call"].toDouble() * 1.001,
                     qPrintable(QJsonDocument(p).toJson()));
            QVERIFY2(p["us_hot"].toDouble() > 0, qPrintable(QJsonDocument(p).toJson()));  // the same experts again
        }
        QVERIFY(r.out.contains("the executor alone"));
        QVERIFY(r.out.contains(" hot "));
    }

    // ft bench decode warms up over the positions it then times and rewinds between: a model with a recurrent state
    // (Qwen3.5's linear attention, DeepSeek-V4's window rings), which cannot be cut back, is prefilled again instead.
    void benchDecodeRewindsRecurrentModels_data() {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("qwen3.5") << "qwen3-5-moe-tiny";
        QTest::newRow("deepseek-v4") << "deepseek-v4-tiny";
    }
    void benchDecodeRewindsRecurrentModels() {
        QFETCH(QString, fixture);
        QTemporaryDir tmp;
        const QString json = tmp.path() + "/d.json";
        const auto r = run_ft({"bench", "decode", "--model", QStringLiteral(FT_SOURCE_DIR "/tests/data/") + fixture, "--device",
                               "cpu", "--gen", "20", "--warmup", "45", "--prompt-len", "30", "--json", json});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto o = QJsonDocument::fromJson(f.readAll()).object()["runs"].toArray().at(0).toObject();
        QVERIFY2(o["decode_tok_s"].toDouble() > 0, qPrintable(QJsonDocument(o).toJson()));
        QCOMPARE(o["warmup_steps"].toInt(), 45);  // two rewinds
    }
};

FT_TEST_MAIN(TestCliModel)
#include "test_cli_model.moc"
