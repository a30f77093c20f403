// SystemInfo: what this PC offers the engine, read from the OS and the engine's public API — GPUs with free/total
// VRAM (ft::gpu_devices()), host RAM, the CPU's name and threads, and the SIMD target the CPU kernels dispatch to.
// Cheap enough to call once a second from the UI thread. Never throws: unknown values stay 0/empty.
#pragma once

#include <QList>
#include <QString>

namespace ft {

struct GpuStatus {
    int index = 0;
    QString name;
    quint64 totalBytes = 0;
    quint64 freeBytes = 0;
};

struct RamStatus {
    quint64 totalBytes = 0;
    quint64 availableBytes = 0;
    // Pages of model files (.gguf, .safetensors) this process has mapped and that are in RAM now. The OS counts
    // them as file cache (inside availableBytes), though the engine reads them at every token. Linux
    // (/proc/self/smaps, read_model_mapped_bytes(): not filled by read_system_status, it costs a walk of the
    // mappings' pages); 0 elsewhere.
    quint64 modelMappedBytes = 0;
};

struct SystemStatus {
    QList<GpuStatus> gpus;
    QString gpuUnavailableReason;  // why `gpus` is empty
    RamStatus ram;
    QString cpuName;
    int logicalCores = 0;
    QString simdTarget;            // "AVX2", "AVX3_ZEN4", …
};

RamStatus read_ram_status();
quint64 read_model_mapped_bytes();
QString read_cpu_name();
SystemStatus read_system_status();

// Writes the build, CPU, RAM and GPUs to the log (spdlog), once at startup.
void log_system_summary();

}  // namespace ft
