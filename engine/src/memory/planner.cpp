#include "memory/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <spdlog/fmt/fmt.h>

#include "ft/error.h"
#include "exec/runner.h"
#include "memory/cpu_rate.h"
#include "model/arch.h"
#include "model/block_needs.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/weights.h"

namespace ft::memory {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr int kPage = 16;
constexpr std::int64_t kMinChunk = 256;
constexpr std::int64_t kGemvMaxM = model::kGemvMaxRows;  // decode batches use GEMV, no GEMM tiles

std::uint64_t a256(std::uint64_t b) { return std::max<std::uint64_t>(256, (b + 255) / 256 * 256); }

std::string_view resolve(const std::string& b) { return b.empty() ? std::string_view("auto") : std::string_view(b); }

}  // namespace

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / double(1ull << 30)); }

namespace {

// The weight bytes and what the planner and predictor derive from them.
void set_weight_bytes(ModelGeometry& g, std::uint64_t non_expert_bytes, std::uint64_t expert_pool_bytes) {
    g.non_expert_bytes = non_expert_bytes;
    g.expert_pool_bytes = expert_pool_bytes;
    const std::uint64_t n_slots_all = std::uint64_t(std::max(1, g.n_moe_layers * g.n_expert));
    const std::uint64_t per = expert_pool_bytes / n_slots_all;
    // Three matrices, each padded to 256 bytes in its bank.
    g.slot_bytes = per + 3 * 256;
    g.active_expert_bytes = per * std::uint64_t(g.n_expert_used) * std::uint64_t(g.n_moe_layers);
    // A decode token reads every non-expert matrix but the token embedding (one row of it): ≈ 85 % of them.
    g.active_other_bytes = non_expert_bytes / 100 * 85;
}

// The blocks' declared weights (model/block_needs.h graph_weights): what the GPU runner uploads.
void set_declared_weights(ModelGeometry& g, const model::WeightNeeds& n) {
    set_weight_bytes(g, n.resident, n.expert_pool());
    if (!n.experts.empty()) {
        g.slot_bytes = n.slot_bytes();
        g.active_expert_bytes = n.active_expert_bytes(g.n_expert_used);
    }
    g.declared_weights = true;
}

struct Shapes {
    std::unique_ptr<model::Weights> w;
    model::ModelGraph graph;
};

}  // namespace

