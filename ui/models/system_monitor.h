// SystemMonitor: samples SystemInfo (GPUs, VRAM, RAM) once per `interval` ms while `running`, and keeps the last
// `historyLength` samples of used VRAM / RAM (fractions 0..1) for the Console's charts. Every figure is measured.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QTimer>
#include <QVariantList>

#include "system_info.h"

namespace ft::ui {

class SystemMonitor : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(bool running READ running WRITE setRunning NOTIFY runningChanged)
    Q_PROPERTY(int interval READ interval WRITE setInterval NOTIFY intervalChanged)
    Q_PROPERTY(QVariantList gpus READ gpus NOTIFY updated)
    Q_PROPERTY(int gpuCount READ gpuCount NOTIFY updated)
    Q_PROPERTY(QString gpuNote READ gpuNote NOTIFY updated)
    Q_PROPERTY(double vramTotal READ vramTotal NOTIFY updated)
    Q_PROPERTY(double vramUsed READ vramUsed NOTIFY updated)
    Q_PROPERTY(double ramTotal READ ramTotal NOTIFY updated)
    Q_PROPERTY(double ramUsed READ ramUsed NOTIFY updated)  // in use, the mapped model's resident pages included
    Q_PROPERTY(double modelMapped READ modelMapped NOTIFY updated)  // of which the mapped model files
    Q_PROPERTY(QString cpuName READ cpuName NOTIFY updated)
    Q_PROPERTY(int logicalCores READ logicalCores NOTIFY updated)
    Q_PROPERTY(QString simdTarget READ simdTarget NOTIFY updated)
    Q_PROPERTY(QVariantList vramHistory READ vramHistory NOTIFY updated)
    Q_PROPERTY(QVariantList ramHistory READ ramHistory NOTIFY updated)
    Q_PROPERTY(int historyLength READ historyLength CONSTANT)
    Q_PROPERTY(int samples READ samples NOTIFY updated)
public:
    explicit SystemMonitor(QObject* parent = nullptr);

    bool running() const { return m_timer.isActive(); }
    void setRunning(bool running);
    int interval() const { return m_timer.interval(); }
    void setInterval(int ms);

    QVariantList gpus() const;
    int gpuCount() const { return static_cast<int>(m_status.gpus.size()); }
    QString gpuNote() const { return m_status.gpuUnavailableReason; }
    double vramTotal() const;
    double vramUsed() const;
    double ramTotal() const { return static_cast<double>(m_status.ram.totalBytes); }
    double ramUsed() const;
    double modelMapped() const { return static_cast<double>(m_status.ram.modelMappedBytes); }
    QString cpuName() const { return m_status.cpuName; }
    int logicalCores() const { return m_status.logicalCores; }
    QString simdTarget() const { return m_status.simdTarget; }
    QVariantList vramHistory() const { return m_vramHistory; }
    QVariantList ramHistory() const { return m_ramHistory; }
    int historyLength() const { return 60; }
    int samples() const { return m_samples; }

    Q_INVOKABLE void refresh();

signals:
    void runningChanged();
    void intervalChanged();
    void updated();

private:
    QTimer m_timer;
    ft::SystemStatus m_status;
    QVariantList m_vramHistory;
    QVariantList m_ramHistory;
    int m_samples = 0;
};

}  // namespace ft::ui
