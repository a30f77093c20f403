// Encoding speed on one core (label perf): English prose and mixed code/CJK, for the Qwen3 and Llama 3
// tokenizer.json and two byte-level GGUF vocabularies. Prints MB/s of CPU time (steadier than wall time on a
// shared machine) and checks the targets: >= 10 MB/s for English prose, >= 5 MB/s for mixed code/CJK.
// The corpora are built here, without downloads, and written to <build>/tokenizer-bench/ so that
// `ft tokenize MODEL --file <build>/tokenizer-bench/english.txt --bench` can reproduce a figure:
//   english.txt  the licence texts in /usr/share/common-licenses plus the repository's Markdown files;
//   mixed.txt    this repository's C++ sources interleaved with CJK paragraphs (Chinese words and Japanese/Korean
//                runs taken from the Qwen3 vocabulary, seeded, with CJK punctuation).
#include <QtTest>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "ft/tokenizer.h"
#include "ft_test.h"
#include "tokenizer/tokenizer_unicode.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

bool all_cjk(const std::string& s, bool& has) {
    has = false;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 0;
        bool ok = false;
        const char32_t cp = ft::tok::utf8_decode(s, i, len, ok);
        if (!ok) return false;
        const bool cjk = (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0xAC00 && cp <= 0xD7A3);
        if (!cjk) return false;
        has = true;
        i += len;
    }
    return has;
}

std::string english_corpus() {
    std::string text;
    for (const char* dir : {"/usr/share/common-licenses"}) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) text += slurp(f) + "\n";
    }
    std::vector<fs::path> md;
    for (const auto& e : fs::recursive_directory_iterator(FT_SOURCE_DIR, fs::directory_options::skip_permission_denied)) {
        const auto p = e.path().string();
        if (p.find("/build") != std::string::npos || p.find("node_modules") != std::string::npos || p.find("/.git") != std::string::npos)
            continue;
        if (e.is_regular_file() && e.path().extension() == ".md") md.push_back(e.path());
    }
    std::sort(md.begin(), md.end());
    for (const auto& f : md) text += slurp(f) + "\n";
    return text;
}

std::string mixed_corpus(const ft::Tokenizer& qwen) {
    std::vector<std::string> words;
    for (std::int32_t id = 0; id < qwen.vocab_size(); ++id) {
        if (qwen.token_kind(id) != ft::TokenKind::normal) continue;
        const std::string b = qwen.token_to_bytes(id);
        bool has = false;
        if (all_cjk(b, has)) words.push_back(b);
    }
    std::vector<std::string> code;
    for (const auto& e : fs::directory_iterator(fs::path(FT_SOURCE_DIR) / "engine/src/tokenizer"))
        if (e.path().extension() == ".cpp" || e.path().extension() == ".h")
            if (e.path().filename().string().starts_with("tokenizer")) code.push_back(slurp(e.path()));
    std::sort(code.begin(), code.end());
    std::string all_code;
    for (const auto& c : code) all_code += c;
    std::mt19937_64 rng(42);
    std::string text;
    std::size_t code_pos = 0;
    while (text.size() < 400000 && !words.empty() && !all_code.empty()) {
        // ~2 KB of code, then ~2 KB of CJK
        const std::size_t take = std::min<std::size_t>(2048, all_code.size() - code_pos);
        text.append(all_code, code_pos, take);
        code_pos = (code_pos + take) % all_code.size();
        text += "\n";
        std::string para;
        while (para.size() < 2048) {
            const int n = 4 + static_cast<int>(rng() % 12);
            for (int i = 0; i < n; ++i) para += words[rng() % words.size()];
            para += (rng() % 4 == 0) ? "\xE3\x80\x82" : "\xEF\xBC\x8C";  // 。 ，
        }
        text += para + "\n";
    }
    return text;
}

double mb_per_s(const ft::Tokenizer& tok, const std::string& text) {
    (void)tok.encode(text);  // warm-up
    int runs = 0;
    const std::clock_t start = std::clock();
    double cpu = 0;
    do {
        (void)tok.encode(text);
        ++runs;
        cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    } while (cpu < 1.0);
    return static_cast<double>(text.size()) * runs / 1e6 / cpu;
}

}  // namespace

class PerfTokenizer : public QObject {
    Q_OBJECT
private slots:
    void speed() {
        const fs::path td(FT_TESTDATA_DIR);
        if (!fs::exists(td / "hf-tokenizers/qwen3")) QSKIP("testdata/hf-tokenizers is absent");
        const auto qwen = ft::Tokenizer::load(td / "hf-tokenizers/qwen3");
        const std::string english = english_corpus(), mixed = mixed_corpus(qwen);
        if (english.size() < 50000) QSKIP("less than 50 KB of English text on this machine (/usr/share/common-licenses)");
        QVERIFY(mixed.size() > 100000);
        const fs::path out = fs::path(FT_BINARY_DIR) / "tokenizer-bench";
        fs::create_directories(out);
        std::ofstream(out / "english.txt", std::ios::binary) << english;
        std::ofstream(out / "mixed.txt", std::ios::binary) << mixed;
        qInfo("corpora: english %zu bytes, mixed code/CJK %zu bytes (in %s)", english.size(), mixed.size(),
              out.string().c_str());
        const std::vector<std::pair<const char*, fs::path>> models{
            {"qwen3", td / "hf-tokenizers/qwen3"},
            {"llama3", td / "hf-tokenizers/llama3_1"},
            {"deepseek-llm gguf", td / "llama.cpp-vocab/ggml-vocab-deepseek-llm.gguf"},
            {"gpt-2 gguf", td / "llama.cpp-vocab/ggml-vocab-gpt-2.gguf"},
        };
        for (const auto& [name, path] : models) {
            const auto tok = ft::Tokenizer::load(path);
            const double en = mb_per_s(tok, english), mx = mb_per_s(tok, mixed);
            qInfo("%-18s english %.1f MB/s   mixed code/CJK %.1f MB/s   (one core, CPU time)", name, en, mx);
            QVERIFY2(en >= 10.0, name);
            QVERIFY2(mx >= 5.0, name);
        }
    }
};

FT_TEST_MAIN(PerfTokenizer)
#include "perf_tokenizer.moc"
