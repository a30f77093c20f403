// One factory per format, each in its own tool_parser_<format>.cpp.
#pragma once

#include <memory>

#include "serve/tool_parser.h"

namespace ft::serve {

std::unique_ptr<ToolParser> make_qwen3_parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> make_qwen3_coder_parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> make_deepseek_parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> make_glm_parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> make_harmony_parser(const ToolParserOptions& options);

}  // namespace ft::serve
