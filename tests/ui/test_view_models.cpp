// View models without QML: LogListModel (live, filtered, bounded), ModelListModel (errors surface as lastError),
// SettingsModel (theme/language persisted, translations present), SystemMonitor (sampling and history).
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

#include "ft_test.h"
#include "log_hub.h"
#include "log_list_model.h"
#include "model_list_model.h"
#include "qml_setup.h"
#include "settings_model.h"
#include "system_monitor.h"

using ft::ui::LogListModel;

class TestViewModels : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;

    static QString textAt(const LogListModel& m, int row) {
        return m.data(m.index(row), LogListModel::TextRole).toString();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
    }

    void logModelFollowsTheHubAndFilters() {
        ft::LogHub hub(4);
        hub.append(1, 0, "debug before");
        hub.append(3, 0, "warn before");
        LogListModel model;
        model.setHub(&hub);
        QCOMPARE(model.rowCount(), 2);  // the hub's history is shown at once (default level: debug and up)
        std::thread worker([&] {
            hub.append(2, 0, "info from worker");
            hub.append(4, 0, "error from worker");
        });
        worker.join();
        QCOMPARE(model.rowCount(), 2);            // queued: nothing changes inside the logging call
        QTRY_COMPARE(model.rowCount(), 4);
        QCOMPARE(textAt(model, 3), QStringLiteral("error from worker"));

        model.setMinLevel(3);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(textAt(model, 0), QStringLiteral("warn before"));
        model.setSearch("WORKER");
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.data(model.index(0), LogListModel::LevelNameRole).toString(), QStringLiteral("error"));
        QVERIFY(model.visibleText().contains("[error] error from worker"));
        model.setSearch({});
        model.setMinLevel(0);

        hub.append(2, 0, "fifth");  // capacity 4: the oldest line leaves the model too
        QTRY_COMPARE(textAt(model, 3), QStringLiteral("fifth"));
        QCOMPARE(model.totalCount(), 4);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(textAt(model, 0), QStringLiteral("warn before"));
    }

    void modelListReportsRefusals() {
        ft::ui::ModelListModel library;
        QVERIFY2(library.available(), qPrintable(library.lastError()));
        QVERIFY(library.databasePath().startsWith(m_data.path()));
        QCOMPARE(library.rowCount(), 0);
        QSignalSpy errors(&library, &ft::ui::ModelListModel::lastErrorChanged);
        QVERIFY(!library.addPath(m_data.filePath("missing.gguf")));
        QCOMPARE(errors.count(), 1);
        QVERIFY(library.lastError().contains("missing.gguf"));
        QCOMPARE(library.rowCount(), 0);

        QFile f(m_data.filePath("tiny.gguf"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("GGUF1234");
        f.close();
        QSignalSpy count(&library, &ft::ui::ModelListModel::countChanged);
        QVERIFY(library.addUrl(QUrl::fromLocalFile(f.fileName())));
        QCOMPARE(library.rowCount(), 1);
        QCOMPARE(count.count(), 1);
        QVERIFY(library.lastError().isEmpty());
        QCOMPARE(library.data(library.index(0), ft::ui::ModelListModel::NameRole).toString(), QStringLiteral("tiny"));
        ft::ui::ModelListModel second;  // a second view reads the same database
        QCOMPARE(second.rowCount(), 1);
        QVERIFY(library.remove(library.data(library.index(0), ft::ui::ModelListModel::IdRole).toLongLong()));
        QCOMPARE(library.rowCount(), 0);
    }

    void settingsPersistAndTranslationsLoad() {
        {
            ft::ui::SettingsModel s;
            QVERIFY(s.dataDir().startsWith(m_data.path()));
            s.setTheme("light");
            QVERIFY(!s.dark());
            s.setTheme("dark");
            QVERIFY(s.dark());
            s.setLanguage("ko");
        }
        ft::ui::SettingsModel again;
        QCOMPARE(again.theme(), QStringLiteral("dark"));
        QCOMPARE(again.language(), QStringLiteral("ko"));
        // The embedded translations exist and really translate (not an empty .qm).
        QVERIFY(ft::ui::install_language("ko"));
        QCOMPARE(QCoreApplication::translate("Sidebar", "Models"), QStringLiteral("모델"));
        QVERIFY(ft::ui::install_language("zh_CN"));
        QCOMPARE(QCoreApplication::translate("Sidebar", "Models"), QStringLiteral("模型"));
        QVERIFY(ft::ui::install_language("en"));
        QCOMPARE(QCoreApplication::translate("Sidebar", "Models"), QStringLiteral("Models"));
        QVERIFY(!ft::ui::install_language("xx"));
    }

    void systemMonitorSamples() {
        ft::ui::SystemMonitor monitor;
        QVERIFY(monitor.running());
        QCOMPARE(monitor.samples(), 1);
        QVERIFY(monitor.ramTotal() > 0);
        QVERIFY(monitor.ramUsed() > 0 && monitor.ramUsed() <= monitor.ramTotal());
        QSignalSpy updated(&monitor, &ft::ui::SystemMonitor::updated);
        monitor.setInterval(100);
        QTRY_VERIFY(updated.count() >= 2);
        QVERIFY(monitor.ramHistory().size() >= 3);
        for (const QVariant& v : monitor.ramHistory()) QVERIFY(v.toDouble() > 0 && v.toDouble() <= 1);
        for (int i = 0; i < 70; ++i) monitor.refresh();
        QCOMPARE(monitor.ramHistory().size(), monitor.historyLength());
        QCOMPARE(monitor.gpuCount(), static_cast<int>(monitor.gpus().size()));
        if (monitor.gpuCount() == 0) QVERIFY(!monitor.gpuNote().isEmpty());
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    TestViewModels tc;
    return QTest::qExec(&tc, argc, argv);
}
#include "test_view_models.moc"
