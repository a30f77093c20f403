import QtQuick
import FreeToken.Ui

// A path or address styled as a link; click to open it.
Text {
    id: link
    signal activated()
    color: area.containsMouse ? Theme.accentHover : Theme.accent
    font.pixelSize: Theme.fontSmall
    font.family: Theme.monoFamily
    font.underline: area.containsMouse
    elide: Text.ElideMiddle
    MouseArea {
        id: area
        anchors.fill: parent
        hoverEnabled: true
        cursorShape: Qt.PointingHandCursor
        onClicked: link.activated()
    }
}
