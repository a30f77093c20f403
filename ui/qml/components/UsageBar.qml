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
        // Whole pixels and no animation: the figures behind it move a little at every sample (RAM each second), and
        // a width animated over 250 ms drew ~15 frames a second of an idle window (a full redraw each under
        // software rendering) for changes no one can see.
        width: Math.round(Math.max(parent.height, parent.width * Math.min(1, Math.max(0, parent.value))))
        visible: parent.value > 0
        height: parent.height
        radius: parent.radius
        color: parent.fill
    }
}
