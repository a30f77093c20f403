import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A check box in the app's look (the Basic style's is a white square in the dark theme): a rounded box, accent
// filled with a check mark when on, and the label in the theme's text color, wrapping.
CheckBox {
    id: box
    spacing: Theme.s2
    indicator: Rectangle {
        implicitWidth: 18
        implicitHeight: 18
        x: box.leftPadding
        y: (box.height - height) / 2
        radius: 4
        color: box.checked ? Theme.accent : Theme.surfaceAlt
        border.color: box.checked ? Theme.accent : box.visualFocus || box.hovered ? Theme.borderStrong : Theme.border
        Icon {
            anchors.centerIn: parent
            visible: box.checked
            name: "check"
            size: 12
            color: Theme.accentText
        }
    }
    contentItem: Text {
        text: box.text
        color: box.enabled ? Theme.text : Theme.textFaint
        font.pixelSize: Theme.fontSmall
        leftPadding: box.indicator.width + box.spacing
        verticalAlignment: Text.AlignVCenter
        wrapMode: Text.WordWrap
    }
}
