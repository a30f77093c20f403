// Live KV cache resize: a new cache of n_pages pages holding every live sequence of the old one under the same
// sequence id, with the same K/V contents (copied page by page through host memory, so the old cache is freed
// before the new one is allocated — the plan never counts two). On failure the old cache is rebuilt with its
// contents (kv holds it again) and the error rethrown.
#pragma once

#include <memory>

#include "kv/kv_cache.h"
#include "exec/runner.h"

namespace ft::sched {

void resize_kv(exec::Runner& runner, std::unique_ptr<kv::KvCache>& kv, std::int64_t n_pages);

}  // namespace ft::sched
