import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// The sidebar's live system box: VRAM and RAM in use (measured each second), GPU name, threads, SIMD.
Rectangle {
    id: box
    property SystemMonitor monitor
    implicitHeight: col.implicitHeight + 2 * Theme.s3
    radius: Theme.radius
    color: Theme.surface
    border.color: Theme.border

    ColumnLayout {
        id: col
        x: Theme.s3
        y: Theme.s3
        width: box.width - 2 * Theme.s3
        spacing: Theme.s2

        component Meter: ColumnLayout {
            id: meter
            property string label
            property real used
            property real total
            spacing: 5
            Layout.fillWidth: true
            RowLayout {
                Layout.fillWidth: true
                Text { text: meter.label; color: Theme.textMuted; font.pixelSize: Theme.fontCaption; Layout.fillWidth: true }
                Text {
                    objectName: "meterFigure"
                    text: meter.total > 0 ? Theme.gib(meter.used) + " / " + Theme.gib(meter.total) + " GiB" : "—"
                    color: Theme.text
                    font.pixelSize: Theme.fontCaption
                    font.family: Theme.monoFamily
                }
            }
            UsageBar {
                Layout.fillWidth: true
                value: meter.total > 0 ? meter.used / meter.total : 0
            }
        }

        Meter {
            objectName: "vramMeter"
            visible: box.monitor && box.monitor.gpuCount > 0
            label: qsTr("VRAM")
            used: box.monitor ? box.monitor.vramUsed : 0
            total: box.monitor ? box.monitor.vramTotal : 0
        }
        RowLayout {
            visible: box.monitor && box.monitor.gpuCount === 0
            Layout.fillWidth: true
            Text { text: qsTr("VRAM"); color: Theme.textMuted; font.pixelSize: Theme.fontCaption; Layout.fillWidth: true }
            Text { text: qsTr("No GPU"); color: Theme.textFaint; font.pixelSize: Theme.fontCaption }
        }
        Meter {
            objectName: "ramMeter"
            label: qsTr("RAM")
            used: box.monitor ? box.monitor.ramUsed : 0
            total: box.monitor ? box.monitor.ramTotal : 0
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border; Layout.topMargin: 2 }
        Text {
            Layout.fillWidth: true
            text: {
                if (!box.monitor) return ""
                const gpu = box.monitor.gpuCount > 0 ? box.monitor.gpus[0].name : qsTr("CPU only")
                return gpu + " · " + qsTr("%1 threads").arg(box.monitor.logicalCores) + " · " + box.monitor.simdTarget
            }
            color: Theme.textFaint
            font.pixelSize: 11
            font.family: Theme.monoFamily
            wrapMode: Text.WordWrap
            maximumLineCount: 2
            elide: Text.ElideRight
        }
    }
}
