// The fit predictor's public entry points: a model's geometry from its metadata, this machine's profile.
#include <spdlog/spdlog.h>

#include "model/arch.h"
#include "profile/bw_profile.h"
#include "format/gguf.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "ft/plan.h"
#include "memory/planner.h"
#include "model/block_needs.h"
#include "model/model_desc.h"
#include "model/model_inspect.h"
#include "platform/platform.h"
#include "synth/synth_model.h"

namespace ft {

namespace {

memory::PlanRequest plan_request(const FitOptions& o) {
    memory::PlanRequest r;
    r.n_ctx = o.n_ctx;
    r.max_sequences = o.max_sequences;
    r.backend = o.backend;
    r.kv_reserve_tokens = o.kv_reserve_tokens;
    return r;
}

}  // namespace

MachineProfile this_machine(int gpu) {
    MachineProfile pc;
    pc.ram_bytes = platform::physical_memory_bytes();
    const auto devs = gpu_devices();
    if (gpu >= 0 && gpu < int(devs.size())) {
        const GpuInfo& d = devs[std::size_t(gpu)];
        pc.gpu_name = d.name;
        pc.vram_bytes = std::uint64_t(0.9 * double(d.free_bytes));
        pc.gpu_mem_gbps = d.mem_gbps;
        pc.gpu_sms = d.multiprocessors;
        pc.gpu_cc = d.cc_major * 10 + d.cc_minor;
        memory::add_stored_profiles(pc, d.name);
    }
    return pc;
}

namespace memory {

void add_stored_profiles(MachineProfile& pc, const std::string& gpu) {
    try {
        const auto all = profile::profiles_of(gpu);  // newest first
        if (all.empty()) return;
        const profile::BwProfile& p = all.front();
        pc.pcie_gbps = p.pcie_both_gbs > 0 ? p.pcie_both_gbs : p.pcie_gbs;
        pc.cpu_threads = p.threads;
        for (const auto& q : all) pc.cpu_rates.push_back({q.format, q.threads, q.cpu_both_gbs > 0 ? q.cpu_both_gbs : q.cpu_gbs});
    } catch (const Error& e) {
        spdlog::debug("fit predictor: no bandwidth profile ({})", e.what());
    }
}

}  // namespace memory

FitPrediction predict_fit(const std::filesystem::path& path, const MachineProfile& pc, const FitOptions& o) {
    const nlohmann::json j = model::inspect_path(path);
    FitPrediction f;
    if (j.contains("description_error") || !j.contains("sizes")) {
        f.verdict = "unsupported";
        f.reason = j.value("description_error", std::string("the file holds no model weights"));
        f.summary = "not supported: " + f.reason;
        return f;
    }
    model::ModelDesc d;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && j.value("format", std::string()) == "gguf") {
        d = model::desc_from_gguf(gguf::Reader::open_model(path));  // a split model's tensors: all its parts
    } else {
        d = model::desc_from_hf_dir(std::filesystem::is_directory(path, ec) ? path : path.parent_path());
    }
    if (const auto why = model::arch_unsupported_reason(d.arch)) {
        f.verdict = "unsupported";
        f.reason = *why;
        f.summary = "not supported yet: " + std::string(model::arch_name(d.arch));
        return f;
    }
    const auto& s = j["sizes"];
    // The tensors' types (the blocks' declared weights; the CPU expert kernel's rate by type) from the same report.
    std::vector<model::TensorStat> stats;
    for (const auto& t : j.value("tensors", nlohmann::json::array())) {
        const auto type = kernels::dtype_from_name(t.value("type", std::string()));
        if (!type) continue;
        model::TensorStat st;
        st.name = t.value("name", std::string());
        st.dims = t.value("shape", std::vector<std::uint64_t>());
        st.type = *type;
        st.n_bytes = t.value("bytes", std::uint64_t(0));
        stats.push_back(std::move(st));
    }
    memory::ModelGeometry g = memory::geometry_of(d, memory::weight_types(d, stats),
                                                  s.value("non_expert_bytes", std::uint64_t(0)),
                                                  s.value("expert_pool_bytes", std::uint64_t(0)));
    memory::set_expert_types(g, d, stats);
    return memory::predict_fit(g, pc, plan_request(o));
}

FitPrediction predict_fit_preset(const std::string& preset, const std::string& weights, const MachineProfile& pc,
                                 const FitOptions& o) {
    const auto arch = synth::synth_preset_arch(preset);
    if (!arch)
        throw Error(ErrorCode::invalid_argument, "unknown preset \"" + preset + "\" (--preset)",
                    "presets: " + [] {
                        std::string s;
                        for (const auto& p : synth::synth_presets()) s += (s.empty() ? "" : ", ") + p;
                        return s;
                    }());
    const auto type = kernels::dtype_from_name(weights);
    if (!type || !synth::synth_weight_type_supported(*type))
        throw Error(ErrorCode::invalid_argument, "weight type \"" + weights + "\" (--weights)",
                    "use one of f32, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs, mxfp4, tq1_0, "
                    "tq2_0, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m");
    const model::ModelDesc d = synth::synth_desc(*arch, preset, {});
    const synth::SynthPlan plan = synth::synth_plan(d, *type, 1);
    std::vector<model::TensorStat> stats;
    for (const auto& t : plan.tensors) {
        model::TensorStat s;
        s.name = t.spec.name;
        s.dims = t.spec.dims;
        s.type = t.type;
        s.n_elements = t.spec.n_elements();
        s.n_bytes = t.n_bytes;
        stats.push_back(std::move(s));
    }
    const model::SizeReport sizes = model::measure(&d, stats);
    memory::ModelGeometry g =
        memory::geometry_of(d, memory::weight_types(d, stats), sizes.non_expert_bytes, sizes.expert_pool_bytes);
    memory::set_expert_types(g, d, stats);
    return memory::predict_fit(g, pc, plan_request(o));
}

}  // namespace ft
