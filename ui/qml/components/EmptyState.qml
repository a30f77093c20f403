import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// A friendly "nothing here yet" block: icon, title, explanation, then any children (actions, details).
ColumnLayout {
    id: empty
    property string iconName
    property string title
    property string body
    default property alias extra: more.data
    spacing: Theme.s3

    Rectangle {
        Layout.alignment: Qt.AlignHCenter
        width: 56
        height: 56
        radius: 16
        color: Theme.accentSoft
        Icon { anchors.centerIn: parent; name: empty.iconName; size: 26; color: Theme.accent }
    }
    Text {
        Layout.fillWidth: true
        Layout.topMargin: Theme.s1
        text: empty.title
        color: Theme.text
        font.pixelSize: 20
        font.weight: Font.DemiBold
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.WordWrap
    }
    Text {
        Layout.fillWidth: true
        Layout.maximumWidth: 560
        Layout.alignment: Qt.AlignHCenter
        text: empty.body
        color: Theme.textMuted
        font.pixelSize: Theme.fontBody
        lineHeight: 1.3
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.WordWrap
    }
    ColumnLayout {
        id: more
        Layout.fillWidth: true
        Layout.alignment: Qt.AlignHCenter
        Layout.topMargin: Theme.s2
        spacing: Theme.s3
    }
}
