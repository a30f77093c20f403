#include "cuda/fraction_tuner.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <spdlog/spdlog.h>

#include "ft/error.h"

namespace ft::gpu {

namespace {

// Two layers (at a quarter and three quarters of the depth) are timed: each timing event is a node of the decode
// graph, and the H200 runs were noisy enough that fewer nodes is the safer side.
constexpr int kSampledLayers = 2;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(ErrorCode::device, std::string(what) + ": " + cudaGetErrorString(e));
}

// An event-record node when the stream is being captured (the decode graph), a plain record otherwise (the eager
// small-prefill path, where the external flag is refused).
void record(cudaEvent_t e, cudaStream_t stream) {
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &st), "fetch timing event");
    check(cudaEventRecordWithFlags(e, stream, st == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : cudaEventRecordDefault),
          "fetch timing event");
}

}  // namespace

FractionTuner::FractionTuner(const std::vector<int>& moe_layers, std::uint64_t expert_bytes, double fraction, Sources s,
                             const FractionTunerOptions& o)
    : expert_bytes_(expert_bytes), src_(std::move(s)), o_(o), search_(std::clamp(fraction, 0.0, 1.0), o.search) {
    // Up to kSampledLayers layers spread over the depth (early and late layers route differently).
    const int n = int(moe_layers.size());
    const int take = std::min(n, kSampledLayers);
    for (int i = 0; i < take; ++i) sampled_.push_back(moe_layers[std::size_t((2 * i + 1) * n / (2 * take))]);
    sampled_.erase(std::unique(sampled_.begin(), sampled_.end()), sampled_.end());
    const int max_layer = moe_layers.empty() ? 0 : *std::max_element(moe_layers.begin(), moe_layers.end());
    index_of_layer_.assign(std::size_t(max_layer + 1), -1);
    for (std::size_t i = 0; i < sampled_.size(); ++i) index_of_layer_[std::size_t(sampled_[i])] = int(i);
    begin_.assign(sampled_.size(), nullptr);
    end_.assign(sampled_.size(), nullptr);
    for (std::size_t i = 0; i < sampled_.size(); ++i) {
        check(cudaEventCreate(&begin_[i]), "fetch timing event");
        check(cudaEventCreate(&end_[i]), "fetch timing event");
    }
}

FractionTuner::~FractionTuner() {
    for (cudaEvent_t e : begin_)
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : end_)
        if (e) cudaEventDestroy(e);
}

void FractionTuner::fetch_begin(int il, cudaStream_t stream) {
    if (il < 0 || il >= int(index_of_layer_.size()) || index_of_layer_[std::size_t(il)] < 0) return;
    record(begin_[std::size_t(index_of_layer_[std::size_t(il)])], stream);
}

void FractionTuner::fetch_end(int il, cudaStream_t stream) {
    if (il < 0 || il >= int(index_of_layer_.size()) || index_of_layer_[std::size_t(il)] < 0) return;
    record(end_[std::size_t(index_of_layer_[std::size_t(il)])], stream);
}

std::vector<std::uint64_t> FractionTuner::sampled_fetched() {
    const std::vector<std::uint64_t> all = src_.fetched();
    std::vector<std::uint64_t> out(sampled_.size(), 0);
    for (std::size_t i = 0; i < sampled_.size(); ++i)
        if (std::size_t(sampled_[i]) < all.size()) out[i] = all[std::size_t(sampled_[i])];
    return out;
}

double FractionTuner::matched_fraction() const {
    return fetch_gbps_ > 0 && cpu_gbps_ > 0 ? fetch_gbps_ / (fetch_gbps_ + cpu_gbps_) : -1.0;
}

