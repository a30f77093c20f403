#include "moe/routing_trace.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <spdlog/fmt/fmt.h>

#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::moe {

namespace {

constexpr char kMagic[4] = {'F', 'T', 'R', 'T'};

class Synthetic final : public RoutingSource {
public:
    Synthetic(const std::vector<bool>& has, int n_expert, int k, const SyntheticRouting& p)
        : has_(has), n_expert_(n_expert), k_(k), p_(p), rng_(p.seed) {
        if (n_expert < k || k < 1) throw Error(ErrorCode::invalid_argument, "synthetic routing: top-k larger than the experts");
        if (p.zipf < 0 || p.reuse < 0 || p.reuse > 1)
            throw Error(ErrorCode::invalid_argument, "synthetic routing: zipf must be >= 0 and reuse in [0, 1]");
        double c = 0;
        for (int r = 0; r < n_expert; ++r) c += 1.0 / std::pow(double(r + 1), p.zipf);
        double acc = 0;
        for (int r = 0; r < n_expert; ++r) {
            acc += 1.0 / std::pow(double(r + 1), p.zipf) / c;
            cdf_.push_back(acc);
        }
        perm_.resize(has.size());
        prev_.resize(has.size());
        for (auto& pm : perm_) {
            pm.resize(std::size_t(n_expert));
            std::iota(pm.begin(), pm.end(), 0);
            std::shuffle(pm.begin(), pm.end(), rng_);
        }
        if (p.run) rng_.seed(p.seed ^ (0x9E3779B97F4A7C15ull * p.run));
    }
    std::string describe() const override {
        return fmt::format("synthetic (zipf {:.2f}, reuse {:.2f}, seed {}{})", p_.zipf, p_.reuse, p_.seed,
                           p_.run ? fmt::format(", run {}", p_.run) : std::string());
    }
    void next_step(int n_tokens, std::span<std::int32_t> ids) override {
        std::uniform_real_distribution<double> u(0, 1);
        const std::size_t per_layer = std::size_t(n_tokens) * std::size_t(k_);
        for (std::size_t l = 0; l < has_.size(); ++l) {
            std::int32_t* out = ids.data() + l * per_layer;
            if (!has_[l]) {
                std::fill(out, out + per_layer, -1);
                continue;
            }
            for (int t = 0; t < n_tokens; ++t) {
                std::int32_t* tok = out + std::size_t(t) * std::size_t(k_);
                int n = 0;
                while (n < k_) {
                    std::int32_t e;
                    if (!prev_[l].empty() && u(rng_) < p_.reuse) {
                        e = prev_[l][std::size_t(rng_() % prev_[l].size())];
                    } else {
                        const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), u(rng_));
                        e = perm_[l][std::size_t(std::min<std::ptrdiff_t>(it - cdf_.begin(), n_expert_ - 1))];
                    }
                    if (std::find(tok, tok + n, e) == tok + n) tok[n++] = e;
                }
                prev_[l].assign(tok, tok + k_);
            }
        }
    }

private:
    std::vector<bool> has_;
    int n_expert_, k_;
    SyntheticRouting p_;
    std::mt19937_64 rng_;
    std::vector<double> cdf_;
    std::vector<std::vector<std::int32_t>> perm_, prev_;
};

class Trace final : public RoutingSource {
public:
    Trace(const std::filesystem::path& path, int n_layer, int k) : path_(path), n_layer_(n_layer), k_(k) {
        std::ifstream f(path, std::ios::binary);
        if (!f) throw Error(ErrorCode::not_found, "routing trace not found: " + path_to_utf8(path));
        char magic[4];
        std::uint32_t hdr[3];
        f.read(magic, 4);
        f.read(reinterpret_cast<char*>(hdr), sizeof hdr);
        if (!f || std::memcmp(magic, kMagic, 4) != 0 || hdr[0] != 1)
            throw Error(ErrorCode::invalid_file, path_to_utf8(path) + " is not a routing trace (version 1)",
                        "record one with `ft run --record-routing FILE`");
        if (int(hdr[1]) != n_layer || int(hdr[2]) != k)
            throw Error(ErrorCode::invalid_file,
                        fmt::format("{}: recorded for {} layers × top-{}, this model has {} × top-{}", path_to_utf8(path), hdr[1],
                                    hdr[2], n_layer, k));
        for (;;) {
            std::uint32_t T = 0;
            if (!f.read(reinterpret_cast<char*>(&T), 4)) break;
            if (T == 0 || T > 4096) throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": corrupt step record");
            std::vector<std::int32_t> ids(std::size_t(n_layer) * T * std::size_t(k));
            if (!f.read(reinterpret_cast<char*>(ids.data()), std::streamsize(ids.size() * 4)))
                throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": truncated (a step record is cut short)");
            // Keep the first token's choice of each layer: replays may run at another batch size.
            std::vector<std::int32_t> first(std::size_t(n_layer) * std::size_t(k));
            for (int l = 0; l < n_layer; ++l)
                std::copy_n(ids.data() + std::size_t(l) * T * std::size_t(k), k, first.data() + std::size_t(l) * std::size_t(k));
            steps_.push_back(std::move(first));
        }
        if (steps_.empty()) throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": the trace has no steps");
    }
    std::string describe() const override {
        return fmt::format("trace {} ({} steps)", path_to_utf8(path_.filename()), steps_.size());
    }
    // Token t of this step takes recorded step (next + t): a batch replays consecutive steps side by side.
    void next_step(int n_tokens, std::span<std::int32_t> ids) override {
        const std::size_t per_layer = std::size_t(n_tokens) * std::size_t(k_);
        for (int t = 0; t < n_tokens; ++t) {
            const auto& s = steps_[(next_ + std::size_t(t)) % steps_.size()];
            for (int l = 0; l < n_layer_; ++l)
                std::copy_n(s.data() + std::size_t(l) * std::size_t(k_), k_,
                            ids.data() + std::size_t(l) * per_layer + std::size_t(t) * std::size_t(k_));
        }
        next_ = (next_ + std::size_t(n_tokens)) % steps_.size();
    }

