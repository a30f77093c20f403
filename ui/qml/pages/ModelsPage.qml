import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Dialogs
import QtQuick.Layouts
import QtQuick.Templates as T
import FreeToken.Ui

// The model library (SQLite). Add by file/folder dialog, by dropping a .gguf file or a model folder on the page, by
// scanning the models folder, or by downloading from Hugging Face. Each row loads through the app's EngineHost.
Page {
    id: page
    property ModelListModel library
    property DownloadListModel downloads
    property var engineHost: null
    property RemoteServerListModel servers: null   // remote OpenAI-compatible servers (Add a server…)
    property ChatSession session: null
    signal goToChat()
    title: qsTr("Models")
    subtitle: library && library.count > 0 ? qsTr("%n model(s) in your library", "", library.count)
                                           : qsTr("Your library is empty")

    // What the DropArea calls; also the entry point for tests.
    function dropUrls(urls) { return page.library.addUrls(urls) }
    // The welcome screen's "Download a model" link: the Download dialog, as the button above opens it.
    function openDownloadDialog() { downloadDialog.open() }

    actions: [
        AppButton {
            objectName: "addServerButton"
            visible: page.servers !== null
            text: qsTr("Add a server…")
            iconName: "server"
            onClicked: addServerDialog.start()
        },
        AppButton {
            objectName: "downloadModelButton"
            text: qsTr("Download…")
            iconName: "arrow-down"
            onClicked: downloadDialog.open()
        },
        AppButton {
            objectName: "scanModelsButton"
            text: qsTr("Scan models folder")
            iconName: "search"
            tip: qsTr("Add every model in %1").arg(page.library ? page.library.modelsDir : "")
            onClicked: page.library.scanModelsFolder()
        },
        AppButton {
            objectName: "addFolderButton"
            text: qsTr("Add folder…")
            iconName: "folder"
            onClicked: folderDialog.open()
        },
        AppButton {
            objectName: "addModelButton"
            kind: "primary"
            text: qsTr("Add model…")
            iconName: "plus"
            onClicked: fileDialog.open()
        }
    ]

    // Qt's non-native dialogs (Linux without a platform theme) take the window's palette (Main.qml), except the
    // folder bar, whose background Qt 6.4 leaves white: painted here in the theme's color once a dialog shows.
    readonly property Item overlayItem: T.Overlay.overlay
    function themeDialogBars(item) {
        if (!item) return
        if (item.upButton !== undefined && item.buttonDelegate !== undefined && item.background)
            item.background.color = Qt.binding(() => Theme.surfaceAlt)
        for (let i = 0; i < item.children.length; ++i) themeDialogBars(item.children[i])
    }
    FileDialog {
        id: fileDialog
        objectName: "modelFileDialog"
        title: qsTr("Choose a GGUF model file")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: page.library.addUrl(selectedFile)
        onVisibleChanged: if (visible) Qt.callLater(page.themeDialogBars, page.overlayItem)
    }
    FolderDialog {
        id: folderDialog
        objectName: "modelFolderDialog"
        title: qsTr("Choose a Hugging Face model folder")
        onAccepted: page.library.addUrl(selectedFolder)
        onVisibleChanged: if (visible) Qt.callLater(page.themeDialogBars, page.overlayItem)
    }
    RemoveModelDialog {
        id: removeDialog
        parent: T.Overlay.overlay
        onRemoveConfirmed: (id, deleteFiles) => page.library.removeModel(id, deleteFiles)
    }
    AddServerDialog {
        id: addServerDialog
        parent: T.Overlay.overlay
        servers: page.servers
    }
    DownloadDialog {
        id: downloadDialog
        parent: T.Overlay.overlay
        downloads: page.downloads
    }

    Rectangle {
        objectName: "libraryError"
        visible: page.library && page.library.lastError.length > 0
        Layout.fillWidth: true
        implicitHeight: errRow.implicitHeight + 2 * Theme.s3
        radius: Theme.radiusSmall
        color: Theme.dangerSoft
        border.color: Qt.rgba(Theme.danger.r, Theme.danger.g, Theme.danger.b, 0.4)
        RowLayout {
            id: errRow
            x: Theme.s4
            y: Theme.s3
            width: parent.width - 2 * Theme.s4 + Theme.s2
            spacing: Theme.s3
            Icon { name: "info"; color: Theme.danger; size: 16; Layout.alignment: Qt.AlignTop }
            Text {
                Layout.fillWidth: true
                text: page.library ? page.library.lastError : ""
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.WordWrap
            }
            AppButton { objectName: "dismissErrorButton"; kind: "ghost"; iconName: "close"; tip: qsTr("Dismiss"); implicitHeight: 26; onClicked: page.library.clearError() }
        }
    }
    Text {
        objectName: "libraryNotice"
        visible: page.library && page.library.notice.length > 0
        text: page.library ? page.library.notice : ""
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
    }

    // Downloads in progress (and recent ones), above the library.
    Card {
        objectName: "downloadsCard"
        visible: page.downloads && page.downloads.count > 0
        Layout.fillWidth: true
        padding: Theme.s4
        spacing: Theme.s2
        SectionTitle { text: qsTr("Downloads") }
        // Rows come and go with the model: they live in a positioner, not directly in the card's layout (Qt 6.4's
        // layouts crash when a child they hold is destroyed and they are resized before their next polish,
        // QTBUG-111792).
        Column {
            id: downloadColumn
            Layout.fillWidth: true
            spacing: Theme.s2
            Repeater {
                model: page.downloads
                delegate: DownloadRow {
                    required property var model
                    width: downloadColumn.width
                    downloads: page.downloads
                    downloadId: model.downloadId
                    repo: model.repo
                    label: model.label
                    dlState: model.state
                    bytesDone: model.bytesDone
                    bytesTotal: model.bytesTotal
                    fraction: model.fraction
                    speed: model.speed
                    eta: model.eta
                    error: model.error
                    fileIndex: model.fileIndex
                    fileCount: model.fileCount
                }
            }
        }
    }

    Card {
        objectName: "modelsEmptyState"
        visible: page.library && page.library.count === 0
        Layout.fillWidth: true
        padding: Theme.s7
        spacing: Theme.s5

        EmptyState {
            id: emptyState
            Layout.fillWidth: true
            iconName: "models"
            title: qsTr("Add a model to start")
            body: qsTr("FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded (or drop it here); it is used where it is, nothing is copied.")

            Row {
                id: tiles
                Layout.fillWidth: true
                Layout.maximumWidth: 720
                Layout.alignment: Qt.AlignHCenter
                spacing: Theme.s3
                readonly property real tileWidth: (width - spacing) / 2
                HowToTile {
                    width: tiles.tileWidth
                    iconName: "file"
                    heading: qsTr("A GGUF file")
                    detail: qsTr("One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.")
                    buttonText: qsTr("Choose file…")
                    onChosen: fileDialog.open()
                }
                HowToTile {
                    width: tiles.tileWidth
                    iconName: "folder"
                    heading: qsTr("A Hugging Face folder")
                    detail: qsTr("A downloaded model folder with config.json, the tokenizer and .safetensors weights.")
                    buttonText: qsTr("Choose folder…")
                    onChosen: folderDialog.open()
                }
            }
            ColumnLayout {
                Layout.alignment: Qt.AlignHCenter
                Layout.maximumWidth: 720
                spacing: 2
                Text {
                    Layout.alignment: Qt.AlignHCenter
                    text: qsTr("Models you download with FreeToken will be stored in")
                    color: Theme.textFaint
                    font.pixelSize: Theme.fontCaption
                }
                LinkText {
                    objectName: "modelsDirLink"
                    Layout.alignment: Qt.AlignHCenter
                    Layout.maximumWidth: 700
                    text: page.library ? page.library.modelsDir : ""
                    onActivated: page.library.openModelsFolder()
                }
            }
        }
    }

    // The library's rows come and go with the model: a positioner holds them, not the page's layout (QTBUG-111792,
    // see the downloads above).
    Column {
        id: libraryColumn
        Layout.fillWidth: true
        visible: page.library && page.library.count > 0
        spacing: Theme.s4
        Repeater {
            model: page.library
            delegate: ModelRow {
                required property var model
                width: libraryColumn.width
                host: page.engineHost
                name: model.name
                path: model.path
                format: model.format
                sizeBytes: model.sizeBytes
                addedAt: model.addedAt
                readable: model.readable
                readError: model.readError
                architecture: model.architecture
                runnable: model.runnable
                supportNote: model.supportNote
                quant: model.quant
                totalParams: model.totalParams
                activeParams: model.activeParams
                parts: model.parts
                fitVerdict: model.fitVerdict
                fitReason: model.fitReason
                origin: model.origin
                tokSLow: model.tokSLow
                tokSHigh: model.tokSHigh
                onRemoveRequested: removeDialog.ask(model.modelId, model.name, model.path, model.format !== "gguf")
            }
        }
    }

    RemoteServersCard {
        objectName: "remoteServersCard"
        visible: page.servers !== null && (page.servers.count > 0 || slowLoading)
        Layout.fillWidth: true
        servers: page.servers
        session: page.session
        onChatRequested: page.goToChat()
    }

    // Drop a .gguf file or a model folder anywhere on the page.
    DropArea {
        id: drop
        objectName: "modelDropArea"
        parent: page
        anchors.fill: parent
        z: 100
        onEntered: (drag) => {
            drag.accepted = drag.hasUrls && drag.urls.some(u => page.library.acceptsUrl(u))
        }
        onDropped: (dropEvent) => {
            if (dropEvent.hasUrls) {
                page.dropUrls(dropEvent.urls)
                dropEvent.acceptProposedAction()
            }
        }
        Rectangle {
            anchors.fill: parent
            anchors.margins: Theme.s3
            visible: drop.containsDrag
            radius: Theme.radius
            color: Theme.accentSoft
            border.color: Theme.accent
            border.width: 2
            Text {
                anchors.centerIn: parent
                text: qsTr("Drop a .gguf file or a model folder to add it")
                color: Theme.accent
                font.pixelSize: Theme.fontTitle
                font.weight: Font.DemiBold
            }
        }
    }
}
