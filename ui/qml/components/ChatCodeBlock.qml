import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// A fenced code block of a reply: language label, monospace text (selectable), and a copy button.
Rectangle {
    id: block
    property string code
    property string language
    signal copyRequested(string text)
    implicitHeight: column.implicitHeight
    radius: Theme.radiusSmall
    color: Theme.dark ? "#0b0e13" : "#f0f2f5"
    border.color: Theme.border

    ColumnLayout {
        id: column
        width: parent.width
        spacing: 0
        RowLayout {
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
                    block.copyRequested(block.code)
                    copied.restart()
                }
                Timer { id: copied; interval: 1500 }
            }
        }
        TextEdit {
            Layout.fillWidth: true
            Layout.margins: Theme.s3
            Layout.topMargin: 0
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