private:
    std::filesystem::path path_;
    int n_layer_, k_;
    std::vector<std::vector<std::int32_t>> steps_;
    std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<RoutingSource> make_synthetic_routing(const std::vector<bool>& has, int n_expert, int k,
                                                      const SyntheticRouting& p) {
    return std::make_unique<Synthetic>(has, n_expert, k, p);
}

std::unique_ptr<RoutingSource> open_routing_trace(const std::filesystem::path& path, int n_layer, int k) {
    return std::make_unique<Trace>(path, n_layer, k);
}

std::unique_ptr<RoutingSource> make_routing_source(const std::string& spec, const std::vector<bool>& has, int n_expert,
                                                   int k) {
    if (spec.empty() || spec == "model") return nullptr;
    if (spec.rfind("trace:", 0) == 0) return open_routing_trace(spec.substr(6), int(has.size()), k);
    if (spec == "synthetic" || spec.rfind("synthetic:", 0) == 0) {
        SyntheticRouting p;
        std::string rest = spec.size() > 10 ? spec.substr(10) : std::string();
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const std::string kv = rest.substr(0, comma);
            rest = comma == std::string::npos ? std::string() : rest.substr(comma + 1);
            const auto eq = kv.find('=');
            if (eq == std::string::npos)
                throw Error(ErrorCode::invalid_argument, "synthetic routing: '" + kv + "' is not key=value",
                            "e.g. synthetic:zipf=1.0,reuse=0.55,seed=1");
            const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
            try {
                if (key == "zipf") p.zipf = std::stod(val);
                else if (key == "reuse") p.reuse = std::stod(val);
                else if (key == "seed") p.seed = std::stoull(val);
                else if (key == "run") p.run = std::stoull(val);
                else throw Error(ErrorCode::invalid_argument, "synthetic routing: unknown key '" + key + "'",
                                 "keys: zipf, reuse, seed, run");
            } catch (const std::logic_error&) {
                throw Error(ErrorCode::invalid_argument, "synthetic routing: '" + val + "' is not a number for " + key);
            }
        }
        return make_synthetic_routing(has, n_expert, k, p);
    }
    throw Error(ErrorCode::invalid_argument, "unknown routing '" + spec + "'", "use model, trace:FILE or synthetic[:zipf=…,reuse=…,seed=…]");
}

RoutingRecorder::RoutingRecorder(const std::filesystem::path& path, int n_layer, int k)
    : f_(path, std::ios::binary | std::ios::trunc), path_(path), n_layer_(n_layer), k_(k) {
    if (!f_) throw Error(ErrorCode::io, "cannot write the routing trace " + path_to_utf8(path));
    const std::uint32_t hdr[3] = {1, std::uint32_t(n_layer), std::uint32_t(k)};
    f_.write(kMagic, 4);
    f_.write(reinterpret_cast<const char*>(hdr), sizeof hdr);
}

void RoutingRecorder::record(int n_tokens, std::span<const std::int32_t> ids) {
    const std::uint32_t T = std::uint32_t(n_tokens);
    f_.write(reinterpret_cast<const char*>(&T), 4);
    f_.write(reinterpret_cast<const char*>(ids.data()), std::streamsize(std::size_t(n_layer_) * T * std::size_t(k_) * 4));
    f_.flush();
    if (!f_) throw Error(ErrorCode::io, "cannot write the routing trace " + path_to_utf8(path_));
    ++steps_;
}

}  // namespace ft::moe
