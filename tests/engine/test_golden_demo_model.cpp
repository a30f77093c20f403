// The bundled demo model (resources/models/freetoken-demo.gguf, trained by scripts/demo-model/train.py) against
// PyTorch + transformers (tests/data/freetoken-demo, made in the same run as the model):
//  - the reference ran on exactly the weights this file holds: train.py mirrored `ft convert`'s Q8_0 and recorded the
//    sha256 of every tensor's bytes as the GGUF stores them; each must match;
//  - our tokenizer turns the fixed chat prompts into the token ids transformers' tokenizer gave;
//  - the engine's logits at every position of those prompts: cosine >= 0.9999 against transformers' float32 logits
//    and the same top-1 token everywhere; the greedy continuation of one prompt is transformers' generate() output.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <future>

#include "format/gguf.h"
#include "ft/engine.h"
#include "ft/paths.h"
#include "ft/tokenizer.h"
#include "ft_test.h"

namespace {

const QString kData = QStringLiteral(FT_SOURCE_DIR "/tests/data/freetoken-demo");
const std::filesystem::path kModel = std::filesystem::path(FT_SOURCE_DIR) / "resources/models" / ft::kBundledModelFile;

struct Golden {
    QStringList texts;
    std::vector<std::vector<std::int32_t>> seqs, top1;
    std::vector<std::int32_t> greedy;
    int greedy_index = 0, vocab = 0;
    QJsonObject sha;
    std::vector<float> logits;
};

std::vector<std::int32_t> ints(const QJsonArray& a) {
    std::vector<std::int32_t> v;
    for (const auto& x : a) v.push_back(x.toInt());
    return v;
}

Golden read_golden() {
    Golden g;
    QFile f(kData + "/golden.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s/golden.json", qPrintable(kData));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    for (const auto& t : o["texts"].toArray()) g.texts << t.toString();
    for (const auto& s : o["sequences"].toArray()) g.seqs.push_back(ints(s.toArray()));
    for (const auto& s : o["top1"].toArray()) g.top1.push_back(ints(s.toArray()));
    g.greedy = ints(o["greedy_new_tokens"].toArray());
    g.greedy_index = o["greedy_prompt_index"].toInt();
    g.vocab = o["vocab_size"].toInt();
    g.sha = o["tensor_sha256"].toObject();
    std::ifstream in((kData + "/logits.bin").toStdString(), std::ios::binary);
    in.seekg(0, std::ios::end);
    g.logits.resize(std::size_t(in.tellg()) / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(g.logits.data()), std::streamsize(g.logits.size() * 4));
    return g;
}

ft::LoadOptions cpu_load() {
    ft::LoadOptions o;
    o.model = kModel;
    o.device = ft::Device::cpu;
    o.n_ctx = 512;
    o.max_sequences = 1;
    return o;
}

}  // namespace

class TestGoldenDemoModel : public QObject {
    Q_OBJECT
    Golden g;

private slots:
    void initTestCase() {
        g = read_golden();
        QVERIFY(!g.seqs.empty());
        QCOMPARE(g.seqs.size(), g.top1.size());
        std::size_t positions = 0;
        for (const auto& s : g.seqs) positions += s.size();
        QCOMPARE(g.logits.size(), positions * std::size_t(g.vocab));
    }

    // Every tensor of the bundled file is byte for byte what the reference dequantized (and nothing is missing or
    // extra); the experts are Q8_0 and the file stays within the size the model card states.
    void referenceRanOnTheseWeights() {
        QVERIFY(std::filesystem::file_size(kModel) <= 20'000'000);
        const auto r = ft::gguf::Reader::open(kModel);
        QCOMPARE(qsizetype(r.tensors().size()), g.sha.size());
        int experts_q8 = 0;
        for (const auto& t : r.tensors()) {
            const auto data = r.tensor_data(t);
            const QByteArray got = QCryptographicHash::hash(
                QByteArrayView(reinterpret_cast<const char*>(data.data()), qsizetype(data.size())), QCryptographicHash::Sha256);
            const QString name = QString::fromStdString(t.name);
            QVERIFY2(g.sha.contains(name), qPrintable("tensor not in the reference: " + name));
            QVERIFY2(QString::fromLatin1(got.toHex()) == g.sha[name].toString(),
                     qPrintable("tensor bytes differ from the reference's: " + name));
            if (name.contains("_exps.")) experts_q8 += t.type == ft::kernels::DType::Q8_0;
        }
        QVERIFY2(experts_q8 > 0 && experts_q8 % 3 == 0, qPrintable(QString::number(experts_q8)));
    }

    void tokenizerMatchesTransformers() {
        ft::Engine e;
        e.load_sync(cpu_load());
        ft::EncodeOptions eo;
        eo.parse_special = true;
        for (int i = 0; i < g.texts.size(); ++i) QCOMPARE(e.tokenizer().encode(g.texts[i].toStdString(), eo), g.seqs[std::size_t(i)]);
    }

    void logitsMatchTransformers() {
        ft::Engine e;
        e.load_sync(cpu_load());
        double min_cos = 1, max_abs = 0;
        int positions = 0, same = 0;
        std::size_t off = 0;
        for (std::size_t s = 0; s < g.seqs.size(); ++s) {
            const auto got = e.evaluate_logits(g.seqs[s]);
            QCOMPARE(got.size(), g.seqs[s].size() * std::size_t(g.vocab));
            for (std::size_t p = 0; p < g.seqs[s].size(); ++p, off += std::size_t(g.vocab)) {
                const float* x = got.data() + p * std::size_t(g.vocab);
                const float* y = g.logits.data() + off;
                double xy = 0, xx = 0, yy = 0;
                for (int i = 0; i < g.vocab; ++i) {
                    xy += double(x[i]) * y[i];
                    xx += double(x[i]) * x[i];
                    yy += double(y[i]) * y[i];
                    max_abs = std::max(max_abs, std::fabs(double(x[i]) - y[i]));
                }
                min_cos = std::min(min_cos, xy / std::sqrt(xx * yy));
                same += std::int32_t(std::max_element(x, x + g.vocab) - x) == g.top1[s][p];
                ++positions;
            }
        }
        qInfo("demo model vs transformers: %d positions, min cosine %.8f, top-1 same %d/%d, max |dlogit| %.3g", positions,
              min_cos, same, positions, max_abs);
        QVERIFY2(min_cos >= 0.9999, qPrintable(QString("min cosine %1").arg(min_cos, 0, 'g', 10)));
        QCOMPARE(same, positions);
    }

    void greedyMatchesTransformers() {
        ft::Engine e;
        e.load_sync(cpu_load());
        ft::GenerationRequest r;
        r.prompt = g.seqs[std::size_t(g.greedy_index)];
        r.sampling.temperature = 0;
        r.max_tokens = int(g.greedy.size());
        r.ignore_eos = true;
        std::vector<std::int32_t> out;
        std::promise<void> done;
        r.on_token = [&](const ft::TokenEvent& ev) {
            if (ev.token >= 0) out.push_back(ev.token);
        };
        r.on_finish = [&](const ft::FinishEvent&) { done.set_value(); };
        r.on_error = [&](const ft::Error& err) {
            qWarning("%s", err.what());
            done.set_value();
        };
        e.submit(std::move(r));
        done.get_future().wait();
        QCOMPARE(out, g.greedy);
    }
};

FT_TEST_MAIN(TestGoldenDemoModel)
#include "test_golden_demo_model.moc"
