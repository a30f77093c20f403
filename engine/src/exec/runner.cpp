#include "exec/runner.h"

#include "model/block_needs.h"

namespace ft::exec {

kv::KvGeometry graph_kv_geometry(const ModelGraph& g, int page_size, std::int64_t n_pages, int elem_bytes, int state_slots) {
    kv::KvGeometry k;
    k.n_layer = g.n_kv_layers;
    k.n_head_kv = g.max_n_head_kv;
    k.head_dim = g.max_head_dim;
    k.v_head_dim = g.max_v_head_dim;
    k.page_size = page_size;
    k.n_pages = n_pages;
    k.elem_bytes = elem_bytes;
    k.n_rs_layer = g.n_rs_layers;
    k.rs_floats = g.rs_floats;
    k.rs_conv_floats = g.rs_conv_floats;
    k.rs_slots = g.n_rs_layers ? state_slots : 0;
    return k;
}

model::StepShape gpu_step_shape(const GpuRunnerOptions& o) {
    model::StepShape s;
    s.max_tokens = o.max_batch_tokens;
    s.max_sequences = o.max_sequences;
    s.n_ctx = o.n_ctx;
    s.page_size = o.plan.kv_page_size > 0 ? o.plan.kv_page_size : 16;
    s.bf16_rows = o.gemm == GemmPrecision::bf16;
    s.routing_trace = o.routing || o.record_routing;
    return s;
}

const char* moe_backend_name(MoeBackend b) {
    switch (b) {
        case MoeBackend::resident: return "resident";
        case MoeBackend::offload: return "offload";
        case MoeBackend::cpu: return "cpu";
        case MoeBackend::hybrid: return "hybrid";
        case MoeBackend::static_layers: return "static";
        case MoeBackend::automatic: return "auto";
    }
    return "?";
}

bool parse_moe_backend(const std::string& s, MoeBackend& out) {
    for (MoeBackend b : {MoeBackend::resident, MoeBackend::offload, MoeBackend::cpu, MoeBackend::hybrid,
                         MoeBackend::static_layers, MoeBackend::automatic})
        if (s == moe_backend_name(b)) {
            out = b;
            return true;
        }
    return false;
}

}  // namespace ft::exec
