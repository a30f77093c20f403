// Sampler: greedy, temperature, top-k, top-p, min-p, penalties, seeds and log-probabilities, checked against
// distributions computed by hand.
#include <cmath>
#include <map>

#include "ft/error.h"
#include "ft_test.h"
#include "sched/sampler.h"

namespace {
std::vector<float> logits_of(std::initializer_list<double> probs) {
    std::vector<float> l;
    for (double p : probs) l.push_back(float(std::log(p)));
    return l;
}
std::map<int, double> frequencies(ft::SamplingParams p, const std::vector<float>& logits, int draws) {
    ft::Sampler s(p);
    std::map<int, double> f;
    for (int i = 0; i < draws; ++i) {
        auto l = logits;
        f[s.sample(l, {}).token] += 1.0 / draws;
    }
    return f;
}
}  // namespace

class TestSampler : public QObject {
    Q_OBJECT
private slots:
    void greedyTakesFirstMaximum() {
        ft::SamplingParams p;
        p.temperature = 0;
        ft::Sampler s(p);
        std::vector<float> l = {0.1f, 3.f, -1.f, 3.f};
        const auto t = s.sample(l, {});
        QCOMPARE(t.token, 1);
        const double lse = std::log(std::exp(0.1) + 2 * std::exp(3.0) + std::exp(-1.0));
        QVERIFY(std::fabs(t.logprob - float(3.0 - lse)) < 1e-5f);
    }

