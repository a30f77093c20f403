#include "bench/cpu_moe_bench.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <random>

#include "bench/host_bandwidth.h"
#include "ft/error.h"
#include "cpu/isa.h"
#include "cpu/worker_pool.h"
#include "model/weights.h"
#include "model/graph.h"
#include "moe/cpu_expert_executor.h"
#include "moe/moe_layer.h"
#include "model/arch.h"
#include "ft/utf8.h"

namespace ft::bench {

CpuMoeBenchResult run_cpu_moe_bench(const CpuMoeBenchOptions& o) {
    auto weights = model::Weights::open(o.model);
    const auto& d = weights->desc();
    cpu::WorkerPool::Options po;
    po.threads = o.threads;
    cpu::WorkerPool pool(po);
    pool.pin_caller();
    moe::MoeLayer moe(pool, *weights);

    CpuMoeBenchResult r;
    r.model = d.name.empty() ? path_to_utf8(o.model.filename()) : d.name;
    r.isa = kernels::cpu::isa_selected();
    r.threads = pool.size();
    r.tokens = o.tokens;
    r.host_read_gbs = measure_host_read(pool).read_gbs;

    const model::ModelGraph graph = model::build_graph(*weights);
    std::vector<const model::MoeBlock*> layers;  // the MoE blocks
    for (const model::Layer& L : graph.layers)
        for (const model::Block& b : L.blocks)
            if (const auto* m = std::get_if<model::MoeBlock>(&b.body)) layers.push_back(m);
    r.moe_layers = int(layers.size());
    if (layers.empty())
        throw Error(ErrorCode::invalid_argument,
                    path_to_utf8(o.model) + ": the model has no MoE block (a dense model): ft bench cpu-moe measures MoE layers",
                    "use ft bench decode");
    const std::int64_t E = d.n_embd;
    std::vector<float> x(std::size_t(o.tokens * E)), out(x.size());
    std::mt19937 rng(std::uint32_t(o.seed));
    std::normal_distribution<float> nd(0.f, 1.f);
    // Per-layer expert bytes of the experts a call uses, from the executor's counter.
    for (const model::MoeBlock* il : layers) {  // warm-up: pages of the experts touched come into memory
        for (auto& v : x) v = nd(rng);
        moe.forward(*il, x.data(), o.tokens, out.data());
    }
    const std::uint64_t b0 = moe.cpu_expert_bytes();
    const moe::MoeStats s0 = moe.stats();
    // A fresh token per call (fresh experts, no reuse between calls), drawn before timing starts.
    std::vector<float> inputs(std::size_t(o.rounds) * layers.size() * x.size());
    for (auto& v : inputs) v = nd(rng);
    double seconds = 0;
    std::size_t call = 0;
    for (int round = 0; round < o.rounds; ++round) {
        for (const model::MoeBlock* il : layers) {
            std::copy_n(inputs.data() + call++ * x.size(), x.size(), x.data());
            const auto t0 = std::chrono::steady_clock::now();
            moe.forward(*il, x.data(), o.tokens, out.data());
            seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            ++r.calls;
        }
    }
    r.seconds = seconds;
    const moe::MoeStats& s1 = moe.stats();
    const double per = r.calls ? 1e-3 / r.calls : 0;
    r.us_router = double(s1.ns_router - s0.ns_router) * per;
    r.us_gather = double(s1.ns_gather - s0.ns_gather) * per;
    r.us_experts = double(s1.ns_experts - s0.ns_experts) * per;
    r.us_combine = double(s1.ns_combine - s0.ns_combine) * per;
    r.expert_bytes = moe.cpu_expert_bytes() - b0;
    r.expert_gbs = seconds > 0 ? double(r.expert_bytes) / seconds / 1e9 : 0;
    r.fraction_of_host = r.host_read_gbs > 0 ? r.expert_gbs / r.host_read_gbs : 0;
    const double experts_s = double(s1.ns_experts - s0.ns_experts) * 1e-9;
    r.experts_alone_gbs = experts_s > 0 ? double(r.expert_bytes) / experts_s / 1e9 : 0;
    r.experts_alone_fraction_of_host = r.host_read_gbs > 0 ? r.experts_alone_gbs / r.host_read_gbs : 0;
    // The executor by experts per call: fresh random experts of a random MoE layer each call, one token row.
    {
        moe::CpuExpertExecutor exec(pool);
        std::vector<int> moe_layer_ids;
        for (int il = 0; il < int(d.n_layer); ++il)
            if (weights->layer_has_experts(il)) moe_layer_ids.push_back(il);
        const int n_expert = int(d.moe.n_expert);
        std::vector<float> xs(std::size_t(8 * E)), ys(xs.size());
        for (auto& v : xs) v = nd(rng);
        for (int n : {1, 2, 4, 8}) {
            if (n > n_expert || moe_layer_ids.empty()) break;
            const int calls = std::max(1, o.rounds) * int(moe_layer_ids.size());
            double s = 0;
            std::uint64_t bytes = 0;
            std::vector<moe::ExpertJob> jobs(static_cast<std::size_t>(n));
            moe::CpuExpertExecutor::PhaseTimes p0;
            for (int c = -8; c < calls; ++c) {  // 8 untimed calls first (the workers' first wake-up, cold caches)
                const int il = moe_layer_ids[std::size_t(rng() % moe_layer_ids.size())];
                std::vector<int> chosen;
                while (int(chosen.size()) < n) {
                    const int e = int(rng() % std::uint32_t(n_expert));
                    if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) chosen.push_back(e);
                }
                for (int j = 0; j < n; ++j) {
                    jobs[std::size_t(j)] = {&weights->expert(il, chosen[std::size_t(j)]), xs.data() + std::size_t(j) * E, 1,
                                            ys.data() + std::size_t(j) * E};
                    if (c >= 0) bytes += jobs[std::size_t(j)].expert->bytes();
                }
                if (c == 0) p0 = exec.phase_times();
                const auto t0 = std::chrono::steady_clock::now();
                exec.run(jobs, model::swiglu_limit_arg(d));
                if (c >= 0) s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            const moe::CpuExpertExecutor::PhaseTimes p1 = exec.phase_times();
            const double pc = p1.calls > p0.calls ? 1e-3 / double(p1.calls - p0.calls) : 0;
            // Hot: the last call's experts again and again (8 untimed calls bring them into the caches).
            double hot = 0;
            for (int c = -8; c < calls; ++c) {
                const auto t0 = std::chrono::steady_clock::now();
                exec.run(jobs, model::swiglu_limit_arg(d));
                if (c >= 0) hot += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            r.executor.push_back({n, s / calls * 1e6, s > 0 ? double(bytes) / s / 1e9 : 0,
                                  double(p1.to_input_ns - p0.to_input_ns) * pc, double(p1.gate_up_ns - p0.gate_up_ns) * pc,
                                  double(p1.down_ns - p0.down_ns) * pc, hot / calls * 1e6});
        }
    }
    r.us_per_layer = r.calls ? seconds / r.calls * 1e6 : 0;
    r.moe_tok_s = r.us_per_layer > 0 ? double(o.tokens) / (r.us_per_layer * 1e-6 * r.moe_layers) : 0;
    return r;
}

nlohmann::json to_json(const CpuMoeBenchResult& r) {
    nlohmann::json j = {{"bench", "cpu-moe"}, {"model", r.model}, {"isa", r.isa}, {"threads", r.threads}, {"tokens_per_call", r.tokens},
            {"moe_layers", r.moe_layers}, {"calls", r.calls}, {"host_read_gbs", r.host_read_gbs}, {"seconds", r.seconds},
            {"expert_bytes", r.expert_bytes}, {"expert_gbs", r.expert_gbs}, {"fraction_of_host_read", r.fraction_of_host},
            {"experts_alone_gbs", r.experts_alone_gbs}, {"experts_alone_fraction_of_host_read", r.experts_alone_fraction_of_host},
            {"us_per_layer", r.us_per_layer}, {"moe_only_tok_s", r.moe_tok_s},
            {"us_router", r.us_router}, {"us_gather", r.us_gather}, {"us_experts", r.us_experts}, {"us_combine", r.us_combine}};
    nlohmann::json by = nlohmann::json::array();
    for (const auto& p : r.executor)
        by.push_back({{"experts", p.experts}, {"us_per_call", p.us_per_call}, {"gbs", p.gbs}, {"us_to_input", p.us_to_input},
                      {"us_gate_up", p.us_gate_up}, {"us_down", p.us_down}, {"us_hot", p.us_hot}});
    j["executor_by_experts"] = by;
    return j;
}

}  // namespace ft::bench
