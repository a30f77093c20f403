import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// The Console's model card: what runs (name, architecture, quant, context, device, backend), its state with uptime,
// requests served, decode speed, TTFT, and the Chat / Stop buttons. Without a model: a pointer to the Models page.
Card {
    id: card
    property ConsoleModel vm
    signal goToChat()
    signal goToModels()
    readonly property bool hasModel: vm && (vm.loaded || vm.engineState === "loading")

    // Whole minutes: a figure that changed every second would repaint the window every second while idle (the
    // Console's texts do even while another page shows).
    function duration(s) {
        s = Math.floor(s)
        if (s < 60) return qsTr("< 1 min")
        const m = Math.floor(s / 60)
        if (m < 60) return qsTr("%1 min").arg(m)
        return qsTr("%1 h %2 min").arg(Math.floor(m / 60)).arg(m % 60)
    }
    function stateText() {
        if (!vm) return ""
        switch (vm.engineState) {
        case "loading": return qsTr("Loading")
        case "running": return qsTr("Running · %1").arg(duration(vm.uptimeSeconds))
        case "ready": return qsTr("Idle · up %1").arg(duration(vm.uptimeSeconds))
        case "error": return qsTr("Error")
        default: return qsTr("No model")
        }
    }
    function stateTint() {
        if (!vm) return Theme.textFaint
        switch (vm.engineState) {
        case "running": return Theme.success
        case "loading": return Theme.warning
        case "ready": return Theme.accent
        case "error": return Theme.danger
        default: return Theme.textFaint
        }
    }

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s4
        Rectangle {  // sized for the layout (a plain width/height is 0 to a RowLayout: the icon sat on the name)
            objectName: "consoleModelIcon"
            Layout.preferredWidth: 44
            Layout.preferredHeight: 44
            radius: 12
            color: Theme.surfaceAlt
            border.color: Theme.border
            Icon { anchors.centerIn: parent; name: "chip"; size: 22; color: card.hasModel ? Theme.accent : Theme.textMuted }
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text {
                objectName: "consoleModelName"
                Layout.fillWidth: true
                text: card.hasModel ? card.vm.modelName : qsTr("No model loaded")
                color: Theme.text
                font.pixelSize: Theme.fontTitle + 1
                font.weight: Font.DemiBold
                elide: Text.ElideRight
            }
            Text {
                objectName: "consoleModelFacts"
                Layout.fillWidth: true
                visible: card.hasModel
                text: {
                    if (!card.vm) return ""
                    const c = card.vm
                    const parts = []
                    if (c.architecture.length > 0) parts.push(c.architecture)
                    if (c.quant.length > 0) parts.push(c.quant)
                    if (c.moeLayers > 0 && c.expertsPerLayer > 0)
                        parts.push(qsTr("%1 experts × %2 layers").arg(c.expertsPerLayer).arg(c.moeLayers))
                    if (c.contextLength > 0) parts.push(qsTr("ctx %1").arg(c.contextLength.toLocaleString(Qt.locale(), "f", 0)))
                    return parts.join(" · ")
                }
                color: Theme.textMuted
                font.family: Theme.monoFamily
                font.pixelSize: Theme.fontCaption
                elide: Text.ElideRight
            }
            Text {
                Layout.fillWidth: true
                text: card.hasModel
                      ? (card.vm.device.length > 0 ? card.vm.device : "—") + " · " + qsTr("backend %1").arg(card.vm.backend.length > 0 ? card.vm.backend : "—")
                      : qsTr("Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.")
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
        }
        Pill { objectName: "consoleStatePill"; text: card.stateText(); tint: card.stateTint() }
        // A fixed model: the figures update in place. (Rebuilt from the stats at 8 Hz and at a language switch, the
        // delegates were destroyed inside this layout, which Qt 6.4 crashes on when resized before its next polish:
        // QTBUG-111792.)
        Repeater {
            model: ["tokS", "requests", "ttft"]
            delegate: ColumnLayout {
                id: figure
                required property string modelData
                visible: card.hasModel
                spacing: 0
                Layout.leftMargin: Theme.s2
                Text {
                    text: (figure.modelData === "tokS" ? qsTr("Tokens/s") : figure.modelData === "requests" ? qsTr("Requests") : qsTr("TTFT")).toUpperCase()
                    color: Theme.textFaint; font.pixelSize: Theme.fontCaption - 1; font.letterSpacing: 0.8; Layout.alignment: Qt.AlignRight
                }
                Text {
                    objectName: "consoleFigure_" + figure.modelData
                    // While a model loads, nothing of it is measured yet (not the previous model's figures).
                    text: !card.vm || card.vm.engineState === "loading" ? "—" : figure.modelData === "tokS" ? (card.vm.decodeTokS > 0 ? Theme.fixed(card.vm.decodeTokS, 1) : "—")
                          : figure.modelData === "requests" ? String(card.vm.requestsTotal)
                          : card.vm.ttftMs > 0 ? (card.vm.ttftMs >= 1000 ? Theme.fixed(card.vm.ttftMs / 1000, 1) + " s" : Theme.fixed(card.vm.ttftMs, 0) + " ms") : "—"
                    color: Theme.text; font.family: Theme.monoFamily; font.pixelSize: Theme.fontTitle + 4; Layout.alignment: Qt.AlignRight
                }
            }
        }
        AppButton {
            objectName: "consoleChatButton"
            visible: card.hasModel
            text: qsTr("Chat")
            kind: "primary"
            onClicked: card.goToChat()
        }
        AppButton {
            objectName: "consoleStopButton"
            visible: card.hasModel
            text: qsTr("Stop")
            tip: qsTr("Unload the model")
            onClicked: card.vm.stopModel()
        }
        AppButton {
            visible: !card.hasModel
            text: qsTr("Go to Models")
            iconName: "models"
            onClicked: card.goToModels()
        }
    }
}
