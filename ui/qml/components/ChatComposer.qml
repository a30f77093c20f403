import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The message input: Enter sends, Shift+Enter starts a new line; Send turns into Stop while a reply streams.
RowLayout {
    id: composer
    required property ChatSession session
    property alias text: input.text
    spacing: Theme.s3

    function send() {
        if (session.send(input.text)) input.text = ""
    }
    function focusInput() { input.forceActiveFocus() }

    ScrollView {
        Layout.fillWidth: true
        Layout.preferredHeight: Math.min(Math.max(42, input.implicitHeight), 160)
        TextArea {
            id: input
            objectName: "chatInput"
            enabled: composer.session.modelReady
            wrapMode: TextEdit.Wrap
            leftPadding: Theme.s4
            topPadding: 11
            bottomPadding: 11
            placeholderText: composer.session.modelReady ? qsTr("Message the model (Enter sends, Shift+Enter adds a line)")
                                                         : qsTr("A model must be loaded before you can chat")
            placeholderTextColor: Theme.textFaint
            color: Theme.text
            selectionColor: Theme.accent
            selectedTextColor: Theme.accentText
            font.pixelSize: Theme.fontBody
            background: Rectangle {
                radius: Theme.radiusSmall + 2
                color: Theme.surfaceAlt
                border.color: input.activeFocus ? Theme.accent : Theme.border
            }
            Keys.onPressed: (event) => {
                if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter) && !(event.modifiers & Qt.ShiftModifier)) {
                    event.accepted = true
                    if (!composer.session.busy) composer.send()
                }
            }
        }
    }
    AppButton {
        objectName: "sendButton"
        visible: !composer.session.busy
        kind: "primary"
        iconName: "send"
        tip: qsTr("Send")
        enabled: composer.session.modelReady && input.text.trim().length > 0
        implicitHeight: 42
        onClicked: composer.send()
    }
    AppButton {
        objectName: "stopButton"
        visible: composer.session.busy
        kind: "secondary"
        iconName: "close"
        text: qsTr("Stop")
        tip: qsTr("Stop the reply (Esc)")
        implicitHeight: 42
        onClicked: composer.session.stop()
    }
}
