import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// One model of the library: name, format, size, where it is, when it was added.
Card {
    id: row
    property string name
    property string path
    property string format
    property real sizeBytes
    property date addedAt
    signal removeRequested()
    padding: Theme.s4

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s4
        Rectangle {
            width: 40
            height: 40
            radius: 10
            color: Theme.accentSoft
            Icon { anchors.centerIn: parent; name: row.format === "gguf" ? "file" : "folder"; color: Theme.accent; size: 20 }
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 3
            RowLayout {
                spacing: Theme.s2
                Text {
                    text: row.name
                    color: Theme.text
                    font.pixelSize: Theme.fontBody + 1
                    font.weight: Font.DemiBold
                    elide: Text.ElideRight
                    Layout.maximumWidth: row.width * 0.5
                }
                Rectangle {
                    implicitWidth: fmt.implicitWidth + 12
                    implicitHeight: 20
                    radius: 5
                    color: Theme.surfaceAlt
                    border.color: Theme.border
                    Text { id: fmt; anchors.centerIn: parent; text: row.format.toUpperCase(); color: Theme.textMuted; font.pixelSize: 10; font.family: Theme.monoFamily }
                }
            }
            Text {
                Layout.fillWidth: true
                text: row.path
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                font.family: Theme.monoFamily
                elide: Text.ElideMiddle
            }
        }
        ColumnLayout {
            spacing: 3
            Text { Layout.alignment: Qt.AlignRight; text: Theme.bytes(row.sizeBytes); color: Theme.text; font.pixelSize: Theme.fontSmall; font.family: Theme.monoFamily }
            Text { Layout.alignment: Qt.AlignRight; text: qsTr("Added %1").arg(row.addedAt.toLocaleDateString(Qt.locale(), Locale.ShortFormat)); color: Theme.textFaint; font.pixelSize: Theme.fontCaption }
        }
        AppButton { objectName: "removeModelButton"; kind: "ghost"; iconName: "trash"; tip: qsTr("Remove from the library (the files stay)"); onClicked: row.removeRequested() }
    }
}
