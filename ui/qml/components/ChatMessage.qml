import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// One message of the conversation. The user's: plain text, right-aligned, with Edit. The model's: its thinking
// (folded), the answer as markdown with code blocks, the reply's figures, and Copy / Regenerate.
Item {
    id: msg
    required property int index
    required property var messageId
    required property string role
    required property string content
    required property string reasoning
    required property bool thinking
    required property string state
    required property string error
    required property var blocks      // ReplyBlockModel: the answer in display blocks
    required property int promptTokens
    required property int completionTokens
    required property double tokensPerSecond
    required property double ttftMs
    required property string replyModel   // the model that wrote the reply
    required property string replyServer  // its server's URL when it came from a remote one ("" : this PC)
    property bool isLast: false
    property bool busy: false
    // The part of the list on screen, in the list's content coordinates (ChatPage): blocks far from it are unloaded.
    property real viewTop: -Infinity
    property real viewBottom: Infinity
    readonly property bool mine: role === "user"
    signal editRequested(int row, string text)
    signal regenerateRequested()
    signal copyRequested(string text)

    objectName: mine ? "userMessage" : "assistantMessage"
    implicitHeight: column.implicitHeight + Theme.s4

    ColumnLayout {
        id: column
        x: msg.mine ? msg.width - width : 0
        width: msg.mine ? Math.min(msg.width * 0.8, bubbleText.implicitWidth + 2 * Theme.s4 + 2) : msg.width
        spacing: Theme.s2

        ChatReasoning {
            Layout.fillWidth: true
            visible: !msg.mine && (msg.reasoning.length > 0 || msg.thinking)
            text: msg.reasoning
            thinking: msg.thinking
        }
        Rectangle {
            Layout.fillWidth: true
            visible: msg.mine
            implicitHeight: bubbleText.implicitHeight + 2 * Theme.s3
            radius: Theme.radius
            color: Theme.accentSoft
            border.color: Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.3)
            Text {
                id: bubbleText
                objectName: "userMessageText"
                x: Theme.s4
                y: Theme.s3
                width: Math.min(implicitWidth, msg.width * 0.8 - 2 * Theme.s4)
                // The user's text only: a reply's text here, hidden, was laid out whole at every streamed batch.
                text: msg.mine ? msg.content : ""
                textFormat: Text.PlainText
                wrapMode: Text.Wrap
                color: Theme.text
                font.pixelSize: Theme.fontBody
            }
        }
        // The answer in blocks of bounded size (ReplyBlockModel): while it streams only the last block changes, so
        // each batch lays out the new text, not the whole reply. A positioner holds them (rows are removed when a
        // reply is regenerated, and Qt 6.4's layouts crash on destroyed children: QTBUG-111792).
        Column {
            id: blockColumn
            Layout.fillWidth: true
            visible: !msg.mine
            spacing: Theme.s2
            Repeater {
                id: blockRepeater
                model: msg.mine ? null : msg.blocks
                // Only blocks within a screen of the visible part are loaded (text items and their glyphs cost memory
                // for every character they hold); the others keep their height. The last block, the one streaming, is
                // always loaded.
                delegate: Item {
                    id: block
                    required property int index
                    required property string kind
                    required property string text
                    required property string language
                    required property int codeBlock
                    required property bool first
                    required property bool last
                    readonly property real blockTop: msg.y + column.y + blockColumn.y + y
                    // The height last seen loaded, kept in a plain JS object: read by `shown` without a dependency
                    // (loading changes it, and a dependency would loop back into `shown`).
                    readonly property var kept: ({ height: 0 })
                    readonly property bool shown: index === blockRepeater.count - 1
                                                  || (blockTop + kept.height >= msg.viewTop && blockTop <= msg.viewBottom)
                    // Before its first load: a guess from the text's length, so that far blocks need not load to be placed.
                    property real keptHeight: Math.max(20, (text.length / Math.max(20, width / 8) + 1) * 20)
                    width: blockColumn.width
                    height: loader.item ? loader.item.implicitHeight : keptHeight
                    onHeightChanged: {
                        kept.height = height
                        if (loader.item) keptHeight = height
                    }
                    Component.onCompleted: kept.height = height
                    Loader {
                        id: loader
                        width: parent.width
                        active: block.shown
                        sourceComponent: block.kind === "code" ? codeSegment : proseSegment
                    }
                    Component {
                        id: proseSegment
                        Text {
                            objectName: "replyText"
                            text: block.text
                            // Markdown nested deeper than it can show is drawn as it is.
                            textFormat: block.kind === "plain" ? Text.PlainText : Text.MarkdownText
                            wrapMode: Text.Wrap
                            color: Theme.text
                            linkColor: Theme.accent
                            font.pixelSize: Theme.fontBody
                            onLinkActivated: (link) => Qt.openUrlExternally(link)
                        }
                    }
                    Component {
                        id: codeSegment
                        ChatCodeBlock {
                            code: block.text
                            language: block.language
                            first: block.first
                            last: block.last
                            joinGap: blockColumn.spacing
                            onCopyRequested: msg.copyRequested(msg.blocks.codeText(block.codeBlock))
                        }
                    }
                }
            }
        }
        Text {
            Layout.fillWidth: true
            visible: !msg.mine && msg.state === "streaming" && msg.content.length === 0 && !msg.thinking
            text: qsTr("Waiting for the first token…")
            color: Theme.textFaint
            font.pixelSize: Theme.fontSmall
            font.italic: true
        }
        Text {
            objectName: "messageError"
            Layout.fillWidth: true
            visible: msg.state === "error"
            text: qsTr("The reply failed: %1").arg(msg.error)
            color: Theme.danger
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.Wrap
        }
        Text {
            objectName: "replySource"
            visible: !msg.mine && msg.replyServer.length > 0 && msg.state !== "streaming"
            Layout.fillWidth: true
            text: qsTr("%1 on %2").arg(msg.replyModel).arg(msg.replyServer)
            color: Theme.textFaint
            font.pixelSize: Theme.fontCaption
            elide: Text.ElideMiddle
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s1
            visible: msg.state !== "streaming"
            layoutDirection: msg.mine ? Qt.RightToLeft : Qt.LeftToRight
            Text {
                objectName: "replyFigures"
                visible: !msg.mine && msg.completionTokens > 0
                // "—" where the speed is not known (0): never a rate of 0.0 for a reply that came.
                text: qsTr("%1 tokens · %2 tok/s · first token in %3 ms · prompt %4 tokens")
                          .arg(msg.completionTokens).arg(msg.tokensPerSecond > 0 ? Theme.fixed(msg.tokensPerSecond, 1) : "—")
                          .arg(Math.round(msg.ttftMs)).arg(msg.promptTokens > 0 ? String(msg.promptTokens) : "—")  // a stopped remote reply: its usage never came
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                // Where the speed comes from, and why it is "—" when it is.
                readonly property string rateNote: msg.tokensPerSecond > 0
                    ? (msg.replyServer.length > 0
                       ? qsTr("Speed: the server's own timing where it reports one (llama.cpp does), else measured here from the first token to the last, or from the request when the whole reply arrived at once.")
                       : "")
                    : (msg.replyServer.length > 0
                       ? qsTr("No speed: the whole reply arrived at once, too fast to time (under 20 ms from the request), and the server did not report its own timing.")
                       : qsTr("No speed: a reply of one token has no decoding time to measure."))
                ToolTip.visible: figuresHover.hovered && rateNote.length > 0
                ToolTip.text: rateNote
                HoverHandler { id: figuresHover }
            }
            Pill {
                objectName: "partialPill"
                visible: msg.state === "partial"
                text: qsTr("Stopped before the end")
                tint: Theme.warning
            }
            Pill {
                objectName: "truncatedPill"
                visible: msg.state === "truncated"
                text: qsTr("Cut off at the token limit")
                tint: Theme.warning
                ToolTip.visible: truncatedHover.hovered
                ToolTip.text: qsTr("The reply reached its length limit: Max tokens in Chat settings, or the room left in the model's context.")
                HoverHandler { id: truncatedHover }
            }
            Item { Layout.fillWidth: true }
            AppButton {
                objectName: "editMessageButton"
                visible: msg.mine
                enabled: !msg.busy
                kind: "ghost"
                iconName: "file"
                tip: qsTr("Edit and resend")
                implicitHeight: 28
                onClicked: msg.editRequested(msg.index, msg.content)
            }
            AppButton {
                objectName: "copyReplyButton"
                visible: !msg.mine
                kind: "ghost"
                iconName: "copy"
                tip: qsTr("Copy reply")
                implicitHeight: 28
                onClicked: msg.copyRequested(msg.content)
            }
            AppButton {
                objectName: "regenerateButton"
                visible: !msg.mine && msg.isLast
                enabled: !msg.busy
                kind: "ghost"
                iconName: "bolt"
                tip: qsTr("Regenerate")
                implicitHeight: 28
                onClicked: msg.regenerateRequested()
            }
        }
    }
}
