// Downloader against a real HTTP server on 127.0.0.1 (HubTestServer, QTcpServer): the Hub listing (GGUF files,
// split GGUF as one entry, a safetensors repository, paging), downloads that survive a dropped connection, a pause
// and an app restart (Range requests the server really received), sha256 checked against the LFS oid, a corrupted
// file detected, 404 and 401 (gated) reported, the disk-space check, and the finished model in the library.
// No network, no mock network layer.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app_settings.h"
#include "downloader.h"
#include "ft_test.h"
#include "hub_test_server.h"
#include "model_library.h"

using ft::test::HubTestServer;

namespace {

QByteArray random_bytes(int n, quint32 seed) {
    QByteArray b(n, Qt::Uninitialized);
    QRandomGenerator g(seed);
    for (int i = 0; i < n; ++i) b[i] = char(g.bounded(256));
    return b;
}

QByteArray gguf_like(int n, quint32 seed) { return "GGUF" + random_bytes(n - 4, seed); }

QByteArray read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const ft::HubEntry* find_entry(const QList<ft::HubEntry>& entries, const QString& label) {
    for (const auto& e : entries)
        if (e.label == label) return &e;
    return nullptr;
}

}  // namespace

class TestDownloader : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<HubTestServer> m_server;
    QString m_db, m_models;

    std::unique_ptr<ft::Downloader> make() {
        auto d = std::make_unique<ft::Downloader>(m_db);
        d->setEndpoint(m_server->url());
        d->setModelsFolder(m_models);
        d->setRetryDelayMs(50);
        return d;
    }

    QList<ft::HubEntry> list(ft::Downloader& d, const QString& repo) {
        QSignalSpy ok(&d, &ft::Downloader::filesListed);
        QSignalSpy bad(&d, &ft::Downloader::listFailed);
        d.listFiles(repo);
        if (!QTest::qWaitFor([&] { return ok.count() + bad.count() > 0; }, 10000)) return {};
        if (ok.isEmpty()) {
            qWarning() << "listing failed:" << bad.first().value(3).toString();
            return {};
        }
        return ok.first().value(1).value<QList<ft::HubEntry>>();
    }

    bool waitState(ft::Downloader& d, qint64 id, const QString& state, int ms = 20000) {
        return QTest::qWaitFor([&] { return d.status(id).state == state; }, ms);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("freetoken.db");
        m_models = m_dir.filePath("models");
        QDir().mkpath(m_models);
        m_server = std::make_unique<HubTestServer>();
        QVERIFY(m_server->isListening());

        HubTestServer::Repo gguf;
        gguf.files["tiny-Q8_0.gguf"].data = gguf_like(3 << 20, 1);
        gguf.files["tiny-Q8_0.gguf"].dropOnce = 1 << 20;                // cut after 1 MiB, once
        gguf.files["tiny-Q8_0.gguf"].redirect = true;                   // served from the "CDN" host
        gguf.files["Q4_K/tiny-Q4_K-00001-of-00002.gguf"].data = gguf_like(300000, 2);
        gguf.files["Q4_K/tiny-Q4_K-00002-of-00002.gguf"].data = random_bytes(200000, 3);
        gguf.files["README.md"] = {QByteArray("# tiny"), {}, -1, false, 0, 0};
        m_server->repos["test/tiny-GGUF"] = gguf;

        HubTestServer::Repo slow;
        slow.files["slow.gguf"].data = gguf_like(8 << 20, 4);   // 64 KiB per 20 ms: about 3 s in all
        slow.files["slow.gguf"].chunkDelayMs = 20;
        m_server->repos["test/slow-GGUF"] = slow;

        HubTestServer::Repo bad;
        bad.files["bad.gguf"].data = gguf_like(100000, 5);
        bad.files["bad.gguf"].oid = QString(64, 'a');                  // the Hub says another hash
        m_server->repos["test/bad-GGUF"] = bad;

        HubTestServer::Repo gated;
        gated.status = 401;
        gated.errorCode = "GatedRepo";
        m_server->repos["test/gated"] = gated;

        HubTestServer::Repo huge;
        huge.files["huge.gguf"].data = gguf_like(1000, 6);
        huge.files["huge.gguf"].listedSize = qint64(1) << 52;           // 4 PiB: no disk has room
        m_server->repos["test/huge-GGUF"] = huge;

        // The tiny Qwen3-MoE model of tests/data as a safetensors repository, listed two entries per page.
        HubTestServer::Repo st;
        const QDir tiny(QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny"));
        for (const char* name : {"config.json", "generation_config.json", "model.safetensors", "tokenizer.json",
                                    "tokenizer_config.json", "README.md"}) {
            st.files[name].data = read_all(tiny.filePath(name));
            st.files[name].lfs = QString::fromLatin1(name).endsWith(".safetensors");
        }
        st.pageSize = 2;
        m_server->repos["test/qwen3-moe-tiny"] = st;
    }

    void parsesRepoIdsAndUrls() {
        QCOMPARE(ft::Downloader::parseRepoId("Qwen/Qwen3-30B-A3B-GGUF"), QStringLiteral("Qwen/Qwen3-30B-A3B-GGUF"));
        QCOMPARE(ft::Downloader::parseRepoId(" https://huggingface.co/Qwen/Qwen3-30B-A3B-GGUF "), QStringLiteral("Qwen/Qwen3-30B-A3B-GGUF"));
        QCOMPARE(ft::Downloader::parseRepoId("https://huggingface.co/unsloth/x-GGUF/blob/main/a.gguf"), QStringLiteral("unsloth/x-GGUF"));
        QCOMPARE(ft::Downloader::parseRepoId("https://huggingface.co/unsloth/x-GGUF/tree/main"), QStringLiteral("unsloth/x-GGUF"));
        QString error;
        QVERIFY(ft::Downloader::parseRepoId("just-a-name", &error).isEmpty());
        QVERIFY(error.contains("owner/name"));
        QVERIFY(ft::Downloader::parseRepoId("https://huggingface.co/", &error).isEmpty());
    }

    void hubSettingsAreSharedAndChecked() {
        const QString ini = m_dir.filePath("s.ini");
        ft::AppSettings a(ini), b(ini);
        a.setHubToken("  hf_abc  ");
        QCOMPARE(b.hubToken(), QStringLiteral("hf_abc"));   // another AppSettings of the process sees it at once
        QVERIFY(!a.setHubEndpoint("ftp://mirror.example"));
        QVERIFY(!a.setHubEndpoint("not a url"));
        QVERIFY(a.setHubEndpoint("https://hf-mirror.example"));
        QCOMPARE(b.hubEndpoint(), QStringLiteral("https://hf-mirror.example"));
        qunsetenv("FT_HF_ENDPOINT");
        QCOMPARE(ft::Downloader::defaultEndpoint(b.hubEndpoint()), QStringLiteral("https://hf-mirror.example"));
        QCOMPARE(ft::Downloader::defaultEndpoint(), QStringLiteral("https://huggingface.co"));
        qputenv("FT_HF_ENDPOINT", m_server->url().toUtf8());   // the environment wins
        QCOMPARE(ft::Downloader::defaultEndpoint(b.hubEndpoint()), m_server->url());
        qunsetenv("FT_HF_ENDPOINT");
    }

    void listsGgufFilesSplitModelsAndSafetensorsRepos() {
        auto d = make();
        const auto entries = list(*d, "test/tiny-GGUF");
        QCOMPARE(entries.size(), 2);   // README is not offered
        const ft::HubEntry* single = find_entry(entries, "tiny-Q8_0.gguf");
        QVERIFY(single);
        QCOMPARE(single->totalBytes, qint64(3 << 20));
        QCOMPARE(single->files.first().sha256.size(), 64);
        const ft::HubEntry* split = find_entry(entries, "tiny-Q4_K (2 parts)");
        QVERIFY(split);
        QCOMPARE(split->files.size(), 2);
        QCOMPARE(split->totalBytes, qint64(500000));
        QVERIFY(split->files[0].path.endsWith("00001-of-00002.gguf"));

        // Paged listing (Link: rel="next"), a safetensors repository offered whole.
        const int before = int(m_server->requests.size());
        const auto st = list(*d, "https://huggingface.co/test/qwen3-moe-tiny");
        QVERIFY(m_server->requests.size() - before >= 3);
        QCOMPARE(st.size(), 1);
        QCOMPARE(st[0].kind, QStringLiteral("safetensors"));
        QCOMPARE(st[0].files.size(), 5);   // config, generation config, weights, tokenizer, tokenizer config
    }

    void listingErrorsAreClear() {
        auto d = make();
        QSignalSpy bad(d.get(), &ft::Downloader::listFailed);
        d->listFiles("test/does-not-exist");
        QTRY_COMPARE(bad.count(), 1);
        QCOMPARE(bad[0][1].toString(), QStringLiteral("not_found"));
        QVERIFY(bad[0][3].toString().contains("test/does-not-exist"));
        d->listFiles("test/gated");
        QTRY_COMPARE(bad.count(), 2);
        QCOMPARE(bad[1][1].toString(), QStringLiteral("gated"));
        QVERIFY(bad[1][3].toString().contains("token"));
        d->listFiles("not a repo");
        QTRY_COMPARE(bad.count(), 3);
        QCOMPARE(bad[2][1].toString(), QStringLiteral("bad_repo"));
    }

    void resumesAfterADroppedConnectionAndVerifiesTheHash() {
        auto d = make();
        const auto entries = list(*d, "test/tiny-GGUF");
        const ft::HubEntry* e = find_entry(entries, "tiny-Q8_0.gguf");
        QVERIFY(e);
        QSignalSpy finished(d.get(), &ft::Downloader::downloadFinished);
        const int before = int(m_server->requests.size());
        QString error;
        const qint64 id = d->start("test/tiny-GGUF", *e, &error);
        QVERIFY2(id > 0, qPrintable(error));
        QVERIFY2(waitState(*d, id, "done"), qPrintable(d->status(id).state + " " + d->status(id).error));
        QCOMPARE(m_server->drops, 1);
        // The second request asked for the rest only.
        QList<QByteArray> ranges;   // what reached the file's host (after the Hub's redirect)
        for (int i = before; i < m_server->requests.size(); ++i)
            if (m_server->requests[i].path == "/cdn/test/tiny-GGUF/tiny-Q8_0.gguf") ranges << m_server->requests[i].range;
        QCOMPARE(ranges.size(), 2);
        QVERIFY(ranges[0].isEmpty());
        QVERIFY2(ranges[1].startsWith("bytes=") && ranges[1] != "bytes=0-", ranges[1].constData());
        const QString file = m_models + "/test__tiny-GGUF/tiny-Q8_0.gguf";
        QCOMPARE(read_all(file), m_server->repos["test/tiny-GGUF"].files["tiny-Q8_0.gguf"].data);
        QVERIFY(!QFile::exists(file + ".part"));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished[0][1].toString(), file);
        // In the library, with the row's facts read.
        ft::ModelLibrary lib(m_db);
        bool found = false;
        for (const auto& r : lib.models())
            if (r.path == file) found = r.origin == "download";
        QVERIFY(found);
    }

    void downloadsASplitModelAsOneEntry() {
        auto d = make();
        const auto entries = list(*d, "test/tiny-GGUF");
        const ft::HubEntry* e = find_entry(entries, "tiny-Q4_K (2 parts)");
        QVERIFY(e);
        const qint64 id = d->start("test/tiny-GGUF", *e);
        QVERIFY(id > 0);
        QVERIFY(waitState(*d, id, "done"));
        const QString folder = m_models + "/test__tiny-GGUF/";
        QCOMPARE(d->status(id).modelPath, folder + "tiny-Q4_K-00001-of-00002.gguf");
        QCOMPARE(QFileInfo(folder + "tiny-Q4_K-00002-of-00002.gguf").size(), qint64(200000));
        ft::ModelLibrary lib(m_db);
        int rows = 0;
        for (const auto& r : lib.models())
            if (r.path.contains("tiny-Q4_K")) {
                ++rows;
                QCOMPARE(r.sizeBytes, qint64(500000));   // both parts
                QCOMPARE(r.facts.parts.size(), size_t(2));
            }
        QCOMPARE(rows, 1);
    }

    void hashMismatchIsDetectedAndTheFileDeleted() {
        auto d = make();
        const auto entries = list(*d, "test/bad-GGUF");
        QCOMPARE(entries.size(), 1);
        QSignalSpy failed(d.get(), &ft::Downloader::downloadFailed);
        const qint64 id = d->start("test/bad-GGUF", entries[0]);
        QVERIFY(waitState(*d, id, "failed"));
        const ft::DownloadStatus st = d->status(id);
        QCOMPARE(st.errorCode, QStringLiteral("hash_mismatch"));
        QVERIFY2(st.error.contains("sha256") && st.error.contains("bad.gguf"), qPrintable(st.error));
        QVERIFY(!QFile::exists(m_models + "/test__bad-GGUF/bad.gguf"));
        QVERIFY(!QFile::exists(m_models + "/test__bad-GGUF/bad.gguf.part"));
        QCOMPARE(failed.count(), 1);
    }

    void fileErrorsAreReported() {
        auto d = make();
        // 404 for the file itself (the listing is stale), 401 gated, and no room on the disk.
        ft::HubEntry gone{"gguf", "gone.gguf", {{"gone.gguf", 10, QString(64, '0')}}, 10};
        qint64 id = d->start("test/tiny-GGUF", gone);
        QVERIFY(waitState(*d, id, "failed"));
        QCOMPARE(d->status(id).errorCode, QStringLiteral("not_found"));
        QVERIFY(d->status(id).error.contains("404"));

        ft::HubEntry gated{"gguf", "model.gguf", {{"model.gguf", 10, QString(64, '0')}}, 10};
        d->setToken("hf_secret");
        id = d->start("test/gated", gated);
        QVERIFY(waitState(*d, id, "failed"));
        QCOMPARE(d->status(id).errorCode, QStringLiteral("gated"));
        QCOMPARE(m_server->requests.last().authorization, QByteArray("Bearer hf_secret"));
        // With a token, a redirected file: the Hub gets the token, the CDN host does not; Range follows the redirect.
        {
            const auto entries = list(*d, "test/tiny-GGUF");
            const ft::HubEntry* e = find_entry(entries, "tiny-Q8_0.gguf");
            QVERIFY(e);
            QFile::remove(m_models + "/test__tiny-GGUF/tiny-Q8_0.gguf");
            for (const auto& s : d->downloads()) d->forget(s.id);
            const int before = int(m_server->requests.size());
            const qint64 rid = d->start("test/tiny-GGUF", *e);
            QVERIFY(waitState(*d, rid, "done"));
            int hub = 0, cdn = 0;
            for (int i = before; i < m_server->requests.size(); ++i) {
                const auto& r = m_server->requests[i];
                if (r.path.startsWith("/test/tiny-GGUF/resolve/")) {
                    ++hub;
                    QCOMPARE(r.authorization, QByteArray("Bearer hf_secret"));
                } else if (r.path.startsWith("/cdn/")) {
                    ++cdn;
                    QVERIFY2(r.authorization.isEmpty(), r.authorization.constData());
                    QVERIFY(r.host.startsWith("localhost"));
                }
            }
            QVERIFY(hub >= 1 && cdn >= 1);
        }
        d->setToken({});

        const auto entries = list(*d, "test/huge-GGUF");
        QCOMPARE(entries.size(), 1);
        const int before = int(m_server->requests.size());
        // The sizes it names in the number format of the app's locale (here English with a decimal comma; they were
        // "1.5 GiB" whatever the locale).
        const QLocale before_locale;
        QLocale::setDefault(QLocale(QLocale::English, QLocale::Denmark));
        id = d->start("test/huge-GGUF", entries[0]);
        QVERIFY(waitState(*d, id, "failed"));
        QLocale::setDefault(before_locale);
        QCOMPARE(d->status(id).errorCode, QStringLiteral("disk_full"));
        QVERIFY(d->status(id).error.contains("disk space"));
        const QStringList sizes = d->status(id).errorArgs.mid(0, 2);  // needed, available
        QVERIFY2(sizes.size() == 2 && QRegularExpression("^\\d+,\\d [KMGTP]iB$").match(sizes[0]).hasMatch(), qPrintable(sizes.join(" | ")));
        QCOMPARE(int(m_server->requests.size()), before);   // refused before asking for a byte
    }

    void pausesResumesAndSurvivesARestart() {
        qint64 id = 0;
        qint64 bytesAtStop = 0;
        {
            auto d = make();
            const auto entries = list(*d, "test/slow-GGUF");
            QCOMPARE(entries.size(), 1);
            id = d->start("test/slow-GGUF", entries[0]);
            QVERIFY(id > 0);
            QTRY_VERIFY_WITH_TIMEOUT(d->status(id).bytesDone > (512 << 10), 10000);
            d->pause(id);
            QCOMPARE(d->status(id).state, QStringLiteral("paused"));
            const qint64 paused = d->status(id).bytesDone;
            QTest::qWait(200);
            QCOMPARE(d->status(id).bytesDone, paused);   // nothing arrives while paused
            d->resume(id);
            QTRY_VERIFY_WITH_TIMEOUT(d->status(id).bytesDone > paused + (512 << 10), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(d->status(id).bytesPerSecond > 0, 5000);   // sampled twice a second
            QVERIFY(d->status(id).etaSeconds > 0);
            bytesAtStop = d->status(id).bytesDone;
            QVERIFY(bytesAtStop < (8 << 20));
        }   // the app quits mid-download
        const int before = int(m_server->requests.size());
        auto d = make();   // and starts again: the download continues by itself
        QCOMPARE(d->status(id).state, QStringLiteral("downloading"));
        QVERIFY(d->status(id).bytesDone > 0);
        QVERIFY(waitState(*d, id, "done", 30000));
        QVERIFY(m_server->requests.size() > before);
        const QByteArray range = m_server->requests[before].range;
        QVERIFY2(range.startsWith("bytes=") && range.mid(6).chopped(1).toLongLong() >= (512 << 10), range.constData());
        QCOMPARE(read_all(m_models + "/test__slow-GGUF/slow.gguf"), m_server->repos["test/slow-GGUF"].files["slow.gguf"].data);
    }

    void cancelDeletesThePartialFile() {
        auto d = make();
        const auto entries = list(*d, "test/slow-GGUF");
        QFile::remove(m_models + "/test__slow-GGUF/slow.gguf");
        ft::ModelLibrary lib(m_db);
        for (const auto& r : lib.models())
            if (r.path.endsWith("slow.gguf")) lib.remove(r.id);
        for (const auto& s : d->downloads()) d->forget(s.id);
        QSignalSpy removed(d.get(), &ft::Downloader::downloadRemoved);
        const qint64 id = d->start("test/slow-GGUF", entries[0]);
        QTRY_VERIFY_WITH_TIMEOUT(d->status(id).bytesDone > 0, 10000);
        QVERIFY(QFile::exists(m_models + "/test__slow-GGUF/slow.gguf.part"));
        d->cancel(id);
        QCOMPARE(removed.count(), 1);
        QVERIFY(!QFile::exists(m_models + "/test__slow-GGUF/slow.gguf.part"));
        QVERIFY(d->status(id).state.isEmpty());
        auto again = make();
        for (const auto& s : again->downloads()) QVERIFY(s.id != id);
    }

    void downloadsASafetensorsModelTheEngineCanRead() {
        auto d = make();
        const auto entries = list(*d, "test/qwen3-moe-tiny");
        QCOMPARE(entries.size(), 1);
        const qint64 id = d->start("test/qwen3-moe-tiny", entries[0]);
        QVERIFY(waitState(*d, id, "done"));
        const QString folder = m_models + "/test__qwen3-moe-tiny";
        QCOMPARE(d->status(id).modelPath, folder);
        ft::ModelLibrary lib(m_db);
        bool checked = false;
        for (const auto& r : lib.models()) {
            if (r.path != folder) continue;
            QCOMPARE(r.format, QStringLiteral("safetensors"));
            QVERIFY2(r.facts.readable, r.facts.error.c_str());
            QCOMPARE(QString::fromStdString(r.facts.architecture), QStringLiteral("qwen3_moe"));
            QVERIFY(r.facts.runnable);
            checked = true;
        }
        QVERIFY(checked);
    }
};

FT_TEST_MAIN(TestDownloader)
#include "test_downloader.moc"
