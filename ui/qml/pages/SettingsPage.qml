import QtQuick
import QtQuick.Controls.Basic
import QtQuick.Layouts
import FreeToken.Ui

// Appearance and language (applied live and saved), the API server, where files live, and this build.
Page {
    id: page
    property SettingsModel settings
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
        Layout.fillWidth: true
        SectionTitle {
            Layout.fillWidth: true
            iconName: "server"
            text: qsTr("Local API server")
            caption: qsTr("An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.s4
            Text { text: qsTr("Address"); color: Theme.textMuted; font.pixelSize: Theme.fontSmall; Layout.preferredWidth: 150 }
            Text {
                objectName: "apiAddress"
                text: "http://127.0.0.1:" + (page.settings ? page.settings.apiPort : 1919)
                color: Theme.text
                font.pixelSize: Theme.fontSmall
                font.family: Theme.monoFamily
            }
            Pill { text: qsTr("Not started"); tint: Theme.textFaint }
            Item { Layout.fillWidth: true }
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
