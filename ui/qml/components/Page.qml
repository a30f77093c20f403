import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// The frame of every page: a header (title, subtitle, actions) over a centered column of content, scrolled when
// `scrollable`, else stretched to the page height (children may use Layout.fillHeight).
Item {
    id: page
    property string title
    property string subtitle
    property bool scrollable: true
    default property alias content: column.data
    property alias actions: actionRow.data
    readonly property int margin: width > 1100 ? 40 : 28

    Flickable {
        id: flick
        anchors.fill: parent
        contentWidth: width
        contentHeight: page.scrollable ? column.implicitHeight + header.height + 2 * page.margin : height
        interactive: page.scrollable && contentHeight > height
        boundsBehavior: Flickable.StopAtBounds
        clip: true
        ScrollBar.vertical: ScrollBar { policy: flick.interactive ? ScrollBar.AsNeeded : ScrollBar.AlwaysOff }

        Item {
            id: frame
            x: page.margin
            y: page.margin - 4
            width: Math.min(flick.width - 2 * page.margin, 1160)
            height: flick.contentHeight - 2 * page.margin + 4

            // The actions beside the title while both fit, else under it (a narrow window, a page with many
            // buttons, longer words in another language): neither is cut.
            GridLayout {
                id: header
                width: parent.width
                columns: titleText.implicitWidth + columnSpacing + actionRow.implicitWidth <= width ? 2 : 1
                columnSpacing: Theme.s4
                rowSpacing: Theme.s3
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: Theme.s1
                    Text {
                        id: titleText
                        objectName: "pageTitle"
                        text: page.title
                        color: Theme.text
                        font.pixelSize: Theme.fontDisplay
                        font.weight: Font.DemiBold
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    Text {
                        visible: page.subtitle.length > 0
                        text: page.subtitle
                        color: Theme.textMuted
                        font.pixelSize: Theme.fontBody
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                }
                RowLayout {
                    id: actionRow
                    spacing: Theme.s2
                    Layout.alignment: header.columns > 1 ? Qt.AlignTop | Qt.AlignRight : Qt.AlignTop | Qt.AlignLeft
                }
            }

            ColumnLayout {
                id: column
                anchors.top: header.bottom
                anchors.topMargin: Theme.s6
                width: parent.width
                height: page.scrollable ? implicitHeight : frame.height - header.height - Theme.s6
                spacing: Theme.s4
            }
        }
    }
}