namespace {

// types: the stored type of each tensor (nullptr: the byte counts given).
ModelGeometry make_geometry(const model::ModelDesc& d, std::uint64_t non_expert_bytes, std::uint64_t expert_pool_bytes,
                            const model::WeightTypes* types) {
    ModelGeometry g;
    g.n_layer = int(d.n_layer);
    g.n_moe_layers = int(d.n_moe_layers());
    g.n_expert = int(d.moe.n_expert);
    g.n_expert_used = int(d.moe.n_expert_used);
    g.n_embd = d.n_embd;
    g.n_head = d.attn.n_head;
    g.n_head_kv = d.attn.n_head_kv;
    g.head_dim = d.attn.head_dim;
    g.v_head_dim = d.attn.v_head_dim ? d.attn.v_head_dim : d.attn.head_dim;
    if (d.attn.is_mla()) {
        const std::int64_t H = d.attn.n_head, L = d.attn.kv_lora_rank, R = d.attn.qk_rope_head_dim,
                           QD = d.attn.qk_nope_head_dim + R;
        g.n_head_kv = 1;
        g.head_dim = L + R;
        g.v_head_dim = std::int64_t(d.attn.index_head_dim);  // the V rows hold the sparse indexer's keys (if any)
        const double E = double(d.n_embd), QL = double(d.attn.q_lora_rank), nope = double(d.attn.qk_nope_head_dim),
                     V = double(d.attn.v_head_dim);
        g.attn_params_per_layer = (QL > 0 ? E * QL + QL * double(H * QD) : E * double(H * QD)) + E * double(L + R) +
                                  double(H) * double(L) * (nope + V) + double(H) * V * E;
        if (d.attn.has_indexer()) {  // q_b, k (+ its LayerNorm), the per-head weights
            const double IH = double(d.attn.index_n_heads), ID = double(d.attn.index_head_dim);
            g.attn_params_per_layer += QL * IH * ID + E * ID + 2 * ID + E * IH;
        }
    } else {
        g.attn_params_per_layer =
            double(g.n_embd) * double((d.attn.output_gate ? 3 : 2) * g.n_head * g.head_dim + g.n_head_kv * (g.head_dim + g.v_head_dim));
    }
    g.n_kv_layers = g.n_layer;
    if (d.linear.any()) {
        const auto& la = d.linear;
        g.n_rs_layers = int(la.n_linear());
        g.n_kv_layers = g.n_layer - g.n_rs_layers;
        g.linear_params_per_layer = double(g.n_embd) * double(la.conv_dim() + 2 * la.value_dim() + 2 * la.n_v_heads);
    }
    if (d.v4.any()) {
        // DeepSeek-V4 (model/graph.h CompressedAttentionBlock): every layer keeps one cache row per position of
        // [kv | entry | index key]; the compressed layers a window ring per sequence (the recurrent-state pool).
        const auto& v = d.v4;
        const std::int64_t D = d.attn.head_dim, Di = v.index_head_dim, H = d.attn.n_head, QL = d.attn.q_lora_rank;
        bool csa = false, hca = false;
        for (auto k : v.layers) csa = csa || k == model::V4LayerKind::csa, hca = hca || k == model::V4LayerKind::hca;
        g.n_head_kv = 1;
        g.head_dim = 2 * D + (csa ? Di : 0);
        g.v_head_dim = 0;
        g.n_kv_layers = g.n_layer;
        g.n_rs_layers = int(v.n_compressed());
        g.attended_rows = std::int64_t(d.attn.sliding_window) + (csa ? v.index_topk : 4096 / std::max<std::int64_t>(1, v.hca_ratio));
        g.attended_row_width = D;
        const double E = double(d.n_embd);
        g.attn_params_per_layer = E * double(QL) + double(QL) * double(H * D) + E * double(D) +
                                  double(H * D) * double(v.o_lora_rank) + double(v.o_groups * v.o_lora_rank) * E +
                                  (csa ? E * double(4 * D + 4 * Di) + double(QL) * double(v.index_n_heads * Di) : E * double(2 * D));
    }
    g.n_vocab = d.n_vocab;
    g.n_ff_exp = d.moe.n_ff_exp;
    // The widest dense FFN a block runs: the dense layers' (if any) or the shared experts' (their scratch is shared).
    g.n_ff = std::max<std::int64_t>(g.n_layer > g.n_moe_layers ? std::int64_t(d.n_ff) : 0, std::int64_t(d.moe.n_ff_shexp));
    set_weight_bytes(g, non_expert_bytes, expert_pool_bytes);
    // The blocks, from the description's tensor table: what the scratch, KV and state sizes are read from.
    auto shapes = std::make_shared<Shapes>();
    shapes->w = model::Weights::shapes(d);
    shapes->graph = model::build_graph(*shapes->w);
    g.graph = std::shared_ptr<const model::ModelGraph>(shapes, &shapes->graph);
    g.n_kv_layers = shapes->graph.n_kv_layers;
    g.n_rs_layers = shapes->graph.n_rs_layers;
    if (types) {
        const model::WeightNeeds n = model::graph_weights(shapes->graph, *shapes->w, types);
        if (n.untyped.empty()) set_declared_weights(g, n);
    }
    return g;
}

}  // namespace

ModelGeometry geometry_of(const model::ModelDesc& d, std::uint64_t non_expert_bytes, std::uint64_t expert_pool_bytes) {
    return make_geometry(d, non_expert_bytes, expert_pool_bytes, nullptr);
}

model::WeightTypes weight_types(const model::ModelDesc& d, std::span<const model::TensorStat> stats) {
    std::map<std::string_view, kernels::DType> listed;
    for (const auto& t : stats) listed.emplace(t.name, t.type);
    auto find = [&](const std::string& n) -> const kernels::DType* {
        if (auto it = listed.find(n); it != listed.end()) return &it->second;
        if (n.starts_with("model."))  // Qwen3.5's checkpoints: under the multimodal wrapper's name
            if (auto it = listed.find("model.language_model." + n.substr(6)); it != listed.end()) return &it->second;
        return nullptr;
    };
    model::WeightTypes types;
    for (const model::TensorSpec& s : model::arch_tensors(d)) {
        if (s.unused) continue;
        const kernels::DType* t = find(s.name);
        for (std::size_t i = 0; !t && i < s.hf_names.size(); ++i) t = find(s.hf_names[i]);
        if (!t && !s.hf_fused.empty()) t = find(s.hf_fused);
        if (t) types.by_name.emplace(s.name, *t);
    }
    return types;
}

ModelGeometry geometry_of(const model::Weights& w) {
    ModelGeometry g = geometry_of(w.desc(), 0, 0);
    set_declared_weights(g, model::graph_weights(model::build_graph(w), w));
    return g;
}

ModelGeometry geometry_of(const model::ModelDesc& d, const model::WeightTypes& types, std::uint64_t non_expert_bytes,
                          std::uint64_t expert_pool_bytes) {
    return make_geometry(d, non_expert_bytes, expert_pool_bytes, &types);
}

