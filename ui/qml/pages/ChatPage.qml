import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The conversation view. Without a loaded model it says so, and the input stays disabled.
Page {
    id: page
    signal goToModels()
    title: qsTr("Chat")
    subtitle: qsTr("No model loaded")
    scrollable: false

    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        padding: 0
        spacing: 0

        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true
            EmptyState {
                objectName: "chatEmptyState"
                anchors.centerIn: parent
                width: Math.min(parent.width - 2 * Theme.s6, 520)
                iconName: "chat"
                title: qsTr("Load a model to chat")
                body: qsTr("Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.")
                AppButton {
                    Layout.alignment: Qt.AlignHCenter
                    text: qsTr("Go to Models")
                    iconName: "models"
                    onClicked: page.goToModels()
                }
            }
        }
        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }
        RowLayout {
            Layout.fillWidth: true
            Layout.margins: Theme.s4
            spacing: Theme.s3
            TextField {
                id: input
                objectName: "chatInput"
                Layout.fillWidth: true
                enabled: false
                implicitHeight: 42
                leftPadding: Theme.s4
                placeholderText: qsTr("A model must be loaded before you can chat")
                placeholderTextColor: Theme.textFaint
                color: Theme.text
                font.pixelSize: Theme.fontBody
                background: Rectangle {
                    radius: Theme.radiusSmall + 2
                    color: Theme.surfaceAlt
                    border.color: Theme.border
                }
            }
            AppButton {
                objectName: "sendButton"
                kind: "primary"
                iconName: "send"
                tip: qsTr("Send")
                enabled: false
                implicitHeight: 42
            }
        }
    }
}
