import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// One cache slider of the Console: a title line with the figures (`figure`, `badge`), the slider, an optional mark
// (`markValue` with `markText`, e.g. the prefill-overlap threshold) and a red stretch past `limit` (over budget).
// `edited(value)` follows the user's moves; `value` is pushed from the model while the handle is not held.
ColumnLayout {
    id: root
    property string title
    property string hint
    property string figure
    property string badge
    property real from: 0
    property real to: 1
    property real stepSize: 1
    property real value: 0
    property real limit: -1          // values above it are past the budget
    property real markValue: -1
    property string markText
    property string fromText
    property string toText
    property alias slider: control
    signal edited(real value)
    spacing: Theme.s1

    // Also when the range changes: a value set before its range (a Console opened before a load) was clamped to
    // the old range and must be set again.
    function push() { if (!control.pressed) control.value = root.value }
    onValueChanged: push()
    onFromChanged: push()
    onToChanged: push()
    Component.onCompleted: push()

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s3
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text { text: root.title; color: root.enabled ? Theme.text : Theme.textFaint; font.pixelSize: Theme.fontBody; font.weight: Font.Medium }
            Text { Layout.fillWidth: true; text: root.hint; color: Theme.textFaint; font.pixelSize: Theme.fontCaption; wrapMode: Text.WordWrap }
        }
        Text { text: root.figure; color: root.enabled ? Theme.text : Theme.textFaint; font.family: Theme.monoFamily; font.pixelSize: Theme.fontTitle }
        Rectangle {
            visible: root.badge.length > 0
            implicitWidth: badgeText.implicitWidth + 2 * Theme.s2
            implicitHeight: 24
            radius: 6
            color: Theme.accentSoft
            border.color: Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.4)
            Text { id: badgeText; anchors.centerIn: parent; text: root.badge; color: Theme.accent; font.family: Theme.monoFamily; font.pixelSize: Theme.fontCaption }
        }
    }
    Slider {
        id: control
        objectName: root.objectName + "Control"
        Layout.fillWidth: true
        from: root.from
        to: Math.max(root.from + root.stepSize, root.to)
        stepSize: root.stepSize
        snapMode: Slider.SnapAlways
        onMoved: root.edited(control.value)
        background: Item {
            x: control.leftPadding
            y: control.topPadding + control.availableHeight / 2 - 3
            width: control.availableWidth
            height: 6
            Rectangle { anchors.fill: parent; radius: 3; color: Theme.track }
            Rectangle {
                width: control.visualPosition * parent.width
                height: parent.height
                radius: 3
                color: control.enabled ? Theme.accent : Theme.textFaint
            }
            Rectangle {  // past the budget
                objectName: root.objectName + "OverBudget"
                visible: root.limit >= 0 && root.limit < control.to
                x: parent.width * (root.limit - control.from) / Math.max(1, control.to - control.from)
                width: parent.width - x
                height: parent.height
                radius: 3
                color: Qt.rgba(Theme.danger.r, Theme.danger.g, Theme.danger.b, 0.45)
            }
            Rectangle {  // the mark
                visible: root.markValue > control.from && root.markValue < control.to
                x: parent.width * (root.markValue - control.from) / Math.max(1, control.to - control.from) - 1
                y: -3
                width: 2
                height: parent.height + 6
                color: Theme.warning
            }
        }
        handle: Rectangle {
            x: control.leftPadding + control.visualPosition * (control.availableWidth - width)
            y: control.topPadding + control.availableHeight / 2 - height / 2
            width: 18
            height: 18
            radius: 9
            color: Theme.surface
            border.width: 3
            border.color: control.enabled ? Theme.accent : Theme.textFaint
        }
    }
    RowLayout {
        Layout.fillWidth: true
        Text { text: root.fromText; color: Theme.textFaint; font.family: Theme.monoFamily; font.pixelSize: Theme.fontCaption - 1 }
        Text {
            Layout.fillWidth: true
            text: root.markText
            color: Theme.warning
            font.family: Theme.monoFamily
            font.pixelSize: Theme.fontCaption - 1
            horizontalAlignment: Text.AlignHCenter
        }
        Text { text: root.toText; color: Theme.textFaint; font.family: Theme.monoFamily; font.pixelSize: Theme.fontCaption - 1 }
    }
}