int kv_bytes_per_element(const ModelGeometry& g, bool kv_f16) { return model::kv_elem_bytes(*g.graph, kv_f16); }

std::uint64_t kv_bytes_per_token(const ModelGeometry& g, bool kv_f16) {
    return exec::graph_kv_geometry(*g.graph, 1, 1, kv_bytes_per_element(g, kv_f16), 0).bytes();
}

std::uint64_t state_bytes(const ModelGeometry& g, int max_sequences) {
    // KvCache: one pool per recurrent-state layer of state_slots sequences, each allocated on its own.
    const kv::KvGeometry k = exec::graph_kv_geometry(*g.graph, 1, 1, 4, exec::state_slots(max_sequences));
    return k.rs_layer_bytes() ? std::uint64_t(k.n_rs_layer) * a256(k.rs_layer_bytes()) : 0;
}

model::StepShape plan_step_shape(std::int64_t max_tokens, int max_sequences, int n_ctx, bool exact_prefill) {
    model::StepShape s;
    s.max_tokens = max_tokens;
    s.max_sequences = max_sequences;
    s.n_ctx = n_ctx;
    s.page_size = kPage;
    s.bf16_rows = !exact_prefill;
    return s;
}

std::uint64_t offload_table_bytes(const ModelGeometry& g) {
    // Expert cache tables, counters, control, plan, source tables (ExpertOffload).
    const std::uint64_t NE = std::uint64_t(g.n_expert), K = std::uint64_t(g.n_expert_used);
    const std::uint64_t flat = std::uint64_t(g.n_layer) * NE;
    std::uint64_t s = a256(flat * 16 + std::uint64_t(g.n_moe_layers) * NE * 12);  // residency + 64-bit recency + uses; owner + usage
    s += a256(std::uint64_t(g.n_layer) * 64) + 256;
    s += a256(256 + std::uint64_t(kGemvMaxM) * K * (8 + 32));
    s += 3 * a256(flat * 8);
    return s;
}

std::uint64_t scratch_bytes(const ModelGeometry& g, std::int64_t T, int max_sequences, int n_ctx, bool exact_prefill,
                            bool offload) {
    const model::ScratchNeeds n = model::graph_needs(*g.graph, plan_step_shape(T, max_sequences, n_ctx, exact_prefill));
    return n.total() + (offload ? offload_table_bytes(g) : 0);
}

std::uint64_t cublas_bytes(const ModelGeometry& g, std::int64_t T, bool exact_prefill) {
    const std::uint64_t elem = exact_prefill ? 4 : 2;
    std::uint64_t b = a256((std::uint64_t(32) << 20) * elem);  // GEMM weight tile (gpu::Linear)
    const std::uint64_t max_k = std::uint64_t(model::graph_needs(*g.graph, plan_step_shape(T, 1, 16, exact_prefill)).gemm_k);
    if (!exact_prefill && T > kGemvMaxM) b += a256(std::uint64_t(T) * max_k * 2);  // activations in BF16
    return b + 32 * kMiB;  // cuBLAS's own workspace (allocated by the library, outside our counters)
}

