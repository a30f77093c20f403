import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// A multi-line field styled for the Chat page (system prompt, editing a message).
ScrollView {
    id: view
    property alias text: area.text
    property alias placeholderText: area.placeholderText
    property alias area: area
    implicitHeight: 110
    TextArea {
        id: area
        objectName: view.objectName + "Area"
        wrapMode: TextEdit.Wrap
        color: Theme.text
        placeholderTextColor: Theme.textFaint
        selectionColor: Theme.accent
        selectedTextColor: Theme.accentText
        font.pixelSize: Theme.fontSmall
        background: Rectangle {
            radius: Theme.radiusSmall
            color: Theme.surfaceAlt
            border.color: area.activeFocus ? Theme.accent : Theme.border
        }
    }
}
