// The `ft` command line: argument parsing, --help/--version of every subcommand, and clear errors with a non-zero
// exit code. Runs the real binary.
#include <QProcess>
#include <QRegularExpression>

#include "args.h"
#include "ft/error.h"
#include "ft_process.h"
#include "ft_test.h"

using ft::test::run_ft;

namespace {
const QStringList kCommands = {"serve", "chat", "run", "ctl", "bench", "inspect", "convert", "synth",
                               "tokenize", "detokenize", "template", "info"};
ft::cli::CommandSpec spec() {
    return {"demo", "", "", "", {{"model", "PATH", "m", ""}, {"json", "", "j", ""}, {"tag", "T", "t", "", true}}, ""};
}
}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void parsesOptionsFlagsAndPositionals() {
        const auto a = ft::cli::Args::parse(spec(), {"x", "--model", "m.gguf", "--json", "--tag=a", "--tag", "b", "--", "--y"});
        QCOMPARE(QString::fromStdString(*a.get("model")), QStringLiteral("m.gguf"));
        QVERIFY(a.has("json"));
        QCOMPARE(a.get_all("tag").size(), size_t(2));
        QCOMPARE(a.positionals().size(), size_t(2));
        QCOMPARE(QString::fromStdString(a.positionals()[1]), QStringLiteral("--y"));
    }
    void rejectsBadOptions() {
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::Args::parse(spec(), {"--nope"}));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::Args::parse(spec(), {"--model"}));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::Args::parse(spec(), {"--json=1"}));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::Args::parse(spec(), {"-x"}));
    }
    void parsesByteSizes() {
        QCOMPARE(ft::cli::parse_bytes("8G"), 8ull << 30);
        QCOMPARE(ft::cli::parse_bytes("512MiB"), 512ull << 20);
        QCOMPARE(ft::cli::parse_bytes("1.5K"), 1536ull);
        QCOMPARE(ft::cli::parse_bytes("1073741824"), 1073741824ull);
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::parse_bytes("8X"));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::parse_bytes("-1G"));
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::cli::parse_bytes("G"));
        const auto a = ft::cli::Args::parse({"d", "", "", "", {{"n", "N", "", ""}}, ""}, {"--n", "12x"});
        QVERIFY_THROWS_EXCEPTION(ft::Error, a.get_int("n", 0));
    }
    void versionPrintsProjectVersion() {
        const auto r = run_ft({"--version"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("ft " FT_TEST_PROJECT_VERSION), qPrintable(r.out));
    }
    void mainHelpListsEveryCommand() {
        const auto r = run_ft({"--help"});
        QCOMPARE(r.code, 0);
        for (const auto& c : kCommands)
            QVERIFY2(r.out.contains(QRegularExpression("\\n  " + c + "\\s")), qPrintable(c));
    }
    void everyCommandHasHelp_data() {
        QTest::addColumn<QString>("command");
        for (const auto& c : kCommands) QTest::newRow(qPrintable(c)) << c;
    }
    void everyCommandHasHelp() {
        QFETCH(QString, command);
        const auto r = run_ft({command, "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("Usage: ft " + command), qPrintable(r.out));
        QVERIFY(r.out.contains("--help"));
    }
    void unknownCommandIsAnError() {
        const auto r = run_ft({"frobnicate"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown command 'frobnicate'"), qPrintable(r.err));
    }
    void unknownOptionNamesItAndTheHelp() {
        const auto r = run_ft({"inspect", "--bogus"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--bogus") && r.err.contains("ft inspect --help"), qPrintable(r.err));
    }
    void pinBudgetNeedsAByteSize() {
        const auto help = run_ft({"run", "--help"});
        QVERIFY2(help.out.contains("--pin-budget BYTES"), qPrintable(help.out));
        for (const char* bad : {"lots", "8X", "-1G"}) {
            const auto r = run_ft({"run", "--model", "none.gguf", "--pin-budget", bad});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--pin-budget") && r.err.contains(bad), qPrintable(r.err));
        }
    }
    void badLogLevelIsAnError() {
        const auto r = run_ft({"--log-level", "loud", "info"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown log level"), qPrintable(r.err));
    }
    void infoShowsFoldersAndGpus() {
        const auto r = run_ft({"info"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("data folder: ") && r.out.contains("log folder:") && r.out.contains("GPU"),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(qEnvironmentVariable("FT_DATA_DIR")));
    }
};

FT_TEST_MAIN(TestCli)
#include "test_cli.moc"