MemoryPlan plan_memory(const ModelGeometry& g, const PlanRequest& r) {
    if (!g.graph)
        throw Error(ErrorCode::internal, "a model geometry without its graph reached the planner (build it with geometry_of)");
    if (r.n_ctx < 16 || r.max_sequences < 1 || r.prefill_chunk < 1)
        throw Error(ErrorCode::invalid_argument, "context, sequences and prefill chunk must be positive");
    if (!(r.memory_ratio > 0.05 && r.memory_ratio <= 1.0))
        throw Error(ErrorCode::invalid_argument, fmt::format("memory ratio {} is outside (0.05, 1]", r.memory_ratio));
    MemoryPlan p;
    p.gpu = true;
    p.device_total = r.device_total;
    p.device_free = r.device_free;
    p.n_ctx = r.n_ctx;
    p.max_sequences = r.max_sequences;
    p.kv_bytes_per_element = kv_bytes_per_element(g, r.kv_f16);
    p.kv_page_size = kPage;
    p.kv_bytes_per_token = kv_bytes_per_token(g, r.kv_f16);
    p.expert_slot_bytes = g.slot_bytes;
    p.expert_slots_total = g.n_moe_layers * g.n_expert;
    std::uint64_t budget = r.vram_budget;
    if (budget == 0) budget = std::uint64_t(r.memory_ratio * double(r.device_free));
    if (r.device_free && budget > r.device_free) {
        p.notes.push_back(fmt::format("VRAM budget {} is more than the {} free: using {:.0f} % of what is free",
                                      gib(double(budget)), gib(double(r.device_free)), r.memory_ratio * 100));
        budget = std::uint64_t(r.memory_ratio * double(r.device_free));
    }
    p.budget = budget;

    const std::int64_t kv_full = std::int64_t(r.n_ctx) * r.max_sequences;  // every sequence at full context
    const std::int64_t kv_min = std::min<std::int64_t>(r.n_ctx, kv_full);  // one request at full context
    const std::int64_t kv_floor = std::clamp<std::int64_t>(r.kv_reserve_tokens, kv_min, kv_full);
    auto pages_of = [](std::int64_t tokens) { return (tokens + kPage - 1) / kPage * kPage; };
    const std::uint64_t kvt = p.kv_bytes_per_token;
    p.graphs = 8 * kMiB * std::uint64_t(r.max_sequences);
    p.reserve = std::max<std::uint64_t>(64 * kMiB, budget / 100);
    p.state = state_bytes(g, r.max_sequences);

    std::string backend(resolve(r.backend));
    if (g.n_moe_layers == 0 && backend != "resident") {
        // A dense model (no MoE block) has no experts for a backend to place: all its weights are resident.
        if (backend != "auto")
            p.notes.push_back(fmt::format("MoE backend {}: the model has no MoE block, so every weight stays on the GPU "
                                          "(resident)", backend));
        backend = "resident";
    }
    const bool static_b = backend == "static";
    const std::uint64_t min_slots_b = static_b ? 0 : std::uint64_t(g.n_expert);
    auto fixed_at = [&](std::int64_t chunk, bool offload) {
        const std::int64_t T = chunk + r.max_sequences;
        return scratch_bytes(g, T, r.max_sequences, r.n_ctx, r.exact_prefill, offload) + cublas_bytes(g, T, r.exact_prefill) +
               p.graphs + p.reserve + p.state;
    };
    // The smallest budget that works: the smallest chunk, one context of KV, one layer's experts.
    const std::uint64_t need_min = g.non_expert_bytes + fixed_at(kMinChunk, true) + std::uint64_t(pages_of(kv_min)) * kvt +
                                   min_slots_b * g.slot_bytes;

    if (backend == "auto") {
        const std::uint64_t resident_need = g.non_expert_bytes + g.expert_pool_bytes +
                                            fixed_at(std::min<std::int64_t>(r.prefill_chunk, 8192), false) +
                                            std::uint64_t(pages_of(kv_floor)) * kvt;
        backend = resident_need <= budget ? "resident" : r.cpu_pays ? "hybrid" : "offload";
        p.notes.push_back(fmt::format("MoE backend auto: {} (everything on the GPU needs {}, the budget is {})", backend,
                                      gib(double(resident_need)), gib(double(budget))));
    }
    p.backend = backend;
    const bool resident = backend == "resident";
    p.weights = g.non_expert_bytes + (resident ? g.expert_pool_bytes : 0);

    // Prefill chunk: the requested one, halved while its scratch would take more than 15 % of the budget (small
    // budgets: the expert cache buys more speed than a big chunk), never below kMinChunk.
    std::int64_t chunk = std::max<std::int64_t>(1, r.prefill_chunk);
    while (chunk > kMinChunk && fixed_at(chunk, !resident) - p.graphs - p.reserve - p.state > budget * 15 / 100) chunk /= 2;
    chunk = std::max<std::int64_t>(std::min<std::int64_t>(chunk, r.prefill_chunk), 1);
    if (chunk != r.prefill_chunk)
        p.notes.push_back(fmt::format("prefill chunk {} → {} to fit the {} budget", r.prefill_chunk, chunk, gib(double(budget))));
    p.prefill_chunk = int(chunk);
    const std::int64_t T = chunk + r.max_sequences;
    p.scratch = scratch_bytes(g, T, r.max_sequences, r.n_ctx, r.exact_prefill, !resident);
    p.cublas = cublas_bytes(g, T, r.exact_prefill);
    const std::uint64_t fixed = p.weights + p.state + p.scratch + p.cublas + p.graphs + p.reserve;
    if (fixed + std::uint64_t(pages_of(kv_min)) * kvt + min_slots_b * g.slot_bytes > budget) {
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("a VRAM budget of {} is too small for this model with the {} backend: it needs at least {} "
                                "(non-expert weights {}, KV for one {}-token context {}, {} expert slots {}, scratch {})",
                                gib(double(budget)), backend, gib(double(resident ? fixed + pages_of(kv_min) * kvt : need_min)),
                                gib(double(p.weights)), r.n_ctx, gib(double(pages_of(kv_min) * kvt)), min_slots_b,
                                gib(double(min_slots_b * g.slot_bytes)), gib(double(fixed - p.weights))),
                    "raise --vram-budget to at least that, lower --ctx or --max-seqs, or use --device cpu")
            .keyed("vram_too_small", {gib(double(budget)), backend, gib(double(resident ? fixed + pages_of(kv_min) * kvt : need_min))});
    }
    const std::uint64_t avail = budget - fixed;  // for KV + experts

    // Expert cache first (beyond the KV floor), then KV takes the rest up to every sequence at full context.
    std::int64_t slots = 0;
    const std::int64_t all = std::int64_t(g.n_moe_layers) * g.n_expert;
    if (!resident) {
        const std::uint64_t kv_keep = std::uint64_t(pages_of(r.kv_tokens > 0 ? r.kv_tokens : kv_floor)) * kvt;
        const std::int64_t fit = avail > kv_keep ? std::int64_t((avail - kv_keep) / g.slot_bytes) : 0;
        slots = std::min<std::int64_t>(fit, all);
        if (backend == "cpu") slots = std::min<std::int64_t>(slots, 2 * std::int64_t(g.n_expert));
        if (backend == "static") slots = slots / g.n_expert * g.n_expert;
        if (r.expert_slots > 0) {
            if (r.expert_slots > all)
                throw Error(ErrorCode::invalid_argument,
                            fmt::format("{} expert slots asked for; the model has {} experts in all", r.expert_slots, all));
            if (r.expert_slots < std::int64_t(min_slots_b))
                throw Error(ErrorCode::invalid_argument,
                            fmt::format("{} expert slots asked for; the {} backend needs at least one layer's {} experts",
                                        r.expert_slots, backend, g.n_expert),
                            fmt::format("ask for at least {} slots", g.n_expert));
            slots = r.expert_slots;
        }
        if (slots < std::int64_t(min_slots_b)) slots = std::int64_t(min_slots_b);
    }
    p.expert_slots = int(slots);
    p.experts = std::uint64_t(slots) * g.slot_bytes;
    if (p.experts > avail)
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("{} expert slots need {} but the budget leaves {} beside the weights and scratch", slots,
                                gib(double(p.experts)), gib(double(avail))),
                    "ask for fewer slots or raise --vram-budget")
            .keyed("vram_slots_over", {std::to_string(slots), gib(double(p.experts)), gib(double(avail))});
    const std::int64_t kv_fit = std::int64_t((avail - p.experts) / std::max<std::uint64_t>(1, kvt)) / kPage * kPage;
    std::int64_t kv_tokens = std::min<std::int64_t>(kv_fit, pages_of(kv_full));
    if (r.kv_tokens > 0) {
        if (pages_of(r.kv_tokens) > kv_fit)
            throw Error(ErrorCode::out_of_memory,
                        fmt::format("{} KV positions need {}; the budget leaves {} beside the weights, scratch and {} expert slots",
                                    r.kv_tokens, gib(double(pages_of(r.kv_tokens) * kvt)), gib(double(avail - p.experts)), slots),
                        "ask for fewer positions or raise --vram-budget")
                .keyed("vram_kv_over", {std::to_string(r.kv_tokens), gib(double(pages_of(r.kv_tokens) * kvt)), gib(double(avail - p.experts))});
        kv_tokens = pages_of(r.kv_tokens);
    }
    if (kv_tokens < kv_min)
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("the KV cache would hold {} positions, less than one {}-token context", kv_tokens, r.n_ctx),
                    fmt::format("raise --vram-budget to at least {}, or lower --ctx", gib(double(need_min))))
            .keyed("vram_kv_below_context", {std::to_string(kv_tokens), std::to_string(r.n_ctx), gib(double(need_min))});
    p.kv_tokens = kv_tokens;
    p.kv = std::uint64_t(kv_tokens) * kvt;
    p.prefill_overlap = !resident && slots >= 2 * std::int64_t(g.n_expert);

    // Slider limits: the rest of the plan fixed.
    p.min_kv_tokens = kv_min;
    p.max_kv_tokens = std::min<std::int64_t>(pages_of(kv_full),
                                             std::int64_t((avail - std::min<std::uint64_t>(avail, min_slots_b * g.slot_bytes)) / kvt) /
                                                 kPage * kPage);
    if (resident || backend == "static" || backend == "cpu") {
        p.min_expert_slots = p.max_expert_slots = p.expert_slots;  // fixed by the backend
    } else {
        p.min_expert_slots = g.n_expert;
        const std::uint64_t kv_min_b = std::uint64_t(pages_of(kv_min)) * kvt;
        p.max_expert_slots = int(std::min<std::int64_t>(all, std::int64_t((avail - std::min(avail, kv_min_b)) / g.slot_bytes)));
    }
    return p;
}

