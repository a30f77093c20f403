// The Models page in the real window (offscreen), driven like a user: both file dialogs open (a missing QML module
// such as Qt.labs.folderlistmodel fails here, not at a user's first click) and add what they accept; a .gguf file and
// a Hugging Face folder dropped on the page (real drag-and-drop events) show architecture, parameters, quant and a
// fit badge; the models-folder scan; Load with progress, Unload and Cancel through a real EngineHost on the tiny
// model; Remove with its confirmation dialog (file kept, or deleted when ticked); the Download dialog against a
// real local Hub server (tests/app/hub_test_server) with a 404 shown and a model downloaded into the library; the
// Hugging Face token field in Settings.
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app_harness.h"
#include "engine_host.h"
#include "ft/log.h"
#include "ft/paths.h"
#include "model/convert_hf.h"
#include "ref/dtype.h"
#include "hub_test_server.h"
#include "log_hub.h"

namespace {

// Warnings of this page's QML, the shared window and the dialogs; other pages' files (being written by other
// engineers, with tests of their own) are left to their tests.
QStringList take_warnings() {
    static const QRegularExpression others("/(Chat|Console|Cache|Chart|FaultBanner|EditMessage|Logs)[A-Za-z]*\\.qml");
    QStringList w;
    for (const QString& m : ft::test::take_warnings())
        if (!others.match(m).hasMatch()) w << m;
    return w;
}

const QString kTiny = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

bool copy_dir(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const QFileInfo& f : QDir(from).entryInfoList(QDir::Files))
        if (!QFile::copy(f.filePath(), to + "/" + f.fileName())) return false;
    return true;
}

// A visible popup of this class under any of `roots` (the non-native dialogs are QQuickPopup subclasses made from
// QML files of QtQuick.Dialogs, so their class is e.g. FileDialog_QMLTYPE_12, deriving from QQuickFileDialogImpl).
QObject* visible_popup(const QList<QObject*>& roots, const char* cls) {
    for (QObject* root : roots) {
        if (!root) continue;
        QList<QObject*> all = root->findChildren<QObject*>();
        all.prepend(root);
        for (QObject* o : all)
            if (o->inherits(cls) && o->property("visible").toBool()) return o;
    }
    return nullptr;
}
bool popup_visible(const QList<QObject*>& roots, const char* cls) { return visible_popup(roots, cls) != nullptr; }

}  // namespace

