import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// Models → "Add a server…": a base URL and an optional API key. The server is checked (its /v1/models) before it is
// kept; what goes wrong is said here and the dialog stays open. A plain-http address of another computer needs an
// explicit yes (the check box), asked once: the answer is kept with the server.
Dialog {
    id: dialog
    objectName: "addServerDialog"
    property RemoteServerListModel servers
    readonly property string warning: servers ? servers.plainHttpWarning(urlField.text) : ""
    readonly property bool canAdd: servers !== null && !servers.adding && urlField.text.trim().length > 0
                                   && (warning.length === 0 || plainHttpBox.checked)

    function start() {
        if (servers) servers.clearAddError()
        urlField.text = ""
        keyField.text = ""
        plainHttpBox.checked = false
        open()
        urlField.forceActiveFocus()
    }
    function submit() {
        if (canAdd) servers.add(urlField.text, keyField.text, plainHttpBox.checked)
    }

    Connections {
        target: dialog.servers
        function onAdded() {
            keyField.text = ""
            dialog.close()
        }
    }

    title: qsTr("Add a server")
    modal: true
    anchors.centerIn: T.Overlay.overlay
    width: Math.min(560, parent ? parent.width - 80 : 560)
    padding: Theme.s5
    background: Rectangle { color: Theme.surface; radius: Theme.radius; border.color: Theme.borderStrong }
    header: Text {
        text: dialog.title
        color: Theme.text
        font.pixelSize: Theme.fontTitle
        font.weight: Font.DemiBold
        padding: Theme.s5
        bottomPadding: 0
    }
    onClosed: keyField.text = ""   // the key does not linger in a hidden field

    ColumnLayout {
        width: parent.width
        spacing: Theme.s3
        Text {
            Layout.fillWidth: true
            text: qsTr("An OpenAI-compatible server: another PC running FreeToken (ft serve), vLLM, SGLang or llama.cpp's llama-server. Its models are listed beside your local ones; chatting with them loads nothing on this PC.")
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        Text { text: qsTr("Address"); color: Theme.text; font.pixelSize: Theme.fontSmall; font.weight: Font.Medium }
        ChatTextField {
            id: urlField
            objectName: "serverUrlField"
            Layout.fillWidth: true
            placeholderText: "http://192.168.1.20:8000"
            inputMethodHints: Qt.ImhUrlCharactersOnly | Qt.ImhNoAutoUppercase
            onAccepted: dialog.submit()
            onTextChanged: if (dialog.servers) dialog.servers.clearAddError()
        }
        Text { text: qsTr("API key (optional)"); color: Theme.text; font.pixelSize: Theme.fontSmall; font.weight: Font.Medium }
        ChatTextField {
            id: keyField
            objectName: "serverKeyField"
            Layout.fillWidth: true
            echoMode: TextInput.Password
            placeholderText: qsTr("Leave empty if the server asks for none")
            onAccepted: dialog.submit()
        }
        Text {
            objectName: "serverKeyNote"
            Layout.fillWidth: true
            text: dialog.servers ? dialog.servers.keyStorageNote : ""
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
            wrapMode: Text.WordWrap
        }
        Rectangle {
            objectName: "plainHttpWarning"
            visible: dialog.warning.length > 0
            Layout.fillWidth: true
            implicitHeight: warnColumn.implicitHeight + 2 * Theme.s3
            radius: Theme.radiusSmall
            color: Qt.rgba(Theme.warning.r, Theme.warning.g, Theme.warning.b, 0.12)
            border.color: Qt.rgba(Theme.warning.r, Theme.warning.g, Theme.warning.b, 0.4)
            ColumnLayout {
                id: warnColumn
                x: Theme.s3
                y: Theme.s3
                width: parent.width - 2 * Theme.s3
                spacing: Theme.s2
                Text {
                    Layout.fillWidth: true
                    text: dialog.warning
                    color: Theme.text
                    font.pixelSize: Theme.fontSmall
                    wrapMode: Text.WordWrap
                }
                AppCheckBox {
                    id: plainHttpBox
                    objectName: "plainHttpCheckBox"
                    text: qsTr("Use plain http to this server")
                }
            }
        }
        Text {
            objectName: "addServerError"
            visible: text.length > 0
            Layout.fillWidth: true
            text: dialog.servers && dialog.servers.addError !== dialog.warning ? dialog.servers.addError : ""
            color: Theme.danger
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        Text {
            objectName: "addServerChecking"
            visible: dialog.servers !== null && dialog.servers.adding
            text: dialog.servers && dialog.servers.saving
                  ? qsTr("Saving the server and its API key… If the system keychain asks to be unlocked, unlock it.")
                  : qsTr("Asking the server for its models…")
            Layout.fillWidth: true
            wrapMode: Text.WordWrap
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
        }
    }
    footer: RowLayout {
        spacing: Theme.s2
        Item { Layout.fillWidth: true }
        AppButton {
            objectName: "addServerCancel"
            text: qsTr("Cancel")
            Layout.bottomMargin: Theme.s5
            onClicked: dialog.close()
        }
        AppButton {
            objectName: "addServerConfirm"
            kind: "primary"
            text: qsTr("Add server")
            enabled: dialog.canAdd
            Layout.rightMargin: Theme.s5
            Layout.bottomMargin: Theme.s5
            onClicked: dialog.submit()
        }
    }
}
