import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// The model's thinking, folded by default: a header to click ("Thinking…" while it streams) and the text.
ColumnLayout {
    id: box
    property string text
    property bool thinking: false
    property bool expanded: false
    spacing: Theme.s1

    Rectangle {
        objectName: "reasoningToggle"
        Layout.preferredWidth: header.implicitWidth + 2 * Theme.s3
        Layout.preferredHeight: 28
        radius: Theme.radiusSmall
        color: toggleHover.hovered ? Theme.hover : Theme.surfaceAlt
        border.color: Theme.border
        HoverHandler { id: toggleHover; cursorShape: Qt.PointingHandCursor }
        TapHandler { onTapped: box.expanded = !box.expanded }
        Row {
            id: header
            anchors.centerIn: parent
            spacing: Theme.s2
            Icon {
                name: "arrow-down"
                size: 12
                color: Theme.textMuted
                rotation: box.expanded ? 0 : -90
                anchors.verticalCenter: parent.verticalCenter
            }
            Text {
                text: box.thinking ? qsTr("Thinking…") : qsTr("Thought process")
                color: Theme.textMuted
                font.pixelSize: Theme.fontCaption
                font.weight: Font.Medium
                anchors.verticalCenter: parent.verticalCenter
            }
        }
    }
    Rectangle {
        Layout.fillWidth: true
        visible: box.expanded
        implicitHeight: reasoningText.implicitHeight + 2 * Theme.s3
        color: "transparent"
        border.color: Theme.border
        radius: Theme.radiusSmall
        Text {
            id: reasoningText
            objectName: "reasoningText"
            x: Theme.s3
            y: Theme.s3
            width: parent.width - 2 * Theme.s3
            // Laid out only when unfolded: a long thinking streaming in costs nothing while it is folded.
            text: box.expanded ? box.text : ""
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            font.italic: true
        }
    }
}
