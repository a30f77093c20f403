import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// Appearance and language (applied live and saved), the API server, where files live, and this build.
Page {
    id: page
    property SettingsModel settings
    property ApiServerModel apiServer: null  // the app's local API server (Main.qml)
    title: qsTr("Settings")
    subtitle: qsTr("Changes apply immediately and are saved")

    Card {
        Layout.fillWidth: true
        SectionTitle { Layout.fillWidth: true; iconName: "palette"; text: qsTr("Appearance") }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Theme"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            Segmented {
                objectName: "themeChoice"
                value: page.settings ? page.settings.theme : "dark"
                options: [
                    { value: "system", label: qsTr("System") },
                    { value: "dark", label: qsTr("Dark") },
                    { value: "light", label: qsTr("Light") }
                ]
                onActivated: (v) => page.settings.theme = v
            }
            Item { Layout.fillWidth: true }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Language"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            Segmented {
                objectName: "languageChoice"
                value: page.settings ? page.settings.language : "en"
                // Each language is named in itself, so anyone can find their own.
                options: [
                    { value: "en", label: "English" },
                    { value: "ko", label: "한국어" },
                    { value: "zh_CN", label: "简体中文" }
                ]
                onActivated: (v) => page.settings.language = v
            }
            Item { Layout.fillWidth: true }
        }
    }


    Card {
        objectName: "apiServerCard"
        Layout.fillWidth: true
        SectionTitle {
            Layout.fillWidth: true
            iconName: "server"
            text: qsTr("Local API server")
            caption: qsTr("Serves the loaded model to OpenAI and Anthropic clients and coding agents on this PC (127.0.0.1 only).")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Serve the loaded model"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            AppCheckBox {
                id: serverCheck
                objectName: "serverSwitch"
                checked: apiServer.enabled
                text: checked ? qsTr("On") : qsTr("Off")
                onToggled: apiServer.enabled = checked
            }
            Pill {
                objectName: "serverStatus"
                text: apiServer.status === "running" ? qsTr("Running")
                      : apiServer.status === "waiting" ? qsTr("Waiting for a model")
                      : apiServer.status === "error" ? qsTr("Not running") : qsTr("Off")
                tint: apiServer.status === "running" ? Theme.success
                      : apiServer.status === "error" ? Theme.danger
                      : apiServer.status === "waiting" ? Theme.warning : Theme.textFaint
            }
            Item { Layout.fillWidth: true }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Port"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            TextField {
                id: portField
                objectName: "serverPortField"
                Layout.preferredWidth: 100
                text: String(apiServer.port)
                inputMethodHints: Qt.ImhDigitsOnly
                color: Theme.text
                property bool bad: false
                background: Rectangle { radius: Theme.radiusSmall; color: Theme.surfaceAlt; border.color: portField.bad ? Theme.danger : portField.activeFocus ? Theme.accent : Theme.border }
                onEditingFinished: bad = !apiServer.setPort(parseInt(text))
            }
            Text {
                objectName: "apiAddress"
                text: apiServer.url
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                font.family: Theme.monoFamily
            }
            Item { Layout.fillWidth: true }
        }
        Text {
            objectName: "serverMessage"
            Layout.fillWidth: true
            visible: portField.bad || apiServer.message.length > 0
            text: portField.bad ? qsTr("Enter a port from 1 to 65535.") : apiServer.message
            color: Theme.danger
            font.pixelSize: Theme.fontCaption
            wrapMode: Text.Wrap
        }
        // Keys only in the model: a language switch or a new URL updates the rows instead of recreating them inside
        // the card's layout (QTBUG-111792, see Sidebar.qml).
        Repeater {
            model: ["openai", "claude"]
            delegate: RowLayout {
                id: snippetRow
                required property string modelData
                readonly property string snippet: modelData === "openai"
                    ? "OPENAI_BASE_URL=" + apiServer.url + "/v1 OPENAI_API_KEY=local"
                    : "ANTHROPIC_BASE_URL=" + apiServer.url + " ANTHROPIC_AUTH_TOKEN=local ANTHROPIC_MODEL=\""
                      + (apiServer.modelId.length > 0 ? apiServer.modelId : "model") + "\" claude"
                Layout.fillWidth: true
                spacing: Theme.s4
                Text {
                    text: snippetRow.modelData === "openai" ? qsTr("OpenAI clients") : qsTr("Claude Code")
                    color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150
                }
                Text {
                    objectName: "snippet_" + snippetRow.modelData
                    Layout.fillWidth: true
                    text: snippetRow.snippet
                    color: Theme.text
                    font.pixelSize: Theme.fontCaption
                    font.family: Theme.monoFamily
                    wrapMode: Text.WrapAnywhere
                }
                AppButton {
                    objectName: "copySnippet_" + snippetRow.modelData
                    kind: "ghost"
                    iconName: copied.running ? "check" : "copy"
                    tip: copied.running ? qsTr("Copied") : qsTr("Copy")
                    implicitHeight: 26
                    onClicked: {
                        apiServer.copy(snippetRow.snippet)
                        copied.restart()
                    }
                    Timer { id: copied; interval: 1500 }
                }
            }
        }
    }

    Card {
        objectName: "startupCard"
        Layout.fillWidth: true
        SectionTitle { Layout.fillWidth: true; iconName: "models"; text: qsTr("Startup") }
        AppCheckBox {
            id: reloadCheck
            objectName: "reloadLastModelSwitch"
            Layout.fillWidth: true
            checked: page.settings ? page.settings.reloadLastModel : true
            text: qsTr("Load the last model when FreeToken starts (if it is still in the library)")
            onToggled: page.settings.reloadLastModel = checked
        }
    }

    Card {
        id: chatDefaults
        objectName: "chatDefaultsCard"
        Layout.fillWidth: true
        // Saved when a field is left (or Enter), if every number is in range.
        function save() {
            if (!page.settings || !(defTemperature.acceptableInput && defTopP.acceptableInput && defMaxTokens.acceptableInput
                                    && defSeed.acceptableInput)) return
            page.settings.setChatDefaults(defPrompt.text, Number(defTemperature.text), Number(defTopP.text),
                                          parseInt(defMaxTokens.text), parseInt(defSeed.text))
        }
        SectionTitle {
            Layout.fillWidth: true
            iconName: "chat"
            text: qsTr("New chats")
            caption: qsTr("What a new chat starts with. Each chat keeps its own copy: change one chat with Chat settings on the Chat page.")
        }
        Text { text: qsTr("System prompt"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall }
        ChatTextArea {
            id: defPrompt
            objectName: "defaultSystemPromptField"
            Layout.fillWidth: true
            implicitHeight: 80
            text: page.settings ? page.settings.defaultSystemPrompt : ""
            placeholderText: qsTr("How the assistant should behave (optional)")
            Connections { target: defPrompt.area; function onEditingFinished() { chatDefaults.save() } }
        }
        GridLayout {
            Layout.fillWidth: true
            columns: 4
            columnSpacing: Theme.s4
            rowSpacing: Theme.s1
            Text { text: qsTr("Temperature (0–2)"); color: Theme.textMuted; font.pixelSize: Theme.fontCaption }
            Text { text: qsTr("Top-p (0–1)"); color: Theme.textMuted; font.pixelSize: Theme.fontCaption }
            Text { text: qsTr("Max tokens per reply"); color: Theme.textMuted; font.pixelSize: Theme.fontCaption }
            Text { text: qsTr("Seed (0: random)"); color: Theme.textMuted; font.pixelSize: Theme.fontCaption }
            ChatTextField {
                id: defTemperature
                objectName: "defaultTemperatureField"
                Layout.fillWidth: true
                text: page.settings ? Number(page.settings.defaultTemperature).toString() : ""
                validator: DoubleValidator { bottom: 0; top: 2; notation: DoubleValidator.StandardNotation; locale: "C" }
                onEditingFinished: chatDefaults.save()
            }
            ChatTextField {
                id: defTopP
                objectName: "defaultTopPField"
                Layout.fillWidth: true
                text: page.settings ? Number(page.settings.defaultTopP).toString() : ""
                validator: DoubleValidator { bottom: 0; top: 1; notation: DoubleValidator.StandardNotation; locale: "C" }
                onEditingFinished: chatDefaults.save()
            }
            ChatTextField {
                id: defMaxTokens
                objectName: "defaultMaxTokensField"
                Layout.fillWidth: true
                text: page.settings ? String(page.settings.defaultMaxTokens) : ""
                validator: IntValidator { bottom: 1; top: 1048576 }
                onEditingFinished: chatDefaults.save()
            }
            ChatTextField {
                id: defSeed
                objectName: "defaultSeedField"
                Layout.fillWidth: true
                text: page.settings ? String(page.settings.defaultSeed) : ""
                validator: IntValidator { bottom: 0; top: 2147483647 }
                onEditingFinished: chatDefaults.save()
            }
        }
        AppCheckBox {
            objectName: "modelSamplingSwitch"
            Layout.fillWidth: true
            checked: page.settings ? page.settings.modelSampling : true
            text: qsTr("Use the sampling the loaded model recommends (temperature, top-p, top-k) where its file names one")
            onToggled: page.settings.modelSampling = checked
        }
    }

    Card {
        objectName: "hubSettingsCard"
        Layout.fillWidth: true
        SectionTitle {
            Layout.fillWidth: true
            iconName: "arrow-down"
            text: qsTr("Hugging Face")
            caption: qsTr("Downloads on the Models page. Gated and private models need an access token (huggingface.co → Settings → Access Tokens, read access).")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Access token"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            TextField {
                id: tokenField
                objectName: "hubTokenField"
                Layout.fillWidth: true
                text: page.settings ? page.settings.hubToken : ""
                echoMode: TextInput.Password
                placeholderText: qsTr("hf_… (optional)")
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                background: Rectangle { radius: Theme.radiusSmall; color: Theme.surfaceAlt; border.color: tokenField.activeFocus ? Theme.accent : Theme.border }
                onEditingFinished: page.settings.hubToken = text
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Server"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            TextField {
                id: endpointField
                objectName: "hubEndpointField"
                Layout.fillWidth: true
                text: page.settings ? page.settings.hubEndpoint : ""
                enabled: page.settings && !page.settings.hubEndpointFromEnvironment
                placeholderText: "https://huggingface.co"
                color: Theme.text
                placeholderTextColor: Theme.textFaint
                property bool bad: false
                background: Rectangle { radius: Theme.radiusSmall; color: Theme.surfaceAlt; border.color: endpointField.bad ? Theme.danger : endpointField.activeFocus ? Theme.accent : Theme.border }
                onEditingFinished: bad = !page.settings.setHubEndpoint(text)
            }
        }
        Text {
            visible: endpointField.bad || (page.settings && page.settings.hubEndpointFromEnvironment)
            text: endpointField.bad ? qsTr("Enter an http:// or https:// address, or leave it empty for huggingface.co.")
                                    : qsTr("Set by FT_HF_ENDPOINT in the environment.")
            color: endpointField.bad ? Theme.danger : Theme.textFaint
            font.pixelSize: Theme.fontCaption
        }
    }

    Card {
        Layout.fillWidth: true
        SectionTitle { Layout.fillWidth: true; iconName: "folder"; text: qsTr("Storage") }
        InfoRow {
            Layout.fillWidth: true
            label: qsTr("Data folder")
            value: page.settings ? page.settings.dataDir : ""
            link: true
            onActivated: page.settings.openFolder(value)
        }
        InfoRow {
            Layout.fillWidth: true
            label: qsTr("Models folder")
            value: page.settings ? page.settings.modelsDir : ""
            link: true
            onActivated: page.settings.openFolder(value)
        }
        InfoRow {
            Layout.fillWidth: true
            label: qsTr("Log folder")
            value: page.settings ? page.settings.logDir : ""
            link: true
            onActivated: page.settings.openFolder(value)
        }
        InfoRow {
            Layout.fillWidth: true
            label: qsTr("Settings file")
            value: page.settings ? page.settings.settingsFile : ""
            mono: true
        }
    }

    Card {
        Layout.fillWidth: true
        SectionTitle { Layout.fillWidth: true; iconName: "info"; text: qsTr("About") }
        InfoRow { Layout.fillWidth: true; label: qsTr("Version"); value: page.settings ? page.settings.version : ""; mono: true }
        InfoRow { Layout.fillWidth: true; label: qsTr("Build"); value: page.settings ? page.settings.buildDescription : ""; mono: true }
    }
}
