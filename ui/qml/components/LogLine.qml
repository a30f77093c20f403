import QtQuick
import FreeToken.Ui

// One log line: time, a colored level tag, the message (wrapped, selectable by copy on the page). The time is in the
// app's language: its short time format with seconds and milliseconds ("오후 3:04:05.123", "15:04:05.123").
Item {
    id: line
    property double timeMs  // ms since the epoch
    // Qt.uiLanguage: a dependency, so that the time re-formats when the language changes (Qt.locale() follows it).
    readonly property string timeFormat: { Qt.uiLanguage; return line.withSeconds(Qt.locale().timeFormat(Locale.ShortFormat)) }
    readonly property string timeText: { Qt.uiLanguage; return new Date(line.timeMs).toLocaleTimeString(Qt.locale(), line.timeFormat) }
    // The widest time of this format (every line's tag starts at the same x): 22:59:59.999 on a 2-digit hour.
    readonly property real timeWidth: { Qt.uiLanguage; return timeMetrics.advanceWidth }
    property int levelValue
    property string levelText
    property string message
    implicitHeight: Math.max(22, msg.implicitHeight + 6)

    function withSeconds(format) {
        const i = format.indexOf("mm")
        return i < 0 ? "HH:mm:ss.zzz" : format.slice(0, i + 2) + ":ss.zzz" + format.slice(i + 2)
    }
    TextMetrics {
        id: timeMetrics
        font: time.font
        text: new Date(2000, 0, 1, 22, 59, 59, 999).toLocaleTimeString(Qt.locale(), line.timeFormat)
    }

    Text {
        id: time
        objectName: "logTime"
        x: Theme.s2
        y: 3
        text: line.timeText
        color: Theme.textFaint
        font.pixelSize: Theme.fontCaption
        font.family: Theme.monoFamily
    }
    Text {
        id: tag
        objectName: "logLevelTag"
        x: time.x + Math.max(100, Math.ceil(line.timeWidth) + Theme.s2)
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
