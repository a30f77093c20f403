import QtQuick
import QtQuick.Controls.Basic
import FreeToken.Ui

// Buttons of the app: kind "primary", "danger" (a confirmation that destroys something), "secondary" or "ghost";
// optional icon; text may be empty (icon button).
AbstractButton {
    id: control
    property string kind: "secondary"
    property string iconName
    property string tip                    // tooltip and accessible name; icon-only buttons need one
    readonly property bool iconOnly: text.length === 0
    readonly property color fg: !enabled ? Theme.textFaint
                              : kind === "primary" || kind === "danger" ? Theme.accentText
                              : kind === "ghost" ? (hovered ? Theme.text : Theme.textMuted) : Theme.text
    implicitHeight: 34
    implicitWidth: iconOnly ? implicitHeight : row.implicitWidth + 2 * Theme.s4
    hoverEnabled: true
    focusPolicy: Qt.StrongFocus
    Accessible.name: text.length > 0 ? text : tip
    ToolTip.visible: tip.length > 0 && hovered
    ToolTip.delay: 600
    ToolTip.text: tip

    background: Rectangle {
        radius: Theme.radiusSmall
        color: {
            if (control.kind === "primary")
                return !control.enabled ? Theme.track : control.down ? Qt.darker(Theme.accent, 1.15)
                     : control.hovered ? Theme.accentHover : Theme.accent
            if (control.kind === "danger")
                return !control.enabled ? Theme.track : control.down ? Qt.darker(Theme.danger, 1.2)
                     : control.hovered ? Qt.lighter(Theme.danger, 1.08) : Theme.danger
            if (control.kind === "ghost")
                return control.down ? Theme.selected : control.hovered ? Theme.hover : "transparent"
            return control.down ? Theme.selected : control.hovered ? Theme.hover : Theme.surfaceAlt
        }
        border.width: control.kind === "secondary" || control.visualFocus ? 1 : 0
        border.color: control.visualFocus ? Theme.accent : Theme.border
    }
    contentItem: Item {
        implicitWidth: row.implicitWidth
        implicitHeight: row.implicitHeight
        Row {
            id: row
            anchors.centerIn: parent
            spacing: Theme.s2
            Icon {
                visible: control.iconName.length > 0
                name: control.iconName
                color: control.fg
                size: 16
                anchors.verticalCenter: parent.verticalCenter
            }
            Text {
                visible: !control.iconOnly
                text: control.text
                color: control.fg
                font.pixelSize: Theme.fontSmall
                font.weight: Font.Medium
                anchors.verticalCenter: parent.verticalCenter
            }
        }
    }
}
