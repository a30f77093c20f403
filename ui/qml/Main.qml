import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The FreeToken window: sidebar + one page at a time. showPage() is what the sidebar calls.
ApplicationWindow {
    id: root
    property QtObject logHub: null          // set by the executable (ft::ui::prepare_engine)
    property QtObject engineHost: null      // the app's EngineHost, set by the executable (null: no engine)
    property string monoFamily: "monospace"
    property string openPath: ""            // a model given on the command line (a double-click on a .gguf file)
    property string demoModelPath: ""       // the bundled demo model, found by the executable ("" : none installed)
    property string currentPage: "models"
    readonly property var pages: ["models", "console", "chat", "logs", "settings"]

    function showPage(name) {
        if (pages.indexOf(name) >= 0) currentPage = name
    }

    width: 1280
    height: 800
    minimumWidth: 960
    minimumHeight: 600
    visible: true
    title: apiServer.status === "running" ? qsTr("FreeToken Desktop — API server on %1").arg(apiServer.url)
                                          : qsTr("FreeToken Desktop")
    color: Theme.bg
    // The theme's colors for what Qt draws itself (the non-native file dialogs above all, which were light in the
    // dark theme); every popup of the window inherits them.
    palette.window: Theme.surface
    palette.windowText: Theme.text
    palette.base: Theme.bg
    palette.alternateBase: Theme.surfaceAlt
    palette.text: Theme.text
    palette.placeholderText: Theme.textFaint
    palette.button: Theme.surfaceAlt
    palette.buttonText: Theme.text
    palette.brightText: Theme.accentText
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.accentText
    palette.toolTipBase: Theme.surfaceAlt
    palette.toolTipText: Theme.text
    palette.light: Theme.hover
    palette.midlight: Theme.border
    palette.mid: Theme.borderStrong
    palette.dark: Theme.track
    palette.shadow: Theme.bg
    palette.link: Theme.accent

    SettingsModel { id: settingsModel; objectName: "settingsModel" }
    SystemMonitor { id: systemMonitor; objectName: "systemMonitor" }
    ModelListModel { id: libraryModel; objectName: "libraryModel" }
    DownloadListModel { id: downloadModel; objectName: "downloadModel"; library: libraryModel }
    LogListModel { id: logListModel; objectName: "logListModel"; hub: root.logHub }
    ChatSession { id: chatSession; objectName: "chatSession"; host: root.engineHost }
    RemoteServerListModel { id: serverModel; objectName: "serverModel" }
    ApiServerModel { id: apiServer; objectName: "apiServerModel"; host: root.engineHost }
    StartupModel {
        id: startup
        objectName: "startupModel"
        library: libraryModel
        host: root.engineHost
        openPath: root.openPath
        demoPath: root.demoModelPath
        onWelcomeVisibleChanged: if (welcomeVisible) welcome.open()
    }
    Component.onCompleted: {
        if (startup.start() === "open") root.showPage("models")
    }
    Binding { target: Theme; property: "dark"; value: settingsModel.dark }
    Binding { target: Theme; property: "monoFamily"; value: root.monoFamily }

    // Ctrl+1 … Ctrl+5 open the pages in sidebar order.
    Repeater {
        model: root.pages
        delegate: Item {
            required property string modelData
            required property int index
            Shortcut {
                sequence: "Ctrl+" + (index + 1)
                onActivated: root.showPage(modelData)
            }
        }
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Sidebar {
            objectName: "sidebar"
            Layout.fillHeight: true
            currentPage: root.currentPage
            monitor: systemMonitor
            settings: settingsModel
            modelCount: libraryModel.count
            apiServer: apiServer
            onNavigate: (page) => root.showPage(page)
        }

        StackLayout {
            objectName: "pages"
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: root.pages.indexOf(root.currentPage)
            ModelsPage {
                id: modelsPage
                objectName: "page_models"
                library: libraryModel
                downloads: downloadModel
                engineHost: root.engineHost
                servers: serverModel
                session: chatSession
                onGoToChat: root.showPage("chat")
            }
            ConsolePage {
                objectName: "page_console"
                monitor: systemMonitor
                host: root.engineHost
                session: chatSession
                onGoToModels: root.showPage("models")
                onGoToChat: root.showPage("chat")
            }
            ChatPage {
                objectName: "page_chat"
                session: chatSession
                engineHost: root.engineHost
                onGoToModels: root.showPage("models")
            }
            LogsPage { objectName: "page_logs"; logModel: logListModel }
            SettingsPage { objectName: "page_settings"; settings: settingsModel; apiServer: apiServer }
        }
    }

    WelcomeDialog {
        id: welcome
        host: root.engineHost
        monitor: systemMonitor
        onClosed: startup.dismissWelcome()
        onDownloadRequested: {
            root.showPage("models")
            modelsPage.openDownloadDialog()
        }
        onTryRequested: root.showPage("chat")
    }
}
