import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Dialogs
import QtQuick.Layouts
import FreeToken.Ui

// The model library (SQLite). Empty, it explains what to add and where models live.
Page {
    id: page
    property ModelListModel library
    title: qsTr("Models")
    subtitle: library && library.count > 0 ? qsTr("%n model(s) in your library", "", library.count)
                                           : qsTr("Your library is empty")

    actions: [
        AppButton {
            objectName: "addFolderButton"
            text: qsTr("Add folder…")
            iconName: "folder"
            onClicked: folderDialog.open()
        },
        AppButton {
            objectName: "addModelButton"
            kind: "primary"
            text: qsTr("Add model…")
            iconName: "plus"
            onClicked: fileDialog.open()
        }
    ]

    FileDialog {
        id: fileDialog
        title: qsTr("Choose a GGUF model file")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: page.library.addUrl(selectedFile)
    }
    FolderDialog {
        id: folderDialog
        title: qsTr("Choose a Hugging Face model folder")
        onAccepted: page.library.addUrl(selectedFolder)
    }

    Rectangle {
        objectName: "libraryError"
        visible: page.library && page.library.lastError.length > 0
        Layout.fillWidth: true
        implicitHeight: errRow.implicitHeight + 2 * Theme.s3
        radius: Theme.radiusSmall
        color: Theme.dangerSoft
        border.color: Qt.rgba(Theme.danger.r, Theme.danger.g, Theme.danger.b, 0.4)
        RowLayout {
            id: errRow
            x: Theme.s4
            y: Theme.s3
            width: parent.width - 2 * Theme.s4 + Theme.s2
            spacing: Theme.s3
            Icon { name: "info"; color: Theme.danger; size: 16; Layout.alignment: Qt.AlignTop }
            Text {
                Layout.fillWidth: true
                text: page.library ? page.library.lastError : ""
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.WordWrap
            }
            AppButton { objectName: "dismissErrorButton"; kind: "ghost"; iconName: "close"; tip: qsTr("Dismiss"); implicitHeight: 26; onClicked: page.library.clearError() }
        }
    }

    Card {
        objectName: "modelsEmptyState"
        visible: page.library && page.library.count === 0
        Layout.fillWidth: true
        padding: Theme.s7
        spacing: Theme.s5

        EmptyState {
            id: emptyState
            Layout.fillWidth: true
            iconName: "models"
            title: qsTr("Add a model to start")
            body: qsTr("FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.")

            Row {
                id: tiles
                Layout.fillWidth: true
                Layout.maximumWidth: 720
                Layout.alignment: Qt.AlignHCenter
                spacing: Theme.s3
                readonly property real tileWidth: (width - spacing) / 2
                HowToTile {
                    width: tiles.tileWidth
                    iconName: "file"
                    heading: qsTr("A GGUF file")
                    detail: qsTr("One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.")
                    buttonText: qsTr("Choose file…")
                    onChosen: fileDialog.open()
                }
                HowToTile {
                    width: tiles.tileWidth
                    iconName: "folder"
                    heading: qsTr("A Hugging Face folder")
                    detail: qsTr("A downloaded model folder with config.json, the tokenizer and .safetensors weights.")
                    buttonText: qsTr("Choose folder…")
                    onChosen: folderDialog.open()
                }
            }
            ColumnLayout {
                Layout.alignment: Qt.AlignHCenter
                Layout.maximumWidth: 720
                spacing: 2
                Text {
                    Layout.alignment: Qt.AlignHCenter
                    text: qsTr("Models you download with FreeToken will be stored in")
                    color: Theme.textFaint
                    font.pixelSize: Theme.fontCaption
                }
                LinkText {
                    objectName: "modelsDirLink"
                    Layout.alignment: Qt.AlignHCenter
                    Layout.maximumWidth: 700
                    text: page.library ? page.library.modelsDir : ""
                    onActivated: page.library.openModelsFolder()
                }
            }
        }
    }

    Repeater {
        model: page.library
        delegate: ModelRow {
            required property var model
            Layout.fillWidth: true
            name: model.name
            path: model.path
            format: model.format
            sizeBytes: model.sizeBytes
            addedAt: model.addedAt
            onRemoveRequested: page.library.remove(model.modelId)
        }
    }
}
