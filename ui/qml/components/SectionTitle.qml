import QtQuick
import FreeToken.Ui

// A card's heading: an icon and a title, with optional caption text below.
Column {
    id: section
    property string text
    property string caption
    property string iconName
    spacing: 2
    Row {
        spacing: Theme.s2
        Icon {
            visible: section.iconName.length > 0
            name: section.iconName
            size: 16
            color: Theme.textMuted
            anchors.verticalCenter: parent.verticalCenter
        }
        Text {
            text: section.text
            color: Theme.text
            font.pixelSize: Theme.fontTitle
            font.weight: Font.DemiBold
            anchors.verticalCenter: parent.verticalCenter
        }
    }
    Text {
        visible: section.caption.length > 0
        width: section.width
        text: section.caption
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
}
