import QtQuick
import FreeToken.Ui

// A small status label with a colored dot. Given less width than its text (Layout.maximumWidth), the text elides.
Rectangle {
    id: pill
    property alias text: label.text
    property color tint: Theme.textFaint
    implicitWidth: 7 + Theme.s2 + label.implicitWidth + 2 * Theme.s3  // dot, spacing, the whole text
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
            // Elided when the pill is given less width than its text (a narrow sidebar, a long translation).
            width: Math.min(implicitWidth, pill.width - 2 * Theme.s3 - 7 - Theme.s2)
            elide: Text.ElideRight
            color: Theme.dark ? Qt.lighter(pill.tint, 1.15) : Qt.darker(pill.tint, 1.2)
            font.pixelSize: Theme.fontCaption
            font.weight: Font.Medium
            anchors.verticalCenter: parent.verticalCenter
        }
    }
}
