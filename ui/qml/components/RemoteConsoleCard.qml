import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// The Console while the Chat page uses a model on a remote server: for a FreeToken server its live /v1/stats (speed,
// TTFT, requests, VRAM, PCIe, expert-cache hit rate, KV use), polled twice a second, whose snapshots `serverConsole`
// charts and whose cache sizes it sets (ConsolePage shows them below this card); for any other server what this app
// measured on its last reply (TTFT, tok/s), and a line saying what such a server does not tell.
Card {
    id: card
    property ChatSession session
    readonly property string url: session ? session.remoteUrl : ""
    readonly property var f: stats.figures
    readonly property var mine: session ? session.lastFigures : ({})
    readonly property bool mineHere: mine !== undefined && mine.server === card.url
    readonly property bool live: stats.kind === "freetoken" && stats.error.length === 0
    readonly property ConsoleModel serverConsole: stats.console
    padding: Theme.s4
    spacing: Theme.s3

    RemoteStatsModel {
        id: stats
        objectName: "remoteStats"
        url: card.url
        active: card.visible && card.url.length > 0
    }

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s3
        Icon { name: "server"; color: Theme.accent; size: 18 }
        Text {
            Layout.fillWidth: true
            text: card.session ? qsTr("%1 on %2").arg(card.session.remoteModel).arg(card.url) : ""
            color: Theme.text
            font.pixelSize: Theme.fontTitle
            font.weight: Font.DemiBold
            elide: Text.ElideMiddle
        }
        Pill {
            objectName: "remoteKindPill"
            tint: stats.error.length > 0 ? Theme.danger : stats.kind === "freetoken" ? Theme.success : Theme.textFaint
            text: stats.error.length > 0 ? qsTr("Not answering")
                : stats.kind === "freetoken" ? qsTr("FreeToken server · live")
                : stats.kind === "other" ? qsTr("Other server") : qsTr("Checking…")
        }
    }
    Text {
        objectName: "remoteStatsError"
        visible: stats.error.length > 0
        Layout.fillWidth: true
        text: stats.error
        color: Theme.danger
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
    Text {
        objectName: "remoteNotKnown"
        visible: stats.kind === "other"
        Layout.fillWidth: true
        text: qsTr("This server does not report its memory, GPU, cache or queue figures (only a FreeToken server does, through /v1/stats). Shown here is what this app measured on its last reply: time to first token and tokens per second, network included.")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }

    GridLayout {
        Layout.fillWidth: true
        columns: card.width >= 760 ? 4 : 2
        columnSpacing: Theme.s3
        rowSpacing: Theme.s3
        // A FreeToken server's own figures.
        MetricCard {
            objectName: "remoteDecode"
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("Decode")
            value: card.f.decodeTokS !== undefined ? Theme.fixed(card.f.decodeTokS, 1) : "—"
            unit: qsTr("tok/s")
            caption: card.f.device !== undefined ? card.f.device : ""
        }
        MetricCard {
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("Time to first token")
            value: card.f.ttftMs !== undefined ? Math.round(card.f.ttftMs).toString() : "—"
            unit: "ms"
            caption: qsTr("prefill %1 tok/s").arg(card.f.prefillTokS !== undefined ? Theme.fixed(card.f.prefillTokS, 0) : "—")
        }
        MetricCard {
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("Requests")
            value: card.f.running !== undefined ? card.f.running.toString() : "—"
            unit: qsTr("running")
            caption: qsTr("%1 queued · %2 served").arg(card.f.queued !== undefined ? card.f.queued : 0).arg(card.f.requestsTotal !== undefined ? card.f.requestsTotal : 0)
        }
        MetricCard {
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("KV cache")
            value: card.f.kvUsed !== undefined ? card.f.kvUsed.toLocaleString(Qt.locale(), "f", 0) : "—"
            unit: qsTr("tokens")
            fraction: card.f.kvTotal > 0 ? card.f.kvUsed / card.f.kvTotal : -1
            caption: qsTr("of %1; context %2").arg(card.f.kvTotal !== undefined ? card.f.kvTotal.toLocaleString(Qt.locale(), "f", 0) : "—").arg(card.f.nCtx !== undefined ? card.f.nCtx : "—")
        }
        MetricCard {
            objectName: "remoteVram"
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("VRAM")
            available: card.f.gpu === true
            note: qsTr("The server runs on its CPU")
            value: card.f.vramUsed !== undefined ? Theme.gib(card.f.vramUsed) : "—"
            unit: card.f.vramTotal > 0 ? "/ " + Theme.gib(card.f.vramTotal) + " GiB" : "GiB"
            fraction: card.f.vramTotal > 0 ? card.f.vramUsed / card.f.vramTotal : -1
        }
        MetricCard {
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("PCIe to GPU")
            available: card.f.gpu === true
            note: qsTr("The server runs on its CPU")
            value: card.f.h2dGbps !== undefined ? Theme.fixed(card.f.h2dGbps, 1) : "—"
            unit: "GB/s"
        }
        MetricCard {
            visible: stats.kind === "freetoken"
            Layout.fillWidth: true
            title: qsTr("Expert cache hit rate")
            available: card.f.cacheActive === true
            note: qsTr("No expert cache on this server")
            value: card.f.hitRate !== undefined ? Theme.fixed(100 * card.f.hitRate, 0) : "—"
            unit: "%"
            caption: qsTr("%1 slots").arg(card.f.slots !== undefined ? card.f.slots : 0)
        }
        // What this app measured (every server; the only figures for others).
        MetricCard {
            objectName: "remoteMeasuredTtft"
            Layout.fillWidth: true
            title: qsTr("TTFT measured here")
            available: card.mineHere
            note: qsTr("Send a message to measure")
            value: card.mineHere ? Math.round(card.mine.ttftMs).toString() : "—"
            unit: "ms"
            caption: qsTr("from sending to the first text, network included")
        }
        MetricCard {
            objectName: "remoteMeasuredSpeed"
            Layout.fillWidth: true
            title: qsTr("Speed of the last reply")  // the server's own timing where it reports one, else measured here
            available: card.mineHere && card.mine.tokensPerSecond > 0
            note: card.mineHere && card.mine.completionTokens > 0 ? qsTr("The last reply arrived at once, too fast to time")
                                                                 : qsTr("Send a message to measure")
            value: card.mineHere ? Theme.fixed(card.mine.tokensPerSecond, 1) : "—"
            unit: qsTr("tok/s")
            caption: card.mineHere ? qsTr("%1 tokens in the last reply").arg(card.mine.completionTokens) : ""
        }
    }
    Text {
        visible: stats.kind === "freetoken"
        Layout.fillWidth: true
        text: qsTr("Its charts and cache sizes are below. Apply sends the sizes to the server (/v1/cache/rebuild, with this server's key), which rebuilds its caches or says why not.")
        color: Theme.textFaint
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.WordWrap
    }
}
