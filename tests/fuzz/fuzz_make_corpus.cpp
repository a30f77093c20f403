// Writes the generated seed inputs: fuzz_make_corpus OUT_DIR → OUT_DIR/gguf/*, OUT_DIR/safetensors/*,
// OUT_DIR/tool_parser/*, OUT_DIR/chat_template/*, OUT_DIR/tokenizer_json/*, OUT_DIR/request/*.
#include <cstdio>
#include <fstream>

#include "ft/error.h"
#include "fuzz_seeds.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_corpus OUT_DIR\n");
        return 2;
    }
    try {
        const std::filesystem::path out(argv[1]);
        std::filesystem::create_directories(out / "gguf");
        std::filesystem::create_directories(out / "safetensors");
        auto write = [](const std::filesystem::path& p, const std::vector<std::byte>& b) {
            std::ofstream f(p, std::ios::binary);
            f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        };
        for (const auto& s : ft::fuzz::gguf_seeds(out / "gguf")) write(out / "gguf" / s.name, s.bytes);
        for (const auto& s : ft::fuzz::safetensors_seeds()) write(out / "safetensors" / s.name, s.bytes);
        for (const char* sub : {"tool_parser", "chat_template", "tokenizer_json", "request"}) std::filesystem::create_directories(out / sub);
        for (const auto& s : ft::fuzz::tool_parser_seeds()) write(out / "tool_parser" / s.name, s.bytes);
        for (const auto& s : ft::fuzz::chat_template_seeds()) write(out / "chat_template" / s.name, s.bytes);
        for (const auto& s : ft::fuzz::tokenizer_json_seeds()) write(out / "tokenizer_json" / s.name, s.bytes);
        for (const auto& s : ft::fuzz::request_seeds()) write(out / "request" / s.name, s.bytes);
    } catch (const ft::Error& e) {
        std::fprintf(stderr, "fuzz_make_corpus: %s\n", e.what());
        return 1;
    }
    return 0;
}
