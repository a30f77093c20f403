// The warm start's store (profile/expert_popularity.h): sessions merge into per-model counts (the old halved), a
// short session leaves the store alone, another geometry or model is not confused with this one, the hottest-first
// order, and a damaged database is a clear error. Each test case runs in its own data folder (FT_DATA_DIR).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdint>
#include <fstream>
#include <vector>

#include "ft/error.h"
#include "ft_test.h"
#include "profile/expert_popularity.h"

namespace fp = ft::profile;

class TestExpertPopularity : public QObject {
    Q_OBJECT
    QTemporaryDir* dir_ = nullptr;

    static std::vector<std::uint32_t> uses(std::initializer_list<std::uint32_t> v) { return v; }

private slots:
    void init() {
        dir_ = new QTemporaryDir;
        QVERIFY(dir_->isValid());
        qputenv("FT_DATA_DIR", dir_->path().toUtf8());
    }
    void cleanup() {
        qunsetenv("FT_DATA_DIR");
        delete dir_;
        dir_ = nullptr;
    }

    void sessionsMergeWithTheOldHalved() {
        QVERIFY(!fp::load_popularity("m", 2, 3));
        QVERIFY(fp::store_popularity("m", 2, 3, uses({1000, 0, 10, 0, 6, 2})));
        auto p = fp::load_popularity("m", 2, 3);
        QVERIFY(p);
        QCOMPARE(p->counts, (std::vector<float>{1000, 0, 10, 0, 6, 2}));
        QCOMPARE(p->sessions, 1);
        QVERIFY(!p->updated_at.empty());
        QVERIFY(fp::store_popularity("m", 2, 3, uses({0, 900, 100, 4, 0, 0})));
        p = fp::load_popularity("m", 2, 3);
        QVERIFY(p);
        QCOMPARE(p->counts, (std::vector<float>{500, 900, 105, 4, 3, 1}));
        QCOMPARE(p->sessions, 2);
        QCOMPARE(fp::hottest_first(*p), (std::vector<std::int32_t>{1, 0, 2, 3, 4, 5}));
    }

    void aShortSessionChangesNothing() {
        // 400 experts: a session needs kMinSessionUses (1000) uses.
        std::vector<std::uint32_t> a(400, 0), b(400, 0);
        a[0] = 600;
        a[1] = 400;
        b[2] = 500;
        b[3] = 399;
        QVERIFY(fp::store_popularity("m", 2, 200, a));
        QVERIFY(!fp::store_popularity("m", 2, 200, b));  // 899
        auto p = fp::load_popularity("m", 2, 200);
        QVERIFY(p);
        QCOMPARE(p->counts[2], 0.0f);
        QCOMPARE(p->sessions, 1);
        // A small model (4 experts): 4 uses per expert are enough.
        QVERIFY(!fp::store_popularity("s", 1, 4, uses({5, 5, 5, 0})));
        QVERIFY(fp::store_popularity("s", 1, 4, uses({5, 5, 5, 1})));
    }

    void modelsAndGeometriesAreKeptApart() {
        QVERIFY(fp::store_popularity("a", 1, 4, uses({1000, 1, 0, 0})));
        QVERIFY(!fp::load_popularity("b", 1, 4));
        QVERIFY(!fp::load_popularity("a", 2, 2));  // the same count of experts, another shape: not this one
        // A new geometry under the same key starts again instead of merging the old counts into the wrong experts.
        QVERIFY(fp::store_popularity("a", 2, 2, uses({0, 0, 0, 1000})));
        const auto p = fp::load_popularity("a", 2, 2);
        QVERIFY(p);
        QCOMPARE(p->counts, (std::vector<float>{0, 0, 0, 1000}));
        QCOMPARE(p->sessions, 1);
        QVERIFY_THROWS_EXCEPTION(ft::Error, fp::store_popularity("a", 2, 2, uses({1, 2, 3})));
    }

    void hottestFirstSkipsTheUnusedAndKeepsTiesInIdOrder() {
        fp::ExpertPopularity p;
        p.n_layer = 1;
        p.n_expert = 6;
        p.counts = {3, 0, 7, 3, 0, 7.5f};
        QCOMPARE(fp::hottest_first(p), (std::vector<std::int32_t>{5, 2, 0, 3}));
    }

    void evenSpreadGivesEveryLayerTheSameShare() {
        // Layers 0 and 2 have experts (layer 1 is dense), 3 experts each: a round over the layers per expert id.
        const auto ids = ft::profile::even_spread({true, false, true}, 3);
        QCOMPARE(ids, (std::vector<std::int32_t>{0, 6, 1, 7, 2, 8}));
        QVERIFY(ft::profile::even_spread({false, false}, 4).empty());
    }

    void keyFollowsNameAndSizeNotFolder() {
        const QString a = dir_->filePath("x/model.gguf"), b = dir_->filePath("y/model.gguf"), c = dir_->filePath("y/other.gguf");
        QDir().mkpath(dir_->filePath("x"));
        QDir().mkpath(dir_->filePath("y"));
        for (const QString& f : {a, b, c}) {
            QFile out(f);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray(f == c ? 100 : 64, 'x'));
        }
        const auto ka = fp::popularity_key(a.toStdString(), 48, 128);
        QCOMPARE(ka, fp::popularity_key(b.toStdString(), 48, 128));  // moved: the same model
        QVERIFY(ka != fp::popularity_key(c.toStdString(), 48, 128));
        QVERIFY(ka != fp::popularity_key(a.toStdString(), 48, 64));
        QFile grow(b);
        QVERIFY(grow.open(QIODevice::Append));
        grow.write("y");
        grow.close();
        QVERIFY(ka != fp::popularity_key(b.toStdString(), 48, 128));  // another file under the same name
    }

    void aDamagedDatabaseIsAClearError() {
        {
            std::ofstream f(dir_->filePath("experts.sqlite").toStdString(), std::ios::binary);
            f << std::string(4096, '\x5a');
        }
        try {
            fp::load_popularity("m", 1, 4);
            QFAIL("read a damaged database");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::io);
            QVERIFY2(QString(e.what()).contains("expert popularity"), e.what());
        }
    }
};

FT_TEST_MAIN(TestExpertPopularity)
#include "test_expert_popularity.moc"
