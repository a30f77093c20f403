// The stored bandwidth profile the hybrid backend reads (profile/bw_profile.h), looked up for the GPU that --gpu
// names: with profiles of two different GPUs stored, GPU 1 gets GPU 1's fraction (it used to get GPU 0's whatever
// --gpu said). The lookup takes the device list as a value, so this runs without a GPU; the database is a real
// SQLite file in a temporary data folder.
#include <QTemporaryDir>

#include <vector>

#include "profile/bw_profile.h"
#include "ft/gpu.h"
#include "ft_test.h"

namespace {

ft::profile::BwProfile profile(const std::string& gpu, double fraction) {
    ft::profile::BwProfile p;
    p.gpu = gpu;
    p.format = "q4_K";
    p.threads = 4;
    p.pcie_gbs = 50;
    p.cpu_gbs = 80;
    p.pcie_both_gbs = 40 * fraction;
    p.cpu_both_gbs = 40 * (1 - fraction);
    p.fraction = fraction;
    p.measured_at = "2026-12-01T00:00:00Z";
    return p;
}

ft::GpuInfo device(int index, const std::string& name) {
    ft::GpuInfo g;
    g.index = index;
    g.name = name;
    return g;
}

}  // namespace

class TestBwProfile : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;

private slots:
    void initTestCase() {
        QVERIFY(tmp.isValid());
        qputenv("FT_DATA_DIR", (tmp.path() + "/data").toUtf8());
        ft::profile::store_profile(profile("NVIDIA GeForce RTX 4060 Laptop GPU", 0.25));
        ft::profile::store_profile(profile("NVIDIA H200", 0.75));
    }

    void fractionIsTheSelectedGpus() {
        const std::vector<ft::GpuInfo> devs = {device(0, "NVIDIA GeForce RTX 4060 Laptop GPU"), device(1, "NVIDIA H200")};
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 0, "q4_K", 4), 0.25);
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 1, "q4_K", 4), 0.75);
        // The same two GPUs enumerated the other way round: the index decides, not the position.
        const std::vector<ft::GpuInfo> swapped = {device(1, "NVIDIA H200"), device(0, "NVIDIA GeForce RTX 4060 Laptop GPU")};
        QCOMPARE(ft::profile::stored_hybrid_fraction(swapped, 1, "q4_K", 4), 0.75);
        QCOMPARE(ft::profile::stored_hybrid_fraction(swapped, 0, "q4_K", 4), 0.25);
    }

    void noMatchingProfileOrGpuIsMinusOne() {
        const std::vector<ft::GpuInfo> devs = {device(0, "NVIDIA H200"), device(1, "NVIDIA RTX A6000")};
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 1, "q4_K", 4), -1.0);  // no profile for that GPU
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 0, "q8_0", 4), -1.0);  // another expert format
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 0, "q4_K", 8), -1.0);  // another thread count
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 2, "q4_K", 4), -1.0);  // no GPU 2
        QCOMPARE(ft::profile::stored_hybrid_fraction({}, 0, "q4_K", 4), -1.0);    // no GPU at all
        QCOMPARE(ft::profile::stored_hybrid_fraction(devs, 0, "q4_K", 4), 0.75);
    }
};

FT_TEST_MAIN(TestBwProfile)
#include "test_bw_profile.moc"
