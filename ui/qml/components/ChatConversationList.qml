import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The Chat page's left column: search, "New chat", and the saved conversations (click to open; rename and delete
// on each row).
ColumnLayout {
    id: pane
    required property ChatSession session
    signal renameRequested(var conversationId, string title)
    signal deleteRequested(var conversationId, string title)
    spacing: Theme.s3

    AppButton {
        objectName: "newChatButton"
        Layout.fillWidth: true
        kind: "primary"
        iconName: "plus"
        text: qsTr("New chat")
        tip: qsTr("Start a new conversation (Ctrl+N)")
        onClicked: pane.session.newChat()
    }
    SearchField {
        objectName: "chatSearch"
        Layout.fillWidth: true
        placeholderText: qsTr("Search chats")
        onTextChanged: pane.session.search = text
    }
    ListView {
        id: list
        objectName: "conversationList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        spacing: 2
        model: pane.session.conversations
        ScrollBar.vertical: ScrollBar {}
        delegate: Rectangle {
            id: row
            required property var conversationId
            required property string title
            required property date updated
            readonly property bool current: pane.session.currentId === conversationId
            objectName: "conversationRow"
            width: list.width
            height: 52
            radius: Theme.radiusSmall
            color: current ? Theme.selected : hover.hovered ? Theme.hover : "transparent"
            HoverHandler { id: hover }
            TapHandler { onTapped: pane.session.select(row.conversationId) }
            RowLayout {
                anchors.fill: parent
                anchors.leftMargin: Theme.s3
                anchors.rightMargin: Theme.s1
                spacing: Theme.s1
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: 2
                    Text {
                        objectName: "conversationTitle"
                        Layout.fillWidth: true
                        text: row.title
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                        font.weight: row.current ? Font.DemiBold : Font.Normal
                        elide: Text.ElideRight
                    }
                    Text {
                        Layout.fillWidth: true
                        objectName: "conversationUpdated"
                        // In the app's language (Qt.uiLanguage changes with it; Qt.locale() follows it).
                        text: {
                            Qt.uiLanguage  // a dependency: re-evaluated when the language changes
                            return row.updated.toLocaleString(Qt.locale(), Locale.ShortFormat)
                        }
                        color: Theme.textFaint
                        font.pixelSize: Theme.fontCaption
                        elide: Text.ElideRight
                    }
                }
                AppButton {
                    objectName: "renameChatButton"
                    kind: "ghost"
                    iconName: "file"
                    tip: qsTr("Rename")
                    implicitHeight: 28
                    visible: hover.hovered || row.current
                    onClicked: pane.renameRequested(row.conversationId, row.title)
                }
                AppButton {
                    objectName: "deleteChatButton"
                    kind: "ghost"
                    iconName: "trash"
                    tip: qsTr("Delete")
                    implicitHeight: 28
                    visible: hover.hovered || row.current
                    onClicked: pane.deleteRequested(row.conversationId, row.title)
                }
            }
        }
        Text {
            anchors.centerIn: parent
            width: parent.width - 2 * Theme.s3
            visible: list.count === 0
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.WordWrap
            text: pane.session.search.length > 0 ? qsTr("No chat matches “%1”.").arg(pane.session.search)
                                                 : qsTr("Your conversations appear here.")
            color: Theme.textFaint
            font.pixelSize: Theme.fontSmall
        }
    }
}
