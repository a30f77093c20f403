// CI fuzz smoke: the libFuzzer harnesses (fuzz_harness.cpp), compiled with the normal compiler, run over the
// committed corpus (seeds + every crash the real fuzzers found) and a fixed number of deterministic mutations.
// A crash, a sanitizer report (in a sanitized build) or any exception other than ft::Error fails the test.
#include <QTemporaryDir>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ft_test.h"
#include "fuzz_harness.h"
#include "fuzz_seeds.h"

namespace {

using Harness = int (*)(const std::uint8_t*, std::size_t);
const std::filesystem::path kCorpus = std::filesystem::path(FT_SOURCE_DIR) / "tests" / "fuzz" / "corpus";

std::vector<std::byte> slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(c.size());
    if (!c.empty()) std::memcpy(out.data(), c.data(), c.size());
    return out;
}

struct Rng {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

// One to four random edits of the kinds that break parsers: bit flips, boundary integers at any offset,
// truncation, erased/inserted/duplicated ranges, and (for JSON headers) numbers replaced by extreme ones.
void mutate(std::vector<std::byte>& b, Rng& rng) {
    static const std::uint64_t k64[] = {0, 1, 2, 3, 8, 9, 12, 13, 31, 32, 33, 255, 0x7fffffffull, 0x80000000ull,
                                        0xffffffffull, 1ull << 32, 1ull << 60, 1ull << 62, 1ull << 63, ~0ull};
    static const char* kNumbers[] = {"0", "-1", "18446744073709551615", "18446744073709551616", "4294967296",
                                     "1e400", "1.5", "9223372036854775808", "\"x\"", "[]", "{}", "null"};
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits; ++e) {
        const std::size_t size = b.size();
        switch (rng.below(9)) {
            case 0:
                if (size) b[rng.below(size)] ^= static_cast<std::byte>(1u << rng.below(8));
                break;
            case 1:
                if (size) b[rng.below(size)] = static_cast<std::byte>(rng.next());
                break;
            case 2:
                if (size >= 4) {
                    const auto v = static_cast<std::uint32_t>(k64[rng.below(std::size(k64))]);
                    std::memcpy(b.data() + rng.below(size - 3), &v, 4);
                }
                break;
            case 3:
                if (size >= 8) {
                    std::uint64_t v = k64[rng.below(std::size(k64))];
                    if (rng.below(4) == 0) v = size + rng.below(64) - 32;
                    std::memcpy(b.data() + (rng.below(2) ? rng.below(size - 7) : rng.below((size - 7 + 3) / 4) * 4),
                                &v, 8);
                }
                break;
            case 4: b.resize(rng.below(size + 1)); break;
            case 5:
                if (size) {
                    const std::size_t at = rng.below(size);
                    const std::size_t n = 1 + rng.below(std::min<std::size_t>(size - at, 64));
                    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
                }
                break;
            case 6: {
                const std::size_t at = rng.below(size + 1);
                std::vector<std::byte> ins(1 + rng.below(16));
                for (auto& x : ins) x = static_cast<std::byte>(rng.next());
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(), ins.end());
                break;
            }
            case 7:
                if (size >= 2) {
                    const std::size_t from = rng.below(size), to = rng.below(size);
                    const std::size_t n = std::min({size - from, size - to, 1 + rng.below(32)});
                    std::memmove(b.data() + to, b.data() + from, n);
                }
                break;
            case 8: {
                // Replace one run of digits with an extreme JSON value.
                std::vector<std::size_t> starts;
                for (std::size_t i = 0; i < size; ++i)
                    if (std::isdigit(static_cast<unsigned char>(b[i])) &&
                        (i == 0 || !std::isdigit(static_cast<unsigned char>(b[i - 1]))))
                        starts.push_back(i);
                if (starts.empty()) break;
                const std::size_t at = starts[rng.below(starts.size())];
                std::size_t end = at;
                while (end < size && std::isdigit(static_cast<unsigned char>(b[end]))) ++end;
                const char* num = kNumbers[rng.below(std::size(kNumbers))];
                std::vector<std::byte> rep(std::strlen(num));
                std::memcpy(rep.data(), num, rep.size());
                b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(end));
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), rep.begin(), rep.end());
                break;
            }
        }
    }
}

