import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The remote servers on the Models page: each server's address, whether it answers, and the models its /v1/models
// lists (with their context length where the server says it), each with Chat. The keys are never shown.
Card {
    id: card
    property RemoteServerListModel servers
    property ChatSession session
    signal chatRequested()
    padding: Theme.s4
    spacing: Theme.s3

    RowLayout {
        Layout.fillWidth: true
        SectionTitle { text: qsTr("Servers"); Layout.fillWidth: true }
        AppButton {
            objectName: "refreshServersButton"
            kind: "ghost"
            text: qsTr("Refresh")
            tip: qsTr("Ask every server for its models again")
            onClicked: card.servers.refresh()
        }
    }
    Text {
        visible: card.servers && card.servers.lastError.length > 0
        Layout.fillWidth: true
        text: card.servers ? card.servers.lastError : ""
        color: Theme.danger
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
    // Reading the list waits for the keychain (an unlock prompt, a service that hangs): said when it takes a while.
    property bool loadingLong: false
    readonly property bool slowLoading: servers !== null && servers.loading && loadingLong
    Timer {
        interval: 400
        running: card.servers !== null && card.servers.loading && !card.loadingLong
        onTriggered: card.loadingLong = true
    }
    Connections {
        target: card.servers
        function onLoadingChanged() { if (!card.servers.loading) card.loadingLong = false }
    }
    Text {
        objectName: "serversLoading"
        visible: card.slowLoading
        Layout.fillWidth: true
        text: qsTr("Reading the servers' API keys from the system keychain… If it asks to be unlocked, unlock it.")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
    // Rows come and go with the model: a positioner holds them (QTBUG-111792, see ModelsPage).
    Column {
        id: serverColumn
        Layout.fillWidth: true
        spacing: Theme.s3
        Repeater {
            model: card.servers
            delegate: ColumnLayout {
                id: server
                required property string url
                required property bool hasKey
                required property bool plainHttp
                required property string status
                required property string error
                required property var models
                required property string kind
                required property string keyPlace
                objectName: "serverRow"
                width: serverColumn.width
                spacing: Theme.s2
                RowLayout {
                    Layout.fillWidth: true
                    spacing: Theme.s3
                    Icon { name: "server"; color: Theme.accent; size: 18 }
                    Text {
                        objectName: "serverUrlText"
                        Layout.fillWidth: true
                        text: server.url
                        color: Theme.text
                        font.pixelSize: Theme.fontBody
                        font.weight: Font.DemiBold
                        elide: Text.ElideMiddle
                    }
                    // A positioner, not the layout, holds the pills that come and go (a pill shown later by the
                    // layout was drawn over the address).
                    Row {
                        spacing: Theme.s2
                        Pill {
                            objectName: "serverStatus"
                            tint: server.status === "ok" ? Theme.success : server.status === "error" ? Theme.danger : Theme.textFaint
                            text: server.status === "ok" ? (server.kind === "freetoken" ? qsTr("FreeToken server") : qsTr("Connected"))
                                : server.status === "error" ? qsTr("Not answering") : qsTr("Checking…")
                        }
                        Pill {
                            objectName: "serverKeyPill"
                            visible: server.hasKey
                            tint: Theme.textMuted
                            text: server.keyPlace === "keychain" ? qsTr("API key in the keychain") : qsTr("API key in a file")
                        }
                        Pill { visible: server.plainHttp; tint: Theme.warning; text: qsTr("Unencrypted") }
                    }
                    AppButton {
                        objectName: "removeServerButton"
                        kind: "ghost"
                        iconName: "trash"
                        tip: qsTr("Remove this server (and its key) from the list")
                        onClicked: {
                            if (card.session && card.session.remoteUrl === server.url && !card.session.busy)
                                card.session.useLocalModel()
                            card.servers.remove(server.url)
                        }
                    }
                }
                Text {
                    objectName: "serverError"
                    visible: server.status === "error"
                    Layout.fillWidth: true
                    text: server.error
                    color: Theme.danger
                    font.pixelSize: Theme.fontSmall
                    wrapMode: Text.WordWrap
                }
                Text {
                    visible: server.status === "ok" && server.models.length === 0
                    text: qsTr("This server lists no model.")
                    color: Theme.textMuted
                    font.pixelSize: Theme.fontSmall
                }
                Repeater {
                    model: server.status === "ok" ? server.models : []
                    delegate: Rectangle {
                        id: modelRow
                        required property var modelData
                        readonly property bool active: card.session !== null && card.session.remoteUrl === server.url
                                                       && card.session.remoteModel === modelData.id
                        objectName: "remoteModelRow"
                        Layout.fillWidth: true
                        implicitHeight: 44
                        radius: Theme.radiusSmall
                        color: active ? Theme.accentSoft : Theme.surfaceAlt
                        border.color: active ? Theme.accent : Theme.border
                        RowLayout {
                            anchors.fill: parent
                            anchors.leftMargin: Theme.s3
                            anchors.rightMargin: Theme.s2
                            spacing: Theme.s3
                            Text {
                                Layout.fillWidth: true
                                text: modelRow.modelData.id
                                color: Theme.text
                                font.pixelSize: Theme.fontSmall
                                elide: Text.ElideRight
                            }
                            Text {
                                text: modelRow.modelData.contextLength > 0
                                      ? qsTr("context %1 tokens").arg(Number(modelRow.modelData.contextLength).toLocaleString(Qt.locale(), "f", 0))
                                      : qsTr("context not stated")
                                color: Theme.textMuted
                                font.pixelSize: Theme.fontCaption
                            }
                            AppButton {
                                objectName: "remoteChatButton"
                                kind: modelRow.active ? "secondary" : "primary"
                                text: modelRow.active ? qsTr("In use") : qsTr("Chat")
                                iconName: "chat"
                                implicitHeight: 30
                                onClicked: {
                                    if (card.session.chatWithServer(server.url, modelRow.modelData.id, modelRow.modelData.contextLength))
                                        card.chatRequested()
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
