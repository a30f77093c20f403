import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// "Remove <model>?" — the files stay unless "also delete" is ticked. removeConfirmed(id, deleteFiles) on accept.
Dialog {
    id: dialog
    objectName: "removeModelDialog"
    property var modelId: 0
    property string modelName
    property string modelPath
    property bool isFolder: false
    signal removeConfirmed(var modelId, bool deleteFiles)

    function ask(id, name, path, folder) {
        modelId = id
        modelName = name
        modelPath = path
        isFolder = folder
        deleteCheck.checked = false
        open()
    }

    modal: true
    anchors.centerIn: T.Overlay.overlay
    width: Math.min(520, parent ? parent.width - 80 : 520)
    padding: Theme.s5
    title: qsTr("Remove %1?").arg(modelName)
    background: Rectangle { color: Theme.surface; radius: Theme.radius; border.color: Theme.borderStrong }
    header: Text {
        text: dialog.title
        color: Theme.text
        font.pixelSize: Theme.fontTitle
        font.weight: Font.DemiBold
        padding: Theme.s5
        bottomPadding: 0
        elide: Text.ElideRight
    }

    ColumnLayout {
        width: parent.width
        spacing: Theme.s3
        Text {
            Layout.fillWidth: true
            text: qsTr("The model leaves the library. Its files stay where they are unless you tick the box below.")
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        Text {
            Layout.fillWidth: true
            text: dialog.modelPath
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
            font.family: Theme.monoFamily
            elide: Text.ElideMiddle
        }
        AppCheckBox {
            id: deleteCheck
            objectName: "deleteFilesCheck"
            text: dialog.isFolder ? qsTr("Also delete the folder from the disk") : qsTr("Also delete the file from the disk")
        }
    }

    footer: RowLayout {
        spacing: Theme.s2
        Item { Layout.fillWidth: true }
        AppButton { objectName: "cancelRemoveButton"; text: qsTr("Cancel"); onClicked: dialog.reject() }
        AppButton {
            objectName: "confirmRemoveButton"
            kind: deleteCheck.checked ? "danger" : "primary"
            text: deleteCheck.checked ? qsTr("Remove and delete") : qsTr("Remove")
            Layout.rightMargin: Theme.s5
            Layout.bottomMargin: Theme.s5
            onClicked: {
                dialog.removeConfirmed(dialog.modelId, deleteCheck.checked)
                dialog.accept()
            }
        }
    }
}
