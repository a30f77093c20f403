<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
    <context>
        <name>ChatPage</name>
        <message>
            <source>Chat</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No model loaded</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Load a model to chat</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Go to Models</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>A model must be loaded before you can chat</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Send</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>ConsolePage</name>
        <message>
            <source>Console</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No model loaded · hardware figures are live</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Live · %1 s</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No model loaded</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Idle</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Go to Models</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Engine</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Decode speed</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Available when a model runs</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Expert cache hit rate</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>PCIe transfer</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Hardware</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>VRAM · GPU %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>%1 free</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>GPU</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>None</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>System RAM</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Experts live here; the GPU caches the busy ones.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>CPU</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>threads</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>SIMD %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>LogsPage</name>
        <message>
            <source>Logs</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Also written to %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Not written to a file (see the first lines)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Copy</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Open folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>All</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Info</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Warnings</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Errors</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Search the log</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>%1 of %2 lines</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Auto-scroll</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No lines match the filter</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>Main</name>
        <message>
            <source>FreeToken Desktop</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>ModelRow</name>
        <message>
            <source>Added %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Remove from the library (the files stay)</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>ModelsPage</name>
        <message>
            <source>Models</source>
            <translation type="unfinished" />
        </message>
        <message numerus="yes">
            <source>%n model(s) in your library</source>
            <translation>
                <numerusform>%n model in your library</numerusform>
                <numerusform>%n models in your library</numerusform>
            </translation>
        </message>
        <message>
            <source>Your library is empty</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Add folder…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Add model…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Choose a GGUF model file</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>GGUF models (*.gguf)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>All files (*)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Choose a Hugging Face model folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Add a model to start</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>A GGUF file</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Choose file…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>A Hugging Face folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>A downloaded model folder with config.json, the tokenizer and .safetensors weights.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Choose folder…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Models you download with FreeToken will be stored in</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Dismiss</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>SettingsPage</name>
        <message>
            <source>Settings</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Changes apply immediately and are saved</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Appearance</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Theme</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>System</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Dark</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Light</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Language</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Local API server</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Address</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Not started</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Storage</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Data folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Models folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Log folder</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Settings file</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>About</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Version</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Build</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>Sidebar</name>
        <message>
            <source>Desktop</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Models</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Console</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Chat</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Logs</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Settings</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Switch to the light theme</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>Switch to the dark theme</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>SystemBox</name>
        <message>
            <source>VRAM</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>No GPU</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>RAM</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>CPU only</source>
            <translation type="unfinished" />
        </message>
        <message>
            <source>%1 threads</source>
            <translation type="unfinished" />
        </message>
    </context>
</TS>
