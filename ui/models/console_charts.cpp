#include "console_model.h"  // first: it includes ft/engine.h before Qt
#include "console_charts.h"

#include <QElapsedTimer>
#include <QHoverEvent>
#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ft::ui {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int kColumnPx = 2;  // one bucket of samples per 2 px

// "12 s ago" / "3.5 min ago": how far back a point of the window is (figures in the app's locale: its decimal sign).
QString ago(std::int64_t ms) {
    if (ms < 60000) return QObject::tr("%1 s ago").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
    return QObject::tr("%1 min ago").arg(QLocale().toString(double(ms) / 60000.0, 'f', 1));
}

struct Window {
    std::int64_t t0 = 0, t1 = 0;
    int first = 0;  // first history index inside
};

Window window_of(const ConsoleModel& m) {
    Window w;
    const ConsoleHistory& h = m.history();
    if (h.empty()) return w;
    w.t1 = h.newest().t_ms;
    w.t0 = w.t1 - m.windowMs();
    w.first = h.lower_bound(w.t0);
    return w;
}

// Index of the sample nearest to time t inside the window (-1 if none).
int nearest(const ConsoleHistory& h, const Window& w, std::int64_t t) {
    if (h.empty() || w.first >= h.size()) return -1;
    int i = std::clamp(h.lower_bound(t), w.first, h.size() - 1);
    if (i > w.first && std::llabs(h.at(i - 1).t_ms - t) < std::llabs(h.at(i).t_ms - t)) --i;
    return i;
}

// How long one pixel column of the window lasts, within [125 ms, 1 s]: the chart's useful repaint interval.
int column_ms(const ConsoleModel* m, double width_px, int px_per_column) {
    if (!m) return 125;
    const double cols = std::max(1.0, width_px / px_per_column);
    return int(std::clamp(double(m->windowMs()) / cols, 125.0, 1000.0));
}

// Repaints now if the last paint is older than `interval_ms`, else once when it will be. A chart not on screen (the
// Console hidden, or no data) does not repaint at all: it does when it shows again (repaint_when_shown).
void throttle(QQuickItem* item, QElapsedTimer& painted, QTimer& pending, int interval_ms) {
    if (!item->isVisible()) {
        pending.stop();
        return;
    }
    if (!painted.isValid() || painted.elapsed() >= interval_ms) {
        pending.stop();
        item->update();
        return;
    }
    if (!pending.isActive()) pending.start(int(interval_ms - painted.elapsed()));
}

// Whether the newest sample changes what a chart shows beyond extending it in time: one of its values differs from
// the sample before (NaN equal to NaN), or it is the first.
bool newest_differs(const ConsoleHistory& h, const std::vector<int>& series) {
    if (h.size() < 2) return true;
    const ConsoleSample& a = h.at(h.size() - 1);
    const ConsoleSample& b = h.at(h.size() - 2);
    for (int k : series) {
        if (k < 0) continue;
        const float x = a.v[k], y = b.v[k];
        if (x != y && !(std::isnan(x) && std::isnan(y))) return true;
    }
    return false;
}

bool newest_layers_differ(const ConsoleHistory& h) {
    if (h.size() < 2) return true;
    const auto& a = h.at(h.size() - 1).layers;
    const auto& b = h.at(h.size() - 2).layers;
    if (a.size() != b.size()) return true;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && !(std::isnan(a[i]) && std::isnan(b[i]))) return true;
    return false;
}

void repaint_when_shown(QQuickItem* item) {
    QObject::connect(item, &QQuickItem::visibleChanged, item, [item] {
        if (item->isVisible()) item->update();
    });
}

