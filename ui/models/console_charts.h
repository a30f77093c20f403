// The Console's charts, painted with QPainter from ConsoleModel's history (no Qt Charts): TimeChart draws one or
// more series over the chosen window (lines, or stacked areas), HeatmapChart the per-layer hit rate as layers ×
// time. Both repaint when a sample brings a value that differs from the sample before (at most once per pixel
// column of time) and, when the samples only repeat what is drawn, at the ConsoleModel's 1 s tick (an idle engine
// then costs no frame of its own); they bucket the samples into pixel columns (so a 15 min window costs the same as
// 1 min) and show the values under the mouse in `hoverText`. Their paint time is added to
// ConsoleModel::costNs() (the Console's < 5 % of one core budget, measured by tests/ui/test_console_perf).
#pragma once

#include "console_model.h"  // first (it includes ft/engine.h before Qt); moc needs the complete type

#include <QColor>
#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QQuickPaintedItem>
#include <QStringList>
#include <QVariantList>

#include <vector>

namespace ft::ui {

class TimeChart : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ft::ui::ConsoleModel* model READ model WRITE setModel NOTIFY modelChanged)
    Q_PROPERTY(QStringList series READ series WRITE setSeries NOTIFY styleChanged)  // ConsoleHistory series names
    Q_PROPERTY(QStringList labels READ labels WRITE setLabels NOTIFY styleChanged)
    Q_PROPERTY(QVariantList colors READ colors WRITE setColors NOTIFY styleChanged)
    Q_PROPERTY(bool stacked READ stacked WRITE setStacked NOTIFY styleChanged)
    Q_PROPERTY(double scale READ scale WRITE setScale NOTIFY styleChanged)        // shown value = value × scale
    Q_PROPERTY(double fixedMax READ fixedMax WRITE setFixedMax NOTIFY styleChanged)  // in shown units; 0: auto
    Q_PROPERTY(QString unit READ unit WRITE setUnit NOTIFY styleChanged)
    Q_PROPERTY(int decimals READ decimals WRITE setDecimals NOTIFY styleChanged)
    Q_PROPERTY(QColor gridColor READ gridColor WRITE setGridColor NOTIFY styleChanged)
    Q_PROPERTY(QColor textColor READ textColor WRITE setTextColor NOTIFY styleChanged)
    Q_PROPERTY(bool hasData READ hasData NOTIFY dataChanged)  // any finite value in the window
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoverChanged)
    Q_PROPERTY(double hoverX READ hoverX NOTIFY hoverChanged)
public:
    explicit TimeChart(QQuickItem* parent = nullptr);

    ConsoleModel* model() const { return m_model; }
    void setModel(ConsoleModel* m);
    QStringList series() const { return m_seriesNames; }
    void setSeries(const QStringList& s);
    QStringList labels() const { return m_labels; }
    void setLabels(const QStringList& l);
    QVariantList colors() const { return m_colorList; }
    void setColors(const QVariantList& c);
    bool stacked() const { return m_stacked; }
    void setStacked(bool s);
    double scale() const { return m_scale; }
    void setScale(double s);
    double fixedMax() const { return m_fixedMax; }
    void setFixedMax(double m);
    QString unit() const { return m_unit; }
    void setUnit(const QString& u);
    int decimals() const { return m_decimals; }
    void setDecimals(int d);
    QColor gridColor() const { return m_grid; }
    void setGridColor(const QColor& c);
    QColor textColor() const { return m_text; }
    void setTextColor(const QColor& c);
    bool hasData() const { return m_hasData; }
    QString hoverText() const { return m_hoverText; }
    double hoverX() const { return m_hoverX; }

    void paint(QPainter* painter) override;

signals:
    void modelChanged();
    void styleChanged();
    void dataChanged();
    void hoverChanged();

protected:
    void hoverMoveEvent(QHoverEvent* e) override;
    void hoverLeaveEvent(QHoverEvent* e) override;

private:
    void onHistory();
    void onTick();
    void updateHover();
    void requestRepaint();
    QString format(double shown) const;

    QElapsedTimer m_painted;
    QTimer m_pending;
    bool m_timeMoved = false;  // samples came that only repeat the values before: repaint at the next tick

    QPointer<ConsoleModel> m_model;
    QStringList m_seriesNames, m_labels;
    std::vector<int> m_series;
    QVariantList m_colorList;
    std::vector<QColor> m_colors;
    bool m_stacked = false;
    double m_scale = 1, m_fixedMax = 0;
    QString m_unit;
    int m_decimals = 1;
    QColor m_grid{0x30, 0x36, 0x40}, m_text{0x9b, 0xa4, 0xb3};
    bool m_hasData = false;
    double m_hoverX = -1;
    QString m_hoverText;
};

class HeatmapChart : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ft::ui::ConsoleModel* model READ model WRITE setModel NOTIFY modelChanged)
    Q_PROPERTY(QColor coldColor READ coldColor WRITE setColdColor NOTIFY styleChanged)
    Q_PROPERTY(QColor hotColor READ hotColor WRITE setHotColor NOTIFY styleChanged)
    Q_PROPERTY(QColor emptyColor READ emptyColor WRITE setEmptyColor NOTIFY styleChanged)
    Q_PROPERTY(QString layerLabel READ layerLabel WRITE setLayerLabel NOTIFY styleChanged)  // "Layer %1"
    Q_PROPERTY(bool hasData READ hasData NOTIFY dataChanged)
    Q_PROPERTY(int layers READ layers NOTIFY dataChanged)
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoverChanged)
    Q_PROPERTY(double hoverX READ hoverX NOTIFY hoverChanged)
    Q_PROPERTY(double hoverY READ hoverY NOTIFY hoverChanged)
public:
    explicit HeatmapChart(QQuickItem* parent = nullptr);

    ConsoleModel* model() const { return m_model; }
    void setModel(ConsoleModel* m);
    QColor coldColor() const { return m_cold; }
    void setColdColor(const QColor& c);
    QColor hotColor() const { return m_hot; }
    void setHotColor(const QColor& c);
    QColor emptyColor() const { return m_empty; }
    void setEmptyColor(const QColor& c);
    QString layerLabel() const { return m_layerLabel; }
    void setLayerLabel(const QString& l);
    bool hasData() const { return m_hasData; }
    int layers() const { return m_layers; }
    QString hoverText() const { return m_hoverText; }
    double hoverX() const { return m_hoverX; }
    double hoverY() const { return m_hoverY; }

    void paint(QPainter* painter) override;

signals:
    void modelChanged();
    void styleChanged();
    void dataChanged();
    void hoverChanged();

protected:
    void hoverMoveEvent(QHoverEvent* e) override;
    void hoverLeaveEvent(QHoverEvent* e) override;

private:
    void onHistory();
    void onTick();
    void updateHover();
    void requestRepaint();

    QElapsedTimer m_painted;
    QTimer m_pending;
    bool m_timeMoved = false;
    QPointer<ConsoleModel> m_model;
    QColor m_cold{0xf2, 0x6b, 0x6d}, m_hot{0x4c, 0xc3, 0x8a}, m_empty{0x25, 0x2b, 0x35};
    QString m_layerLabel = QStringLiteral("Layer %1");
    bool m_hasData = false;
    int m_layers = 0;
    double m_hoverX = -1, m_hoverY = -1;
    QString m_hoverText;
};

}  // namespace ft::ui
