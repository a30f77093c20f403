import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// Dashboard. Engine figures (speed, hit rate, PCIe) arrive with the engine; the hardware figures are live now.
Page {
    id: page
    property SystemMonitor monitor
    signal goToModels()
    title: qsTr("Console")
    subtitle: qsTr("No model loaded · hardware figures are live")
    readonly property int columns: width >= 760 ? 3 : 2

    actions: Pill {
        tint: Theme.success
        text: qsTr("Live · %1 s").arg(page.monitor ? page.monitor.interval / 1000 : 1)
    }

    Card {
        objectName: "engineCard"
        Layout.fillWidth: true
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Rectangle {
                width: 44
                height: 44
                radius: 12
                color: Theme.surfaceAlt
                border.color: Theme.border
                Icon { anchors.centerIn: parent; name: "chip"; size: 22; color: Theme.textMuted }
            }
            ColumnLayout {
                Layout.fillWidth: true
                spacing: 2
                Text { text: qsTr("No model loaded"); color: Theme.text; font.pixelSize: Theme.fontTitle + 1; font.weight: Font.DemiBold }
                Text {
                    Layout.fillWidth: true
                    text: qsTr("Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.")
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontSmall
                    wrapMode: Text.WordWrap
                }
            }
            Pill { text: qsTr("Idle"); tint: Theme.textFaint }
            AppButton { text: qsTr("Go to Models"); iconName: "models"; onClicked: page.goToModels() }
        }
    }

    Text {
        text: qsTr("Engine")
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
        MetricCard {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("Decode speed")
            iconName: "bolt"
            available: false
            note: qsTr("Available when a model runs")
        }
        MetricCard {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("Expert cache hit rate")
            iconName: "gauge"
            available: false
            note: qsTr("Available when a model runs")
        }
        MetricCard {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1
            title: qsTr("PCIe transfer")
            iconName: "arrow-down"
            available: false
            note: qsTr("Available when a model runs")
        }
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

        Repeater {
            model: page.monitor ? page.monitor.gpus : []
            delegate: MetricCard {
                required property var modelData
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
            caption: qsTr("Experts live here; the GPU caches the busy ones.")
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
