import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// "Label ........ value" on one line; `link` makes the value a clickable path.
RowLayout {
    id: row
    property string label
    property string value
    property bool link: false
    property bool mono: false
    signal activated()
    spacing: Theme.s4
    Text {
        text: row.label
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        Layout.preferredWidth: 150
        Layout.alignment: Qt.AlignTop
        elide: Text.ElideRight
    }
    LinkText {
        visible: row.link
        text: row.value
        Layout.fillWidth: true
        onActivated: row.activated()
    }
    Text {
        visible: !row.link
        text: row.value
        color: Theme.text
        font.pixelSize: Theme.fontSmall
        font.family: row.mono ? Theme.monoFamily : Qt.application.font.family
        wrapMode: Text.WrapAnywhere
        Layout.fillWidth: true
    }
}
