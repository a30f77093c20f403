import QtQuick
import FreeToken.Ui

// A small status label with a colored dot.
Rectangle {
    id: pill
    property alias text: label.text
    property color tint: Theme.textFaint
    implicitWidth: row.implicitWidth + 2 * Theme.s3
    implicitHeight: 26
    radius: height / 2
    color: Qt.rgba(tint.r, tint.g, tint.b, Theme.dark ? 0.12 : 0.09)
    border.color: Qt.rgba(tint.r, tint.g, tint.b, 0.35)
    Row {
        id: row
        anchors.centerIn: parent
        spacing: Theme.s2
        Rectangle {
            width: 7
            height: 7
            radius: 3.5
            color: pill.tint
            anchors.verticalCenter: parent.verticalCenter
        }
        Text {
            id: label
            color: Theme.dark ? Qt.lighter(pill.tint, 1.15) : Qt.darker(pill.tint, 1.2)
            font.pixelSize: Theme.fontCaption
            font.weight: Font.Medium
            anchors.verticalCenter: parent.verticalCenter
        }
    }
}
