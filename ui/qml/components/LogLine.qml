import QtQuick
import FreeToken.Ui

// One log line: time, a colored level tag, the message (wrapped, selectable by copy on the page).
Item {
    id: line
    property string timeText
    property int levelValue
    property string levelText
    property string message
    implicitHeight: Math.max(22, msg.implicitHeight + 6)

    Text {
        id: time
        x: Theme.s2
        y: 3
        text: line.timeText
        color: Theme.textFaint
        font.pixelSize: Theme.fontCaption
        font.family: Theme.monoFamily
    }
    Text {
        id: tag
        x: time.x + 100
        y: 3
        width: 64
        text: line.levelText.toUpperCase()
        color: Theme.levelColor(line.levelValue)
        font.pixelSize: 11
        font.family: Theme.monoFamily
        font.weight: Font.DemiBold
    }
    Text {
        id: msg
        x: tag.x + tag.width
        y: 3
        width: line.width - x - Theme.s2
        text: line.message
        color: line.levelValue >= 4 ? Theme.danger : line.levelValue === 3 ? Theme.warning : Theme.text
        font.pixelSize: Theme.fontCaption
        font.family: Theme.monoFamily
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
    }
}
