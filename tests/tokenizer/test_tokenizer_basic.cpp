// Tokenizer behaviour beyond the vectors: round trips, the streaming decoder, special-token parsing, BOS/EOS,
// NFC, and clear errors for bad input.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "ft_test.h"
#include "tokenizer/tokenizer_pretok.h"
#include "tokenizer/tokenizer_unicode.h"

namespace fs = std::filesystem;

namespace {

fs::path testdata(const std::string& rel) { return fs::path(FT_TESTDATA_DIR) / rel; }

const std::vector<std::string>& samples() {
    static const std::vector<std::string> s = {
        "Hello world",
        " leading space and trailing  ",
        "Ünïcödé façade naïve — “quotes” ½",
        "日本語のテキストと中文混合，还有한국어 문장。",
        "emoji 😀👍🏽 👨‍👩‍👧 ZWJ family 🇫🇷 flag",
        "code: for (int i = 0; i < n; ++i) { x[i] += 0x1F; }\n\tindented\r\nCRLF",
        "numbers 1234567890 3.14159 -42 1e-9",
        "\n\n\n   \t\t  mixed   whitespace\n",
        "Ελληνικά Русский العربية עברית हिन्दी ไทย",
        "",
    };
    return s;
}

bool valid_utf8(const std::string& s) { return ft::tok::utf8_sanitize(s) == s; }

}  // namespace