    void temperatureOneFollowsTheDistribution() {
        ft::SamplingParams p;
        p.temperature = 1.f;
        p.seed = 42;
        const auto f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 40000);
        QVERIFY2(std::fabs(f.at(0) - 0.5) < 0.01 && std::fabs(f.at(1) - 0.3) < 0.01 && std::fabs(f.at(2) - 0.2) < 0.01,
                 qPrintable(QString("%1 %2 %3").arg(f.at(0)).arg(f.at(1)).arg(f.at(2))));
    }

    void temperatureSharpens() {
        ft::SamplingParams p;
        p.temperature = 0.5f;  // p^2 normalised: .25,.09,.04 → .6579,.2368,.1053
        p.seed = 7;
        const auto f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 40000);
        QVERIFY(std::fabs(f.at(0) - 0.6579) < 0.01 && std::fabs(f.at(2) - 0.1053) < 0.01);
    }

    void topKTopPMinPCutTheTail() {
        ft::SamplingParams p;
        p.temperature = 1.f;
        p.seed = 3;
        p.top_k = 2;  // renormalised .5/.8, .3/.8
        auto f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 20000);
        QVERIFY(!f.count(2) && std::fabs(f.at(0) - 0.625) < 0.015);
        p.top_k = 0;
        p.top_p = 0.6f;  // .5 < .6, .8 >= .6 → {0, 1}
        f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 20000);
        QVERIFY(!f.count(2) && std::fabs(f.at(0) - 0.625) < 0.015);
        p.top_p = 0.5f;  // exactly reached by the first token
        f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 2000);
        QCOMPARE(f.size(), size_t(1));
        p.top_p = 1.f;
        p.min_p = 0.5f;  // .3/.5 = .6 kept, .2/.5 = .4 dropped
        f = frequencies(p, logits_of({0.5, 0.3, 0.2}), 20000);
        QVERIFY(!f.count(2) && f.count(1));
    }

    void topPOnALargeVocabulary() {
        // 150k tokens: one at p=0.9, the rest share 0.1 → top_p 0.85 keeps only the first.
        std::vector<float> l(150000, float(std::log(0.1 / 149999)));
        l[1234] = float(std::log(0.9));
        ft::SamplingParams p;
        p.temperature = 1.f;
        p.top_p = 0.85f;
        p.seed = 11;
        ft::Sampler s(p);
        for (int i = 0; i < 50; ++i) {
            auto c = l;
            QCOMPARE(s.sample(c, {}).token, 1234);
        }
    }

    void sameSeedSameTokens() {
        ft::SamplingParams p;
        p.temperature = 1.f;
        p.seed = 123;
        ft::Sampler a(p), b(p);
        const auto base = logits_of({0.2, 0.2, 0.2, 0.2, 0.2});
        bool any_diff_from_first = false;
        int first = -1;
        for (int i = 0; i < 100; ++i) {
            auto la = base, lb = base;
            const int ta = a.sample(la, {}).token, tb = b.sample(lb, {}).token;
            QCOMPARE(ta, tb);
            if (first < 0) first = ta;
            any_diff_from_first |= ta != first;
        }
        QVERIFY(any_diff_from_first);
    }

    void penaltiesChangeSeenTokens() {
        ft::SamplingParams p;
        p.temperature = 0;
        p.repetition_penalty = 2.f;
        ft::Sampler s(p);
        std::vector<float> l = {2.f, 1.5f, -1.f};
        const std::vector<std::int32_t> hist = {0, 2};
        QCOMPARE(s.sample(l, hist).token, 1);  // 2 → 1 (divided), 1.5 unchanged
        QCOMPARE(l[0], 1.f);
        QCOMPARE(l[2], -2.f);  // negative logits are multiplied
        p.repetition_penalty = 1.f;
        p.presence_penalty = 0.4f;
        p.frequency_penalty = 0.3f;
        ft::Sampler s2(p);
        std::vector<float> l2 = {2.f, 1.5f};
        const std::vector<std::int32_t> hist2 = {0, 0};
        s2.sample(l2, hist2);
        QVERIFY(std::fabs(l2[0] - (2.f - 0.4f - 0.6f)) < 1e-6f);
        QCOMPARE(l2[1], 1.5f);
        // penalty_last_n limits the window
        p.penalty_last_n = 1;
        ft::Sampler s3(p);
        std::vector<float> l3 = {2.f, 1.5f};
        const std::vector<std::int32_t> hist3 = {0, 1};
        s3.sample(l3, hist3);
        QCOMPARE(l3[0], 2.f);
    }

    void logprobsAreOfTheRawDistribution() {
        ft::SamplingParams p;
        p.temperature = 0.3f;
        p.top_logprobs = 2;
        p.repetition_penalty = 3.f;
        p.seed = 5;
        ft::Sampler s(p);
        auto l = logits_of({0.6, 0.3, 0.1});
        const auto t = s.sample(l, std::vector<std::int32_t>{0});
        QCOMPARE(t.top.size(), size_t(2));
        QCOMPARE(t.top[0].first, 0);
        QVERIFY(std::fabs(t.top[0].second - float(std::log(0.6))) < 1e-5f);
        QVERIFY(std::fabs(t.top[1].second - float(std::log(0.3))) < 1e-5f);
        const double want = t.token == 0 ? std::log(0.6) : t.token == 1 ? std::log(0.3) : std::log(0.1);
        QVERIFY(std::fabs(t.logprob - float(want)) < 1e-5f);
    }

    void rejectsBadParameters() {
        auto bad = [](auto mutate) {
            ft::SamplingParams p;
            mutate(p);
            try {
                ft::Sampler s(p);
            } catch (const ft::Error& e) {
                return e.code() == ft::ErrorCode::invalid_argument && std::string(e.what()).find("sampling parameter") == 0;
            }
            return false;
        };
        QVERIFY(bad([](auto& p) { p.temperature = -1; }));
        QVERIFY(bad([](auto& p) { p.temperature = NAN; }));
        QVERIFY(bad([](auto& p) { p.top_p = 0; }));
        QVERIFY(bad([](auto& p) { p.top_k = -2; }));
        QVERIFY(bad([](auto& p) { p.min_p = 1.5f; }));
        QVERIFY(bad([](auto& p) { p.repetition_penalty = 0; }));
        QVERIFY(bad([](auto& p) { p.top_logprobs = 21; }));
        // The key for translating front ends: "sampling_range" {field, range}, the English text saying the same.
        auto key = [](auto mutate) {
            ft::SamplingParams p;
            mutate(p);
            try {
                ft::validate_sampling(p);
            } catch (const ft::Error& e) {
                return e.key().key + " " + e.key().args.at(0) + " " + e.key().args.at(1) + " | " + e.what();
            }
            return std::string("accepted");
        };
        QCOMPARE(key([](auto& p) { p.temperature = 150; }),
                 std::string("sampling_range temperature [0, 100] | sampling parameter temperature must be in [0, 100]"));
        QCOMPARE(key([](auto& p) { p.top_k = -2; }), std::string("sampling_range top_k >= 0 | sampling parameter top_k must be >= 0"));
    }
};

FT_TEST_MAIN(TestSampler)
#include "test_sampler.moc"
