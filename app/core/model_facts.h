// ModelFacts: what the Models page shows about a model file or folder before it is loaded, read by the engine's
// inspector (the same code as `ft inspect`). Qt-free: the one place app/ reaches into the engine's internals for the
// library, so ui/ never does (tests/boundary). The fit verdict comes from the engine's public ft::predict_fit().
//
// Threading: pure functions of their inputs; callable from any thread. Errors: read_model_facts() never throws; a
// file the inspector refuses gives facts with `error` set (the ft::Error message and hint).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ft/message.h"


namespace ft {

struct ModelFacts {
    bool readable = false;            // the inspector could read it (else `error` says why)
    std::string error;
    Message error_key;                // the error as a key for the app's language (ft::Error::key()); may be empty
    std::string architecture;         // "qwen3_moe"; the file's own name when we do not describe it
    bool described = false;           // the engine knows this architecture's hyper-parameters
    bool runnable = false;            // the engine has a forward pass for it (can load it)
    std::string support_note;         // why it cannot run, when !runnable
    Message support_key;              // the same as a key for the app's language; may be empty
    std::string name;                 // general.name, if any
    std::string quant;                // dominant weight type of the routed experts ("Q4_K", "BF16"); "mixed" rare
    std::uint64_t total_params = 0, active_params = 0;
    std::uint64_t expert_pool_bytes = 0, non_expert_bytes = 0, bytes_per_expert = 0;
    std::uint64_t file_bytes = 0;     // size on disk (all parts / all files)
    std::uint32_t n_layer = 0, n_moe_layers = 0, n_expert = 0, n_expert_used = 0, n_embd = 0;
    std::uint32_t n_head_kv = 0, head_dim = 0;
    std::vector<std::filesystem::path> parts;  // a multi-part GGUF's files, in order (one entry otherwise)
};

// Inspects a .gguf file (the first part of a split model: its siblings are found and counted) or an HF folder.
ModelFacts read_model_facts(const std::filesystem::path& path);

// "name-00001-of-00003.gguf" → {"name", 1, 3}; false for any other name.
bool parse_split_gguf_name(const std::string& file_name, std::string& stem, int& part, int& count);

}  // namespace ft
