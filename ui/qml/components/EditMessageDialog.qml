import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// "Edit and resend": the user's message in an editor; sending replaces it and every later message.
ChatDialog {
    id: dialog
    objectName: "editMessageDialog"
    property int row: -1
    signal resendConfirmed(int row, string text)

    function ask(r, text) {
        row = r
        editor.text = text
        open()
        editor.area.forceActiveFocus()
    }

    title: qsTr("Edit and resend")
    confirmText: qsTr("Resend")
    confirmName: "confirmEditButton"
    confirmEnabled: editor.text.trim().length > 0
    onConfirmed: resendConfirmed(row, editor.text)

    Text {
        Layout.fillWidth: true
        text: qsTr("The replies after this message are replaced by a new one.")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
    ChatTextArea {
        id: editor
        objectName: "editMessageField"
        Layout.fillWidth: true
        implicitHeight: 140
    }
}
