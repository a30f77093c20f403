import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// "Delete <chat>?": the conversation and its messages leave the history for good.
ChatDialog {
    id: dialog
    objectName: "deleteChatDialog"
    property var conversationId: 0
    property string chatTitle
    signal deleteConfirmed(var conversationId)

    function ask(id, title) {
        conversationId = id
        chatTitle = title
        open()
    }

    title: qsTr("Delete “%1”?").arg(chatTitle)
    confirmText: qsTr("Delete")
    confirmName: "confirmDeleteChatButton"
    confirmKind: "danger"
    onConfirmed: deleteConfirmed(conversationId)

    Text {
        Layout.fillWidth: true
        text: qsTr("The conversation and all its messages are removed from this PC. This cannot be undone.")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
}
