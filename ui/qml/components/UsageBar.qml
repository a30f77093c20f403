import QtQuick
import FreeToken.Ui

// A thin bar for a 0..1 fraction; turns amber above 90 %.
Rectangle {
    property real value: 0
    property color fill: value > 0.9 ? Theme.warning : Theme.accent
    implicitHeight: 6
    radius: height / 2
    color: Theme.track
    Rectangle {
        width: Math.max(parent.height, parent.width * Math.min(1, Math.max(0, parent.value)))
        visible: parent.value > 0
        height: parent.height
        radius: parent.radius
        color: parent.fill
        Behavior on width { NumberAnimation { duration: 250; easing.type: Easing.OutCubic } }
    }
}
