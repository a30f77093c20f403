import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// One sidebar entry: icon, label, optional count badge; `current` highlights it.
AbstractButton {
    id: item
    property string iconName
    property bool current: false
    property int badge: -1
    implicitHeight: 38
    hoverEnabled: true

    background: Rectangle {
        radius: Theme.radiusSmall
        color: item.current ? Theme.selected : item.hovered ? Theme.hover : "transparent"
        Rectangle {
            visible: item.current
            width: 3
            height: 16
            radius: 1.5
            color: Theme.accent
            anchors.verticalCenter: parent.verticalCenter
            x: -Theme.s3 + 2
        }
    }
    contentItem: Item {
        Icon {
            id: icon
            name: item.iconName
            color: item.current ? Theme.accent : Theme.textMuted
            anchors.left: parent.left
            anchors.leftMargin: Theme.s3
            anchors.verticalCenter: parent.verticalCenter
        }
        Text {
            text: item.text
            color: item.current ? Theme.text : Theme.textMuted
            font.pixelSize: Theme.fontBody
            font.weight: item.current ? Font.DemiBold : Font.Normal
            elide: Text.ElideRight
            anchors.left: icon.right
            anchors.leftMargin: Theme.s3
            anchors.right: badgeBox.left
            anchors.rightMargin: Theme.s2
            anchors.verticalCenter: parent.verticalCenter
        }
        Rectangle {
            id: badgeBox
            visible: item.badge >= 0
            width: visible ? Math.max(22, badgeText.implicitWidth + 10) : 0
            height: 20
            radius: 6
            color: Theme.surfaceAlt
            border.color: Theme.border
            anchors.right: parent.right
            anchors.rightMargin: Theme.s2
            anchors.verticalCenter: parent.verticalCenter
            Text {
                id: badgeText
                anchors.centerIn: parent
                text: item.badge
                color: Theme.textMuted
                font.pixelSize: Theme.fontCaption
                font.family: Theme.monoFamily
            }
        }
    }
}
