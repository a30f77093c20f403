import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// Navigation, the live system box, the theme toggle and the version. Emits navigate(page) like a user click;
// each entry's objectName is "nav_<page>".
Rectangle {
    id: side
    property string currentPage
    property SystemMonitor monitor
    property SettingsModel settings
    property int modelCount: 0
    property ApiServerModel apiServer: null
    signal navigate(string page)
    function label(page) {
        switch (page) {
        case "models": return qsTr("Models")
        case "console": return qsTr("Console")
        case "chat": return qsTr("Chat")
        case "logs": return qsTr("Logs")
        case "settings": return qsTr("Settings")
        }
        return page
    }
    implicitWidth: 236
    color: Theme.sidebar

    Rectangle { anchors.right: parent.right; width: 1; height: parent.height; color: Theme.border }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.s4
        anchors.rightMargin: Theme.s4 + 1
        spacing: 2

        RowLayout {
            Layout.fillWidth: true
            Layout.bottomMargin: Theme.s5
            Layout.leftMargin: Theme.s1
            spacing: Theme.s3
            Image {
                source: "qrc:/icons/freetoken.svg"
                sourceSize: Qt.size(64, 64)
                Layout.preferredWidth: 30
                Layout.preferredHeight: 30
                smooth: true
            }
            Column {
                Layout.fillWidth: true
                Text { text: "FreeToken"; color: Theme.text; font.pixelSize: 15; font.weight: Font.DemiBold }
                Text { text: qsTr("Desktop"); color: Theme.textFaint; font.pixelSize: Theme.fontCaption }
            }
        }

        // The model holds no translated text: a language switch relabels the entries instead of recreating them
        // (Qt 6.4's layouts crash when a child they hold is destroyed and they are resized before their next polish,
        // QTBUG-111792).
        Repeater {
            model: ["models", "console", "chat", "logs", "settings"]
            delegate: NavItem {
                required property string modelData
                objectName: "nav_" + modelData
                Layout.fillWidth: true
                text: side.label(modelData)
                iconName: modelData
                current: side.currentPage === modelData
                badge: modelData === "models" ? side.modelCount : -1
                onClicked: side.navigate(modelData)
            }
        }

        Item { Layout.fillHeight: true; Layout.minimumHeight: Theme.s4 }

        SystemBox {
            Layout.fillWidth: true
            monitor: side.monitor
        }

        // The local API server at a glance (Settings switches it); a click opens Settings.
        Pill {
            objectName: "sidebarServerPill"
            Layout.topMargin: Theme.s2
            Layout.maximumWidth: parent.width  // the sidebar's width at most: a long address or translation elides
            ToolTip.visible: serverPillMouse.containsMouse && truncatedText
            ToolTip.text: text
            readonly property bool truncatedText: implicitWidth > width
            visible: side.apiServer !== null && side.apiServer.status !== "off"
            text: !side.apiServer ? "" : side.apiServer.status === "running" ? qsTr("API server: %1").arg(side.apiServer.url)
                  : side.apiServer.status === "waiting" ? qsTr("API server: waiting for a model") : qsTr("API server: not running")
            tint: !side.apiServer ? Theme.textFaint : side.apiServer.status === "running" ? Theme.success
                  : side.apiServer.status === "waiting" ? Theme.warning : Theme.danger
            MouseArea { id: serverPillMouse; anchors.fill: parent; hoverEnabled: true; cursorShape: Qt.PointingHandCursor; onClicked: side.navigate("settings") }
        }

        RowLayout {
            Layout.fillWidth: true
            Layout.topMargin: Theme.s3
            AppButton {
                objectName: "themeToggle"
                kind: "secondary"
                iconName: Theme.dark ? "sun" : "moon"
                tip: Theme.dark ? qsTr("Switch to the light theme") : qsTr("Switch to the dark theme")
                onClicked: side.settings.theme = Theme.dark ? "light" : "dark"
            }
            Item { Layout.fillWidth: true }
            Text {
                text: side.settings ? "v" + side.settings.version : ""
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                font.family: Theme.monoFamily
            }
        }
    }
}
