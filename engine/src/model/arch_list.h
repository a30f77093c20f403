// The architecture registry's one list: a line X(name) per architecture, in the order messages and `--help` list
// them. Each name is an ArchId enumerator (model_desc.h) and the entry `const Arch& name_arch()` (arch.h) that the
// architecture's folder under model/ defines: its names, hyper-parameter reading, tensor table, graph, conversion
// rules and synth presets. Adding an architecture is its folder and one line here.
#pragma once

#define FT_ARCHITECTURES(X) \
    X(qwen3_moe)            \
    X(qwen3)                \
    X(qwen3_5_moe)          \
    X(qwen3_5)              \
    X(qwen3_next)           \
    X(deepseek_v3)          \
    X(deepseek_v4)          \
    X(glm4_moe)             \
    X(glm_moe_dsa)          \
    X(minimax_m2)           \
    X(gpt_oss)
