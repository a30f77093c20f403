#include "icon_provider.h"

#include <QBuffer>
#include <QColor>
#include <QFile>
#include <QImageReader>

namespace ft::ui {

QImage IconProvider::requestImage(const QString& id, QSize* size, const QSize& requested) {
    const qsizetype q = id.indexOf('?');
    const QString name = q < 0 ? id : id.left(q);
    const QColor color(q < 0 ? QStringLiteral("#808080") : "#" + id.mid(q + 1));
    QFile f(QStringLiteral(":/icons/%1.svg").arg(name));
    QImage image;
    if (f.open(QIODevice::ReadOnly)) {
        QByteArray svg = f.readAll();
        svg.replace("currentColor", color.name(QColor::HexRgb).toLatin1());
        if (color.alpha() < 255) svg.replace("<svg ", QStringLiteral("<svg opacity=\"%1\" ").arg(color.alphaF()).toLatin1());
        QBuffer buffer(&svg);
        QImageReader reader(&buffer, "svg");
        const QSize target = requested.isValid() && !requested.isEmpty() ? requested : QSize(24, 24);
        reader.setScaledSize(target);
        image = reader.read();
    }
    if (image.isNull()) {  // unknown icon: transparent, so a typo shows as a gap rather than a crash
        image = QImage(requested.isValid() && !requested.isEmpty() ? requested : QSize(24, 24), QImage::Format_ARGB32);
        image.fill(Qt::transparent);
    }
    if (size) *size = image.size();
    return image;
}

}  // namespace ft::ui