QColor mix(const QColor& a, const QColor& b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

// ---------------------------------------------------------------- TimeChart

TimeChart::TimeChart(QQuickItem* parent) : QQuickPaintedItem(parent) {
    repaint_when_shown(this);
    m_pending.setSingleShot(true);
    connect(&m_pending, &QTimer::timeout, this, [this] { update(); });
    setAcceptHoverEvents(true);
    setAntialiasing(true);
    setOpaquePainting(false);
}

void TimeChart::setModel(ConsoleModel* m) {
    if (m == m_model) return;
    if (m_model) disconnect(m_model, nullptr, this, nullptr);
    m_model = m;
    if (m) {
        connect(m, &ConsoleModel::historyChanged, this, &TimeChart::onHistory);
        connect(m, &ConsoleModel::windowChanged, this, [this] { onHistory(); update(); });
        connect(m, &ConsoleModel::ticked, this, &TimeChart::onTick);
    }
    emit modelChanged();
    onHistory();
}

void TimeChart::setSeries(const QStringList& s) {
    if (s == m_seriesNames) return;
    m_seriesNames = s;
    m_series.clear();
    for (const QString& name : s) m_series.push_back(series_from_name(name.toLatin1().constData()));
    emit styleChanged();
    onHistory();
}

void TimeChart::setLabels(const QStringList& l) {
    if (l == m_labels) return;
    m_labels = l;
    emit styleChanged();
    updateHover();
}

void TimeChart::setColors(const QVariantList& c) {
    m_colorList = c;
    m_colors.clear();
    for (const QVariant& v : c) m_colors.push_back(v.value<QColor>());
    emit styleChanged();
    update();
}

void TimeChart::setStacked(bool s) {
    if (s == m_stacked) return;
    m_stacked = s;
    emit styleChanged();
    update();
}

void TimeChart::setScale(double s) {
    if (s == m_scale) return;
    m_scale = s;
    emit styleChanged();
    update();
}

void TimeChart::setFixedMax(double m) {
    if (m == m_fixedMax) return;
    m_fixedMax = m;
    emit styleChanged();
    update();
}

void TimeChart::setUnit(const QString& u) {
    if (u == m_unit) return;
    m_unit = u;
    emit styleChanged();
    update();
}

void TimeChart::setDecimals(int d) {
    if (d == m_decimals) return;
    m_decimals = d;
    emit styleChanged();
    update();
}

void TimeChart::setGridColor(const QColor& c) {
    if (c == m_grid) return;
    m_grid = c;
    emit styleChanged();
    update();
}

void TimeChart::setTextColor(const QColor& c) {
    if (c == m_text) return;
    m_text = c;
    emit styleChanged();
    update();
}

QString TimeChart::format(double shown) const {
    if (!std::isfinite(shown)) return QStringLiteral("—");
    return QLocale().toString(shown, 'f', m_decimals) + (m_unit.isEmpty() ? QString() : QStringLiteral(" ") + m_unit);
}

void TimeChart::onHistory() {
    bool any = false;
    if (m_model) {
        const ConsoleHistory& h = m_model->history();
        const Window w = window_of(*m_model);
        for (int i = w.first; i < h.size() && !any; ++i)
            for (int k : m_series)
                if (k >= 0 && std::isfinite(h.at(i).v[k])) { any = true; break; }
    }
    if (any != m_hasData) {
        m_hasData = any;
        emit dataChanged();
    }
    updateHover();
    // A sample that repeats the values before only moves the picture with time: that waits for the tick (an idle
    // engine's 8 samples a second would otherwise draw a frame of their own at each pixel column).
    if (!m_model || newest_differs(m_model->history(), m_series)) requestRepaint();
    else m_timeMoved = true;
}

void TimeChart::onTick() {
    if (!m_timeMoved) return;
    m_timeMoved = false;
    if (!isVisible()) return;  // repaint_when_shown draws it when it shows
    m_pending.stop();
    update();
}

void TimeChart::requestRepaint() {
    m_timeMoved = false;
    throttle(this, m_painted, m_pending, column_ms(m_model, width(), kColumnPx));
}

void TimeChart::paint(QPainter* p) {
    QElapsedTimer timer;
    timer.start();
    m_painted.start();
    const double W = width(), H = height();
    const int n_series = int(m_series.size());
    if (!m_model || W < 4 || H < 4 || n_series == 0) return;
    const ConsoleHistory& h = m_model->history();
    const Window w = window_of(*m_model);
    const int cols = std::max(1, int(W / kColumnPx));
    const double span = double(std::max<std::int64_t>(1, w.t1 - w.t0));

    // Bucket: per column the newest sample's values (stacked: all series of that sample) — or, for lines, the
    // largest value in the column so short peaks stay visible.
    std::vector<float> grid(std::size_t(cols) * std::size_t(n_series), kNaN);
    for (int i = w.first; i < h.size(); ++i) {
        const ConsoleSample& s = h.at(i);
        const int c = std::clamp(int((double(s.t_ms - w.t0) / span) * cols), 0, cols - 1);
        for (int k = 0; k < n_series; ++k) {
            const int id = m_series[std::size_t(k)];
            if (id < 0) continue;
            const float v = s.v[id];
            float& cell = grid[std::size_t(c) * std::size_t(n_series) + std::size_t(k)];
            if (m_stacked || !std::isfinite(cell) || v > cell) cell = v;
        }
    }
    double vmax = 0;
    for (int c = 0; c < cols; ++c) {
        double sum = 0;
        for (int k = 0; k < n_series; ++k) {
            const float v = grid[std::size_t(c) * std::size_t(n_series) + std::size_t(k)];
            if (!std::isfinite(v)) continue;
            if (m_stacked) sum += v;
            else vmax = std::max(vmax, double(v));
        }
        vmax = std::max(vmax, sum);
    }
    vmax *= m_scale;
    if (m_fixedMax > 0) vmax = m_fixedMax;
    else vmax = vmax > 0 ? vmax * 1.1 : 1.0;

    const double top = 14, bottom = H - 2;
    auto y_of = [&](double shown) { return bottom - (bottom - top) * std::clamp(shown / vmax, 0.0, 1.0); };
    auto x_of = [&](int c) { return (double(c) + 0.5) * W / cols; };

    p->setRenderHint(QPainter::Antialiasing, true);
    p->setPen(QPen(m_grid, 1));
    for (int g = 0; g <= 2; ++g) {
        const double y = top + (bottom - top) * g / 2.0;
        p->drawLine(QPointF(0, y), QPointF(W, y));
    }
    QFont f = p->font();
    f.setPixelSize(10);
    p->setFont(f);
    p->setPen(m_text);
    p->drawText(QPointF(2, 10), format(vmax));

    auto color = [&](int k) { return k < int(m_colors.size()) ? m_colors[std::size_t(k)] : QColor(0x5b, 0x9b, 0xff); };
    if (m_stacked) {
        std::vector<double> base(std::size_t(cols), 0.0);
        for (int k = 0; k < n_series; ++k) {
            QPainterPath area;
            std::vector<QPointF> upper, lower;
            for (int c = 0; c < cols; ++c) {
                const float v = grid[std::size_t(c) * std::size_t(n_series) + std::size_t(k)];
                if (!std::isfinite(v)) {
                    if (!upper.empty()) {
                        QPolygonF poly;
                        for (const QPointF& pt : upper) poly << pt;
                        for (auto it = lower.rbegin(); it != lower.rend(); ++it) poly << *it;
                        area.addPolygon(poly);
                        upper.clear();
                        lower.clear();
                    }
                    continue;
                }
                const double b = base[std::size_t(c)];
                const double t = b + double(v) * m_scale;
                lower.emplace_back(x_of(c), y_of(b));
                upper.emplace_back(x_of(c), y_of(t));
                base[std::size_t(c)] = t;
            }
            if (!upper.empty()) {
                QPolygonF poly;
                for (const QPointF& pt : upper) poly << pt;
                for (auto it = lower.rbegin(); it != lower.rend(); ++it) poly << *it;
                area.addPolygon(poly);
            }
            QColor fill = color(k);
            fill.setAlphaF(0.75f);
            p->fillPath(area, fill);
        }
    } else {
        for (int k = 0; k < n_series; ++k) {
            QPainterPath line;
            bool open = false;
            for (int c = 0; c < cols; ++c) {
                const float v = grid[std::size_t(c) * std::size_t(n_series) + std::size_t(k)];
                if (!std::isfinite(v)) continue;  // an empty column: the line bridges it
                const QPointF pt(x_of(c), y_of(double(v) * m_scale));
                if (open) line.lineTo(pt);
                else line.moveTo(pt), open = true;
            }
            p->setPen(QPen(color(k), 1.6));
            p->setBrush(Qt::NoBrush);
            p->drawPath(line);
        }
    }
    if (m_hoverX >= 0) {
        p->setPen(QPen(m_text, 1, Qt::DashLine));
        p->drawLine(QPointF(m_hoverX, top), QPointF(m_hoverX, bottom));
    }
    ConsoleModel::addPaintNs(timer.nsecsElapsed());
}

void TimeChart::hoverMoveEvent(QHoverEvent* e) {
    m_hoverX = std::clamp(e->position().x(), 0.0, width());
    updateHover();
    update();
}

void TimeChart::hoverLeaveEvent(QHoverEvent*) {
    m_hoverX = -1;
    updateHover();
    update();
}

void TimeChart::updateHover() {
    QString text;
    if (m_model && m_hoverX >= 0 && width() > 0) {
        const ConsoleHistory& h = m_model->history();
        const Window w = window_of(*m_model);
        const std::int64_t t = w.t0 + std::int64_t(m_hoverX / width() * double(w.t1 - w.t0));
        const int i = nearest(h, w, t);
        if (i >= 0) {
            QStringList parts{ago(w.t1 - h.at(i).t_ms)};
            for (std::size_t k = 0; k < m_series.size(); ++k) {
                const int id = m_series[k];
                const QString label = int(k) < m_labels.size() ? m_labels[int(k)] : m_seriesNames.value(int(k));
                parts << label + QStringLiteral(" ") + format(id >= 0 ? double(h.at(i).v[id]) * m_scale : std::nan(""));
            }
            text = parts.join(QStringLiteral(" · "));
        }
    }
    if (text == m_hoverText) return;
    m_hoverText = text;
    emit hoverChanged();
}

// ---------------------------------------------------------------- HeatmapChart

HeatmapChart::HeatmapChart(QQuickItem* parent) : QQuickPaintedItem(parent) {
    repaint_when_shown(this);
    m_pending.setSingleShot(true);
    connect(&m_pending, &QTimer::timeout, this, [this] { update(); });
    setAcceptHoverEvents(true);
    setOpaquePainting(false);
}

void HeatmapChart::setModel(ConsoleModel* m) {
    if (m == m_model) return;
    if (m_model) disconnect(m_model, nullptr, this, nullptr);
    m_model = m;
    if (m) {
        connect(m, &ConsoleModel::historyChanged, this, &HeatmapChart::onHistory);
        connect(m, &ConsoleModel::windowChanged, this, [this] { onHistory(); update(); });
        connect(m, &ConsoleModel::ticked, this, &HeatmapChart::onTick);
    }
    emit modelChanged();
    onHistory();
}

void HeatmapChart::setColdColor(const QColor& c) {
    if (c == m_cold) return;
    m_cold = c;
    emit styleChanged();
    update();
}

void HeatmapChart::setHotColor(const QColor& c) {
    if (c == m_hot) return;
    m_hot = c;
    emit styleChanged();
    update();
}

void HeatmapChart::setEmptyColor(const QColor& c) {
    if (c == m_empty) return;
    m_empty = c;
    emit styleChanged();
    update();
}

void HeatmapChart::setLayerLabel(const QString& l) {
    if (l == m_layerLabel) return;
    m_layerLabel = l;
    emit styleChanged();
    updateHover();
}

void HeatmapChart::onHistory() {
    bool any = false;
    int layers = 0;
    if (m_model) {
        const ConsoleHistory& h = m_model->history();
        const Window w = window_of(*m_model);
        for (int i = w.first; i < h.size(); ++i) {
            const auto& l = h.at(i).layers;
            layers = std::max(layers, int(l.size()));
            if (!any) any = std::any_of(l.begin(), l.end(), [](float v) { return std::isfinite(v); });
        }
    }
    const bool changed = any != m_hasData || layers != m_layers;
    if (changed) {
        m_hasData = any;
        m_layers = layers;
        emit dataChanged();
    }
    updateHover();
    if (changed || !m_model || newest_layers_differ(m_model->history())) requestRepaint();
    else m_timeMoved = true;  // as TimeChart: only time moved, repaint at the tick
}

void HeatmapChart::onTick() {
    if (!m_timeMoved) return;
    m_timeMoved = false;
    if (!isVisible()) return;
    m_pending.stop();
    update();
}

void HeatmapChart::requestRepaint() {
    m_timeMoved = false;
    throttle(this, m_painted, m_pending, column_ms(m_model, width(), 4));
}

void HeatmapChart::paint(QPainter* p) {
    QElapsedTimer timer;
    timer.start();
    m_painted.start();
    const double W = width(), H = height();
    if (!m_model || W < 4 || H < 4 || m_layers == 0) return;
    const ConsoleHistory& h = m_model->history();
    const Window w = window_of(*m_model);
    const int cols = std::max(1, int(W / 4));
    const double span = double(std::max<std::int64_t>(1, w.t1 - w.t0));
    // Mean hit rate per (column, layer) over the samples in the column.
    std::vector<float> sum(std::size_t(cols) * std::size_t(m_layers), 0.f);
    std::vector<std::uint16_t> cnt(sum.size(), 0);
    for (int i = w.first; i < h.size(); ++i) {
        const ConsoleSample& s = h.at(i);
        const int c = std::clamp(int((double(s.t_ms - w.t0) / span) * cols), 0, cols - 1);
        for (int l = 0; l < int(s.layers.size()) && l < m_layers; ++l) {
            const float v = s.layers[std::size_t(l)];
            if (!std::isfinite(v)) continue;
            const std::size_t at = std::size_t(l) * std::size_t(cols) + std::size_t(c);
            sum[at] += v;
            ++cnt[at];
        }
    }
    QImage img(cols, m_layers, QImage::Format_ARGB32_Premultiplied);
    const QRgb empty = m_empty.rgba();
    for (int l = 0; l < m_layers; ++l) {
        auto* row = reinterpret_cast<QRgb*>(img.scanLine(l));
        for (int c = 0; c < cols; ++c) {
            const std::size_t at = std::size_t(l) * std::size_t(cols) + std::size_t(c);
            row[c] = cnt[at] ? mix(m_cold, m_hot, double(sum[at] / cnt[at])).rgba() : empty;
        }
    }
    p->setRenderHint(QPainter::SmoothPixmapTransform, false);
    p->drawImage(QRectF(0, 0, W, H), img);
    if (m_hoverX >= 0 && m_hoverY >= 0) {
        const double rh = H / m_layers;
        const int l = std::clamp(int(m_hoverY / rh), 0, m_layers - 1);
        p->setPen(QPen(QColor(255, 255, 255, 160), 1));
        p->setBrush(Qt::NoBrush);
        p->drawRect(QRectF(0, l * rh, W - 1, rh));
    }
    ConsoleModel::addPaintNs(timer.nsecsElapsed());
}

void HeatmapChart::hoverMoveEvent(QHoverEvent* e) {
    m_hoverX = std::clamp(e->position().x(), 0.0, width());
    m_hoverY = std::clamp(e->position().y(), 0.0, height());
    updateHover();
    update();
}

void HeatmapChart::hoverLeaveEvent(QHoverEvent*) {
    m_hoverX = m_hoverY = -1;
    updateHover();
    update();
}

void HeatmapChart::updateHover() {
    QString text;
    if (m_model && m_hoverX >= 0 && m_layers > 0 && width() > 0 && height() > 0) {
        const ConsoleHistory& h = m_model->history();
        const Window w = window_of(*m_model);
        const int layer = std::clamp(int(m_hoverY / (height() / m_layers)), 0, m_layers - 1);
        const std::int64_t t = w.t0 + std::int64_t(m_hoverX / width() * double(w.t1 - w.t0));
        const int i = nearest(h, w, t);
        if (i >= 0) {
            const auto& l = h.at(i).layers;
            const float v = layer < int(l.size()) ? l[std::size_t(layer)] : kNaN;
            text = m_layerLabel.arg(layer) + QStringLiteral(" · ") +
                   (std::isfinite(v) ? QLocale().toString(double(v) * 100.0, 'f', 0) + QStringLiteral(" %")
                                     : QStringLiteral("—")) +
                   QStringLiteral(" · ") + ago(w.t1 - h.at(i).t_ms);
        }
    }
    if (text == m_hoverText) return;
    m_hoverText = text;
    emit hoverChanged();
}

}  // namespace ft::ui
