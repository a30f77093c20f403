import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A segmented choice. options: [{ value, label }]; each segment's objectName is "<objectName>_<value>".
Rectangle {
    id: seg
    property var options: []
    property var value
    signal activated(var value)
    implicitWidth: row.implicitWidth + 6
    implicitHeight: 34
    radius: Theme.radiusSmall
    color: Theme.surfaceAlt
    border.color: Theme.border

    Row {
        id: row
        anchors.centerIn: parent
        spacing: 2
        Repeater {
            model: seg.options
            delegate: AbstractButton {
                id: segBtn
                required property var modelData
                objectName: seg.objectName + "_" + segBtn.modelData.value
                readonly property bool selected: seg.value === segBtn.modelData.value
                implicitHeight: 28
                implicitWidth: label.implicitWidth + 2 * Theme.s4
                hoverEnabled: true
                onClicked: seg.activated(segBtn.modelData.value)
                background: Rectangle {
                    radius: Theme.radiusSmall - 2
                    color: segBtn.selected ? Theme.surface : segBtn.hovered ? Theme.hover : "transparent"
                    border.color: segBtn.selected ? Theme.borderStrong : "transparent"
                }
                contentItem: Text {
                    id: label
                    text: segBtn.modelData.label
                    color: segBtn.selected ? Theme.text : Theme.textMuted
                    font.pixelSize: Theme.fontSmall
                    font.weight: segBtn.selected ? Font.DemiBold : Font.Normal
                    horizontalAlignment: Text.AlignHCenter
                    verticalAlignment: Text.AlignVCenter
                }
            }
        }
    }
}
