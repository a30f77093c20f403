import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// An engine fault: its message, Restart engine (recreates the engine and reloads the model) and Dismiss.
Rectangle {
    id: banner
    property string message
    signal restart()
    signal dismiss()
    implicitHeight: row.implicitHeight + 2 * Theme.s3
    radius: Theme.radius
    color: Theme.dangerSoft
    border.color: Qt.rgba(Theme.danger.r, Theme.danger.g, Theme.danger.b, 0.45)

    RowLayout {
        id: row
        x: Theme.s4
        y: Theme.s3
        width: parent.width - 2 * Theme.s4
        spacing: Theme.s3
        Icon { name: "info"; size: 18; color: Theme.danger }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text { text: qsTr("The engine stopped with an error"); color: Theme.danger; font.pixelSize: Theme.fontBody; font.weight: Font.DemiBold }
            Text {
                objectName: "faultMessage"
                Layout.fillWidth: true
                text: banner.message
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                wrapMode: Text.WordWrap
            }
        }
        AppButton { objectName: "faultRestartButton"; text: qsTr("Restart engine"); kind: "primary"; onClicked: banner.restart() }
        AppButton { objectName: "faultDismissButton"; text: qsTr("Dismiss"); kind: "ghost"; onClicked: banner.dismiss() }
    }
}
