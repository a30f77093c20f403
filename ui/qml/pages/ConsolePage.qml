import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// Dashboard: the model card, the cache config (KV ↔ expert cache, live rebuild), the live engine charts of the
// ConsoleModel (fed by EngineHost at 8 Hz) and the hardware figures.
Page {
    id: page
    property SystemMonitor monitor
    property QtObject host: null            // the app's EngineHost
    property ChatSession session: null      // when it chats with a remote server's model, that server's figures show
    signal goToModels()
    signal goToChat()
    title: qsTr("Console")
    subtitle: cm.loaded
              ? qsTr("%1 · up %2 · %3 requests total").arg(cm.modelName).arg(engineCard.duration(cm.uptimeSeconds)).arg(cm.requestsTotal)
              : qsTr("No model loaded · hardware figures are live")
    readonly property int columns: width >= 760 ? 3 : 2

    actions: [
        Segmented {
            objectName: "consoleWindow"
            visible: cm.loaded
            options: [{ value: 1, label: qsTr("1 min") }, { value: 5, label: qsTr("5 min") }, { value: 15, label: qsTr("15 min") }]
            value: cm.windowMinutes
            onActivated: (v) => cm.windowMinutes = v
        },
        Pill {
            tint: Theme.success
            text: cm.loaded ? qsTr("Live · 8 Hz") : qsTr("Live · %1 s").arg(page.monitor ? page.monitor.interval / 1000 : 1)
        }
    ]

    ConsoleModel { id: cm; objectName: "consoleModel"; host: page.host }
    // The charts' clock: what only moves with time is drawn in the frame of the hardware figures' 1 s poll.
    Connections {
        target: page.monitor
        function onUpdated() {
            cm.tick()
            remoteCard.serverConsole.tick()
        }
    }

    FaultBanner {
        objectName: "faultBanner"
        Layout.fillWidth: true
        visible: cm.fault.length > 0
        message: cm.fault
        onRestart: cm.restartEngine()
        onDismiss: cm.dismissFault()
    }

    RemoteConsoleCard {
        id: remoteCard
        objectName: "remoteConsoleCard"
        Layout.fillWidth: true
        visible: page.session !== null && page.session.remoteModel.length > 0
        session: page.session
    }
    // A FreeToken server's own cache sizes and charts, as for a local model (its snapshots, its rebuild endpoint).
    CacheConfigCard {
        objectName: "remoteCacheConfigCard"
        Layout.fillWidth: true
        visible: remoteCard.visible && remoteCard.live && remoteCard.serverConsole.cacheConfigAvailable
        vm: remoteCard.serverConsole
    }
    ConsoleCharts {
        objectName: "remoteConsoleCharts"
        Layout.fillWidth: true
        visible: remoteCard.visible && remoteCard.live && remoteCard.serverConsole.loaded
        vm: remoteCard.serverConsole
        remote: true
        columns: page.columns >= 3 ? 2 : 1
    }

    ConsoleModelCard {
        id: engineCard
        objectName: "engineCard"
        Layout.fillWidth: true
        vm: cm
        onGoToChat: page.goToChat()
        onGoToModels: page.goToModels()
    }

    Text {
        objectName: "bandwidthText"
        Layout.fillWidth: true
        visible: cm.loaded && (cm.bpGbps > 0 || cm.bcGbps > 0)
        text: qsTr("Bandwidth profile: B_P %1 GB/s (PCIe expert fetches) · B_C %2 GB/s (CPU expert kernel) · q* fetches %3 % of the misses")
              .arg(Theme.fixed(cm.bpGbps, 1)).arg(Theme.fixed(cm.bcGbps, 1)).arg(Theme.fixed(100 * cm.fraction, 0))
        color: Theme.textMuted
        font.family: Theme.monoFamily
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.WordWrap
    }

    CacheConfigCard {
        objectName: "cacheConfigCard"
        Layout.fillWidth: true
        visible: cm.cacheConfigAvailable
        vm: cm
    }

    ConsoleCharts {
        objectName: "consoleCharts"
        Layout.fillWidth: true
        visible: cm.loaded
        vm: cm
        columns: page.columns >= 3 ? 2 : 1
    }

    Text {
        text: qsTr("Hardware")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        font.weight: Font.DemiBold
        Layout.topMargin: Theme.s2
    }
    GridLayout {
        Layout.fillWidth: true
        columns: page.columns
        columnSpacing: Theme.s4
        rowSpacing: Theme.s4

        // Keyed by the GPU count, not by the list (new at every poll): the cards update in place instead of being
        // recreated inside the grid each second (QTBUG-111792, see Sidebar.qml).
        Repeater {
            model: page.monitor ? page.monitor.gpuCount : 0
            delegate: MetricCard {
                required property int index
                readonly property var modelData: page.monitor && index < page.monitor.gpus.length ? page.monitor.gpus[index]
                                                 : ({ index: index, name: "", used: 0, total: 0, free: 0 })
                objectName: "vramCard"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.preferredWidth: 1
                title: qsTr("VRAM · GPU %1").arg(modelData.index)
                iconName: "gpu"
                value: Theme.gib(modelData.used)
                unit: "/ " + Theme.gib(modelData.total) + " GiB"
                fraction: modelData.total > 0 ? modelData.used / modelData.total : 0
                caption: modelData.name + " · " + qsTr("%1 free").arg(Theme.bytes(modelData.free))
                Sparkline { Layout.fillWidth: true; Layout.topMargin: Theme.s2; values: page.monitor.vramHistory; capacity: page.monitor.historyLength }
            }
        }
        MetricCard {
            objectName: "noGpuCard"
            visible: page.monitor && page.monitor.gpuCount === 0
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("GPU")
            iconName: "gpu"
            value: qsTr("None")
            caption: page.monitor ? qsTr("No CUDA GPU: %1. The CPU runs everything, slowly.").arg(page.monitor.gpuNote) : ""
        }
        MetricCard {
            objectName: "ramCard"
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("System RAM")
            iconName: "memory"
            value: page.monitor ? Theme.gib(page.monitor.ramUsed) : "—"
            unit: page.monitor ? "/ " + Theme.gib(page.monitor.ramTotal) + " GiB" : ""
            fraction: page.monitor && page.monitor.ramTotal > 0 ? page.monitor.ramUsed / page.monitor.ramTotal : 0
            caption: page.monitor && page.monitor.modelMapped > 0
                     ? qsTr("%1 of it is the model file, mapped into memory: the experts live here and are read from it.").arg(Theme.bytes(page.monitor.modelMapped))
                     : qsTr("Experts live here; the GPU caches the busy ones.")
            Sparkline { Layout.fillWidth: true; Layout.topMargin: Theme.s2; values: page.monitor ? page.monitor.ramHistory : []; capacity: page.monitor ? page.monitor.historyLength : 60 }
        }
        MetricCard {
            objectName: "cpuCard"
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("CPU")
            iconName: "chip"
            value: page.monitor ? String(page.monitor.logicalCores) : "—"
            unit: qsTr("threads")
            caption: page.monitor ? page.monitor.cpuName + " · " + qsTr("SIMD %1").arg(page.monitor.simdTarget) : ""
        }
    }

}