class TestTokenizerBasic : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(testdata("hf-tokenizers/qwen3/tokenizer.json"))) QSKIP("testdata/hf-tokenizers is absent");
    }

    void round_trip_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("qwen3 tokenizer.json") << "hf-tokenizers/qwen3";
        QTest::newRow("llama3 tokenizer.json") << "hf-tokenizers/llama3_1/tokenizer.json";
        QTest::newRow("gpt-2 gguf") << "llama.cpp-vocab/ggml-vocab-gpt-2.gguf";
        QTest::newRow("deepseek-llm gguf") << "llama.cpp-vocab/ggml-vocab-deepseek-llm.gguf";
        QTest::newRow("llama-spm gguf") << "llama.cpp-vocab/ggml-vocab-llama-spm.gguf";
        QTest::newRow("phi-3 gguf") << "llama.cpp-vocab/ggml-vocab-phi-3.gguf";
    }
    void round_trip() {
        QFETCH(QString, model);
        const auto tok = ft::Tokenizer::load(testdata(model.toStdString()));
        for (const std::string& s : samples()) {
            const auto ids = tok.encode(s);
            if (!s.empty()) QVERIFY(!ids.empty());
            std::string want = s;
            std::string nfc;
            if (ft::tok::nfc_normalize(s, nfc) && model.contains("qwen3")) want = nfc;
            QCOMPARE(tok.decode(ids), want);
        }
    }

    // Every piece the stream decoder emits is valid UTF-8, and the pieces add up to decode().
    void streaming_data() { round_trip_data(); }
    void streaming() {
        QFETCH(QString, model);
        const auto tok = ft::Tokenizer::load(testdata(model.toStdString()));
        for (const std::string& s : samples()) {
            const auto ids = tok.encode(s);
            ft::StreamDecoder dec(tok);
            std::string joined;
            for (auto id : ids) {
                const std::string part = dec.push(id);
                QVERIFY2(valid_utf8(part), ("partial UTF-8 emitted for \"" + s + "\"").c_str());
                joined += part;
            }
            joined += dec.finish();
            QCOMPARE(joined, tok.decode(ids));
        }
    }

    // SentencePiece byte fallback: a character missing from the vocabulary becomes <0xXX> tokens, one byte each;
    // the stream decoder holds them until the character is complete.
    void streaming_byte_tokens() {
        const auto tok = ft::Tokenizer::load(testdata("llama.cpp-vocab/ggml-vocab-llama-spm.gguf"));
        const std::string face = "\xF0\x9F\x98\x80";  // 😀, not in the llama vocabulary
        const auto ids = tok.encode(face);
        QCOMPARE(ids.size(), std::size_t(5));  // ▁ + 4 byte tokens
        for (std::size_t i = 1; i < 5; ++i) QCOMPARE(tok.token_kind(ids[i]), ft::TokenKind::byte);
        ft::StreamDecoder dec(tok);
        QCOMPARE(dec.push(ids[0]), std::string());  // the prefix space of the first token is dropped
        QCOMPARE(dec.push(ids[1]), std::string());
        QCOMPARE(dec.push(ids[2]), std::string());
        QCOMPARE(dec.push(ids[3]), std::string());
        QCOMPARE(dec.push(ids[4]), face);
        QCOMPARE(dec.finish(), std::string());
        // A sequence that cannot be completed turns into U+FFFD at once; an unfinished tail at finish().
        const std::int32_t e0 = tok.find_token("<0xE0>"), a = tok.find_token("A"), a0 = tok.find_token("<0xA0>");
        QVERIFY(e0 >= 0 && a >= 0 && a0 >= 0);
        ft::StreamDecoder d2(tok);
        QCOMPARE(d2.push(e0), std::string());
        QCOMPARE(d2.push(a), std::string("\xEF\xBF\xBD" "A"));
        QCOMPARE(d2.push(e0), std::string());
        QCOMPARE(d2.push(a0), std::string());
        QCOMPARE(d2.finish(), std::string("\xEF\xBF\xBD\xEF\xBF\xBD"));
        const std::vector<std::int32_t> seq{e0, a, e0, a0};
        QCOMPARE(tok.decode(seq), std::string("\xEF\xBF\xBD" "A\xEF\xBF\xBD\xEF\xBF\xBD"));
    }

    // Byte-level BPE splits CJK/emoji bytes across tokens: feed single-byte tokens one by one.
    void streaming_byte_level_split() {
        const auto tok = ft::Tokenizer::load(testdata("llama.cpp-vocab/ggml-vocab-gpt-2.gguf"));
        const std::string text = "\xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x91\x8D";  // 你好 👍
        std::vector<std::int32_t> ids;
        for (unsigned char c : text) {
            const std::string one(1, static_cast<char>(c));
            const auto enc = tok.encode(one);
            QCOMPARE(enc.size(), std::size_t(1));
            ids.push_back(enc[0]);
        }
        ft::StreamDecoder dec(tok);
        std::vector<std::string> parts;
        for (auto id : ids) parts.push_back(dec.push(id));
        const std::vector<std::string> want{"", "", "\xE4\xBD\xA0", "", "", "\xE5\xA5\xBD", " ", "", "", "", "\xF0\x9F\x91\x8D"};
        QCOMPARE(parts, want);
        QCOMPARE(dec.finish(), std::string());
    }

    void special_tokens_qwen3() {
        const auto tok = ft::Tokenizer::load(testdata("hf-tokenizers/qwen3"));
        const std::string text = "<|im_start|>user\nhi<|im_end|><think>x</think>";
        ft::EncodeOptions on;
        on.parse_special = true;
        const auto with = tok.encode(text, on);
        QCOMPARE(with.front(), 151644);
        QVERIFY(std::find(with.begin(), with.end(), 151645) != with.end());
        QVERIFY(std::find(with.begin(), with.end(), 151667) != with.end());  // <think> (added, not special)
        const auto without = tok.encode(text);
        QVERIFY(std::find(without.begin(), without.end(), 151644) == without.end());
        QVERIFY(std::find(without.begin(), without.end(), 151645) == without.end());
        // Non-special added tokens are matched either way (as HF does).
        QVERIFY(std::find(without.begin(), without.end(), 151667) != without.end());
        QCOMPARE(tok.decode(with), text);
        QCOMPARE(tok.decode(without), text);
        QCOMPARE(tok.decode(with, false), std::string("user\nhi<think>x</think>"));
        // Longest match first: a look-alike that is not a token stays text.
        const auto partial = tok.encode("<|im_start|<|im_end|>", on);
        QCOMPARE(partial.back(), 151645);
        QVERIFY(std::find(partial.begin(), partial.end(), 151644) == partial.end());
        QCOMPARE(tok.bos_id(), -1);
        QCOMPARE(tok.eos_text(), std::string("<|im_end|>"));
        QVERIFY(!tok.chat_template().empty());
        const auto& eog = tok.eog_ids();
        QVERIFY(std::find(eog.begin(), eog.end(), 151645) != eog.end());
        QVERIFY(std::find(eog.begin(), eog.end(), 151643) != eog.end());
    }

    void special_tokens_llama3_bos() {
        const auto tok = ft::Tokenizer::load(testdata("hf-tokenizers/llama3_1"));
        ft::EncodeOptions opt;
        opt.add_special = true;
        opt.parse_special = true;
        const auto ids = tok.encode("<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>", opt);
        QCOMPARE(ids.front(), 128000);
        QCOMPARE(ids[1], 128006);
        QCOMPARE(ids.back(), 128009);
        QVERIFY(tok.add_bos());
        QCOMPARE(tok.encode("Hi").front(), tok.find_token("Hi"));
    }

    void spm_bos_and_specials() {
        const auto tok = ft::Tokenizer::load(testdata("llama.cpp-vocab/ggml-vocab-llama-spm.gguf"));
        ft::EncodeOptions opt;
        opt.add_special = true;
        QCOMPARE(tok.encode("Hi", opt).front(), 1);
        opt.parse_special = true;
        const auto ids = tok.encode("</s>", opt);
        QCOMPARE(ids.back(), 2);
        QVERIFY(tok.encode("</s>").size() > 1);
    }

    void wpm_bert() {
        const auto tok = ft::Tokenizer::load(testdata("llama.cpp-vocab/ggml-vocab-bert-bge.gguf"));
        QCOMPARE(tok.model_name(), std::string_view("wpm"));
        ft::EncodeOptions opt;
        opt.add_special = true;
        const auto ids = tok.encode("Hello, World!", opt);
        QCOMPARE(ids, (std::vector<std::int32_t>{101, 7592, 1010, 2088, 999, 102}));  // [CLS] … [SEP]
        QCOMPARE(tok.decode(ids, false), std::string("hello , world !"));
    }

    void nfc() {
        auto n = [](const std::string& s) {
            std::string out;
            return ft::tok::nfc_normalize(s, out) ? out : s;
        };
        QCOMPARE(n("e\xCC\x81"), std::string("\xC3\xA9"));                    // e + acute → é
        QCOMPARE(n("\xE2\x84\xAB"), std::string("\xC3\x85"));                 // Å sign → Å
        QCOMPARE(n("\xE1\x84\x80\xE1\x85\xA1"), std::string("\xEA\xB0\x80")); // ᄀ + ᅡ → 가
        QCOMPARE(n("q\xCC\x87\xCC\xA3"), std::string("q\xCC\xA3\xCC\x87"));   // canonical reordering
        QCOMPARE(n("plain ascii"), std::string("plain ascii"));
        std::string out;
        QVERIFY(!ft::tok::nfc_normalize("d\xC3\xA9j\xC3\xA0 vu 日本", out));     // already NFC: fast path
    }

    void onig_whitespace() {
        QCOMPARE(ft::tok::onig_to_pcre2("\\s+(?!\\S)|[^\\s\\p{L}]"),
                 std::string("[\\t-\\r\\x{85}\\p{Z}]+(?![^\\t-\\r\\x{85}\\p{Z}])|[^\\t-\\r\\x{85}\\p{Z}\\p{L}]"));
    }

    // HF added tokens with lstrip/rstrip swallow the whitespace next to them.
    void added_token_strip() {
        const fs::path dir = fs::path(FT_BINARY_DIR) / "test-tokenizer-tmp";
        fs::create_directories(dir);
        const fs::path p = dir / "strip.tokenizer.json";
        std::ofstream(p, std::ios::binary)
            << "{\"added_tokens\": ["
               "{\"id\": 3, \"content\": \"<l>\", \"lstrip\": true, \"rstrip\": false, \"special\": true},"
               "{\"id\": 4, \"content\": \"<r>\", \"lstrip\": false, \"rstrip\": true, \"special\": false}],"
               "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \" \": 2}, \"merges\": []}}";
        const auto tok = ft::Tokenizer::load(p);
        ft::EncodeOptions on;
        on.parse_special = true;
        QCOMPARE(tok.encode("a  <l> b", on), (std::vector<std::int32_t>{0, 3, 2, 1}));
        QCOMPARE(tok.encode("a <r> \t b", on), (std::vector<std::int32_t>{0, 2, 4, 1}));
        QCOMPARE(tok.encode("a <l>", {}), (std::vector<std::int32_t>{0, 2}));  // control text unparsed: < l > unknown
    }

    void errors() {
        const fs::path dir = fs::path(FT_BINARY_DIR) / "test-tokenizer-tmp";
        fs::create_directories(dir);
        auto expect = [&](const std::string& body, ft::ErrorCode code) {
            const fs::path p = dir / "tokenizer.json";
            std::ofstream(p, std::ios::binary) << body;
            try {
                (void)ft::Tokenizer::load(p);
                QFAIL(("loaded without error: " + body).c_str());
            } catch (const ft::Error& e) {
                QCOMPARE(int(e.code()), int(code));
                QVERIFY(std::string(e.what()).find("tokenizer.json") != std::string::npos);
            }
        };
        expect("{ not json", ft::ErrorCode::invalid_file);
        expect("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}", ft::ErrorCode::unsupported);
        expect("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a b\"]}}", ft::ErrorCode::invalid_file);
        expect("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"x\"}, \"merges\": []}}", ft::ErrorCode::invalid_file);
        expect("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},\n"
                   "                   \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"(unclosed\"}, \"behavior\": \"Isolated\"}}",
               ft::ErrorCode::invalid_file);
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::Tokenizer::load(dir / "missing.json"));
        const auto tok = ft::Tokenizer::load(testdata("llama.cpp-vocab/ggml-vocab-gpt-2.gguf"));
        const std::vector<std::int32_t> bad{5, tok.vocab_size()};
        QVERIFY_THROWS_EXCEPTION(ft::Error, tok.decode(bad));
        // Invalid UTF-8 input is tokenized byte by byte, never a crash, and decodes back to U+FFFD.
        const auto ids = tok.encode("ok\xFF\xC3" "end");
        QVERIFY(!ids.empty());
        QCOMPARE(tok.decode(ids), std::string("ok\xEF\xBF\xBD\xEF\xBF\xBD" "end"));
        // GGUF vocabularies: unknown model / pre-tokenizer → unsupported; inconsistent tables → invalid_file.
        auto gguf_expect = [&](const std::string& model, const std::string& pre, std::size_t n_types,
                               ft::ErrorCode code) {
            const fs::path p = dir / "vocab.gguf";
            {
                ft::gguf::Writer w(p);
                w.set("general.architecture", ft::gguf::Value::string("llama"));
                w.set("tokenizer.ggml.model", ft::gguf::Value::string(model));
                if (!pre.empty()) w.set("tokenizer.ggml.pre", ft::gguf::Value::string(pre));
                w.set("tokenizer.ggml.tokens", ft::gguf::Value::string_array(std::vector<std::string>{"a", "b", "ab"}));
                std::vector<std::int32_t> types(n_types, 1);
                w.set("tokenizer.ggml.token_type", ft::gguf::Value::i32_array(types));
                w.set("tokenizer.ggml.merges", ft::gguf::Value::string_array(std::vector<std::string>{"a b"}));
                w.write_header();
                w.finish();
            }
            try {
                const auto t = ft::Tokenizer::load(p);
                if (code == ft::ErrorCode::internal) {  // "internal" here means: must load and work
                    QCOMPARE(t.encode("ab"), (std::vector<std::int32_t>{2}));
                    return;
                }
                QFAIL(("loaded: " + model + " / " + pre).c_str());
            } catch (const ft::Error& e) {
                QCOMPARE(int(e.code()), int(code));
                QVERIFY(std::string(e.what()).find("vocab.gguf") != std::string::npos);
            }
        };
        gguf_expect("gpt2", "gpt-2", 3, ft::ErrorCode::internal);
        gguf_expect("t5", "", 3, ft::ErrorCode::unsupported);
        gguf_expect("gpt2", "no-such-pre", 3, ft::ErrorCode::unsupported);
        gguf_expect("gpt2", "gpt-2", 2, ft::ErrorCode::invalid_file);
    }
};

FT_TEST_MAIN(TestTokenizerBasic)
#include "test_tokenizer_basic.moc"
