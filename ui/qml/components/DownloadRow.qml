import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// One download: what, progress (bytes, speed, ETA), state, and Pause / Resume / Cancel / Remove from the list.
Rectangle {
    id: row
    property var downloads: null
    property var downloadId: 0
    property string repo
    property string label
    property string dlState
    property real bytesDone
    property real bytesTotal
    property real fraction
    property real speed
    property real eta
    property string error
    property int fileIndex
    property int fileCount
    implicitHeight: col.implicitHeight + 2 * Theme.s3
    radius: Theme.radiusSmall
    color: Theme.surfaceAlt

    function duration(s) {
        if (s < 0) return "—"
        if (s < 60) return qsTr("%1 s").arg(Math.ceil(s))
        if (s < 3600) return qsTr("%1 min").arg(Math.ceil(s / 60))
        return qsTr("%1 h %2 min").arg(Math.floor(s / 3600)).arg(Math.ceil((s % 3600) / 60))
    }
    readonly property string stateText: dlState === "downloading" ? qsTr("Downloading")
                                      : dlState === "verifying" ? qsTr("Checking sha256…")
                                      : dlState === "paused" ? qsTr("Paused")
                                      : dlState === "done" ? qsTr("Done: added to the library")
                                      : dlState === "failed" ? qsTr("Failed") : dlState

    ColumnLayout {
        id: col
        x: Theme.s3
        y: Theme.s3
        width: parent.width - 2 * Theme.s3
        spacing: Theme.s1
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s3
            Text {
                Layout.fillWidth: true
                text: row.repo + "  ·  " + row.label
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                font.weight: Font.Medium
                elide: Text.ElideMiddle
            }
            Text {
                objectName: "downloadState"
                text: row.stateText + (row.fileCount > 1 && row.dlState === "downloading" ? "  " + qsTr("file %1 of %2").arg(row.fileIndex + 1).arg(row.fileCount) : "")
                color: row.dlState === "failed" ? Theme.danger : row.dlState === "done" ? Theme.success : Theme.textMuted
                font.pixelSize: Theme.fontCaption
            }
            AppButton { objectName: "pauseDownloadButton"; visible: row.dlState === "downloading"; text: qsTr("Pause"); implicitHeight: 28; onClicked: row.downloads.pause(row.downloadId) }
            AppButton { objectName: "resumeDownloadButton"; visible: row.dlState === "paused" || row.dlState === "failed"; text: qsTr("Resume"); implicitHeight: 28; onClicked: row.downloads.resume(row.downloadId) }
            AppButton { objectName: "cancelDownloadButton"; visible: row.dlState !== "done"; kind: "ghost"; text: qsTr("Cancel"); implicitHeight: 28; onClicked: row.downloads.cancel(row.downloadId) }
            AppButton { objectName: "forgetDownloadButton"; visible: row.dlState === "done"; kind: "ghost"; iconName: "close"; tip: qsTr("Remove from this list"); implicitHeight: 28; onClicked: row.downloads.forget(row.downloadId) }
        }
        AppProgressBar {
            objectName: "downloadProgress"
            Layout.fillWidth: true
            from: 0
            to: 1
            value: row.fraction
            visible: row.dlState !== "done"
        }
        Text {
            Layout.fillWidth: true
            text: qsTr("%1 of %2").arg(Theme.bytes(row.bytesDone)).arg(Theme.bytes(row.bytesTotal))
                  + (row.dlState === "downloading" && row.speed > 0 ? "  ·  " + qsTr("%1/s").arg(Theme.bytes(row.speed)) + "  ·  " + qsTr("%1 left").arg(row.duration(row.eta)) : "")
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
            font.family: Theme.monoFamily
        }
        Text {
            objectName: "downloadError"
            Layout.fillWidth: true
            visible: row.error.length > 0
            text: row.error
            color: Theme.danger
            font.pixelSize: Theme.fontCaption
            wrapMode: Text.WordWrap
        }
    }
}
