#include "system_monitor.h"

#include <QVariantMap>

#include <algorithm>

namespace ft::ui {

SystemMonitor::SystemMonitor(QObject* parent) : QObject(parent) {
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &SystemMonitor::refresh);
    refresh();
    m_timer.start();
}

void SystemMonitor::setRunning(bool running) {
    if (running == m_timer.isActive()) return;
    running ? m_timer.start() : m_timer.stop();
    emit runningChanged();
}

void SystemMonitor::setInterval(int ms) {
    ms = std::max(100, ms);
    if (ms == m_timer.interval()) return;
    m_timer.setInterval(ms);
    emit intervalChanged();
}

QVariantList SystemMonitor::gpus() const {
    QVariantList out;
    for (const auto& g : m_status.gpus) {
        out.append(QVariantMap{{"index", g.index},
                               {"name", g.name},
                               {"total", static_cast<double>(g.totalBytes)},
                               {"free", static_cast<double>(g.freeBytes)},
                               {"used", static_cast<double>(g.totalBytes - std::min(g.freeBytes, g.totalBytes))}});
    }
    return out;
}

double SystemMonitor::vramTotal() const {
    double t = 0;
    for (const auto& g : m_status.gpus) t += static_cast<double>(g.totalBytes);
    return t;
}

double SystemMonitor::vramUsed() const {
    double u = 0;
    for (const auto& g : m_status.gpus) u += static_cast<double>(g.totalBytes - std::min(g.freeBytes, g.totalBytes));
    return u;
}

double SystemMonitor::ramUsed() const {
    // The OS counts a mapped model as file cache (available); the engine reads it at every token, so it is shown
    // as used.
    const auto& r = m_status.ram;
    const quint64 used = r.totalBytes - std::min(r.availableBytes, r.totalBytes);
    return static_cast<double>(std::min(r.totalBytes, used + r.modelMappedBytes));
}

void SystemMonitor::refresh() {
    const quint64 mapped = m_status.ram.modelMappedBytes;
    m_status = ft::read_system_status();
    // The mapped model's resident pages every 5 s (reading smaps walks the pages of every mapping: a large model's
    // millions of pages are not walked every second).
    m_status.ram.modelMappedBytes = m_samples % 5 == 0 ? ft::read_model_mapped_bytes() : mapped;
    auto push = [this](QVariantList& history, double used, double total) {
        if (total <= 0) return;
        history.append(used / total);
        while (history.size() > historyLength()) history.removeFirst();
    };
    push(m_vramHistory, vramUsed(), vramTotal());
    push(m_ramHistory, ramUsed(), ramTotal());
    ++m_samples;
    emit updated();
}

}  // namespace ft::ui