RebuildCheck check_rebuild(const ModelGeometry& g, const MemoryPlan& cur, const CacheRequest& req,
                           std::int64_t running_kv_tokens) {
    RebuildCheck c;
    c.plan = cur;
    MemoryPlan& p = c.plan;
    const std::int64_t kv = req.kv_tokens < 0 ? cur.kv_tokens : (req.kv_tokens + cur.kv_page_size - 1) / cur.kv_page_size * cur.kv_page_size;
    const int slots = req.expert_slots < 0 ? cur.expert_slots : req.expert_slots;
    auto fail = [&](std::string why, std::string key, std::vector<std::string> args = {}) {
        c.ok = false;
        c.reason = std::move(why);
        c.reason_key = Message{std::move(key), std::move(args)};
        c.plan = cur;
        return c;
    };
    const auto str = [](auto v) { return std::to_string(v); };
    if (req.kv_tokens == 0) return fail("a KV cache of 0 positions cannot serve", "kv_zero");
    if (kv < cur.n_ctx && kv < std::int64_t(cur.n_ctx) * cur.max_sequences)
        return fail(fmt::format("{} KV positions are less than one {}-token context", kv, cur.n_ctx), "kv_below_context",
                    {str(kv), str(cur.n_ctx)});
    if (req.kv_tokens > 0 && kv > cur.max_kv_tokens)
        return fail(fmt::format("{} KV positions are more than the {} this plan allows", kv, cur.max_kv_tokens),
                    "kv_above_plan", {str(kv), str(cur.max_kv_tokens)});
    if (kv < running_kv_tokens)
        return fail(fmt::format("{} KV positions are fewer than the {} the running requests hold", kv, running_kv_tokens),
                    "kv_below_running", {str(kv), str(running_kv_tokens)});
    if (slots != cur.expert_slots) {
        if (!cur.gpu) return fail("the CPU engine has no expert cache to resize", "cpu_no_expert_cache");
        if (cur.backend == "resident" || cur.backend == "static" || cur.backend == "cpu")
            return fail(fmt::format("the {} backend's expert cache cannot be resized", cur.backend), "backend_fixed_cache",
                        {cur.backend});
        if (slots < g.n_expert)
            return fail(fmt::format("{} expert slots are fewer than one layer's {} experts", slots, g.n_expert),
                        "slots_below_layer", {str(slots), str(g.n_expert)});
        if (slots > cur.expert_slots_total)
            return fail(fmt::format("{} expert slots are more than the model's {} experts", slots, cur.expert_slots_total),
                        "slots_above_total", {str(slots), str(cur.expert_slots_total)});
    }
    if (cur.gpu) {
        const std::uint64_t fixed = cur.weights + cur.state + cur.scratch + cur.cublas + cur.graphs + cur.reserve;
        const std::uint64_t need = fixed + std::uint64_t(slots) * cur.expert_slot_bytes + std::uint64_t(kv) * cur.kv_bytes_per_token;
        if (need > cur.budget) {
            const std::string slots_b = gib(double(slots) * double(cur.expert_slot_bytes)),
                              kv_b = gib(double(kv) * double(cur.kv_bytes_per_token)), need_b = gib(double(need)),
                              budget_b = gib(double(cur.budget));
            return fail(fmt::format("{} expert slots ({}) and {} KV positions ({}) need {} with the rest of the plan; the budget is {}",
                                    slots, slots_b, kv, kv_b, need_b, budget_b),
                        "over_budget", {str(slots), slots_b, str(kv), kv_b, need_b, budget_b});
        }
    }
    p.expert_slots = slots;
    p.experts = std::uint64_t(slots) * cur.expert_slot_bytes;
    p.kv_tokens = kv;
    p.kv = std::uint64_t(kv) * cur.kv_bytes_per_token;
    p.prefill_overlap = cur.gpu && cur.backend != "resident" && slots >= 2 * g.n_expert;
    if (cur.gpu && cur.backend != "resident" && cur.backend != "static" && cur.backend != "cpu") {
        const std::uint64_t fixed = cur.weights + cur.state + cur.scratch + cur.cublas + cur.graphs + cur.reserve;
        const std::uint64_t avail = cur.budget > fixed ? cur.budget - fixed : 0;
        p.max_expert_slots = int(std::min<std::uint64_t>(std::uint64_t(cur.expert_slots_total),
                                                         (avail - std::min(avail, std::uint64_t(cur.min_kv_tokens) * cur.kv_bytes_per_token)) /
                                                             cur.expert_slot_bytes));
    }
    c.ok = true;
    return c;
}

