import QtQuick
import FreeToken.Ui

// One way to add a model, with its button (Models page, empty state).
Rectangle {
    id: how
    property string iconName
    property string heading
    property string detail
    property string buttonText
    signal chosen()
    implicitHeight: howCol.implicitHeight + 2 * Theme.s4
    radius: Theme.radiusSmall + 2
    color: Theme.surfaceAlt
    border.color: Theme.border

    FontMetrics { id: metrics; font.pixelSize: Theme.fontSmall }

    Column {
        id: howCol
        x: Theme.s4
        y: Theme.s4
        width: how.width - 2 * Theme.s4
        spacing: Theme.s2
        Row {
            spacing: Theme.s2
            Icon { name: how.iconName; size: 16; color: Theme.accent; anchors.verticalCenter: parent.verticalCenter }
            Text {
                text: how.heading
                color: Theme.text
                font.pixelSize: Theme.fontBody
                font.weight: Font.DemiBold
                anchors.verticalCenter: parent.verticalCenter
            }
        }
        Text {
            // A fixed three-line block: the tile's height must not depend on where the text wraps (it wraps only
            // once the enclosing layouts have placed the tile, too late for them to grow).
            width: parent.width
            height: metrics.height * 3
            maximumLineCount: 3
            elide: Text.ElideRight
            verticalAlignment: Text.AlignTop
            text: how.detail
            color: Theme.textMuted
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
        Item { width: 1; height: Theme.s1 }
        AppButton { text: how.buttonText; onClicked: how.chosen() }
    }
}
