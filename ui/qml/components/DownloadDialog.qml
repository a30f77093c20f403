import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// Download from Hugging Face: a repository id or URL → its GGUF files (split models as one entry) and, for a
// safetensors repository, the whole model → Download. Progress then shows in the page's Downloads section.
Dialog {
    id: dialog
    objectName: "downloadDialog"
    property DownloadListModel downloads: null

    modal: true
    anchors.centerIn: T.Overlay.overlay
    width: Math.min(680, parent ? parent.width - 80 : 680)
    height: Math.min(560, parent ? parent.height - 80 : 560)
    padding: Theme.s5
    title: qsTr("Download from Hugging Face")
    background: Rectangle { color: Theme.surface; radius: Theme.radius; border.color: Theme.borderStrong }
    header: Text {
        text: dialog.title
        color: Theme.text
        font.pixelSize: Theme.fontTitle
        font.weight: Font.DemiBold
        padding: Theme.s5
        bottomPadding: 0
    }
    onOpened: repoField.forceActiveFocus()

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.s3
        Text {
            Layout.fillWidth: true
            text: qsTr("Enter a repository (owner/name) or paste its address from huggingface.co.")
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s2
            TextField {
                id: repoField
                objectName: "hubRepoField"
                Layout.fillWidth: true
                placeholderText: qsTr("for example Qwen/Qwen3-30B-A3B-GGUF")
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                selectByMouse: true
                background: Rectangle { radius: Theme.radiusSmall; color: Theme.surfaceAlt; border.color: repoField.activeFocus ? Theme.accent : Theme.border }
                onAccepted: if (text.trim().length > 0) dialog.downloads.browse(text)
            }
            AppButton {
                objectName: "hubListButton"
                kind: "primary"
                text: qsTr("List files")
                enabled: repoField.text.trim().length > 0 && dialog.downloads && !dialog.downloads.browsing
                onClicked: dialog.downloads.browse(repoField.text)
            }
        }
        Text {
            Layout.fillWidth: true
            text: dialog.downloads ? qsTr("From %1").arg(dialog.downloads.endpoint) : ""
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
        }
        BusyIndicator {
            objectName: "hubBusy"
            visible: dialog.downloads && dialog.downloads.browsing
            running: visible
            Layout.alignment: Qt.AlignHCenter
        }
        Text {
            objectName: "hubError"
            Layout.fillWidth: true
            visible: text.length > 0
            text: dialog.downloads ? (dialog.downloads.browseError.length > 0 ? dialog.downloads.browseError : dialog.downloads.lastError) : ""
            color: Theme.danger
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        ListView {
            id: entryList
            objectName: "hubEntries"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: Theme.s1
            model: dialog.downloads ? dialog.downloads.entries : []
            delegate: Rectangle {
                required property var modelData
                required property int index
                width: entryList.width
                height: 48
                radius: Theme.radiusSmall
                color: Theme.surfaceAlt
                RowLayout {
                    anchors.fill: parent
                    anchors.leftMargin: Theme.s3
                    anchors.rightMargin: Theme.s2
                    spacing: Theme.s3
                    Icon { name: modelData.kind === "gguf" ? "file" : "folder"; color: Theme.accent; size: 16 }
                    Text {
                        Layout.fillWidth: true
                        text: modelData.kind === "safetensors" ? qsTr("Whole repository (safetensors, %n file(s))", "", modelData.files)
                                                               : modelData.label
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                        font.family: modelData.kind === "gguf" ? Theme.monoFamily : Qt.application.font.family
                        elide: Text.ElideMiddle
                    }
                    Text { text: Theme.bytes(modelData.bytes); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; font.family: Theme.monoFamily }
                    AppButton {
                        objectName: "hubDownload_" + index
                        text: qsTr("Download")
                        iconName: "arrow-down"
                        implicitHeight: 30
                        onClicked: if (dialog.downloads.download(index)) dialog.close()
                    }
                }
            }
        }
    }

    footer: RowLayout {
        Item { Layout.fillWidth: true }
        AppButton {
            objectName: "closeDownloadDialog"
            text: qsTr("Close")
            Layout.rightMargin: Theme.s5
            Layout.bottomMargin: Theme.s5
            onClicked: dialog.close()
        }
    }
}