double lru_miss_rate(double c) {
    // The global LRU's decode miss rate at cache fraction c (slots / all experts), interpolated in log space between
    // published and measured points: 34 % at 13.4 % ("Cacheable by Design?", LRU on Qwen-class routing), 16 % at 37 %
    // (the FreeToken paper's Figure 4b), and this engine's synthetic zipf/reuse routing on the H200 (33 % at 12 %,
    // 17.5 % at 36 %, 12 % at 59 %, 10 % at 78 %). Routing repeats from token to token, so misses fall far faster
    // than 1 − c at first and slowly after.
    static constexpr double kC[] = {0.0, 0.05, 0.134, 0.37, 0.6, 0.8, 0.95, 1.0};
    static constexpr double kMiss[] = {1.0, 0.55, 0.34, 0.16, 0.11, 0.085, 0.04, 0.0};
    c = std::clamp(c, 0.0, 1.0);
    if (c >= 1.0) return 0.0;
    std::size_t i = 1;
    while (kC[i] < c) ++i;
    const double t = (c - kC[i - 1]) / (kC[i] - kC[i - 1]);
    if (kMiss[i] <= 0) return kMiss[i - 1] * (1 - t);
    return std::exp(std::log(kMiss[i - 1]) + t * (std::log(kMiss[i]) - std::log(kMiss[i - 1])));
}

