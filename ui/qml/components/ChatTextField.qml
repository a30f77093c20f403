import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A single-line field styled for the Chat page's dialogs.
TextField {
    id: field
    implicitHeight: 36
    leftPadding: Theme.s3
    color: Theme.text
    placeholderTextColor: Theme.textFaint
    selectionColor: Theme.accent
    selectedTextColor: Theme.accentText
    font.pixelSize: Theme.fontSmall
    background: Rectangle {
        radius: Theme.radiusSmall
        color: Theme.surfaceAlt
        border.color: !field.acceptableInput ? Theme.danger : field.activeFocus ? Theme.accent : Theme.border
    }
}
