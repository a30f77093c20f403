#include "system_info.h"

#include <QFile>
#include <QRegularExpression>
#include <QSysInfo>

#include <thread>

#include "cpu/isa.h"
#include "engine_text.h"
#include "ft/gpu.h"
#include "ft/version.h"

#include <spdlog/spdlog.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace ft {

RamStatus read_ram_status() {
    RamStatus r;
#ifdef _WIN32
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof(status);
    if (GlobalMemoryStatusEx(&status)) {
        r.totalBytes = status.ullTotalPhys;
        r.availableBytes = status.ullAvailPhys;
    }
#else
    QFile f("/proc/meminfo");
    if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        static const QRegularExpression re("^(MemTotal|MemAvailable):\\s+(\\d+)\\s+kB");
        for (const QByteArray& line : f.readAll().split('\n')) {
            const auto m = re.match(QString::fromLatin1(line));
            if (!m.hasMatch()) continue;
            const quint64 bytes = m.captured(2).toULongLong() * 1024ull;
            (m.captured(1) == "MemTotal" ? r.totalBytes : r.availableBytes) = bytes;
        }
    }
#endif
    return r;
}

quint64 read_model_mapped_bytes() {
#ifdef _WIN32
    return 0;
#else
    // smaps: a header line per mapping ("addr perms offset dev inode path"), then its fields ("Rss: N kB").
    QFile f("/proc/self/smaps");
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return 0;
    quint64 total = 0;
    bool model = false;
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.isEmpty()) continue;
        const char c = line[0];
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {  // a mapping's header
            const QByteArray path = line.trimmed();
            model = path.endsWith(".gguf") || path.endsWith(".safetensors");
        } else if (model && line.startsWith("Rss:")) {
            total += line.mid(4).trimmed().split(' ').value(0).toULongLong() * 1024ull;
        }
    }
    return total;
#endif
}

QString read_cpu_name() {
#ifdef _WIN32
    HKEY key;
    if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", 0, KEY_READ, &key) ==
        ERROR_SUCCESS) {
        wchar_t buf[256] = {};
        DWORD size = sizeof(buf) - sizeof(wchar_t);
        const bool ok = RegQueryValueExW(key, L"ProcessorNameString", nullptr, nullptr,
                                         reinterpret_cast<LPBYTE>(buf), &size) == ERROR_SUCCESS;
        RegCloseKey(key);
        if (ok) return QString::fromWCharArray(buf).trimmed();
    }
#else
    QFile f("/proc/cpuinfo");
    if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        for (const QByteArray& line : f.readAll().split('\n')) {
            if (line.startsWith("model name")) {
                const int colon = line.indexOf(':');
                if (colon > 0) return QString::fromUtf8(line.mid(colon + 1)).simplified();
            }
        }
    }
#endif
    return QSysInfo::currentCpuArchitecture();
}

SystemStatus read_system_status() {
    SystemStatus s;
    for (const auto& g : gpu_devices())
        s.gpus.append({g.index, QString::fromStdString(g.name), g.total_bytes, g.free_bytes});
    if (s.gpus.isEmpty())  // in the app's language
        s.gpuUnavailableReason = EngineText::text(gpu_unavailable_message(), QString::fromStdString(gpu_unavailable_reason()));
    s.ram = read_ram_status();
    static const QString cpu = read_cpu_name();
    s.cpuName = cpu;
    s.logicalCores = static_cast<int>(std::thread::hardware_concurrency());
    static const QString simd = QString::fromStdString(kernels::cpu::isa_selected());
    s.simdTarget = simd;
    return s;
}

void log_system_summary() {
    const SystemStatus s = read_system_status();
    spdlog::info("FreeToken {}", build_description());
    spdlog::info("CPU: {} ({} threads), kernels use {}", s.cpuName.toStdString(), s.logicalCores, s.simdTarget.toStdString());
    spdlog::info("RAM: {:.1f} GiB available of {:.1f} GiB", s.ram.availableBytes / 1073741824.0, s.ram.totalBytes / 1073741824.0);
    for (const auto& g : s.gpus)
        spdlog::info("GPU {}: {}, {:.1f} GiB free of {:.1f} GiB", g.index, g.name.toStdString(), g.freeBytes / 1073741824.0,
                     g.totalBytes / 1073741824.0);
    if (s.gpus.isEmpty()) spdlog::warn("no GPU: {}; running on the CPU only", s.gpuUnavailableReason.toStdString());
}

}  // namespace ft