FitPrediction predict_fit(const ModelGeometry& g, const MachineProfile& pc, const PlanRequest& r) {
    FitPrediction f;
    const std::uint64_t model_bytes = g.non_expert_bytes + g.expert_pool_bytes;
    // Host RAM: the mapped file (experts + the rest, which the page cache also holds) plus ~1 GiB of runtime.
    f.ram_needed = model_bytes + (1ull << 30);
    const CpuExpertRate cpu_rate = cpu_expert_rate(g, pc);  // B_C for these expert types (memory/cpu_rate.h)
    f.cpu_expert_gbps = cpu_rate.gbps;
    f.cpu_expert_rate_source = cpu_rate.source;
    const double bp = pc.pcie_gbps > 0 ? pc.pcie_gbps : 25.0, bc = cpu_rate.gbps;
    const double step_overhead_s = 70e-6 * double(g.n_layer);  // launches, sync, attention at batch 1 (H200: ≈ 74 µs/layer)
    if (pc.ram_bytes && f.ram_needed > pc.ram_bytes) {
        f.verdict = "no_fit";
        f.reason = fmt::format("needs about {} of RAM for the weights; this PC has {}", gib(double(f.ram_needed)),
                               gib(double(pc.ram_bytes)));
        f.reason_key = Message{"fit_no_ram", {gib(double(f.ram_needed)), gib(double(pc.ram_bytes))}};
        f.summary = "does not fit in RAM";
        return f;
    }
    auto cpu_only = [&](std::string why, Message key) {
        f.verdict = "cpu";
        f.backend = "cpu";
        f.reason = std::move(why);
        f.reason_key = std::move(key);
        // Every token reads its experts and the non-expert weights from host memory: the experts at their types' rate,
        // the rest at Q4_K's (its types are not counted; most files keep the matrices in an int8-path type).
        const double t = double(g.active_expert_bytes) / (bc * 1e9) +
                         double(g.active_other_bytes) / (bc / cpu_rate.factor * 1e9) + step_overhead_s;
        f.decode_tok_s_high = 1.0 / t;
        f.decode_tok_s_low = 0.7 / t;
        f.prefill_tok_s = 0;  // not predicted for the CPU (compute-bound; depends on the ISA)
        f.summary = fmt::format("CPU only, about {:.0f}–{:.0f} tok/s", f.decode_tok_s_low, f.decode_tok_s_high);
        return f;
    };
    if (pc.vram_bytes == 0) return cpu_only("no usable GPU", Message{"fit_no_gpu", {}});
    PlanRequest q = r;
    q.device_free = q.device_total = pc.vram_bytes;
    q.vram_budget = pc.vram_bytes;
    q.cpu_pays = bc > 1.5 * bp;
    try {
        f.plan = plan_memory(g, q);
    } catch (const Error& e) {
        return cpu_only(e.message(), e.key());  // the VRAM too small for the smallest plan: "vram_too_small" …
    }
    f.backend = f.plan.backend;
    f.vram_needed_min = g.non_expert_bytes + f.plan.state + f.plan.scratch + f.plan.cublas + f.plan.graphs + f.plan.reserve +
                        std::uint64_t(std::min<std::int64_t>(r.n_ctx, f.plan.kv_tokens)) * f.plan.kv_bytes_per_token +
                        std::uint64_t(g.n_expert) * g.slot_bytes;
    const double gpu_bw = (pc.gpu_mem_gbps > 0 ? pc.gpu_mem_gbps : 400.0) * 1e9;
    // The resident part of a step: the bytes one token reads at ~60 % of the GPU's bandwidth, plus per-layer overhead.
    auto resident_step = [&](double expert_bytes) {
        return (double(g.active_other_bytes) + expert_bytes) / (0.6 * gpu_bw) + step_overhead_s;
    };
    // Prefill of an 8k-token prompt: 2 FLOPs per active weight plus attention (QK and PV) over 4k positions on
    // average, at the rate this engine reaches — measured on the H200 (sm_90, 132 SMs): 79 TFLOP/s on the 30B-A3B shape, ≈ 8 % of the
    // tensor cores' dense BF16 peak; other GPUs at the same share of their per-SM peak.
    const double active_params = 3.0 * double(g.n_embd) * double(g.n_ff_exp) * double(g.n_expert_used) * double(g.n_moe_layers) +
                                 double(g.n_kv_layers ? g.n_kv_layers : g.n_layer) * g.attn_params_per_layer +
                                 double(g.n_rs_layers) * g.linear_params_per_layer +
                                 double(g.n_layer - g.n_moe_layers) * 3.0 * double(g.n_embd) * double(g.n_ff);
    // Compressed attention attends a window and the picked entries (rows that are key and value), not 4k positions.
    const double attn_per_head = g.attended_rows ? 2.0 * double(g.attended_row_width) * double(g.attended_rows)
                                               : double(g.head_dim + g.v_head_dim) * 4096.0;
    const double prefill_flops_per_token =
        2.0 * active_params + 2.0 * double(g.n_kv_layers ? g.n_kv_layers : g.n_layer) * double(g.n_head) * attn_per_head;
    const int sms = pc.gpu_sms > 0 ? pc.gpu_sms : 40;
    const double peak_per_sm = pc.gpu_cc >= 100 ? 15e12 : pc.gpu_cc >= 90 ? 7.5e12 : pc.gpu_cc >= 89 ? 1.3e12
                               : pc.gpu_cc >= 80 ? 0.9e12 : 0.5e12;  // dense BF16 tensor FLOP/s per SM, by generation
    const double gpu_flops = 0.08 * peak_per_sm * double(sms);
    if (f.plan.backend == "resident") {
        f.verdict = "gpu";
        f.cache_fraction = 1;
        const double t = resident_step(double(g.active_expert_bytes));
        f.decode_tok_s_high = 1.0 / t;
        f.decode_tok_s_low = 0.8 / t;
        f.prefill_tok_s = gpu_flops / prefill_flops_per_token;
        f.summary = fmt::format("runs on the GPU, about {:.0f}–{:.0f} tok/s", f.decode_tok_s_low, f.decode_tok_s_high);
        return f;
    }
    f.verdict = "hybrid";
    const double c = double(f.plan.expert_slots) / double(std::max(1, f.plan.expert_slots_total));
    f.cache_fraction = c;
    f.miss_rate = lru_miss_rate(c);
    auto tok_s = [&](double miss) {
        const double miss_bytes = miss * double(g.active_expert_bytes);
        const double link = f.plan.backend == "hybrid" ? (bp + bc) * 1e9 : f.plan.backend == "cpu" ? bc * 1e9 : bp * 1e9;
        return 1.0 / (resident_step((1 - miss) * double(g.active_expert_bytes)) + miss_bytes / link);
    };
    // The band: routing with 25 % fewer or more misses than the curve (models and workloads differ).
    f.decode_tok_s_high = tok_s(0.75 * f.miss_rate);
    f.decode_tok_s_low = tok_s(std::min(1.0, 1.25 * f.miss_rate));
    // Prefill streams the whole expert pool over PCIe once per chunk while the chunk computes; the overlap is not
    // perfect (measured on the H200: a quarter of the shorter side shows).
    const double chunk = double(f.plan.prefill_chunk);
    const double t_pcie = double(g.expert_pool_bytes) / (bp * 1e9);
    const double t_compute = chunk * prefill_flops_per_token / gpu_flops;
    const double t_chunk = std::max(t_pcie, t_compute) + 0.25 * std::min(t_pcie, t_compute);
    f.prefill_tok_s = chunk / t_chunk;
    f.summary = fmt::format("runs on the GPU with experts from RAM ({} backend, {:.0f} % of experts cached), about "
                            "{:.0f}–{:.0f} tok/s",
                            f.plan.backend, c * 100, f.decode_tok_s_low, f.decode_tok_s_high);
    return f;
}

}  // namespace ft::memory
