import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// A dashboard figure. With `available` false it says so ("—" + `note`) instead of showing a number: later issues
// bind real engine stats here and, where useful, a chart into `extra`.
Card {
    id: metric
    property string title
    property string iconName
    property string value
    property string unit
    property string caption
    property bool available: true
    property string note
    property real fraction: -1
    default property alias extra: extraBox.data
    spacing: Theme.s2

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s2
        Icon { name: metric.iconName; size: 16; visible: metric.iconName.length > 0 }
        Text {
            Layout.fillWidth: true
            text: metric.title
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            font.weight: Font.Medium
            elide: Text.ElideRight
        }
    }
    Row {
        spacing: Theme.s2
        Layout.topMargin: Theme.s1
        Text {
            text: metric.available ? metric.value : "—"
            color: metric.available ? Theme.text : Theme.textFaint
            font.pixelSize: Theme.fontValue
            font.family: Theme.monoFamily
            font.weight: Font.Medium
        }
        Text {
            visible: metric.available && metric.unit.length > 0
            text: metric.unit
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            anchors.baseline: parent.children[0].baseline
        }
    }
    UsageBar {
        visible: metric.available && metric.fraction >= 0
        value: metric.fraction
        Layout.fillWidth: true
    }
    Text {
        Layout.fillWidth: true
        visible: text.length > 0
        text: metric.available ? metric.caption : metric.note
        color: Theme.textFaint
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.WordWrap
        maximumLineCount: 3
        elide: Text.ElideRight
    }
    Item { Layout.fillHeight: true }  // top-aligned figures, charts at the bottom when cards share a row's height
    ColumnLayout {
        id: extraBox
        Layout.fillWidth: true
        visible: children.length > 0
        spacing: 0
    }
}