std::optional<double> FractionTuner::after_step(bool decode, double seconds, int tokens) {
    if (!decode) {  // a prefill pass in between: its fetches are not the timed ones, its time not a decode step's
        armed_ = false;
        search_.interrupt();
        return std::nullopt;
    }
    measure();
    const double old = search_.fraction();
    const bool was_searching = search_.searching();
    const auto moved = search_.step(seconds, tokens, matched_fraction());
    if (moved) {
        ++updates_;
        spdlog::debug("hybrid: q* {:.3f} → {:.3f} (measured {:.1f} tok/s at the center; live B_P {:.1f} GB/s, B_C {:.1f} GB/s{})",
                      old, *moved, search_.best_rate(), fetch_gbps_, cpu_gbps_, search_.searching() ? "" : "; converged");
    }
    // The search's end, also when it ends at the fraction its last window measured (no move).
    if (was_searching && !search_.searching()) {
        spdlog::info("hybrid: q* {:.3f} after {} measured windows ({:.1f} s of decode), {:.1f} tok/s; bandwidth-matched {:.3f}",
                     search_.fraction(), search_.evaluations(), search_.search_seconds(), search_.best_rate(),
                     matched_fraction());
        log_final_comparison();
    }
    return moved;
}

// Why the search ended where it did: the fractions of its final comparison, their mean rates against q* = 1's, the
// gain and the noise band it decided on.
void FractionTuner::log_final_comparison() const {
    const moe::FractionSearch::Duel& d = search_.duel();
    if (d.all_rate.empty()) return;
    const auto mean = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0.0 : s / double(v.size());
    };
    std::string fractions;
    for (double f : d.fractions) fractions += (fractions.empty() ? "" : ", ") + fmt::format("{:.3f}", f);
    const char* why = d.why == moe::FractionSearch::Duel::Why::won         ? "kept: faster beyond the noise"
                      : d.why == moe::FractionSearch::Duel::Why::lost      ? "q* = 1: not faster"
                      : d.why == moe::FractionSearch::Duel::Why::undecided ? "q* = 1: could not tell within the rounds"
                                                                            : "";
    spdlog::info("hybrid: q* search's final comparison of {} against q* = 1 over {} rounds: best {:.3f} at {:.1f} tok/s, "
                 "q* = 1 at {:.1f} ({:+.1f} %, noise ±{:.1f} %) — {}",
                 fractions, d.all_rate.size(), d.center, mean(d.center_rate), mean(d.all_rate), 100 * d.gain,
                 100 * d.noise, why);
}

// The live B_P / B_C: one sample every `period` decode steps.
void FractionTuner::measure() {
    ++steps_;
    const std::uint64_t phase = steps_ % std::uint64_t(o_.period);
    if (phase == std::uint64_t(o_.period - 1)) {
        before_ = sampled_fetched();
        armed_ = true;
        return;
    }
    if (phase != 0 || !armed_) return;
    armed_ = false;

    // PCIe: the sampled layers' fetch kernels of this one step.
    const std::vector<std::uint64_t> now = sampled_fetched();
    for (std::size_t i = 0; i < sampled_.size(); ++i) {
        const std::uint64_t n = now[i] - before_[i];
        if (n == 0) continue;
        float ms = 0;
        if (cudaEventElapsedTime(&ms, begin_[i], end_[i]) != cudaSuccess) {
            cudaGetLastError();  // not recorded in this step (e.g. a graph captured before the tuner): skip
            continue;
        }
        if (ms <= 0) continue;
        fetch_bytes_ += double(n) * double(expert_bytes_);
        fetch_s_ += double(ms) / 1e3;
    }
    const double min_bytes = o_.min_experts * double(expert_bytes_);
    if (fetch_bytes_ >= min_bytes && fetch_s_ > 0) {
        const double g = fetch_bytes_ / fetch_s_ / 1e9;
        fetch_gbps_ = fetch_gbps_ > 0 ? (1 - o_.alpha) * fetch_gbps_ + o_.alpha * g : g;
        fetch_bytes_ = fetch_s_ = 0;
    }
    // CPU: the handshake's bytes over its busy time since the last sample.
    const std::uint64_t cpu_bytes = src_.cpu_bytes();
    const double cpu_busy = src_.cpu_busy_seconds();
    const double cb = double(cpu_bytes - cpu_bytes0_), cs = cpu_busy - cpu_busy0_;
    if (cb >= min_bytes && cs > 0) {
        const double g = cb / cs / 1e9;
        cpu_gbps_ = cpu_gbps_ > 0 ? (1 - o_.alpha) * cpu_gbps_ + o_.alpha * g : g;
        cpu_bytes0_ = cpu_bytes;
        cpu_busy0_ = cpu_busy;
    }
}

}  // namespace ft::gpu
