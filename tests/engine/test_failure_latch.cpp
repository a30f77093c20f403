// FailureLatch (core/failure_latch.h), the CPU MoE bridge's failure report: the first message since the last take()
// wins, take() clears it, and with two writer threads (the bridge's coordinator and watchdog) racing a reader (the
// engine thread's check_health) every kept message is read exactly once and whole. Run it under TSan to see the
// race the old plain std::string had.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/failure_latch.h"
#include "ft_test.h"

class TestFailureLatch : public QObject {
    Q_OBJECT
private slots:
    void firstMessageWinsUntilTaken() {
        ft::FailureLatch f;
        QVERIFY(!f.failed());
        QVERIFY(!f.take().has_value());
        QVERIFY(f.set("CPU experts of layer 3: out of memory"));
        QVERIFY(!f.set("no answer for 10 s"));  // dropped: the first failure is the one to report
        QVERIFY(f.failed());
        const auto m = f.take();
        QVERIFY(m.has_value());
        QCOMPARE(*m, std::string("CPU experts of layer 3: out of memory"));
        QVERIFY(!f.failed());
        QVERIFY(!f.take().has_value());
        QVERIFY(f.set("no answer for 10 s"));  // armed again after a take
        QCOMPARE(*f.take(), std::string("no answer for 10 s"));
    }

    void twoWritersAndAReader() {
        ft::FailureLatch f;
        constexpr int kPerWriter = 20000;
        // Long messages (heap-allocated strings): a torn copy would show as a mix of the two patterns.
        const std::string a(300, 'a'), b(300, 'b');
        std::atomic<int> kept{0}, writers_done{0};
        const auto writer = [&](const std::string& msg) {
            for (int i = 0; i < kPerWriter; ++i)
                if (f.set(msg)) kept.fetch_add(1);
            writers_done.fetch_add(1);
        };
        int taken = 0, bad = 0;
        std::thread reader([&] {
            for (;;) {
                const bool last = writers_done.load() == 2;  // read before the final take: nothing comes after it
                if (auto m = f.take()) {
                    ++taken;
                    if (*m != a && *m != b) ++bad;
                } else if (last) {
                    break;
                }
            }
        });
        std::thread wa(writer, std::cref(a)), wb(writer, std::cref(b));
        wa.join();
        wb.join();
        reader.join();
        QCOMPARE(bad, 0);
        QVERIFY(kept.load() > 0);
        QCOMPARE(taken, kept.load());  // every kept message read exactly once
        QVERIFY(!f.failed());
    }
};

FT_TEST_MAIN(TestFailureLatch)
#include "test_failure_latch.moc"
