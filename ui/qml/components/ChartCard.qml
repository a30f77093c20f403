import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// A Console chart in a card: title, the newest value, a legend, the chart (TimeChart or HeatmapChart as `chart`)
// and, when it has nothing to draw, the reason (`emptyText`). Hovering the chart shows its values in a tip.
Card {
    id: card
    property string title
    property string value
    property string caption
    property string emptyText
    property var legend: []          // [{ label, color }]
    property Item chart: null        // the chart inside, for hover and emptiness
    property bool showEmpty: chart ? !chart.hasData : true
    property int chartHeight: 120
    default property alias body: holder.data
    padding: Theme.s4
    spacing: Theme.s2

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s2
        Text {
            Layout.fillWidth: true
            text: card.title
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            font.weight: Font.Medium
            elide: Text.ElideRight
        }
        Text {
            text: card.value
            color: Theme.text
            font.family: Theme.monoFamily
            font.pixelSize: Theme.fontBody
            font.weight: Font.Medium
        }
    }
    Flow {
        Layout.fillWidth: true
        spacing: Theme.s3
        visible: card.legend.length > 0
        Repeater {
            model: card.legend
            delegate: Row {
                required property var modelData
                spacing: Theme.s1
                Rectangle { width: 8; height: 8; radius: 2; color: modelData.color; anchors.verticalCenter: parent.verticalCenter }
                Text { text: modelData.label; color: Theme.textFaint; font.pixelSize: Theme.fontCaption }
            }
        }
    }
    Item {
        id: holder
        Layout.fillWidth: true
        Layout.preferredHeight: card.chartHeight
        Text {
            objectName: "chartEmptyText"
            anchors.fill: parent
            visible: card.showEmpty
            text: card.emptyText
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
            wrapMode: Text.WordWrap
            horizontalAlignment: Text.AlignHCenter
            verticalAlignment: Text.AlignVCenter
        }
        Rectangle {
            id: tip
            objectName: "chartTip"
            visible: card.chart !== null && card.chart.hoverText.length > 0
            z: 10
            x: card.chart ? Math.max(0, Math.min(holder.width - width, card.chart.hoverX + 10)) : 0
            y: 2
            width: Math.min(holder.width, tipText.implicitWidth + 2 * Theme.s2)
            height: tipText.implicitHeight + Theme.s1 * 2
            radius: Theme.radiusSmall - 2
            color: Theme.surfaceAlt
            border.color: Theme.borderStrong
            Text {
                id: tipText
                x: Theme.s2
                y: Theme.s1
                width: holder.width - 2 * Theme.s2
                text: card.chart ? card.chart.hoverText : ""
                color: Theme.text
                font.family: Theme.monoFamily
                font.pixelSize: Theme.fontCaption - 1
                wrapMode: Text.WordWrap
            }
        }
    }
    Text {
        Layout.fillWidth: true
        visible: text.length > 0
        text: card.caption
        color: Theme.textFaint
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.WordWrap
    }
}
