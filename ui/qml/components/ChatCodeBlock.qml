import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// A fenced code block of a reply, or one chunk of a long one (ReplyBlockModel cuts long code into chunks): the first
// chunk has the language label and the copy button (which copies the whole block), the chunks after it join it
// (`joinGap`: the space between blocks, bridged), and the text is monospace and selectable.
Item {
    id: block
    property string code
    property string language
    property bool first: true
    property bool last: true
    property real joinGap: 0
    signal copyRequested()
    implicitHeight: column.implicitHeight

    Rectangle {
        // Chunks after the first reach up over the gap to the one before; only a whole block has round corners.
        y: block.first ? 0 : -block.joinGap
        width: parent.width
        height: parent.height - y
        radius: block.first && block.last ? Theme.radiusSmall : 0
        color: Theme.dark ? "#0b0e13" : "#f0f2f5"
        border.color: block.first && block.last ? Theme.border : "transparent"
    }
    Rectangle { visible: !(block.first && block.last); x: 0; y: block.first ? 0 : -block.joinGap; width: 1; height: parent.height - y; color: Theme.border }
    Rectangle { visible: !(block.first && block.last); x: parent.width - 1; y: block.first ? 0 : -block.joinGap; width: 1; height: parent.height - y; color: Theme.border }
    Rectangle { visible: !(block.first && block.last) && block.first; width: parent.width; height: 1; color: Theme.border }
    Rectangle { visible: !(block.first && block.last) && block.last; y: parent.height - 1; width: parent.width; height: 1; color: Theme.border }

    ColumnLayout {
        id: column
        width: parent.width
        spacing: 0
        RowLayout {
            visible: block.first
            Layout.fillWidth: true
            Layout.leftMargin: Theme.s3
            Layout.rightMargin: Theme.s1
            Layout.topMargin: 2
            Text {
                Layout.fillWidth: true
                text: block.language.length > 0 ? block.language : qsTr("code")
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                font.family: Theme.monoFamily
            }
            AppButton {
                id: copyButton
                objectName: "copyCodeButton"
                kind: "ghost"
                iconName: copied.running ? "check" : "copy"
                tip: copied.running ? qsTr("Copied") : qsTr("Copy code")
                implicitHeight: 26
                onClicked: {
                    block.copyRequested()
                    copied.restart()
                }
                Timer { id: copied; interval: 1500 }
            }
        }
        TextEdit {
            objectName: "codeText"
            Layout.fillWidth: true
            Layout.margins: Theme.s3
            Layout.topMargin: block.first ? 0 : Theme.s1
            Layout.bottomMargin: block.last ? Theme.s3 : 0
            text: block.code
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            color: Theme.text
            selectionColor: Theme.accent
            font.family: Theme.monoFamily
            font.pixelSize: Theme.fontSmall
        }
    }
}
