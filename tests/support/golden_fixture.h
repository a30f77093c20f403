// Helpers of the golden tests (fixtures made by transformers, tests/data/*): reading the fixture's logits, comparing
// logits position by position, teacher-forced logits and greedy continuations from a real ft::Engine.
#pragma once

#include <QJsonArray>
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "ft/engine.h"

namespace ft::test {

// The golden suites are built twice: for the CPU, and with FT_GOLDEN_GPU for the GPU, where CTest runs them with
// FT_GPU_EXACT=1 (f32 prefill and KV: the CPU's thresholds) and without (the fast BF16 prefill: stated looser bounds).
#ifdef FT_GOLDEN_GPU
inline constexpr Device kGoldenDevice = Device::cuda;
#else
inline constexpr Device kGoldenDevice = Device::cpu;
#endif
inline bool golden_exact_prefill() {
    const char* v = std::getenv("FT_GPU_EXACT");
    return v && *v == '1';
}
inline bool golden_fast_gpu() { return kGoldenDevice == Device::cuda && !golden_exact_prefill(); }

inline std::vector<std::int32_t> ints(const QJsonArray& a) {
    std::vector<std::int32_t> v;
    for (const auto& x : a) v.push_back(x.toInt());
    return v;
}

// A little-endian float32 file, whole.
inline std::vector<float> read_floats(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    in.seekg(0, std::ios::end);
    std::vector<float> v(std::size_t(in.tellg()) / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    return v;
}

struct Agreement {
    double min_cos = 1, max_abs = 0;
    int positions = 0, top1_same = 0;
    int under_0999 = 0;  // positions whose cosine is below 0.999
};

// Position by position over rows of `vocab` logits: the smallest cosine, the largest difference, top-1 agreement,
// how many positions fall below cosine 0.999.
inline Agreement compare(const float* got, const float* want, int positions, int vocab) {
    Agreement a;
    for (int p = 0; p < positions; ++p) {
        const float* x = got + std::size_t(p) * std::size_t(vocab);
        const float* y = want + std::size_t(p) * std::size_t(vocab);
        double xy = 0, xx = 0, yy = 0;
        int ax = 0, ay = 0;
        for (int i = 0; i < vocab; ++i) {
            xy += double(x[i]) * y[i];
            xx += double(x[i]) * x[i];
            yy += double(y[i]) * y[i];
            a.max_abs = std::max(a.max_abs, std::fabs(double(x[i]) - y[i]));
            if (x[i] > x[ax]) ax = i;
            if (y[i] > y[ay]) ay = i;
        }
        const double cos = xy / std::sqrt(xx * yy);
        a.min_cos = std::min(a.min_cos, cos);
        a.under_0999 += cos < 0.999;
        a.top1_same += ax == ay;
        ++a.positions;
    }
    return a;
}

// Teacher-forced logits of every sequence, concatenated.
inline std::vector<float> engine_logits(Engine& e, const std::vector<std::vector<std::int32_t>>& seqs) {
    std::vector<float> all;
    for (const auto& s : seqs) {
        const auto l = e.evaluate_logits(s);
        all.insert(all.end(), l.begin(), l.end());
    }
    return all;
}

// A request for n greedy tokens after `prompt` (end-of-generation tokens ignored): the tokens go to `out`, `done` is
// set when it ends (an error is printed). Both must outlive the request.
inline GenerationRequest greedy_request(const std::vector<std::int32_t>& prompt, int n, std::vector<std::int32_t>& out,
                                        std::promise<void>& done) {
    GenerationRequest r;
    r.prompt = prompt;
    r.sampling.temperature = 0;
    r.max_tokens = n;
    r.ignore_eos = true;
    r.on_token = [&out](const TokenEvent& ev) {
        if (ev.token >= 0) out.push_back(ev.token);
    };
    r.on_finish = [&done](const FinishEvent&) { done.set_value(); };
    r.on_error = [&done](const Error& err) {
        std::fprintf(stderr, "%s\n", err.what());
        done.set_value();
    };
    return r;
}

// n greedy tokens after `prompt`, on an engine by itself.
inline std::vector<std::int32_t> greedy(Engine& e, const std::vector<std::int32_t>& prompt, int n) {
    std::vector<std::int32_t> out;
    std::promise<void> done;
    e.submit(greedy_request(prompt, n, out, done));
    done.get_future().wait();
    return out;
}

}  // namespace ft::test
