#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "commands.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "ft/utf8.h"

namespace ft::cli {

const CommandSpec& spec_tokenize() {
    static const CommandSpec spec{
        "tokenize",
        "MODEL (--text T | --file F) [--json] [--parse-special] [--add-special] [--bench]",
        "print the token ids of a text",
        "Tokenizes text with the model's tokenizer (no BOS/EOS added unless --add-special; special-token text such "
        "as <|im_start|> is tokenized as plain text unless --parse-special). With --bench, encodes the text "
        "repeatedly on one thread for about --seconds and prints the speed in MB/s instead of the ids.",
        {
            {"text", "T", "text to tokenize", ""},
            {"file", "F", "file whose contents to tokenize", ""},
            {"json", "", "print a JSON array", ""},
            {"parse-special", "", "match special tokens written in the text", ""},
            {"add-special", "", "add BOS/EOS where the tokenizer asks for them", ""},
            {"pieces", "", "print each id with its token text", ""},
            {"bench", "", "measure encoding speed (MB/s, one thread)", ""},
            {"seconds", "S", "duration of --bench", "2"},
        },
        "MODEL  a GGUF file, a Hugging Face folder or a tokenizer.json",
    };
    return spec;
}

int run_tokenize(const Args& args) {
    if (args.positionals().size() != 1)
        throw Error(ErrorCode::invalid_argument, "tokenize needs exactly one MODEL", "ft tokenize MODEL --text T");
    if (args.has("text") == args.has("file"))
        throw Error(ErrorCode::invalid_argument, "give exactly one of --text and --file");
    std::string text;
    if (auto t = args.get("text")) {
        text = *t;
    } else {
        const std::string path = *args.get("file");
        std::ifstream f(path_from_utf8(path), std::ios::binary);
        if (!f) throw Error(ErrorCode::not_found, path + ": cannot open the file");
        text.assign(std::istreambuf_iterator<char>(f), {});
    }
    const auto load_start = std::chrono::steady_clock::now();
    const Tokenizer tok = Tokenizer::load(path_from_utf8(args.positionals()[0]));
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
    EncodeOptions opt;
    opt.parse_special = args.has("parse-special");
    opt.add_special = args.has("add-special");

    if (args.has("bench")) {
        const double seconds = args.get_double("seconds", 2.0);
        std::size_t n_tokens = tok.encode(text, opt).size();  // warm-up
        std::size_t runs = 0;
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpu_start = std::clock();
        double elapsed = 0;
        do {
            n_tokens = tok.encode(text, opt).size();
            ++runs;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } while (elapsed < seconds);
        // CPU time of this (single-threaded) process: steadier than wall time on a busy machine.
        const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        const double mb = static_cast<double>(text.size()) * static_cast<double>(runs) / 1e6;
        std::printf("%zu bytes -> %zu tokens (%.2f bytes/token); %zu runs: %.2f MB/s of CPU time (%.2f MB/s wall), "
                    "%.0f tokens/s (load %.2f s)\n",
                    text.size(), n_tokens, n_tokens ? static_cast<double>(text.size()) / static_cast<double>(n_tokens) : 0.0,
                    runs, mb / cpu, mb / elapsed, static_cast<double>(n_tokens * runs) / cpu, load_s);
        return 0;
    }

    const std::vector<std::int32_t> ids = tok.encode(text, opt);
    std::ostringstream out;
    if (args.has("pieces")) {
        for (std::int32_t id : ids) out << id << '\t' << tok.token_text(id) << '\n';
    } else if (args.has("json")) {
        out << '[';
        for (std::size_t i = 0; i < ids.size(); ++i) out << (i ? "," : "") << ids[i];
        out << "]\n";
    } else {
        for (std::size_t i = 0; i < ids.size(); ++i) out << (i ? " " : "") << ids[i];
        out << '\n';
    }
    std::fputs(out.str().c_str(), stdout);
    return 0;
}

}  // namespace ft::cli
