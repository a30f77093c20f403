import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// The one-screen welcome of a first start: what the demo model is (a small model for trying the app, loading now),
// the load's progress line (the first GPU load's bandwidth measurement included), whether a GPU is used, and the
// way to a real model (the Models page's Download dialog). Opened by Main.qml when StartupModel added the demo.
Dialog {
    id: dialog
    objectName: "welcomeDialog"
    property var host: null        // the app's EngineHost
    property var monitor: null     // SystemMonitor: GPU count and why there is none
    signal downloadRequested()
    signal tryRequested()

    readonly property bool loading: host !== null && host.state === "loading"
    readonly property bool ready: host !== null && (host.state === "ready" || host.state === "generating")
    readonly property bool failed: host !== null && host.state === "error"

    modal: true
    closePolicy: Popup.CloseOnEscape
    anchors.centerIn: T.Overlay.overlay
    width: Math.min(600, parent ? parent.width - 80 : 600)
    padding: Theme.s6
    title: qsTr("Welcome to FreeToken")
    background: Rectangle { color: Theme.surface; radius: Theme.radius; border.color: Theme.borderStrong }
    header: RowLayout {
        spacing: Theme.s3
        Image {
            source: "image://icon/freetoken"
            sourceSize: Qt.size(32, 32)
            Layout.leftMargin: Theme.s6
            Layout.topMargin: Theme.s6
        }
        Text {
            objectName: "welcomeTitle"
            Layout.fillWidth: true
            Layout.topMargin: Theme.s6
            Layout.rightMargin: Theme.s6
            text: dialog.title
            color: Theme.text
            font.pixelSize: Theme.fontTitle + 2
            font.weight: Font.DemiBold
            elide: Text.ElideRight
        }
    }

    ColumnLayout {
        width: parent.width
        spacing: Theme.s4
        Text {
            objectName: "welcomeBody"
            Layout.fillWidth: true
            text: qsTr("FreeToken runs large Mixture-of-Experts models on this PC. So that you can try it right away, it has added a small demo model to your library.")
            color: Theme.text
            font.pixelSize: Theme.fontBody
            wrapMode: Text.WordWrap
        }
        Text {
            objectName: "welcomeDemoNote"
            Layout.fillWidth: true
            text: qsTr("The demo model is tiny and made only for trying the app: chat, the Console and the API server all work with it, but its answers are not useful. It is marked Demo on the Models page.")
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            AppProgressBar {
                objectName: "welcomeLoadProgress"
                Layout.fillWidth: true
                visible: dialog.loading
                from: 0
                to: 1
                value: dialog.host ? dialog.host.loadFraction : 0
            }
            Text {
                objectName: "welcomeLoadLine"
                Layout.fillWidth: true
                text: !dialog.host ? ""
                    : dialog.loading ? qsTr("Loading the demo model: %1").arg(dialog.host.loadStageLabel)
                    : dialog.ready ? qsTr("The demo model is loaded and ready.")
                    : dialog.failed ? qsTr("The demo model could not be loaded: %1").arg(dialog.host.lastError)
                    : ""
                color: dialog.failed ? Theme.danger : Theme.textMuted
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
            Text {
                objectName: "welcomeDeviceLine"
                Layout.fillWidth: true
                visible: dialog.monitor !== null && dialog.monitor.gpuCount === 0
                text: dialog.monitor ? qsTr("CPU-only mode: %1.").arg(dialog.monitor.gpuNote) : ""
                color: Theme.textMuted
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
        }
        Text {
            Layout.fillWidth: true
            Layout.topMargin: Theme.s2
            text: qsTr("For real work, download a model on the Models page: a Qwen3-30B-A3B GGUF runs on an 8 GB GPU.")
            color: Theme.text
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        Text {
            objectName: "welcomeModelsLink"
            text: qsTr("Go to Models and download a real model")
            color: linkArea.containsMouse ? Theme.accentHover : Theme.accent
            font.pixelSize: Theme.fontSmall
            font.underline: linkArea.containsMouse
            MouseArea {
                id: linkArea
                anchors.fill: parent
                hoverEnabled: true
                cursorShape: Qt.PointingHandCursor
                onClicked: {
                    dialog.downloadRequested()
                    dialog.close()
                }
            }
        }
    }

    footer: RowLayout {
        spacing: Theme.s2
        Item { Layout.fillWidth: true }
        AppButton {
            objectName: "welcomeCloseButton"
            text: qsTr("Close")
            Layout.bottomMargin: Theme.s6
            onClicked: dialog.close()
        }
        AppButton {
            objectName: "welcomeTryButton"
            kind: "primary"
            text: qsTr("Try it in Chat")
            enabled: !dialog.failed
            Layout.rightMargin: Theme.s6
            Layout.bottomMargin: Theme.s6
            onClicked: {
                dialog.tryRequested()
                dialog.close()
            }
        }
    }
}
