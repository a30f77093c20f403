import QtQuick
import FreeToken.Ui

// A tinted SVG icon from resources/icons (served by the "icon" image provider), `size` px square.
Item {
    property string name
    property color color: Theme.textMuted
    property int size: 18
    implicitWidth: size
    implicitHeight: size
    Image {
        anchors.fill: parent
        sourceSize: Qt.size(parent.size * 2, parent.size * 2)
        smooth: true
        mipmap: true
        source: parent.name.length > 0 ? "image://icon/" + parent.name + "?" + parent.color.toString().substring(1) : ""
    }
}
