// Live KV cache resize: a new cache of n_pages pages holding every live sequence of the old one under the same
// sequence id, with the same K/V contents (copied page by page through host memory, so the old cache is freed
// before the new one is allocated — the plan never counts two). On failure the old cache is rebuilt with its
// contents (kv holds it again) and the error rethrown.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "kv/kv_cache.h"
#include "exec/runner.h"

namespace ft::sched {

void resize_kv(exec::Runner& runner, std::unique_ptr<kv::KvCache>& kv, std::int64_t n_pages);

// The recurrent state of sequence `seq` in every linear-attention layer (kv.has_state()), copied out to host memory
// and back (a prefix checkpoint: restored into another sequence that shares the prefix's pages).
std::vector<std::byte> save_state(exec::Runner& runner, kv::KvCache& kv, int seq);
void restore_state(exec::Runner& runner, kv::KvCache& kv, int seq, const std::vector<std::byte>& state);

}  // namespace ft::sched
