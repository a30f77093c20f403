// Writes a PNG of every page of the real app, dark and light, at the sizes given (default 1280x800 and 1024x640):
//   ft_ui_screenshots <out-dir> [WxH …]      → <out-dir>/<page>-<theme>[-WxH].png (no suffix for the first size)
// Run offscreen by scripts/screenshots.sh with a fresh FT_DATA_DIR, so it shows what a first start shows.
#include <QApplication>
#include <QDir>
#include <QRegularExpression>

#include <cstdio>

#include "ft/log.h"
#include "log_hub.h"
#include "system_info.h"
#include "app_harness.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ft_ui_screenshots <out-dir> [WxH …]\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QList<QSize> sizes;
    for (int i = 2; i < argc; ++i) {
        const auto m = QRegularExpression("^(\\d+)x(\\d+)$").match(QString::fromLocal8Bit(argv[i]));
        if (!m.hasMatch()) {
            std::fprintf(stderr, "ft_ui_screenshots: bad size '%s' (expected WxH)\n", argv[i]);
            return 2;
        }
        sizes.append(QSize(m.captured(1).toInt(), m.captured(2).toInt()));
    }
    if (sizes.isEmpty()) sizes = {QSize(1280, 800), QSize(1024, 640)};
    QDir().mkpath(out);

    ft::LogHub hub;
    ft::attach_log_hub(hub, "freetoken");
    ft::log_system_summary();
    ft::test::UiHarness ui(&hub);
    if (!ui.load()) {
        std::fprintf(stderr, "ft_ui_screenshots: Main.qml failed to load\n");
        return 1;
    }
    QObject* settings = ui.object("settingsModel");
    int written = 0;
    for (int s = 0; s < sizes.size(); ++s) {
        ui.resize(sizes[s].width(), sizes[s].height());
        for (const QString theme : {"dark", "light"}) {
            settings->setProperty("theme", theme);
            for (const QString page : {"models", "console", "chat", "logs", "settings"}) {
                if (!ui.showPage(page)) {
                    std::fprintf(stderr, "ft_ui_screenshots: cannot open page %s\n", qPrintable(page));
                    return 1;
                }
                ui.settle(400);
                const QImage image = ui.grab();
                const QString suffix = s == 0 ? QString() : QStringLiteral("-%1x%2").arg(sizes[s].width()).arg(sizes[s].height());
                const QString file = QStringLiteral("%1/%2-%3%4.png").arg(out, page, theme, suffix);
                if (image.isNull() || !image.save(file)) {
                    std::fprintf(stderr, "ft_ui_screenshots: cannot write %s\n", qPrintable(file));
                    return 1;
                }
                std::printf("%s\n", qPrintable(file));
                ++written;
            }
        }
    }
    ft::log_shutdown();
    std::printf("ft_ui_screenshots: %d PNG(s) in %s\n", written, qPrintable(out));
    return 0;
}
