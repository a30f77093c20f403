import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A progress bar in the app's look: the done part in the accent color on the theme's track. (The Basic style's
// dark fill on a light track read the other way round in the dark theme: the empty part looked done.)
ProgressBar {
    id: bar
    implicitHeight: 6
    background: Rectangle {
        implicitWidth: 200
        implicitHeight: 6
        radius: 3
        color: Theme.track
    }
    contentItem: Item {
        implicitWidth: 200
        implicitHeight: 6
        Rectangle {
            objectName: "progressFill"
            width: bar.visualPosition * parent.width
            height: parent.height
            radius: 3
            color: Theme.accent
        }
    }
}
