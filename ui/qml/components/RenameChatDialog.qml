import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// "Rename chat": a name field prefilled with the current title.
ChatDialog {
    id: dialog
    objectName: "renameChatDialog"
    property var conversationId: 0
    signal renameConfirmed(var conversationId, string title)

    function ask(id, title) {
        conversationId = id
        field.text = title
        open()
        field.forceActiveFocus()
        field.selectAll()
    }

    title: qsTr("Rename chat")
    confirmText: qsTr("Rename")
    confirmName: "confirmRenameButton"
    confirmEnabled: field.text.trim().length > 0
    onConfirmed: renameConfirmed(conversationId, field.text)

    ChatTextField {
        id: field
        objectName: "renameChatField"
        Layout.fillWidth: true
        placeholderText: qsTr("Name of the chat")
        onAccepted: if (dialog.confirmEnabled) { dialog.confirmed(); dialog.accept() }
    }
}
