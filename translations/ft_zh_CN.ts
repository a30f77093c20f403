<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>ChatPage</name>
        <message>
            <source>Chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>No model loaded</source>
            <translation>未加载模型</translation>
        </message>
        <message>
            <source>Load a model to chat</source>
            <translation>加载模型后即可聊天</translation>
        </message>
        <message>
            <source>Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.</source>
            <translation>对话完全在本机运行。请在“模型”页面添加模型，加载后即可开始聊天。</translation>
        </message>
        <message>
            <source>Go to Models</source>
            <translation>前往模型</translation>
        </message>
        <message>
            <source>A model must be loaded before you can chat</source>
            <translation>需要先加载模型才能聊天</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
    </context>
    <context>
        <name>ConsolePage</name>
        <message>
            <source>Console</source>
            <translation>控制台</translation>
        </message>
        <message>
            <source>No model loaded · hardware figures are live</source>
            <translation>未加载模型 · 硬件数据实时更新</translation>
        </message>
        <message>
            <source>Live · %1 s</source>
            <translation>实时 · %1 秒</translation>
        </message>
        <message>
            <source>No model loaded</source>
            <translation>未加载模型</translation>
        </message>
        <message>
            <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
            <translation>请从“模型”页面加载模型。运行时，这里会显示速度、专家缓存和 PCIe 数据。</translation>
        </message>
        <message>
            <source>Idle</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>Go to Models</source>
            <translation>前往模型</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>引擎</translation>
        </message>
        <message>
            <source>Decode speed</source>
            <translation>解码速度</translation>
        </message>
        <message>
            <source>Available when a model runs</source>
            <translation>模型运行时显示</translation>
        </message>
        <message>
            <source>Expert cache hit rate</source>
            <translation>专家缓存命中率</translation>
        </message>
        <message>
            <source>PCIe transfer</source>
            <translation>PCIe 传输</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>硬件</translation>
        </message>
        <message>
            <source>VRAM · GPU %1</source>
            <translation>显存 · GPU %1</translation>
        </message>
        <message>
            <source>%1 free</source>
            <translation>可用 %1</translation>
        </message>
        <message>
            <source>GPU</source>
            <translation>GPU</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
        </message>
        <message>
            <source>System RAM</source>
            <translation>系统内存</translation>
        </message>
        <message>
            <source>Experts live here; the GPU caches the busy ones.</source>
            <translation>专家权重存放在这里，常用的由 GPU 缓存。</translation>
        </message>
        <message>
            <source>CPU</source>
            <translation>CPU</translation>
        </message>
        <message>
            <source>threads</source>
            <translation>线程</translation>
        </message>
        <message>
            <source>SIMD %1</source>
            <translation>SIMD %1</translation>
        </message>
        <message>
            <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
            <translation>没有 CUDA GPU：%1。所有计算由 CPU 完成，速度较慢。</translation>
        </message>
    </context>
    <context>
        <name>LogsPage</name>
        <message>
            <source>Logs</source>
            <translation>日志</translation>
        </message>
        <message>
            <source>Also written to %1</source>
            <translation>同时写入 %1</translation>
        </message>
        <message>
            <source>Not written to a file (see the first lines)</source>
            <translation>未写入文件（请查看开头几行）</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>打开文件夹</translation>
        </message>
        <message>
            <source>All</source>
            <translation>全部</translation>
        </message>
        <message>
            <source>Info</source>
            <translation>信息</translation>
        </message>
        <message>
            <source>Warnings</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>Errors</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Search the log</source>
            <translation>搜索日志</translation>
        </message>
        <message>
            <source>%1 of %2 lines</source>
            <translation>%1 / %2 行</translation>
        </message>
        <message>
            <source>Auto-scroll</source>
            <translation>自动滚动</translation>
        </message>
        <message>
            <source>No lines match the filter</source>
            <translation>没有符合筛选条件的行</translation>
        </message>
    </context>
    <context>
        <name>Main</name>
        <message>
            <source>FreeToken Desktop</source>
            <translation>FreeToken Desktop</translation>
        </message>
    </context>
    <context>
        <name>ModelRow</name>
        <message>
            <source>Added %1</source>
            <translation>添加于 %1</translation>
        </message>
        <message>
            <source>Remove from the library (the files stay)</source>
            <translation>从模型库移除（文件保留）</translation>
        </message>
    </context>
    <context>
        <name>ModelsPage</name>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message numerus="yes">
            <source>%n model(s) in your library</source>
            <translation>
                <numerusform>库中有 %n 个模型</numerusform>
            </translation>
        </message>
        <message>
            <source>Your library is empty</source>
            <translation>模型库为空</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Add model…</source>
            <translation>添加模型…</translation>
        </message>
        <message>
            <source>Choose a GGUF model file</source>
            <translation>选择 GGUF 模型文件</translation>
        </message>
        <message>
            <source>GGUF models (*.gguf)</source>
            <translation>GGUF 模型 (*.gguf)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>所有文件 (*)</translation>
        </message>
        <message>
            <source>Choose a Hugging Face model folder</source>
            <translation>选择 Hugging Face 模型文件夹</translation>
        </message>
        <message>
            <source>Add a model to start</source>
            <translation>添加模型即可开始</translation>
        </message>
        <message>
            <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.</source>
            <translation>FreeToken 在本机运行混合专家（MoE）模型：专家权重保存在系统内存中，最常用的由 GPU 就近保留。添加一个已下载的模型即可，模型在原位置使用，不会被复制。</translation>
        </message>
        <message>
            <source>A GGUF file</source>
            <translation>GGUF 文件</translation>
        </message>
        <message>
            <source>One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.</source>
            <translation>单个 .gguf 文件，例如 Qwen3-30B-A3B-Q4_K_M.gguf。</translation>
        </message>
        <message>
            <source>Choose file…</source>
            <translation>选择文件…</translation>
        </message>
        <message>
            <source>A Hugging Face folder</source>
            <translation>Hugging Face 文件夹</translation>
        </message>
        <message>
            <source>A downloaded model folder with config.json, the tokenizer and .safetensors weights.</source>
            <translation>已下载的模型文件夹，包含 config.json、分词器和 .safetensors 权重。</translation>
        </message>
        <message>
            <source>Choose folder…</source>
            <translation>选择文件夹…</translation>
        </message>
        <message>
            <source>Models you download with FreeToken will be stored in</source>
            <translation>通过 FreeToken 下载的模型将保存在</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>关闭</translation>
        </message>
    </context>
    <context>
        <name>SettingsPage</name>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Changes apply immediately and are saved</source>
            <translation>更改会立即生效并保存</translation>
        </message>
        <message>
            <source>Appearance</source>
            <translation>外观</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>System</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>Local API server</source>
            <translation>本地 API 服务器</translation>
        </message>
        <message>
            <source>An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.</source>
            <translation>运行在本机的 OpenAI 与 Anthropic 兼容服务器。尚未启动：它将随推理引擎一起提供。</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>地址</translation>
        </message>
        <message>
            <source>Not started</source>
            <translation>未启动</translation>
        </message>
        <message>
            <source>Storage</source>
            <translation>存储</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>数据文件夹</translation>
        </message>
        <message>
            <source>Models folder</source>
            <translation>模型文件夹</translation>
        </message>
        <message>
            <source>Log folder</source>
            <translation>日志文件夹</translation>
        </message>
        <message>
            <source>Settings file</source>
            <translation>设置文件</translation>
        </message>
        <message>
            <source>About</source>
            <translation>关于</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>版本</translation>
        </message>
        <message>
            <source>Build</source>
            <translation>构建</translation>
        </message>
    </context>
    <context>
        <name>Sidebar</name>
        <message>
            <source>Desktop</source>
            <translation>桌面版</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Console</source>
            <translation>控制台</translation>
        </message>
        <message>
            <source>Chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Logs</source>
            <translation>日志</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Switch to the light theme</source>
            <translation>切换到浅色主题</translation>
        </message>
        <message>
            <source>Switch to the dark theme</source>
            <translation>切换到深色主题</translation>
        </message>
    </context>
    <context>
        <name>SystemBox</name>
        <message>
            <source>VRAM</source>
            <translation>显存</translation>
        </message>
        <message>
            <source>No GPU</source>
            <translation>无 GPU</translation>
        </message>
        <message>
            <source>RAM</source>
            <translation>内存</translation>
        </message>
        <message>
            <source>CPU only</source>
            <translation>仅 CPU</translation>
        </message>
        <message>
            <source>%1 threads</source>
            <translation>%1 线程</translation>
        </message>
    </context>
</TS>
