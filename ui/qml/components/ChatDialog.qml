import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// The frame of the Chat page's dialogs: a title, a body (children), Cancel and a confirm button.
Dialog {
    id: dialog
    property string confirmText: qsTr("OK")
    property string confirmKind: "primary"  // "danger" for a confirmation that deletes
    property string confirmName: "confirmButton"
    property bool danger: false
    property bool confirmEnabled: true
    default property alias body: column.data
    signal confirmed()

    modal: true
    anchors.centerIn: T.Overlay.overlay
    width: Math.min(520, parent ? parent.width - 80 : 520)
    padding: Theme.s5
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
        id: column
        width: parent.width
        spacing: Theme.s3
    }
    footer: RowLayout {
        spacing: Theme.s2
        Item { Layout.fillWidth: true }
        AppButton {
            objectName: dialog.objectName + "Cancel"
            text: qsTr("Cancel")
            Layout.bottomMargin: Theme.s5
            onClicked: dialog.reject()
        }
        AppButton {
            objectName: dialog.confirmName
            kind: dialog.confirmKind
            text: dialog.confirmText
            enabled: dialog.confirmEnabled
            Layout.rightMargin: Theme.s5
            Layout.bottomMargin: Theme.s5
            onClicked: {
                dialog.confirmed()
                dialog.accept()
            }
        }
    }
}
