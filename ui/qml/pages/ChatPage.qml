import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// The conversation view: saved chats on the left, the open one on the right (messages, composer). Without a
// loaded model it says so and offers the Models page. Ctrl+N starts a new chat, Esc stops a reply.
Page {
    id: page
    property ChatSession session: null
    property QtObject engineHost: null
    readonly property bool ready: session !== null && session.modelReady
    signal goToModels()
    title: qsTr("Chat")
    subtitle: engineHost && engineHost.state === "loading" ? qsTr("Loading %1…").arg(engineHost.modelName)
            : ready && session.remoteModel.length > 0 ? qsTr("Model: %1 on %2").arg(session.remoteModel).arg(session.remoteUrl)
            : ready ? qsTr("Model: %1").arg(engineHost.modelName) : qsTr("No model loaded")
    scrollable: false

    actions: [
        AppButton {
            objectName: "chatSettingsButton"
            text: qsTr("Chat settings")
            iconName: "settings"
            enabled: page.session !== null
            onClicked: settingsDialog.edit()
        }
    ]

    Shortcut {
        sequence: "Ctrl+N"
        enabled: page.visible && page.session !== null
        onActivated: {
            page.session.newChat()
            composer.focusInput()
        }
    }
    Shortcut {
        sequence: "Esc"
        enabled: page.visible && page.session !== null && page.session.busy
        onActivated: page.session.stop()
    }

    RowLayout {
        Layout.fillWidth: true
        Layout.fillHeight: true
        spacing: Theme.s4

        Card {
            Layout.preferredWidth: 270
            Layout.fillHeight: true
            padding: Theme.s3
            visible: page.session !== null
            ChatConversationList {
                Layout.fillWidth: true
                Layout.fillHeight: true
                session: page.session
                onRenameRequested: (id, title) => renameDialog.ask(id, title)
                onDeleteRequested: (id, title) => deleteDialog.ask(id, title)
            }
        }

        Card {
            Layout.fillWidth: true
            Layout.fillHeight: true
            padding: 0
            spacing: 0

            // The system prompt in force, on every chat that has one; a click opens the chat's settings.
            Rectangle {
                objectName: "systemPromptBanner"
                Layout.fillWidth: true
                Layout.margins: Theme.s3
                Layout.bottomMargin: 0
                visible: page.session !== null && page.session.systemPrompt.trim().length > 0
                implicitHeight: promptText.implicitHeight + 2 * Theme.s2
                color: Theme.surfaceAlt
                radius: Theme.radius
                Text {
                    id: promptText
                    objectName: "systemPromptText"
                    x: Theme.s4
                    y: Theme.s2
                    width: parent.width - 2 * Theme.s4
                    text: page.session ? qsTr("System prompt: %1").arg(page.session.systemPrompt.trim().replace(/\s+/g, " ")) : ""
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontSmall
                    elide: Text.ElideRight
                    maximumLineCount: 1
                }
                MouseArea {
                    anchors.fill: parent
                    cursorShape: Qt.PointingHandCursor
                    onClicked: settingsDialog.edit()
                }
                ToolTip.visible: bannerHover.hovered
                ToolTip.text: qsTr("Edit this chat's settings")
                HoverHandler { id: bannerHover }
            }
            Item {
                Layout.fillWidth: true
                Layout.fillHeight: true
                EmptyState {
                    objectName: "chatEmptyState"
                    visible: !page.ready && (page.session === null || page.session.messages.count === 0)
                    anchors.centerIn: parent
                    width: Math.min(parent.width - 2 * Theme.s6, 520)
                    iconName: "chat"
                    title: qsTr("Load a model to chat")
                    body: qsTr("Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.")
                    AppButton {
                        objectName: "goToModelsButton"
                        Layout.alignment: Qt.AlignHCenter
                        text: qsTr("Go to Models")
                        iconName: "models"
                        onClicked: page.goToModels()
                    }
                }
                EmptyState {
                    objectName: "chatStartState"
                    visible: page.ready && page.session.messages.count === 0
                    anchors.centerIn: parent
                    width: Math.min(parent.width - 2 * Theme.s6, 520)
                    iconName: "chat"
                    title: qsTr("Start a conversation")
                    body: qsTr("Type a message below. Replies stream in as the model writes them and are saved as they arrive.")
                }
                ListView {
                    id: messageList
                    objectName: "messageList"
                    anchors.fill: parent
                    anchors.margins: Theme.s5
                    visible: page.session !== null && page.session.messages.count > 0
                    clip: true
                    spacing: Theme.s2
                    model: page.session ? page.session.messages : null
                    ScrollBar.vertical: ScrollBar {}
                    onCountChanged: Qt.callLater(positionViewAtEnd)
                    onContentHeightChanged: if (atYEnd || (page.session && page.session.busy)) Qt.callLater(positionViewAtEnd)
                    delegate: ChatMessage {
                        width: messageList.width - 12
                        isLast: index === messageList.count - 1
                        busy: page.session.busy
                        viewTop: messageList.contentY - messageList.height
                        viewBottom: messageList.contentY + 2 * messageList.height
                        onEditRequested: (row, text) => editDialog.ask(row, text)
                        onRegenerateRequested: page.session.regenerate()
                        onCopyRequested: (text) => page.session.copyText(text)
                    }
                }
            }

            Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }
            Text {
                objectName: "contextWarning"
                Layout.fillWidth: true
                Layout.leftMargin: Theme.s4
                Layout.rightMargin: Theme.s4
                Layout.topMargin: Theme.s2
                visible: page.session !== null && page.session.contextWarning
                text: page.session ? qsTr("This chat uses %1 of the model's %2 context tokens. Near the limit replies get cut off: start a new chat (Ctrl+N).")
                                         .arg(page.session.contextUsed).arg(page.session.contextLength) : ""
                color: Theme.warning
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
            }
            Text {
                objectName: "waitingForKey"
                Layout.fillWidth: true
                Layout.leftMargin: Theme.s4
                Layout.rightMargin: Theme.s4
                Layout.topMargin: Theme.s2
                visible: page.session !== null && page.session.waitingForKey
                text: qsTr("Reading the server's API key from the system keychain… If it asks to be unlocked, unlock it; Stop (Esc) gives up.")
                color: Theme.textMuted
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.Wrap
            }
            RowLayout {
                Layout.fillWidth: true
                Layout.leftMargin: Theme.s4
                Layout.rightMargin: Theme.s4
                Layout.topMargin: Theme.s2
                visible: page.session !== null && page.session.lastError.length > 0
                Text {
                    objectName: "chatError"
                    Layout.fillWidth: true
                    text: page.session ? page.session.lastError : ""
                    color: Theme.danger
                    font.pixelSize: Theme.fontSmall
                    wrapMode: Text.Wrap
                }
                AppButton {
                    kind: "ghost"
                    iconName: "close"
                    tip: qsTr("Dismiss")
                    implicitHeight: 26
                    onClicked: page.session.clearError()
                }
            }
            ChatComposer {
                id: composer
                Layout.fillWidth: true
                Layout.margins: Theme.s4
                visible: page.session !== null
                session: page.session
            }
        }
    }

    RenameChatDialog {
        id: renameDialog
        parent: T.Overlay.overlay
        onRenameConfirmed: (id, title) => page.session.rename(id, title)
    }
    DeleteChatDialog {
        id: deleteDialog
        parent: T.Overlay.overlay
        onDeleteConfirmed: (id) => page.session.remove(id)
    }
    EditMessageDialog {
        id: editDialog
        parent: T.Overlay.overlay
        onResendConfirmed: (row, text) => page.session.editAndResend(row, text)
    }
    ChatSettingsDialog {
        id: settingsDialog
        parent: T.Overlay.overlay
        session: page.session
    }
}
