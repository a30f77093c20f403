import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The live log (LogHub): level filter, search, auto-scroll, copy, and the log file's folder.
Page {
    id: page
    property LogListModel logModel
    title: qsTr("Logs")
    subtitle: logModel && logModel.logFilePath.length > 0 ? qsTr("Also written to %1").arg(logModel.logFilePath)
                                                          : qsTr("Not written to a file (see the first lines)")
    scrollable: false

    actions: [
        AppButton {
            objectName: "copyLogsButton"
            text: qsTr("Copy")
            iconName: "copy"
            onClicked: page.logModel.copyVisible()
        },
        AppButton {
            objectName: "openLogFolderButton"
            text: qsTr("Open folder")
            iconName: "folder"
            enabled: page.logModel && page.logModel.logFilePath.length > 0
            onClicked: page.logModel.openLogFolder()
        }
    ]

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s3
        Segmented {
            objectName: "levelFilter"
            value: page.logModel ? page.logModel.minLevel : 1
            options: [
                { value: 1, label: qsTr("All") },
                { value: 2, label: qsTr("Info") },
                { value: 3, label: qsTr("Warnings") },
                { value: 4, label: qsTr("Errors") }
            ]
            onActivated: (v) => page.logModel.minLevel = v
        }
        SearchField {
            objectName: "logSearch"
            Layout.fillWidth: true
            Layout.maximumWidth: 360
            placeholderText: qsTr("Search the log")
            onTextChanged: page.logModel.search = text
        }
        Item { Layout.fillWidth: true }
        Text {
            text: page.logModel ? qsTr("%1 of %2 lines").arg(page.logModel.count).arg(page.logModel.totalCount) : ""
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
        }
        CheckBox {
            id: follow
            objectName: "autoScroll"
            checked: true
            text: qsTr("Auto-scroll")
            font.pixelSize: Theme.fontSmall
            contentItem: Text {
                text: follow.text
                leftPadding: follow.indicator.width + 6
                color: Theme.textMuted
                font: follow.font
                verticalAlignment: Text.AlignVCenter
            }
            indicator: Rectangle {
                implicitWidth: 16
                implicitHeight: 16
                x: follow.leftPadding
                y: (follow.height - height) / 2
                radius: 4
                color: follow.checked ? Theme.accent : Theme.surfaceAlt
                border.color: follow.checked ? Theme.accent : Theme.borderStrong
                Icon { anchors.centerIn: parent; visible: follow.checked; name: "check"; size: 12; color: Theme.accentText }
            }
        }
    }

    Card {
        Layout.fillWidth: true
        Layout.fillHeight: true
        padding: 0
        color: Theme.dark ? "#12151b" : "#fbfbfc"

        ListView {
            id: list
            objectName: "logList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.margins: Theme.s2
            clip: true
            model: page.logModel
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar {}
            onCountChanged: if (follow.checked) Qt.callLater(list.positionViewAtEnd)
            delegate: LogLine {
                required property double msecs
                required property int level
                required property string levelName
                required property string text
                width: list.width - 12
                timeMs: msecs
                levelValue: level
                levelText: levelName
                message: text
            }
        }
        Text {
            visible: page.logModel && page.logModel.count === 0
            Layout.alignment: Qt.AlignHCenter
            Layout.bottomMargin: Theme.s7
            text: qsTr("No lines match the filter")
            color: Theme.textFaint
            font.pixelSize: Theme.fontSmall
        }
    }
}
