import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// This chat's system prompt and sampling (temperature, top-p, max tokens, seed). Saved with the conversation; a
// new chat starts from the defaults of Settings → New chats, not from the chat viewed before.
ChatDialog {
    id: dialog
    objectName: "chatSettingsDialog"
    required property ChatSession session

    function edit() {
        systemPrompt.text = session.systemPrompt
        temperature.text = Number(session.temperature).toString()
        topP.text = Number(session.topP).toString()
        maxTokens.text = session.maxTokens.toString()
        seed.text = session.seed.toString()
        session.clearError()
        open()
    }

    title: qsTr("Chat settings")
    confirmText: qsTr("Save")
    confirmName: "saveChatSettingsButton"
    closePolicy: Popup.CloseOnEscape
    confirmEnabled: temperature.acceptableInput && topP.acceptableInput && maxTokens.acceptableInput && seed.acceptableInput
    onConfirmed: session.saveSettings(systemPrompt.text, Number(temperature.text), Number(topP.text),
                                      parseInt(maxTokens.text), parseInt(seed.text))

    component Label: Text {
        color: Theme.textMuted
        font.pixelSize: Theme.fontCaption
        font.weight: Font.Medium
    }

    Label { text: qsTr("System prompt") }
    ChatTextArea {
        id: systemPrompt
        objectName: "systemPromptField"
        Layout.fillWidth: true
        placeholderText: qsTr("How the assistant should behave (optional)")
    }
    GridLayout {
        Layout.fillWidth: true
        columns: 2
        columnSpacing: Theme.s4
        rowSpacing: Theme.s1
        Label { text: qsTr("Temperature (0–2)") }
        Label { text: qsTr("Top-p (0–1)") }
        ChatTextField {
            id: temperature
            objectName: "temperatureField"
            Layout.fillWidth: true
            validator: DoubleValidator { bottom: 0; top: 2; notation: DoubleValidator.StandardNotation; locale: "C" }
        }
        ChatTextField {
            id: topP
            objectName: "topPField"
            Layout.fillWidth: true
            validator: DoubleValidator { bottom: 0; top: 1; notation: DoubleValidator.StandardNotation; locale: "C" }
        }
        Label { text: qsTr("Max tokens per reply") }
        Label { text: qsTr("Seed (0: random)") }
        ChatTextField {
            id: maxTokens
            objectName: "maxTokensField"
            Layout.fillWidth: true
            validator: IntValidator { bottom: 1; top: 1048576 }
        }
        ChatTextField {
            id: seed
            objectName: "seedField"
            Layout.fillWidth: true
            validator: IntValidator { bottom: 0; top: 2147483647 }
        }
    }
    // What the loaded model's file recommends (a new chat starts from it: Settings → New chats), and the top-k this
    // chat took from it (there is no field for it).
    Text {
        objectName: "recommendedSamplingText"
        Layout.fillWidth: true
        visible: text.length > 0
        text: dialog.session.recommendedSampling
        color: Theme.textMuted
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.Wrap
    }
    Text {
        objectName: "chatTopKText"
        Layout.fillWidth: true
        visible: dialog.session.topK > 0
        text: qsTr("This chat samples from the %1 likeliest tokens (top-k), as the model recommends.").arg(dialog.session.topK)
        color: Theme.textMuted
        font.pixelSize: Theme.fontCaption
        wrapMode: Text.Wrap
    }
}
