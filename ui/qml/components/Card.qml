import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// A surface with a border; children stack in a ColumnLayout inside the padding.
Rectangle {
    id: card
    property int padding: Theme.s5
    property alias spacing: body.spacing
    default property alias content: body.data
    color: Theme.surface
    radius: Theme.radius
    border.color: Theme.border
    border.width: 1
    implicitWidth: body.implicitWidth + 2 * padding
    implicitHeight: body.implicitHeight + 2 * padding

    ColumnLayout {
        id: body
        x: card.padding
        y: card.padding
        width: card.width - 2 * card.padding
        height: card.height - 2 * card.padding
        spacing: Theme.s3
    }
}
