// Serves the SVG icons of resources/icons tinted to any color: "image://icon/<name>?<rrggbb|aarrggbb>". The SVGs
// draw with `currentColor`, which is replaced before rendering, so one file serves both themes and every state.
#pragma once

#include <QQuickImageProvider>

namespace ft::ui {

class IconProvider : public QQuickImageProvider {
public:
    IconProvider() : QQuickImageProvider(QQuickImageProvider::Image) {}
    QImage requestImage(const QString& id, QSize* size, const QSize& requested) override;
};

}  // namespace ft::ui
