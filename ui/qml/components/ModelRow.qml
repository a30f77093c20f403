import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// One model of the library: name, what the engine read from it (architecture, parameters, quant, size), a fit
// badge for this PC, and Load / Cancel / Unload / Remove. `host` is the app's EngineHost (null: no engine).
Card {
    id: row
    property var host: null
    property string name
    property string path
    property string format
    property real sizeBytes
    property date addedAt
    property bool readable: true
    property string readError
    property string architecture
    property bool runnable: false
    property string supportNote
    property string quant
    property real totalParams
    property real activeParams
    property int parts: 1
    property string fitVerdict
    property string fitReason
    property string origin      // "added", "scan", "download", "demo" (the bundled demo model)
    property real tokSLow
    property real tokSHigh
    signal removeRequested()

    readonly property bool current: host !== null && host.modelPath === path
    readonly property bool loading: current && host.state === "loading"
    readonly property bool loaded: current && (host.state === "ready" || host.state === "generating")
    readonly property bool busyElsewhere: host !== null && !current && host.state === "loading"
    padding: Theme.s4

    function count(n) {
        if (n >= 1e9) return Theme.fixed(n / 1e9, n >= 1e10 ? 0 : 1) + "B"
        if (n >= 1e6) return Theme.fixed(n / 1e6, n >= 1e7 ? 0 : 1) + "M"
        if (n >= 1e3) return Theme.fixed(n / 1e3, 0) + "K"
        return Math.round(n).toString()
    }
    readonly property color fitTint: fitVerdict === "gpu" ? Theme.success
                                   : fitVerdict === "hybrid" ? Theme.accent
                                   : fitVerdict === "cpu" ? Theme.warning : Theme.danger
    readonly property string fitLabel: fitVerdict === "gpu" ? qsTr("Runs on the GPU")
                                     : fitVerdict === "hybrid" ? qsTr("Hybrid GPU + CPU")
                                     : fitVerdict === "cpu" ? qsTr("CPU only")
                                     : fitVerdict === "no_fit" ? qsTr("Does not fit in RAM") : ""

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s4
        Rectangle {
            width: 40
            height: 40
            radius: 10
            color: Theme.accentSoft
            Icon { anchors.centerIn: parent; name: row.format === "gguf" ? "file" : "folder"; color: Theme.accent; size: 20 }
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 3
            RowLayout {
                spacing: Theme.s2
                Text {
                    objectName: "modelName"
                    text: row.name
                    color: Theme.text
                    font.pixelSize: Theme.fontBody + 1
                    font.weight: Font.DemiBold
                    elide: Text.ElideRight
                    Layout.maximumWidth: row.width * 0.4
                }
                Rectangle {
                    implicitWidth: fmt.implicitWidth + 12
                    implicitHeight: 20
                    radius: 5
                    color: Theme.surfaceAlt
                    border.color: Theme.border
                    Text { id: fmt; anchors.centerIn: parent; text: row.format.toUpperCase(); color: Theme.textMuted; font.pixelSize: 10; font.family: Theme.monoFamily }
                }
                Pill {
                    objectName: "demoBadge"
                    visible: row.origin === "demo"
                    tint: Theme.accent
                    text: qsTr("Demo")
                    ToolTip.visible: demoHover.hovered
                    ToolTip.text: qsTr("The small demo model that comes with FreeToken, for trying the app. Download a real model for real work.")
                    HoverHandler { id: demoHover }
                }
                Pill {
                    objectName: "fitBadge"
                    visible: row.runnable && row.fitLabel.length > 0
                    tint: row.fitTint
                    text: row.fitVerdict === "no_fit" ? row.fitLabel
                        : qsTr("%1 · ≈ %2–%3 tok/s").arg(row.fitLabel).arg(Theme.fixed(row.tokSLow, row.tokSLow < 10 ? 1 : 0))
                                                   .arg(Theme.fixed(row.tokSHigh, row.tokSHigh < 10 ? 1 : 0))
                    ToolTip.visible: fitHover.hovered && row.fitReason.length > 0
                    ToolTip.text: row.fitReason
                    HoverHandler { id: fitHover }
                }
                Pill {
                    objectName: "unsupportedBadge"
                    visible: !row.runnable
                    tint: Theme.danger
                    text: row.readable ? qsTr("Not supported yet") : qsTr("Cannot be read")
                }
            }
            Text {
                objectName: "modelFacts"
                Layout.fillWidth: true
                visible: row.readable
                text: [row.architecture,
                       row.totalParams > 0 ? qsTr("%1 parameters, %2 active").arg(row.count(row.totalParams)).arg(row.count(row.activeParams)) : "",
                       row.quant,
                       row.parts > 1 ? qsTr("%n part(s)", "", row.parts) : ""].filter(s => s.length > 0).join("  ·  ")
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall
                elide: Text.ElideRight
            }
            Text {
                objectName: "modelProblem"
                Layout.fillWidth: true
                visible: !row.runnable
                text: row.readable ? row.supportNote : row.readError
                color: Theme.danger
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
            Text {
                Layout.fillWidth: true
                text: row.path
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                font.family: Theme.monoFamily
                elide: Text.ElideMiddle
            }
            ColumnLayout {
                Layout.fillWidth: true
                visible: row.loading
                spacing: 2
                AppProgressBar {
                    objectName: "loadProgress"
                    Layout.fillWidth: true
                    from: 0
                    to: 1
                    value: row.host ? row.host.loadFraction : 0
                }
                Text {
                    objectName: "loadStageText"
                    text: !row.host ? ""
                        : row.host.loadBytesTotal > 0 ? qsTr("%1 — %2 of %3").arg(row.host.loadStageLabel)
                                                            .arg(Theme.bytes(row.host.loadBytesDone)).arg(Theme.bytes(row.host.loadBytesTotal))
                        : row.host.loadStageLabel
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontCaption
                }
            }
            Text {
                objectName: "loadError"
                Layout.fillWidth: true
                visible: row.current && row.host.state === "error" && row.host.lastError.length > 0
                text: row.host ? row.host.lastError : ""
                color: Theme.danger
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
        }
        ColumnLayout {
            spacing: 3
            Text { objectName: "modelSizeText"; Layout.alignment: Qt.AlignRight; text: Theme.bytes(row.sizeBytes); color: Theme.text; font.pixelSize: Theme.fontSmall; font.family: Theme.monoFamily }
            Text {
                objectName: "modelAddedText"
                Layout.alignment: Qt.AlignRight
                // In the app's language (Qt.uiLanguage changes with it; Qt.locale() follows it).
                text: {
                    Qt.uiLanguage  // a dependency: re-evaluated when the language changes
                    return qsTr("Added %1").arg(row.addedAt.toLocaleDateString(Qt.locale(), Locale.ShortFormat))
                }
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
            }
        }
        AppButton {
            objectName: "loadModelButton"
            visible: !row.loading && !row.loaded
            enabled: row.host !== null && row.runnable && !row.busyElsewhere
            kind: "primary"
            text: qsTr("Load")
            onClicked: row.host.load(row.path)
        }
        AppButton {
            objectName: "cancelLoadButton"
            visible: row.loading
            text: qsTr("Cancel")
            onClicked: row.host.cancelLoad()
        }
        AppButton {
            objectName: "unloadModelButton"
            visible: row.loaded
            text: qsTr("Unload")
            onClicked: row.host.unload()
        }
        AppButton {
            objectName: "removeModelButton"
            kind: "ghost"
            iconName: "trash"
            enabled: !row.loading && !row.loaded
            tip: qsTr("Remove from the library")
            onClicked: row.removeRequested()
        }
    }
}
