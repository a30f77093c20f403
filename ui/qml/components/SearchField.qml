import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A text field with a search icon, styled for both themes.
TextField {
    id: field
    implicitHeight: 34
    leftPadding: 34
    rightPadding: Theme.s3
    color: Theme.text
    placeholderTextColor: Theme.textFaint
    selectionColor: Theme.accent
    selectedTextColor: Theme.accentText
    font.pixelSize: Theme.fontSmall
    background: Rectangle {
        radius: Theme.radiusSmall
        color: Theme.surfaceAlt
        border.color: field.activeFocus ? Theme.accent : Theme.border
        Icon { name: "search"; size: 15; x: 11; anchors.verticalCenter: parent.verticalCenter; color: Theme.textFaint }
    }
}
