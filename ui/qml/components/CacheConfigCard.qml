import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// Cache config: presets computed from the plan, the KV and expert-cache sliders (coupled inside the budget by the
// model), the predicted decode speed of the setting, Apply / Revert and the engine's verdict.
Card {
    id: card
    property ConsoleModel vm
    readonly property var c: vm

    function tokens(n) {
        if (n >= 10240) return qsTr("%1K tokens").arg(Math.round(n / 1024))
        return qsTr("%1 tokens").arg(Math.round(n))
    }
    function kvBytes(n) { return c && c.kvBytesPerToken > 0 ? Theme.bytes(n * c.kvBytesPerToken) : "" }
    function presetName(key) {
        switch (key) {
        case "minimum": return qsTr("Minimum")
        case "chat": return qsTr("Chat")
        case "agent": return qsTr("Agent / long context")
        case "speed": return qsTr("Max speed")
        }
        return key
    }
    function presetDescription(key) {
        switch (key) {
        case "minimum": return qsTr("The least memory: the smallest KV cache.")
        case "chat": return qsTr("One conversation's full context (%1 tokens).").arg(c.contextLength.toLocaleString(Qt.locale(), "f", 0))
        case "agent": return c.expertResizable ? qsTr("The most KV that keeps prefill overlapped: long contexts, several at once.")
                                               : qsTr("The most KV the budget allows: long contexts, several conversations at once.")
        case "speed": return qsTr("The most experts in VRAM, the least KV: the fastest decode.")
        }
        return ""
    }
    function presetDetail(p) {
        const parts = [qsTr("KV %1").arg(tokens(p.kvTokens))]
        if (c.expertResizable) parts.push(qsTr("%1 expert slots").arg(p.expertSlots))
        if (p.predictedTokS > 0) parts.push(qsTr("≈ %1 tok/s").arg(Theme.fixed(p.predictedTokS, 1)))
        return parts.join(" · ")
    }

    RowLayout {
        Layout.fillWidth: true
        spacing: Theme.s2
        Text { text: qsTr("Cache config"); color: Theme.text; font.pixelSize: Theme.fontTitle; font.weight: Font.DemiBold }
        Pill { text: card.c && card.c.gpu ? qsTr("GPU") : qsTr("CPU"); tint: Theme.accent }
        Pill { visible: card.c && card.c.expertResizable; text: qsTr("MoE cache"); tint: Theme.success }
        Item { Layout.fillWidth: true }
        Text {
            objectName: "cacheSyncText"
            text: !card.c ? "" : card.c.applying ? qsTr("Rebuilding…") : card.c.settingDirty ? qsTr("Not applied") : qsTr("Synced")
            color: card.c && card.c.settingDirty ? Theme.warning : Theme.textFaint
            font.pixelSize: Theme.fontCaption
        }
    }
    Text {
        Layout.fillWidth: true
        text: qsTr("Move VRAM between the KV cache and the expert cache while the model serves; click Apply to rebuild the caches.")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }

    Text {
        objectName: "presetsTitle"
        Layout.fillWidth: true
        Layout.topMargin: Theme.s1
        text: card.c && !card.c.expertResizable
              ? qsTr("Presets · with no expert cache to size, they only set the KV cache: decode speed stays the same")
              : qsTr("Presets")
        color: Theme.textMuted
        font.pixelSize: Theme.fontSmall
        wrapMode: Text.WordWrap
    }
    // A positioner, not a GridLayout: the tiles are recreated whenever the plan changes, and Qt 6.4's layouts crash
    // when a child they hold is destroyed and they are resized before their next polish (QTBUG-111792).
    Grid {
        id: presetGrid
        Layout.fillWidth: true
        columns: card.width > 820 ? 4 : 2
        columnSpacing: Theme.s3
        rowSpacing: Theme.s3
        readonly property real tileWidth: (width - (columns - 1) * columnSpacing) / columns
        Repeater {
            model: card.c ? card.c.presets : []
            delegate: Rectangle {
                id: tile
                required property var modelData
                objectName: "preset_" + modelData.key
                readonly property bool current: card.c.presetKey === modelData.key
                width: presetGrid.tileWidth
                height: tileCol.implicitHeight + 2 * Theme.s3
                radius: Theme.radiusSmall
                color: tileMouse.containsMouse ? Theme.hover : Theme.surfaceAlt
                border.color: current ? Theme.accent : Theme.border
                ColumnLayout {
                    id: tileCol
                    x: Theme.s3
                    y: Theme.s3
                    width: parent.width - 2 * Theme.s3
                    spacing: 2
                    Text { text: card.presetName(tile.modelData.key); color: Theme.text; font.pixelSize: Theme.fontBody; font.weight: Font.DemiBold }
                    Text { objectName: "presetDescription_" + tile.modelData.key; Layout.fillWidth: true; text: card.presetDescription(tile.modelData.key); color: Theme.textMuted; font.pixelSize: Theme.fontCaption; wrapMode: Text.WordWrap }
                    Text { Layout.fillWidth: true; text: card.presetDetail(tile.modelData); color: Theme.textFaint; font.pixelSize: Theme.fontCaption; wrapMode: Text.WordWrap }
                }
                MouseArea {
                    id: tileMouse
                    anchors.fill: parent
                    hoverEnabled: true
                    cursorShape: Qt.PointingHandCursor
                    onClicked: card.c.applyPreset(tile.modelData.key)
                }
            }
        }
    }

    CacheSlider {
        objectName: "kvSlider"
        Layout.fillWidth: true
        Layout.topMargin: Theme.s2
        title: qsTr("KV cache size")
        hint: card.c && card.c.kvTokens > card.c.kvMax
              ? qsTr("Past the budget: the engine will refuse this size.")
              : card.c && card.c.contextLength > 0
                ? qsTr("Token positions the attention KV cache holds, all conversations together. One conversation stops at the context, %1 tokens (set when the model loads): more KV serves more conversations at once, not longer ones.").arg(card.c.contextLength.toLocaleString(Qt.locale(), "f", 0))
                : qsTr("Token positions the attention KV cache holds, all conversations together")
        figure: card.c ? card.tokens(card.c.kvTokens) : ""
        badge: card.c ? card.kvBytes(card.c.kvTokens) : ""
        from: card.c ? card.c.kvMin : 0
        to: card.c ? card.c.kvSliderMax : 1
        stepSize: card.c ? card.c.kvPage : 1
        value: card.c ? card.c.kvTokens : 0
        limit: card.c ? card.c.kvMax : -1
        markValue: card.c && card.c.contextLength > 0 ? card.c.contextLength : -1
        markText: card.c && card.c.contextLength >= card.c.kvMin && card.c.contextLength < card.c.kvSliderMax
                  ? qsTr("one conversation ≤ %1").arg(card.tokens(card.c.contextLength)) : ""
        fromText: card.c ? card.tokens(card.c.kvMin) : ""
        toText: card.c ? qsTr("budget %1").arg(card.tokens(card.c.kvMax)) : ""
        onEdited: (v) => card.c.kvTokens = v
    }
    CacheSlider {
        objectName: "expertSlider"
        Layout.fillWidth: true
        Layout.topMargin: Theme.s2
        enabled: card.c && card.c.expertResizable
        title: qsTr("MoE expert cache")
        hint: !card.c ? "" : card.c.expertResizable
              ? qsTr("Expert slots resident in VRAM · %1 across all MoE layers").arg(card.c.slotsTotal)
              : card.c.gpu ? qsTr("Every expert is resident in VRAM: there is no expert cache to size.")
                           : qsTr("The CPU engine reads every expert from host RAM: there is no expert cache to size, only the KV cache resizes.")
        figure: card.c && card.c.expertResizable ? qsTr("%1 / %2").arg(card.c.expertSlots).arg(card.c.slotsTotal) : "—"
        badge: card.c && card.c.expertResizable
               ? qsTr("%1 % · %2").arg(Theme.fixed(100 * card.c.expertSlots / Math.max(1, card.c.slotsTotal), 0)).arg(Theme.bytes(card.c.expertSlots * card.c.slotBytes))
               : ""
        from: card.c && card.c.expertResizable ? card.c.slotsMin : 0
        to: card.c && card.c.expertResizable ? card.c.slotsMax : 1
        value: card.c ? card.c.expertSlots : 0
        markValue: card.c && card.c.expertResizable ? card.c.overlapSlots : -1
        markText: card.c && card.c.expertResizable && card.c.overlapSlots > 0 ? qsTr("≥ %1 enables prefill overlap").arg(card.c.overlapSlots) : ""
        fromText: card.c && card.c.expertResizable ? String(card.c.slotsMin) : ""
        toText: card.c && card.c.expertResizable ? String(card.c.slotsMax) : ""
        onEdited: (v) => card.c.expertSlots = Math.round(v)
    }

    RowLayout {
        Layout.fillWidth: true
        Layout.topMargin: Theme.s2
        spacing: Theme.s3
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Text {
                objectName: "cacheTotalText"
                Layout.fillWidth: true
                visible: card.c && card.c.cacheBudget > 0
                text: card.c ? qsTr("KV + experts: %1 of %2 for the caches").arg(Theme.bytes(card.c.settingBytes)).arg(Theme.bytes(card.c.cacheBudget)) : ""
                color: card.c && !card.c.settingFits ? Theme.danger : Theme.textMuted
                font.pixelSize: Theme.fontSmall
            }
            Text {
                objectName: "predictedText"
                Layout.fillWidth: true
                text: !card.c ? "" : card.c.predictedTokS > 0
                      ? (card.c.expertResizable
                         ? qsTr("Predicted decode: ≈ %1 tok/s (misses scale with the experts left out; each costs its bytes over B_P + B_C)").arg(Theme.fixed(card.c.predictedTokS, 1))
                         : qsTr("Predicted decode: ≈ %1 tok/s (the cache sizes do not change the CPU engine's speed)").arg(Theme.fixed(card.c.predictedTokS, 1)))
                      : qsTr("Predicted decode: run a reply first, the prediction scales from measured speed")
                color: Theme.textFaint
                font.pixelSize: Theme.fontCaption
                wrapMode: Text.WordWrap
            }
        }
        AppButton {
            objectName: "cacheRevertButton"
            text: qsTr("Revert")
            kind: "ghost"
            enabled: card.c && card.c.settingDirty && !card.c.applying
            onClicked: card.c.revert()
        }
        AppButton {
            objectName: "cacheApplyButton"
            text: qsTr("Apply")
            kind: "primary"
            enabled: card.c && card.c.settingDirty && !card.c.applying
            onClicked: card.c.apply()
        }
    }
    Rectangle {
        objectName: "rebuildVerdict"
        Layout.fillWidth: true
        visible: card.c && (card.c.rebuildStatus === "accepted" || card.c.rebuildStatus === "rejected" || card.c.rebuildStatus === "restored")
        readonly property bool rejected: card.c && card.c.rebuildStatus === "rejected"
        implicitHeight: verdictText.implicitHeight + 2 * Theme.s2
        radius: Theme.radiusSmall
        color: rejected ? Theme.dangerSoft : Theme.accentSoft
        Text {
            id: verdictText
            objectName: "rebuildVerdictText"
            x: Theme.s3
            y: Theme.s2
            width: parent.width - 2 * Theme.s3
            text: !card.c ? "" : card.c.rebuildStatus === "rejected" ? qsTr("Rejected: %1 Nothing changed.").arg(card.c.rebuildMessage)
                  : card.c.rebuildStatus === "restored" ? qsTr("Restored your last setting for this model: KV %1%2.").arg(card.tokens(card.c.kvNow)).arg(card.c.expertResizable ? qsTr(", %1 expert slots").arg(card.c.slotsNow) : "")
                  : qsTr("Applied: KV %1%2.").arg(card.tokens(card.c.kvNow)).arg(card.c.expertResizable ? qsTr(", %1 expert slots").arg(card.c.slotsNow) : "")
            color: parent.rejected ? Theme.danger : Theme.text
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }
    }
}