class TestModelsPage : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::HubTestServer> m_server;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    ft::EngineHost* m_host = nullptr;
    QString m_gguf, m_folder;

    QObject* library() { return m_ui->object("libraryModel"); }
    int count() { return library()->property("count").toInt(); }

    QQuickItem* rowOf(const QString& name) {
        for (QQuickItem* t : m_ui->items("modelName"))
            if (t->property("text").toString() == name)
                for (QQuickItem* a = t; a; a = a->parentItem())
                    if (QString::fromLatin1(a->metaObject()->className()).startsWith("ModelRow")) return a;
        return nullptr;
    }
    QQuickItem* inRow(QQuickItem* row, const QString& objectName) {
        QList<QQuickItem*> stack{row};
        while (!stack.isEmpty()) {
            QQuickItem* i = stack.takeLast();
            if (i->objectName() == objectName) return i;
            stack += i->childItems();
        }
        return nullptr;
    }
    bool clickItem(QQuickItem* target) {
        if (!target || !target->isVisible() || !target->isEnabled()) return false;
        const QPointF c = target->mapToScene(QPointF(target->width() / 2, target->height() / 2));
        QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier, c.toPoint());
        m_ui->settle(50);
        return true;
    }
    void dropUrls(const QList<QUrl>& urls) {
        QMimeData mime;
        mime.setUrls(urls);
        QQuickItem* page = m_ui->item("page_models");
        const QPoint at = page->mapToScene(QPointF(page->width() / 2, page->height() / 2)).toPoint();
        QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_ui->window(), &enter);
        QDragMoveEvent move(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_ui->window(), &move);
        QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_ui->window(), &drop);
        m_ui->settle();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        m_server = std::make_unique<ft::test::HubTestServer>();
        qputenv("FT_HF_ENDPOINT", m_server->url().toUtf8());
        ft::test::HubTestServer::Repo st;
        for (const QString& name : {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}) {
            QFile f(kTiny + "/" + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            st.files[name].data = f.readAll();
            st.files[name].lfs = name.endsWith(".safetensors");
        }
        m_server->repos["test/qwen3-moe-tiny"] = st;

        m_gguf = m_data.filePath("tiny-Q8_0.gguf");
        // The tiny model converted to a real Q8_0 GGUF by the engine's converter (what `ft convert` runs).
        ft::model::ConvertOptions opt;
        opt.out = m_gguf.toStdString();
        opt.type = ft::kernels::DType::Q8_0;
        try {
            ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        m_folder = m_data.filePath("Qwen3-MoE-tiny-folder");
        QVERIFY(copy_dir(kTiny, m_folder));

        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        const bool loaded = m_ui->load();
        const QStringList w = take_warnings();
        QVERIFY2(loaded, qPrintable(w.join('\n')));
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
        m_host = m_ui->host();   // the harness's EngineHost, handed to Main.qml as the app does
        QVERIFY(m_host);
        QCOMPARE(m_ui->root()->property("engineHost").value<QObject*>(), static_cast<QObject*>(m_host));
        QVERIFY(m_ui->showPage("models"));
    }

    void fileDialogsOpenAndAdd() {
        QObject* fileDialog = m_ui->object("modelFileDialog");
        QObject* folderDialog = m_ui->object("modelFolderDialog");
        QVERIFY(fileDialog && folderDialog);
        QVERIFY(m_ui->click("addModelButton"));
        QTRY_VERIFY(fileDialog->property("visible").toBool());
        QTRY_VERIFY(popup_visible({m_ui->window(), fileDialog, m_ui->window()->contentItem()}, "QQuickFileDialogImpl"));
        QMetaObject::invokeMethod(fileDialog, "reject");
        m_ui->settle();
        QVERIFY(!fileDialog->property("visible").toBool());
        QCOMPARE(count(), 0);

        QVERIFY(m_ui->click("addFolderButton"));
        QTRY_VERIFY(folderDialog->property("visible").toBool());
        QTRY_VERIFY(popup_visible({m_ui->window(), folderDialog, m_ui->window()->contentItem()}, "QQuickFolderDialogImpl"));
        QMetaObject::invokeMethod(folderDialog, "reject");
        m_ui->settle();
        QVERIFY(!folderDialog->property("visible").toBool());

        // Accepting adds what was chosen.
        QVERIFY(m_ui->click("addModelButton"));
        QTRY_VERIFY(fileDialog->property("visible").toBool());
        QObject* impl = nullptr;
        QTRY_VERIFY((impl = visible_popup({m_ui->window(), fileDialog, m_ui->window()->contentItem()}, "QQuickFileDialogImpl")));
        // What a user's pick does: the dialog's implementation selects the file, then the dialog is accepted.
        impl->setProperty("selectedFile", QUrl::fromLocalFile(m_gguf));
        fileDialog->setProperty("selectedFile", QUrl::fromLocalFile(m_gguf));
        QMetaObject::invokeMethod(fileDialog, "accept");
        QTRY_COMPARE(count(), 1);
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void rowsShowWhatTheEngineRead() {
        QQuickItem* row = rowOf("tiny-Q8_0");
        QVERIFY(row);
        const QString facts = inRow(row, "modelFacts")->property("text").toString();
        QVERIFY2(facts.contains("qwen3_moe") && facts.contains("Q8_0") && facts.contains("active"), qPrintable(facts));
        QQuickItem* badge = inRow(row, "fitBadge");
        QVERIFY(badge->isVisible());
        QVERIFY2(badge->property("text").toString().contains("tok/s"), qPrintable(badge->property("text").toString()));
        QVERIFY(!inRow(row, "unsupportedBadge")->isVisible());
        QVERIFY(inRow(row, "loadModelButton")->isEnabled());
    }

    void dropAddsAFolderAndRefusesOtherFiles() {
        dropUrls({QUrl::fromLocalFile(m_folder)});
        QTRY_COMPARE(count(), 2);
        QVERIFY(m_ui->item("libraryNotice")->isVisible());
        // A text file is refused as the drag enters (nothing happens, nothing is shown).
        QFile txt(m_data.filePath("notes.txt"));
        QVERIFY(txt.open(QIODevice::WriteOnly));
        txt.write("not a model");
        txt.close();
        dropUrls({QUrl::fromLocalFile(txt.fileName())});
        QCOMPARE(count(), 2);
        QVERIFY(!m_ui->item("libraryError")->isVisible());
        // A ".gguf" that is not one is taken, then refused by the library: the reason is shown.
        QFile junk(m_data.filePath("notes.gguf"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a model");
        junk.close();
        dropUrls({QUrl::fromLocalFile(junk.fileName())});
        QCOMPARE(count(), 2);
        QVERIFY(m_ui->item("libraryError")->isVisible());
        QVERIFY(m_ui->click("dismissErrorButton"));
        QVERIFY(take_warnings().isEmpty());
    }

    void aTruncatedModelSaysSoBeforeLoading() {
        QFile in(m_gguf);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile cut(m_data.filePath("cut-model.gguf"));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(in.read(in.size() / 4));
        cut.close();
        bool ok = false;
        QMetaObject::invokeMethod(library(), "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, cut.fileName()));
        QVERIFY(ok);
        m_ui->settle();
        QQuickItem* row = rowOf("cut-model");
        QVERIFY(row);
        QVERIFY(inRow(row, "unsupportedBadge")->isVisible());
        QVERIFY(inRow(row, "modelProblem")->isVisible());
        QVERIFY(!inRow(row, "modelProblem")->property("text").toString().isEmpty());
        QVERIFY(!inRow(row, "loadModelButton")->isEnabled());
        QVERIFY(!inRow(row, "fitBadge")->isVisible());
    }

    void scanFindsModelsInTheModelsFolder() {
        const QString models = QString::fromStdString(ft::models_dir().string());
        QVERIFY(QFile::copy(m_gguf, models + "/scanned-Q8_0.gguf"));
        const int before = count();
        QVERIFY(m_ui->click("scanModelsButton"));
        QTRY_COMPARE(count(), before + 1);
        QVERIFY(rowOf("scanned-Q8_0"));
        QVERIFY(m_ui->item("libraryNotice")->property("text").toString().contains("1"));
    }

    void loadsUnloadsAndCancelsThroughTheEngineHost() {
        QQuickItem* row = rowOf("tiny-Q8_0");
        QVERIFY(row);
        QSignalSpy finished(m_host, &ft::EngineHost::loadFinished);
        QSignalSpy progress(m_host, &ft::EngineHost::loadProgressChanged);
        qint64 maxTotal = 0, maxDone = 0;
        QStringList stages;  // what the row's progress line said, translated
        auto watch = connect(m_host, &ft::EngineHost::loadProgressChanged, this, [&] {
            maxTotal = std::max(maxTotal, m_host->loadBytesTotal());
            maxDone = std::max(maxDone, m_host->loadBytesDone());
            if (!m_host->loadStage().isEmpty()) stages << m_host->loadStageLabel();
        });
        QVERIFY(clickItem(inRow(row, "loadModelButton")));
        QCOMPARE(m_host->modelPath(), m_gguf);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
        QVERIFY2(finished[0][0].toBool(), qPrintable(finished[0][1].toString()));
        QVERIFY(progress.count() > 0);
        disconnect(watch);
        QVERIFY2(maxTotal > 0 && maxDone > 0, "the progress bar never got bytes done / total");   // real bytes, not steps
        QVERIFY2(stages.contains("Opening the file") && stages.contains("Ready"), qPrintable(stages.join(", ")));
        for (const QString& key : {"opening", "mapping", "tokenizer", "bandwidth profile", "weights", "kv cache"})
            QVERIFY2(!stages.contains(key), qPrintable(stages.join(", ")));  // never the engine's raw stage key
        m_ui->settle();
        QVERIFY(inRow(row, "unloadModelButton")->isVisible());
        QVERIFY(!inRow(row, "loadModelButton")->isVisible());
        QVERIFY(!inRow(row, "removeModelButton")->isEnabled());   // not while it is loaded
        QVERIFY(clickItem(inRow(row, "unloadModelButton")));
        QTRY_COMPARE(m_host->state(), QStringLiteral("idle"));
        QVERIFY(inRow(row, "loadModelButton")->isVisible());

        // Cancel: while the load runs, the row shows the progress bar and Cancel.
        QQuickItem* folderRow = rowOf(QFileInfo(m_folder).fileName());
        QVERIFY(folderRow);
        finished.clear();
        QQuickItem* load = inRow(folderRow, "loadModelButton");
        const QPoint c = load->mapToScene(QPointF(load->width() / 2, load->height() / 2)).toPoint();
        QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier, c);
        QCOMPARE(m_host->state(), QStringLiteral("loading"));
        QCoreApplication::processEvents();
        QVERIFY(inRow(folderRow, "loadProgress")->isVisible());
        QQuickItem* cancel = inRow(folderRow, "cancelLoadButton");
        QVERIFY(cancel->isVisible());
        const QPoint cc = cancel->mapToScene(QPointF(cancel->width() / 2, cancel->height() / 2)).toPoint();
        QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier, cc);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
        if (finished[0][0].toBool()) {
            // The tiny model can finish loading before the cancel reaches the engine: then it is loaded; unload.
            qWarning("the load finished before Cancel arrived");
            m_host->unload();
        } else {
            QTRY_COMPARE(m_host->state(), QStringLiteral("idle"));
        }
        QTRY_COMPARE(m_host->state(), QStringLiteral("idle"));
        take_warnings();
    }

    void removeAsksAndKeepsOrDeletesTheFile() {
        const QString copy = m_data.filePath("to-delete.gguf");
        QVERIFY(QFile::copy(m_gguf, copy));
        bool ok = false;
        QMetaObject::invokeMethod(library(), "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, copy));
        QVERIFY(ok);
        m_ui->settle();
        const int before = count();
        QObject* dialog = m_ui->object("removeModelDialog");
        QVERIFY(dialog);

        // Cancel: nothing changes.
        QVERIFY(clickItem(inRow(rowOf("to-delete"), "removeModelButton")));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QVERIFY(m_ui->click("cancelRemoveButton"));
        QTRY_VERIFY(!dialog->property("visible").toBool());
        QCOMPARE(count(), before);

        // Ticked: the row goes and so does the file.
        QVERIFY(clickItem(inRow(rowOf("to-delete"), "removeModelButton")));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QVERIFY(m_ui->click("deleteFilesCheck"));
        QVERIFY(m_ui->click("confirmRemoveButton"));
        QTRY_COMPARE(count(), before - 1);
        QVERIFY(!QFile::exists(copy));

        // Not ticked: the file stays.
        QVERIFY(clickItem(inRow(rowOf("cut-model"), "removeModelButton")));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QVERIFY(!m_ui->item("deleteFilesCheck")->property("checked").toBool());   // never pre-ticked
        QVERIFY(m_ui->click("confirmRemoveButton"));
        QTRY_COMPARE(count(), before - 2);
        QVERIFY(QFile::exists(m_data.filePath("cut-model.gguf")));
        QVERIFY(take_warnings().isEmpty());
    }

    void downloadDialogListsAndDownloads() {
        QObject* dialog = m_ui->object("downloadDialog");
        QVERIFY(dialog);
        QVERIFY(m_ui->click("downloadModelButton"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem* field = m_ui->item("hubRepoField");
        field->setProperty("text", "test/not-there");
        QVERIFY(m_ui->click("hubListButton"));
        QTRY_VERIFY(m_ui->item("hubError")->isVisible());
        QVERIFY(m_ui->item("hubError")->property("text").toString().contains("404"));

        field->setProperty("text", m_server->url() + "/test/qwen3-moe-tiny");
        QVERIFY(m_ui->click("hubListButton"));
        QTRY_VERIFY(m_ui->item("hubDownload_0") && m_ui->item("hubDownload_0")->isVisible());
        const int before = count();
        QVERIFY(m_ui->click("hubDownload_0"));
        QTRY_VERIFY(!dialog->property("visible").toBool());
        QTRY_VERIFY(m_ui->item("downloadsCard")->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(count(), before + 1, 30000);
        QTRY_COMPARE(m_ui->item("downloadState")->property("text").toString().startsWith("Done"), true);
        QVERIFY(rowOf("test__qwen3-moe-tiny") || rowOf("qwen3-moe-tiny"));
        QVERIFY(m_ui->click("forgetDownloadButton"));
        QTRY_VERIFY(!m_ui->item("downloadsCard")->isVisible());
        QVERIFY(take_warnings().isEmpty());
    }

    void settingsHoldTheHubToken() {
        QVERIFY(m_ui->showPage("settings"));
        QQuickItem* token = m_ui->item("hubTokenField");
        QVERIFY(token && token->isVisible());
        token->setProperty("text", "hf_test_token");
        QMetaObject::invokeMethod(token, "editingFinished");
        QCOMPARE(m_ui->object("settingsModel")->property("hubToken").toString(), QStringLiteral("hf_test_token"));
        QVERIFY(!m_ui->item("hubEndpointField")->isEnabled());   // FT_HF_ENDPOINT is set in this test
        // The page's new strings are translated.
        QVERIFY(m_ui->click("languageChoice_ko"));
        QCOMPARE(m_ui->item("scanModelsButton")->property("text").toString(), QStringLiteral("모델 폴더 검색"));
        QVERIFY(m_ui->click("languageChoice_zh_CN"));
        QCOMPARE(m_ui->item("downloadModelButton")->property("text").toString(), QStringLiteral("下载…"));
        QVERIFY(m_ui->click("languageChoice_en"));
        QVERIFY(m_ui->showPage("models"));
        QVERIFY(take_warnings().isEmpty());
    }

    void cleanupTestCase() {
        m_host = nullptr;
        m_ui.reset();
        ft::test::remove_warning_capture();
        ft::log_shutdown();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestModelsPage tc;
    return QTest::qExec(&tc, argc, argv);
}
#include "test_models_page.moc"
