#include <cstdint>
#include <cstdio>
#include <string>

#include "commands.h"
#include "ft/error.h"
#include "ft/tokenizer.h"

namespace ft::cli {

const CommandSpec& spec_detokenize() {
    static const CommandSpec spec{
        "detokenize",
        "MODEL IDS... [--hide-special]",
        "print the text of token ids",
        "Turns token ids back into text. IDS may be separate arguments, or comma/space separated, or a JSON array "
        "(\"[1, 2, 3]\"). Special tokens are written as their text unless --hide-special.",
        {
            {"hide-special", "", "leave special (control) tokens out of the text", ""},
        },
        "MODEL IDS...  a model (as for tokenize), then token ids",
    };
    return spec;
}

int run_detokenize(const Args& args) {
    const auto& pos = args.positionals();
    if (pos.empty())
        throw Error(ErrorCode::invalid_argument, "detokenize needs a MODEL and token ids", "ft detokenize MODEL 1 2 3");
    std::vector<std::int32_t> ids;
    for (std::size_t i = 1; i < pos.size(); ++i) {
        std::string num;
        auto flush = [&] {
            if (num.empty()) return;
            std::size_t used = 0;
            long long v = -1;
            try {
                v = std::stoll(num, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != num.size() || v < 0 || v > INT32_MAX)
                throw Error(ErrorCode::invalid_argument, "\"" + num + "\" is not a token id");
            ids.push_back(static_cast<std::int32_t>(v));
            num.clear();
        };
        for (char c : pos[i]) {
            if (c == ',' || c == ' ' || c == '[' || c == ']' || c == '\n' || c == '\t') flush();
            else num += c;
        }
        flush();
    }
    const Tokenizer tok = Tokenizer::load(pos[0]);
    const std::string text = tok.decode(ids, !args.has("hide-special"));
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
    return 0;
}

}  // namespace ft::cli