struct Counts {
    int parsed = 0, rejected = 0;
};

Counts run(Harness h, const std::vector<std::vector<std::byte>>& seeds, int mutants_per_seed, std::uint64_t seed) {
    Counts c;
    Rng rng{seed};
    for (const auto& s : seeds) {
        for (int i = 0; i < mutants_per_seed; ++i) {
            std::vector<std::byte> m = s;
            mutate(m, rng);
            // An exact-size heap copy so that an over-read is caught by ASan in a sanitized build.
            std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[m.size() ? m.size() : 1]);
            if (!m.empty()) std::memcpy(buf.get(), m.data(), m.size());
            (h(buf.get(), m.size()) ? c.parsed : c.rejected)++;
        }
    }
    return c;
}

std::vector<std::vector<std::byte>> committed(const char* sub) {
    std::vector<std::vector<std::byte>> out;
    for (const auto& e : std::filesystem::directory_iterator(kCorpus / sub)) out.push_back(slurp(e.path()));
    return out;
}

}  // namespace

class TestFuzzSmoke : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void committedSeedsMatchTheGenerator() {
        QVERIFY(tmp_.isValid());
        for (const auto& s : ft::fuzz::gguf_seeds(tmp_.path().toStdString())) {
            QVERIFY2(slurp(kCorpus / "gguf" / s.name) == s.bytes,
                     ("regenerate the corpus (fuzz_make_corpus tests/fuzz/corpus): " + s.name).c_str());
            QCOMPARE(ft::fuzz::gguf_one_input(reinterpret_cast<const std::uint8_t*>(s.bytes.data()), s.bytes.size()), 1);
        }
        for (const auto& s : ft::fuzz::safetensors_seeds()) {
            QVERIFY2(slurp(kCorpus / "safetensors" / s.name) == s.bytes, s.name.c_str());
            QCOMPARE(ft::fuzz::safetensors_one_input(reinterpret_cast<const std::uint8_t*>(s.bytes.data()),
                                                     s.bytes.size()), 1);
        }
        const std::pair<const char*, std::vector<ft::fuzz::Seed> (*)()> text_sets[] = {
            {"tool_parser", ft::fuzz::tool_parser_seeds},
            {"chat_template", ft::fuzz::chat_template_seeds},
            {"tokenizer_json", ft::fuzz::tokenizer_json_seeds},
            {"request", ft::fuzz::request_seeds}};
        const Harness text_harness[] = {ft::fuzz::tool_parser_one_input, ft::fuzz::chat_template_one_input,
                                        ft::fuzz::tokenizer_json_one_input, ft::fuzz::request_one_input};
        for (int k = 0; k < 4; ++k)
            for (const auto& s : text_sets[k].second()) {
                QVERIFY2(slurp(kCorpus / text_sets[k].first / s.name) == s.bytes,
                         ("regenerate the corpus (fuzz_make_corpus tests/fuzz/corpus): " + s.name).c_str());
                // Every seed is a valid input: it must parse / render / load.
                QVERIFY2(text_harness[k](reinterpret_cast<const std::uint8_t*>(s.bytes.data()), s.bytes.size()) == 1,
                         s.name.c_str());
            }
    }

    void toolParserCorpusAndMutants() {
        const auto corpus = committed("tool_parser");
        QVERIFY(corpus.size() >= 8);
        const Counts c = run(ft::fuzz::tool_parser_one_input, corpus, 20000 / int(corpus.size()), 0x853c49e6748fea9bull);
        qInfo("tool_parser: %zu corpus inputs, %d mutants parsed, %d rejected", corpus.size(), c.parsed, c.rejected);
        QVERIFY(c.parsed > 0);
    }

    void chatTemplateCorpusAndMutants() {
        auto corpus = committed("chat_template");
        QVERIFY(corpus.size() >= 3);
        // The real models' templates beside the checkout, when present (not committed here).
        const auto real = std::filesystem::path(FT_TESTDATA_DIR) / "chat-templates";
        std::size_t n_real = 0;
        if (std::filesystem::exists(real)) {
            // The messages part (from the NUL on) of the first generated seed.
            const auto seed = ft::fuzz::chat_template_seeds().front().bytes;
            const std::string first(reinterpret_cast<const char*>(seed.data()), seed.size());
            const std::string messages = first.substr(first.find('\0'));
            for (const auto& e : std::filesystem::directory_iterator(real)) {
                if (e.path().extension() != ".jinja") continue;
                auto b = slurp(e.path());
                const auto* m = reinterpret_cast<const std::byte*>(messages.data());
                b.insert(b.end(), m, m + messages.size());
                corpus.push_back(std::move(b));
                ++n_real;
            }
        }
        const Counts c = run(ft::fuzz::chat_template_one_input, corpus, 4000 / int(corpus.size()) + 1, 0x5851f42d4c957f2dull);
        qInfo("chat_template: %zu inputs (%zu real templates), %d mutants rendered, %d rejected", corpus.size(), n_real,
              c.parsed, c.rejected);
        QVERIFY(c.parsed > 0 && c.rejected > 0);
    }

    void tokenizerJsonCorpusAndMutants() {
        const auto corpus = committed("tokenizer_json");
        QVERIFY(corpus.size() >= 2);
        const Counts c = run(ft::fuzz::tokenizer_json_one_input, corpus, 4000 / int(corpus.size()), 0x14057b7ef767814full);
        qInfo("tokenizer_json: %zu corpus inputs, %d mutants loaded, %d rejected", corpus.size(), c.parsed, c.rejected);
        QVERIFY(c.parsed > 0 && c.rejected > 0);
    }

    // The API server's request parsers + prepare + writers (every endpoint), on the tiny model.
    void requestCorpusAndMutants() {
        const auto corpus = committed("request");
        QVERIFY(corpus.size() >= 9);
        const Counts c = run(ft::fuzz::request_one_input, corpus, 20000 / int(corpus.size()), 0xda3e39cb94b95bdbull);
        qInfo("request: %zu corpus inputs, %d mutants served, %d rejected", corpus.size(), c.parsed, c.rejected);
        QVERIFY(c.parsed > 0 && c.rejected > 0);
    }

    void ggufCorpusAndMutants() {
        const auto corpus = committed("gguf");
        QVERIFY(corpus.size() >= 4);
        for (const auto& s : corpus)
            (void)ft::fuzz::gguf_one_input(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
        const Counts c = run(ft::fuzz::gguf_one_input, corpus, 20000 / int(corpus.size()), 0x9e3779b97f4a7c15ull);
        qInfo("gguf: %zu corpus inputs, %d mutants parsed, %d rejected", corpus.size(), c.parsed, c.rejected);
        QVERIFY(c.parsed > 0 && c.rejected > 0);
    }

    void safetensorsCorpusAndMutants() {
        const auto corpus = committed("safetensors");
        QVERIFY(corpus.size() >= 3);
        for (const auto& s : corpus)
            (void)ft::fuzz::safetensors_one_input(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
        const Counts c = run(ft::fuzz::safetensors_one_input, corpus, 20000 / int(corpus.size()), 0x2545f4914f6cdd1dull);
        qInfo("safetensors: %zu corpus inputs, %d mutants parsed, %d rejected", corpus.size(), c.parsed, c.rejected);
        QVERIFY(c.parsed > 0 && c.rejected > 0);
    }
};

FT_TEST_MAIN(TestFuzzSmoke)
#include "test_fuzz_smoke.moc"
