<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddServerDialog</name>
    <message>
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <source>An OpenAI-compatible server: another PC running FreeToken (ft serve), vLLM, SGLang or llama.cpp&apos;s llama-server. Its models are listed beside your local ones; chatting with them loads nothing on this PC.</source>
        <translation>兼容 OpenAI 的服务器：运行 FreeToken（ft serve）的另一台电脑、vLLM、SGLang 或 llama.cpp 的 llama-server。它的模型会列在本地模型旁边；与它们聊天不会在这台电脑上加载任何东西。</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>API key (optional)</source>
        <translation>API 密钥（可选）</translation>
    </message>
    <message>
        <source>Leave empty if the server asks for none</source>
        <translation>服务器不要求密钥时留空</translation>
    </message>
    <message>
        <source>Use plain http to this server</source>
        <translation>对此服务器使用未加密的 http</translation>
    </message>
    <message>
        <source>Asking the server for its models…</source>
        <translation>正在向服务器获取模型列表…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Add server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <source>Saving the server and its API key… If the system keychain asks to be unlocked, unlock it.</source>
        <translation>正在保存服务器及其 API 密钥… 如果系统钥匙串要求解锁，请解锁。</translation>
    </message>
</context>
<context>
    <name>CacheConfigCard</name>
    <message>
        <source>%1K tokens</source>
        <translation>%1K 个词元</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>Minimum</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Agent / long context</source>
        <translation>智能体 / 长上下文</translation>
    </message>
    <message>
        <source>Max speed</source>
        <translation>最快速度</translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <source>%1 expert slots</source>
        <translation>%1 个专家槽位</translation>
    </message>
    <message>
        <source>≈ %1 tok/s</source>
        <translation>≈ %1 tok/s</translation>
    </message>
    <message>
        <source>Cache config</source>
        <translation>缓存配置</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>MoE cache</source>
        <translation>MoE 缓存</translation>
    </message>
    <message>
        <source>Rebuilding…</source>
        <translation>正在重建…</translation>
    </message>
    <message>
        <source>Not applied</source>
        <translation>尚未应用</translation>
    </message>
    <message>
        <source>Synced</source>
        <translation>已同步</translation>
    </message>
    <message>
        <source>Move VRAM between the KV cache and the expert cache while the model serves; click Apply to rebuild the caches.</source>
        <translation>在模型提供服务时，在 KV 缓存和专家缓存之间调配显存；点击“应用”即可重建缓存。</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>KV cache size</source>
        <translation>KV 缓存大小</translation>
    </message>
    <message>
        <source>Past the budget: the engine will refuse this size.</source>
        <translation>超出预算：引擎将拒绝此大小。</translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together</source>
        <translation>注意力 KV 缓存可容纳的词元位置数（所有对话合计）</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>MoE expert cache</source>
        <translation>MoE 专家缓存</translation>
    </message>
    <message>
        <source>Expert slots resident in VRAM · %1 across all MoE layers</source>
        <translation>常驻显存的专家槽位 · 所有 MoE 层共 %1 个</translation>
    </message>
    <message>
        <source>Every expert is resident in VRAM: there is no expert cache to size.</source>
        <translation>所有专家都常驻显存：没有可调整大小的专家缓存。</translation>
    </message>
    <message>
        <source>The CPU engine reads every expert from host RAM: there is no expert cache to size, only the KV cache resizes.</source>
        <translation>CPU 引擎从主机内存读取所有专家：没有可调整大小的专家缓存，只有 KV 缓存会改变大小。</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 % · %2</source>
        <translation>%1 % · %2</translation>
    </message>
    <message>
        <source>≥ %1 enables prefill overlap</source>
        <translation>≥ %1 时启用预填充重叠</translation>
    </message>
    <message>
        <source>KV + experts: %1 of %2 for the caches</source>
        <translation>KV + 专家：缓存可用 %2 中的 %1</translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (misses scale with the experts left out; each costs its bytes over B_P + B_C)</source>
        <translation>预计解码：≈ %1 tok/s（未命中数随未缓存的专家数成比例变化；每次未命中耗时为其字节数除以 B_P + B_C）</translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (the cache sizes do not change the CPU engine&apos;s speed)</source>
        <translation>预计解码：≈ %1 tok/s（缓存大小不影响 CPU 引擎的速度）</translation>
    </message>
    <message>
        <source>Predicted decode: run a reply first, the prediction scales from measured speed</source>
        <translation>预计解码：请先运行一次回复，预测基于实测速度推算</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Rejected: %1 Nothing changed.</source>
        <translation>已拒绝：%1 未做任何更改。</translation>
    </message>
    <message>
        <source>Restored your last setting for this model: KV %1%2.</source>
        <translation>已恢复此模型上次的设置：KV %1%2。</translation>
    </message>
    <message>
        <source>, %1 expert slots</source>
        <translation>，%1 个专家槽位</translation>
    </message>
    <message>
        <source>Applied: KV %1%2.</source>
        <translation>已应用：KV %1%2。</translation>
    </message>
    <message>
        <source>The least memory: the smallest KV cache.</source>
        <translation>最少内存：最小的 KV 缓存。</translation>
    </message>
    <message>
        <source>One conversation&apos;s full context (%1 tokens).</source>
        <translation>一个对话的完整上下文（%1 个 token）。</translation>
    </message>
    <message>
        <source>The most KV that keeps prefill overlapped: long contexts, several at once.</source>
        <translation>保持预填充重叠的最大 KV：可同时容纳多个长上下文。</translation>
    </message>
    <message>
        <source>The most KV the budget allows: long contexts, several conversations at once.</source>
        <translation>预算允许的最大 KV：长上下文，可同时进行多个对话。</translation>
    </message>
    <message>
        <source>The most experts in VRAM, the least KV: the fastest decode.</source>
        <translation>显存中放最多的专家、最少的 KV：解码最快。</translation>
    </message>
    <message>
        <source>Presets · with no expert cache to size, they only set the KV cache: decode speed stays the same</source>
        <translation>预设 · 没有可调大小的专家缓存，预设只设置 KV 缓存：解码速度不变</translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together. One conversation stops at the context, %1 tokens (set when the model loads): more KV serves more conversations at once, not longer ones.</source>
        <translation>注意力 KV 缓存容纳的 token 位置数（所有对话合计）。一个对话在上下文长度 %1 个 token（加载模型时确定）处停止：更多的 KV 可同时服务更多对话，而不是更长的对话。</translation>
    </message>
    <message>
        <source>one conversation ≤ %1</source>
        <translation>单个对话 ≤ %1</translation>
    </message>
</context>
<context>
    <name>ChatCodeBlock</name>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
</context>
<context>
    <name>ChatComposer</name>
    <message>
        <source>Message the model (Enter sends, Shift+Enter adds a line)</source>
        <translation>给模型发消息（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>A model must be loaded before you can chat</source>
        <translation>必须先加载模型才能聊天</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
</context>
<context>
    <name>ChatConversationList</name>
    <message>
        <source>New chat</source>
        <translation>新聊天</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索聊天</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>No chat matches “%1”.</source>
        <translation>没有与“%1”匹配的聊天。</translation>
    </message>
    <message>
        <source>Your conversations appear here.</source>
        <translation>你的对话会显示在这里。</translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>ChatMessage</name>
    <message>
        <source>%1 on %2</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Waiting for the first token…</source>
        <translation>正在等待第一个词元…</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>回复失败：%1</translation>
    </message>
    <message>
        <source>%1 tokens · %2 tok/s · first token in %3 ms · prompt %4 tokens</source>
        <translation>%1 个词元 · %2 tok/s · 首个词元 %3 毫秒 · 提示 %4 个词元</translation>
    </message>
    <message>
        <source>Stopped before the end</source>
        <translation>未完成即已停止</translation>
    </message>
    <message>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <source>Copy reply</source>
        <translation>复制回复</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Cut off at the token limit</source>
        <translation>已在词元上限处截断</translation>
    </message>
    <message>
        <source>The reply reached its length limit: Max tokens in Chat settings, or the room left in the model&apos;s context.</source>
        <translation>回复已达到长度上限：对话设置中的最大词元数，或模型上下文中剩余的空间。</translation>
    </message>
    <message>
        <source>Speed: the server&apos;s own timing where it reports one (llama.cpp does), else measured here from the first token to the last, or from the request when the whole reply arrived at once.</source>
        <translation>速度：服务器报告自身计时时（如 llama.cpp）取服务器的数值，否则为本机测得：从第一个词元到最后一个词元；整段回复一次到达时从发出请求算起。</translation>
    </message>
    <message>
        <source>No speed: the whole reply arrived at once, too fast to time (under 20 ms from the request), and the server did not report its own timing.</source>
        <translation>无速度：整段回复一次到达，快得无法计时（发出请求后不到 20 毫秒），服务器也没有报告自身计时。</translation>
    </message>
    <message>
        <source>No speed: a reply of one token has no decoding time to measure.</source>
        <translation>无速度：只有一个词元的回复没有可测量的解码时间。</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation>聊天设置</translation>
    </message>
    <message>
        <source>Load a model to chat</source>
        <translation>加载模型即可聊天</translation>
    </message>
    <message>
        <source>Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.</source>
        <translation>对话完全在这台电脑上运行。请在“模型”页面添加模型；加载后即可开始聊天。</translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation>前往模型</translation>
    </message>
    <message>
        <source>Start a conversation</source>
        <translation>开始对话</translation>
    </message>
    <message>
        <source>Type a message below. Replies stream in as the model writes them and are saved as they arrive.</source>
        <translation>在下方输入消息。回复会随着模型生成实时显示，并在到达时立即保存。</translation>
    </message>
    <message>
        <source>This chat uses %1 of the model&apos;s %2 context tokens. Near the limit replies get cut off: start a new chat (Ctrl+N).</source>
        <translation>此聊天已使用模型 %2 个上下文词元中的 %1 个。接近上限时回复会被截断：请开始新聊天（Ctrl+N）。</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>System prompt: %1</source>
        <translation>系统提示词：%1</translation>
    </message>
    <message>
        <source>Edit this chat&apos;s settings</source>
        <translation>编辑此对话的设置</translation>
    </message>
    <message>
        <source>Model: %1 on %2</source>
        <translation>模型：%1（%2）</translation>
    </message>
    <message>
        <source>Reading the server&apos;s API key from the system keychain… If it asks to be unlocked, unlock it; Stop (Esc) gives up.</source>
        <translation>正在从系统钥匙串读取服务器的 API 密钥… 如果它要求解锁，请解锁；点击停止（Esc）则放弃。</translation>
    </message>
</context>
<context>
    <name>ChatReasoning</name>
    <message>
        <source>Thinking…</source>
        <translation>正在思考…</translation>
    </message>
    <message>
        <source>Thought process</source>
        <translation>思考过程</translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat settings</source>
        <translation>聊天设置</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation>助手应如何表现（可选）</translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation>温度（0–2）</translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation>Top-p（0–1）</translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation>每条回复的最大词元数</translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation>种子（0：随机）</translation>
    </message>
    <message>
        <source>This chat samples from the %1 likeliest tokens (top-k), as the model recommends.</source>
        <translation>按照模型的推荐，此聊天从可能性最高的 %1 个词元中采样（top-k）。</translation>
    </message>
</context>
<context>
    <name>ConsoleCharts</name>
    <message>
        <source>No GPU: the CPU engine has no VRAM or PCIe traffic.</source>
        <translation>没有 GPU：CPU 引擎没有显存或 PCIe 流量。</translation>
    </message>
    <message>
        <source>No expert cache: every expert is resident in VRAM.</source>
        <translation>没有专家缓存：所有专家都常驻显存。</translation>
    </message>
    <message>
        <source>No expert cache: the CPU engine computes every expert from host RAM.</source>
        <translation>没有专家缓存：CPU 引擎直接从主机内存计算所有专家。</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>KV</source>
        <translation>KV</translation>
    </message>
    <message>
        <source>Scratch</source>
        <translation>临时缓冲</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>VRAM by category</source>
        <translation>按类别的显存</translation>
    </message>
    <message>
        <source>PCIe GB/s</source>
        <translation>PCIe GB/s</translation>
    </message>
    <message>
        <source>H2D</source>
        <translation>H2D</translation>
    </message>
    <message>
        <source>D2H</source>
        <translation>D2H</translation>
    </message>
    <message>
        <source>Expert fetches</source>
        <translation>专家拉取</translation>
    </message>
    <message>
        <source>Prefill streaming</source>
        <translation>预填充流式传输</translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation>专家缓存命中率</translation>
    </message>
    <message>
        <source>Hit rate</source>
        <translation>命中率</translation>
    </message>
    <message>
        <source>Misses per token</source>
        <translation>每词元未命中数</translation>
    </message>
    <message>
        <source>Fetched over PCIe</source>
        <translation>经 PCIe 拉取</translation>
    </message>
    <message>
        <source>Computed on the CPU</source>
        <translation>在 CPU 上计算</translation>
    </message>
    <message>
        <source>q* fraction in use: %1</source>
        <translation>当前 q* 比例：%1</translation>
    </message>
    <message>
        <source>Fetched</source>
        <translation>已拉取</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Decode tok/s</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <source>Waiting for the first sample.</source>
        <translation>正在等待第一个样本。</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>tok/s</translation>
    </message>
    <message>
        <source>Prefill tok/s</source>
        <translation>预填充 tok/s</translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>CPU expert GB/s</source>
        <translation>CPU 专家 GB/s</translation>
    </message>
    <message>
        <source>CPU experts</source>
        <translation>CPU 专家</translation>
    </message>
    <message>
        <source>KV cache positions</source>
        <translation>KV 缓存位置</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Hit rate per layer</source>
        <translation>各层命中率</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>%1 层</translation>
    </message>
    <message>
        <source>Cold (misses)</source>
        <translation>冷（未命中）</translation>
    </message>
    <message>
        <source>Hot (hits)</source>
        <translation>热（命中）</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Expert weights the CPU engine reads from RAM per second (it computes every expert); 0 while idle.</source>
        <translation>CPU 引擎每秒从内存读取的专家权重（它计算所有专家）；空闲时为 0。</translation>
    </message>
    <message>
        <source>Expert weights the CPU reads per second for the misses it computes; 0 while idle.</source>
        <translation>CPU 为其计算的未命中专家每秒读取的权重；空闲时为 0。</translation>
    </message>
    <message>
        <source>The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart.</source>
        <translation>服务器没有 GPU：它在 CPU 上运行模型，因此没有可绘制的显存或 PCIe 流量。</translation>
    </message>
    <message>
        <source>No expert cache on the server: every expert is resident in its VRAM.</source>
        <translation>服务器没有专家缓存：所有专家都常驻在它的显存中。</translation>
    </message>
    <message>
        <source>No expert cache on the server: its CPU engine computes every expert from its RAM.</source>
        <translation>服务器没有专家缓存：它的 CPU 引擎直接从它的内存计算所有专家。</translation>
    </message>
</context>
<context>
    <name>ConsoleModelCard</name>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分钟</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>加载中</translation>
    </message>
    <message>
        <source>Running · %1</source>
        <translation>运行中 · %1</translation>
    </message>
    <message>
        <source>Idle · up %1</source>
        <translation>空闲 · 已运行 %1</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>%1 experts × %2 layers</source>
        <translation>%1 个专家 × %2 层</translation>
    </message>
    <message>
        <source>ctx %1</source>
        <translation>上下文 %1</translation>
    </message>
    <message>
        <source>backend %1</source>
        <translation>后端 %1</translation>
    </message>
    <message>
        <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
        <translation>请从“模型”页面加载模型。运行时，这里会显示速度、专家缓存和 PCIe 数据。</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>首词元延迟</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Unload the model</source>
        <translation>卸载模型</translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation>前往模型</translation>
    </message>
    <message>
        <source>&lt; 1 min</source>
        <translation>不到 1 分钟</translation>
    </message>
</context>
<context>
    <name>ConsolePage</name>
    <message>
        <source>Console</source>
        <translation>控制台</translation>
    </message>
    <message>
        <source>%1 · up %2 · %3 requests total</source>
        <translation>%1 · 已运行 %2 · 共 %3 个请求</translation>
    </message>
    <message>
        <source>No model loaded · hardware figures are live</source>
        <translation>未加载模型 · 硬件数据实时更新</translation>
    </message>
    <message>
        <source>1 min</source>
        <translation>1 分钟</translation>
    </message>
    <message>
        <source>5 min</source>
        <translation>5 分钟</translation>
    </message>
    <message>
        <source>15 min</source>
        <translation>15 分钟</translation>
    </message>
    <message>
        <source>Live · 8 Hz</source>
        <translation>实时 · 8 Hz</translation>
    </message>
    <message>
        <source>Live · %1 s</source>
        <translation>实时 · %1 秒</translation>
    </message>
    <message>
        <source>Bandwidth profile: B_P %1 GB/s (PCIe expert fetches) · B_C %2 GB/s (CPU expert kernel) · q* fetches %3 % of the misses</source>
        <translation>带宽配置：B_P %1 GB/s（PCIe 专家拉取）· B_C %2 GB/s（CPU 专家内核）· q* 拉取 %3 % 的未命中</translation>
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
        <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
        <translation>没有 CUDA GPU：%1。所有计算由 CPU 完成，速度较慢。</translation>
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
        <source>%1 of it is the model file, mapped into memory: the experts live here and are read from it.</source>
        <translation>其中 %1 是映射到内存中的模型文件：专家权重存放在这里，也从这里读取。</translation>
    </message>
</context>
<context>
    <name>DeleteChatDialog</name>
    <message>
        <source>Delete “%1”?</source>
        <translation>删除“%1”？</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>The conversation and all its messages are removed from this PC. This cannot be undone.</source>
        <translation>该对话及其所有消息将从这台电脑上删除。此操作无法撤销。</translation>
    </message>
</context>
<context>
    <name>DownloadDialog</name>
    <message>
        <source>Download from Hugging Face</source>
        <translation>从 Hugging Face 下载</translation>
    </message>
    <message>
        <source>Enter a repository (owner/name) or paste its address from huggingface.co.</source>
        <translation>输入仓库（所有者/名称），或粘贴它在 huggingface.co 上的地址。</translation>
    </message>
    <message>
        <source>for example Qwen/Qwen3-30B-A3B-GGUF</source>
        <translation>例如 Qwen/Qwen3-30B-A3B-GGUF</translation>
    </message>
    <message>
        <source>List files</source>
        <translation>列出文件</translation>
    </message>
    <message>
        <source>From %1</source>
        <translation>来源：%1</translation>
    </message>
    <message numerus="yes">
        <source>Whole repository (safetensors, %n file(s))</source>
        <translation>
            <numerusform>整个仓库（safetensors，%n 个文件）</numerusform>
        </translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分钟</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下载</translation>
    </message>
    <message>
        <source>Checking sha256…</source>
        <translation>正在校验 sha256…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Done: added to the library</source>
        <translation>完成：已加入模型库</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>file %1 of %2</source>
        <translation>第 %1 个文件，共 %2 个</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Remove from this list</source>
        <translation>从此列表中移除</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/秒</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>剩余 %1</translation>
    </message>
</context>
<context>
    <name>EditMessageDialog</name>
    <message>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>重新发送</translation>
    </message>
    <message>
        <source>The replies after this message are replaced by a new one.</source>
        <translation>此消息之后的回复将被新的回复替换。</translation>
    </message>
</context>
<context>
    <name>EngineText</name>
    <message>
        <source>%1 is damaged or incomplete (%2): download or convert it again</source>
        <translation>%1 已损坏或不完整（%2）：请重新下载或转换</translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file (it starts with &quot;%2&quot;): choose a .gguf file or a Hugging Face folder of safetensors</source>
        <translation>%1 不是 GGUF 模型文件（以“%2”开头）：请选择 .gguf 文件或包含 safetensors 的 Hugging Face 文件夹</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>没有已加载的模型。</translation>
    </message>
    <message>
        <source>A KV cache of 0 positions cannot serve.</source>
        <translation>0 个位置的 KV 缓存无法提供服务。</translation>
    </message>
    <message>
        <source>%1 KV positions are less than one %2-token context.</source>
        <translation>%1 个 KV 位置少于一个 %2 token 的上下文。</translation>
    </message>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation>%1 个 KV 位置超过了此方案允许的 %2 个。</translation>
    </message>
    <message>
        <source>%1 KV positions are fewer than the %2 the running requests hold.</source>
        <translation>%1 个 KV 位置少于正在运行的请求占用的 %2 个。</translation>
    </message>
    <message>
        <source>The CPU engine has no expert cache to resize.</source>
        <translation>CPU 引擎没有可调整大小的专家缓存。</translation>
    </message>
    <message>
        <source>The %1 backend&apos;s expert cache cannot be resized.</source>
        <translation>%1 后端的专家缓存无法调整大小。</translation>
    </message>
    <message>
        <source>%1 expert slots are fewer than one layer&apos;s %2 experts.</source>
        <translation>%1 个专家槽少于一层的 %2 个专家。</translation>
    </message>
    <message>
        <source>%1 expert slots are more than the model&apos;s %2 experts.</source>
        <translation>%1 个专家槽多于模型的 %2 个专家。</translation>
    </message>
    <message>
        <source>%1 expert slots (%2) and %3 KV positions (%4) need %5 with the rest of the plan; the budget is %6.</source>
        <translation>%1 个专家槽（%2）和 %3 个 KV 位置（%4）加上方案的其余部分需要 %5；预算为 %6。</translation>
    </message>
    <message>
        <source>The rebuild failed and was undone: %1</source>
        <translation>重建失败，已撤销：%1</translation>
    </message>
    <message>
        <source>this build has no CUDA support</source>
        <translation>此版本不支持 CUDA</translation>
    </message>
    <message>
        <source>no NVIDIA GPU found</source>
        <translation>未找到 NVIDIA GPU</translation>
    </message>
    <message>
        <source>no NVIDIA driver found (install the NVIDIA driver to use the GPU)</source>
        <translation>未找到 NVIDIA 驱动（要使用 GPU，请安装 NVIDIA 驱动）</translation>
    </message>
    <message>
        <source>the NVIDIA driver supports CUDA %1, older than this build&apos;s CUDA %2 (update the NVIDIA driver to use the GPU)</source>
        <translation>NVIDIA 驱动支持的 CUDA %1 早于此版本的 CUDA %2（要使用 GPU，请更新 NVIDIA 驱动）</translation>
    </message>
    <message>
        <source>CUDA is not usable: %1</source>
        <translation>CUDA 不可用：%1</translation>
    </message>
    <message>
        <source>CPU (%1 threads)</source>
        <translation>CPU（%1 线程）</translation>
    </message>
    <message>
        <source>%1 is not there any more: it was moved or deleted. Add it again from its new place.</source>
        <translation>%1 已不在原处：它被移动或删除了。请从新的位置重新添加。</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the model&apos;s context holds %2. Start a new chat or shorten the message, or load the model with a larger context.</source>
        <translation>提示有 %1 个词元，而模型的上下文只能容纳 %2 个。请开始新的聊天或缩短消息，或以更大的上下文加载模型。</translation>
    </message>
    <message>
        <source>%1 is incomplete: it has %2, but its contents need at least %3. The download or conversion stopped early: download or convert it again.</source>
        <translation>%1 不完整：它只有 %2，但其内容至少需要 %3。下载或转换中途停止了：请重新下载或转换。</translation>
    </message>
    <message>
        <source>%1 is empty: download or convert it again.</source>
        <translation>%1 是空文件：请重新下载或转换。</translation>
    </message>
    <message>
        <source>%1 is a big-endian GGUF file; this PC reads little-endian ones. Convert the model again for this PC.</source>
        <translation>%1 是大端序 GGUF 文件；本机读取小端序文件。请为本机重新转换模型。</translation>
    </message>
    <message>
        <source>%1 is a GGUF file of version 1, which is no longer read. Convert the model again with a current llama.cpp.</source>
        <translation>%1 是版本 1 的 GGUF 文件，已不再支持读取。请用最新的 llama.cpp 重新转换模型。</translation>
    </message>
    <message>
        <source>%1 has GGUF version %2, which this version of FreeToken does not know (versions 2 and 3 are read). The file is newer than this program, or damaged.</source>
        <translation>%1 的 GGUF 版本为 %2，此版本的 FreeToken 不认识（可读取版本 2 和 3）。该文件比本程序新，或已损坏。</translation>
    </message>
    <message>
        <source>%1: the tensor %2 uses a quantization this version of FreeToken does not know (type %3). Use another quantization of the model.</source>
        <translation>%1：张量 %2 使用了此版本的 FreeToken 不认识的量化方式（类型 %3）。请使用该模型的其他量化版本。</translation>
    </message>
    <message>
        <source>%1: the architecture &quot;%2&quot; does not run in this version of FreeToken. Supported: %3.</source>
        <translation>%1：架构“%2”无法在此版本的 FreeToken 中运行。支持的架构：%3。</translation>
    </message>
    <message>
        <source>The architecture %1 is recognised, but it does not run in this version of FreeToken yet. Supported: %2.</source>
        <translation>已识别架构 %1，但此版本的 FreeToken 尚不能运行它。支持的架构：%2。</translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot compute with yet. Use another quantization or a GGUF file of the model.</source>
        <translation>%1：张量 %2 以 %3 格式存储，FreeToken 尚不能用它计算。请使用该模型的其他量化版本或 GGUF 文件。</translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has no scale tensor %3. The checkpoint is incomplete: download it again.</source>
        <translation>%1：量化张量 %2 缺少缩放张量 %3。检查点不完整：请重新下载。</translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 has shape %3, but its weight needs %4. The checkpoint is damaged: download it again.</source>
        <translation>%1：缩放张量 %2 的形状为 %3，但其权重需要 %4。检查点已损坏：请重新下载。</translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 is %3; FreeToken expects %4. The checkpoint is damaged: download it again.</source>
        <translation>%1：缩放张量 %2 的类型为 %3，FreeToken 需要 %4。检查点已损坏：请重新下载。</translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has shape %3, where a matrix was expected. The checkpoint is damaged: download it again.</source>
        <translation>%1：量化张量 %2 的形状为 %3，应为矩阵。检查点已损坏：请重新下载。</translation>
    </message>
    <message>
        <source>%1: the %3 tensor %2 has rows of %4 values; FreeToken keeps %3 rows in blocks of %5 values, so it cannot read this tensor. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation>%1：%3 张量 %2 的每行有 %4 个值；FreeToken 以每块 %5 个值的方式存放 %3 行，因此无法读取该张量。请使用该模型的 BF16 版本或 GGUF 文件。</translation>
    </message>
    <message>
        <source>%1: the FP8 tensor %2 has scale blocks %3 columns wide; FreeToken reads blocks whose width is a multiple of 32. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation>%1：FP8 张量 %2 的缩放块宽 %3 列；FreeToken 只读取宽度为 32 的倍数的块。请使用该模型的 BF16 版本或 GGUF 文件。</translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot read yet. Use the model&apos;s NVFP4, FP8 or BF16 release, or a GGUF file.</source>
        <translation>%1：张量 %2 以 %3 格式存储，FreeToken 尚不能读取。请使用该模型的 NVFP4、FP8 或 BF16 版本，或 GGUF 文件。</translation>
    </message>
    <message>
        <source>%1: quantization_config.weight_block_size must be two positive integers, not %2. The config.json is damaged: download it again.</source>
        <translation>%1：quantization_config.weight_block_size 必须是两个正整数，而不是 %2。config.json 已损坏：请重新下载。</translation>
    </message>
    <message>
        <source>%1: quantization_config is not an object. The config.json is damaged: download it again.</source>
        <translation>%1：quantization_config 不是对象。config.json 已损坏：请重新下载。</translation>
    </message>
    <message>
        <source>%1: config.json says rotary_dim %2, but partial_rotary_factor %3 of the head size %4 rotates %5 dimensions. The config.json is damaged or was edited: download it again.</source>
        <translation>%1：config.json 中 rotary_dim 为 %2，但按 partial_rotary_factor %3 和头大小 %4 计算，每个头旋转 %5 维。config.json 已损坏或被修改：请重新下载。</translation>
    </message>
    <message>
        <source>%1: partial_rotary_factor rotates %2 dimensions of each head; it must be an even number above 0. The config.json is damaged or was edited: download it again.</source>
        <translation>%1：按 partial_rotary_factor 计算，每个头旋转 %2 维；该值必须是大于 0 的偶数。config.json 已损坏或被修改：请重新下载。</translation>
    </message>
    <message>
        <source>%1 of video memory is too little for this model with the %2 backend: it needs at least %3. It runs on the CPU instead; close programs that use the GPU to free video memory.</source>
        <translation>%1 显存不足以用 %2 后端运行此模型：至少需要 %3。它将改在 CPU 上运行；关闭占用 GPU 的程序可释放显存。</translation>
    </message>
    <message>
        <source>The video memory left for the KV cache holds %1 positions, less than one %2-token context; it needs at least %3 of video memory.</source>
        <translation>留给 KV 缓存的显存只能容纳 %1 个位置，少于一个 %2 词元的上下文；至少需要 %3 显存。</translation>
    </message>
    <message>
        <source>%1 KV positions need %2; the video memory budget leaves %3 for them.</source>
        <translation>%1 个 KV 位置需要 %2；显存预算只为其留出 %3。</translation>
    </message>
    <message>
        <source>%1 expert slots need %2; the video memory budget leaves %3 for them.</source>
        <translation>%1 个专家槽需要 %2；显存预算只为其留出 %3。</translation>
    </message>
    <message>
        <source>no usable GPU: it runs on the CPU</source>
        <translation>没有可用的 GPU：在 CPU 上运行</translation>
    </message>
    <message>
        <source>The weights need about %1 of RAM; this PC has %2.</source>
        <translation>权重约需 %1 内存；本机有 %2。</translation>
    </message>
    <message>
        <source>the server&apos;s name was not found</source>
        <translation>找不到服务器名称</translation>
    </message>
    <message>
        <source>the server refused the connection</source>
        <translation>服务器拒绝了连接</translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation>服务器关闭了连接</translation>
    </message>
    <message>
        <source>the server did not answer in time</source>
        <translation>服务器未及时响应</translation>
    </message>
    <message>
        <source>the secure connection could not be set up</source>
        <translation>无法建立安全连接</translation>
    </message>
    <message>
        <source>the network is down</source>
        <translation>网络已断开</translation>
    </message>
    <message>
        <source>the proxy cannot be reached</source>
        <translation>无法连接代理</translation>
    </message>
    <message>
        <source>No usable GPU: %1. Load the model on the CPU instead.</source>
        <translation>没有可用的 GPU：%1。请改为在 CPU 上加载模型。</translation>
    </message>
    <message>
        <source>The GPU ran out of video memory (%1). Use a smaller context, fewer parallel requests or a smaller model, or close programs that use the GPU.</source>
        <translation>GPU 显存不足（%1）。请使用更小的上下文、更少的并行请求或更小的模型，或关闭正在使用 GPU 的程序。</translation>
    </message>
    <message>
        <source>%1 (compute capability %2) is not among the GPUs this build of FreeToken was made for (%3 failed). Load the model on the CPU, or use a build for this GPU.</source>
        <translation>%1（计算能力 %2）不在此 FreeToken 版本所支持的 GPU 之列（%3 失败）。请在 CPU 上加载模型，或使用适用于此 GPU 的版本。</translation>
    </message>
    <message>
        <source>The GPU reported an error in %1: %2 (%3).</source>
        <translation>GPU 在 %1 中报告了错误：%2（%3）。</translation>
    </message>
    <message>
        <source>cuBLAS, the GPU&apos;s matrix library, failed in %1 (status %2). Update the NVIDIA driver, or load the model on the CPU.</source>
        <translation>GPU 矩阵库 cuBLAS 在 %1 中失败（状态 %2）。请更新 NVIDIA 驱动程序，或在 CPU 上加载模型。</translation>
    </message>
    <message>
        <source>The sampling setting %1 must lie in %2.</source>
        <translation>采样参数 %1 的值必须在 %2 范围内。</translation>
    </message>
    <message>
        <source>The sampling setting %1 must be %2.</source>
        <translation>采样参数 %1 的值必须满足 %2。</translation>
    </message>
    <message>
        <source>The request&apos;s %1 is %3; the server takes values in %2.</source>
        <translation>请求中的 %1 为 %3；服务器只接受 %2 范围内的值。</translation>
    </message>
    <message>
        <source>The server has no model named “%1”; it serves “%2”.</source>
        <translation>服务器上没有名为“%1”的模型；它提供的是“%2”。</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the server&apos;s model holds %2. Start a new chat or shorten the message, or restart the server with a larger context.</source>
        <translation>提示有 %1 个词元，而服务器模型的上下文只能容纳 %2 个。请开始新的聊天或缩短消息，或以更大的上下文重新启动服务器。</translation>
    </message>
    <message>
        <source>the API key is missing or wrong</source>
        <translation>API 密钥缺失或错误</translation>
    </message>
    <message>
        <source>The server is busy: %1 requests are already running or waiting. Try again shortly.</source>
        <translation>服务器繁忙：已有 %1 个请求正在运行或等待。请稍后重试。</translation>
    </message>
    <message>
        <source>The server is shutting down.</source>
        <translation>服务器正在关闭。</translation>
    </message>
    <message>
        <source>The request is larger than the server accepts.</source>
        <translation>请求超出了服务器接受的大小。</translation>
    </message>
</context>
<context>
    <name>FaultBanner</name>
    <message>
        <source>The engine stopped with an error</source>
        <translation>引擎因错误而停止</translation>
    </message>
    <message>
        <source>Restart engine</source>
        <translation>重启引擎</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
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
    <message>
        <source>FreeToken Desktop — API server on %1</source>
        <translation>FreeToken Desktop — API 服务器 %1</translation>
    </message>
</context>
<context>
    <name>ModelRow</name>
    <message>
        <source>Runs on the GPU</source>
        <translation>在 GPU 上运行</translation>
    </message>
    <message>
        <source>Hybrid GPU + CPU</source>
        <translation>GPU + CPU 混合</translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <source>Does not fit in RAM</source>
        <translation>内存放不下</translation>
    </message>
    <message>
        <source>%1 · ≈ %2–%3 tok/s</source>
        <translation>%1 · 约 %2–%3 tok/s</translation>
    </message>
    <message>
        <source>Not supported yet</source>
        <translation>暂不支持</translation>
    </message>
    <message>
        <source>Cannot be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>%1 parameters, %2 active</source>
        <translation>%1 参数，%2 激活</translation>
    </message>
    <message numerus="yes">
        <source>%n part(s)</source>
        <translation>
            <numerusform>%n 个分卷</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — %2 of %3</source>
        <translation>%1 — %2 / %3</translation>
    </message>
    <message>
        <source>Added %1</source>
        <translation>添加于 %1</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <source>Remove from the library</source>
        <translation>从模型库中移除</translation>
    </message>
    <message>
        <source>Demo</source>
        <translation>演示</translation>
    </message>
    <message>
        <source>The small demo model that comes with FreeToken, for trying the app. Download a real model for real work.</source>
        <translation>FreeToken 自带的小型演示模型，用于试用本应用。实际使用请下载真正的模型。</translation>
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
        <source>Download…</source>
        <translation>下载…</translation>
    </message>
    <message>
        <source>Scan models folder</source>
        <translation>扫描模型文件夹</translation>
    </message>
    <message>
        <source>Add every model in %1</source>
        <translation>添加 %1 中的所有模型</translation>
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
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Add a model to start</source>
        <translation>添加模型即可开始</translation>
    </message>
    <message>
        <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded (or drop it here); it is used where it is, nothing is copied.</source>
        <translation>FreeToken 在这台电脑上运行混合专家（MoE）模型：专家权重留在系统内存中，GPU 只保留最常用的那些。添加已下载的模型（或拖放到这里）；模型就地使用，不会复制。</translation>
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
        <source>Drop a .gguf file or a model folder to add it</source>
        <translation>拖放 .gguf 文件或模型文件夹即可添加</translation>
    </message>
    <message>
        <source>Add a server…</source>
        <translation>添加服务器…</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>%1 s ago</source>
        <translation>%1 秒前</translation>
    </message>
    <message>
        <source>%1 min ago</source>
        <translation>%1 分钟前</translation>
    </message>
</context>
<context>
    <name>RemoteConsoleCard</name>
    <message>
        <source>%1 on %2</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>FreeToken server · live</source>
        <translation>FreeToken 服务器 · 实时</translation>
    </message>
    <message>
        <source>Other server</source>
        <translation>其他服务器</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>This server does not report its memory, GPU, cache or queue figures (only a FreeToken server does, through /v1/stats). Shown here is what this app measured on its last reply: time to first token and tokens per second, network included.</source>
        <translation>此服务器不报告内存、GPU、缓存或队列数据（只有 FreeToken 服务器通过 /v1/stats 报告）。这里显示的是本应用在上一条回复中自己测得的数据：首个令牌时间和每秒令牌数，均包含网络时间。</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>tok/s</translation>
    </message>
    <message>
        <source>Time to first token</source>
        <translation>首个令牌时间</translation>
    </message>
    <message>
        <source>prefill %1 tok/s</source>
        <translation>预填充 %1 tok/s</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>%1 queued · %2 served</source>
        <translation>排队 %1 · 已处理 %2</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>of %1; context %2</source>
        <translation>共 %1；上下文 %2</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>The server runs on its CPU</source>
        <translation>服务器在其 CPU 上运行</translation>
    </message>
    <message>
        <source>PCIe to GPU</source>
        <translation>到 GPU 的 PCIe</translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation>专家缓存命中率</translation>
    </message>
    <message>
        <source>No expert cache on this server</source>
        <translation>此服务器没有专家缓存</translation>
    </message>
    <message>
        <source>%1 slots</source>
        <translation>%1 个槽位</translation>
    </message>
    <message>
        <source>TTFT measured here</source>
        <translation>本机测得的 TTFT</translation>
    </message>
    <message>
        <source>Send a message to measure</source>
        <translation>发送一条消息即可测量</translation>
    </message>
    <message>
        <source>from sending to the first text, network included</source>
        <translation>从发送到收到第一段文本，包含网络时间</translation>
    </message>
    <message>
        <source>Speed of the last reply</source>
        <translation>上一条回复的速度</translation>
    </message>
    <message>
        <source>%1 tokens in the last reply</source>
        <translation>上一条回复 %1 个令牌</translation>
    </message>
    <message>
        <source>Its charts and cache sizes are below. Apply sends the sizes to the server (/v1/cache/rebuild, with this server&apos;s key), which rebuilds its caches or says why not.</source>
        <translation>其图表和缓存大小见下方。点“应用”会把大小发送给服务器（/v1/cache/rebuild，使用此服务器的密钥），服务器会重建缓存，或说明无法重建的原因。</translation>
    </message>
    <message>
        <source>The last reply arrived at once, too fast to time</source>
        <translation>上一条回复一次到达，快得无法计时</translation>
    </message>
</context>
<context>
    <name>RemoteServersCard</name>
    <message>
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Ask every server for its models again</source>
        <translation>重新向所有服务器获取模型列表</translation>
    </message>
    <message>
        <source>FreeToken server</source>
        <translation>FreeToken 服务器</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>API key in the keychain</source>
        <translation>API 密钥在钥匙串中</translation>
    </message>
    <message>
        <source>Unencrypted</source>
        <translation>未加密</translation>
    </message>
    <message>
        <source>Remove this server (and its key) from the list</source>
        <translation>从列表中移除此服务器（及其密钥）</translation>
    </message>
    <message>
        <source>This server lists no model.</source>
        <translation>此服务器没有列出任何模型。</translation>
    </message>
    <message>
        <source>context %1 tokens</source>
        <translation>上下文 %1 个令牌</translation>
    </message>
    <message>
        <source>context not stated</source>
        <translation>未说明上下文长度</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>API key in a file</source>
        <translation>API 密钥在文件中</translation>
    </message>
    <message>
        <source>Reading the servers&apos; API keys from the system keychain… If it asks to be unlocked, unlock it.</source>
        <translation>正在从系统钥匙串读取服务器的 API 密钥… 如果它要求解锁，请解锁。</translation>
    </message>
</context>
<context>
    <name>RemoveModelDialog</name>
    <message>
        <source>Remove %1?</source>
        <translation>移除 %1？</translation>
    </message>
    <message>
        <source>The model leaves the library. Its files stay where they are unless you tick the box below.</source>
        <translation>模型将从模型库中移除。除非勾选下面的选项，否则文件会保留在原处。</translation>
    </message>
    <message>
        <source>Also delete the folder from the disk</source>
        <translation>同时从磁盘删除该文件夹</translation>
    </message>
    <message>
        <source>Also delete the file from the disk</source>
        <translation>同时从磁盘删除该文件</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Remove and delete</source>
        <translation>移除并删除</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
</context>
<context>
    <name>RenameChatDialog</name>
    <message>
        <source>Rename chat</source>
        <translation>重命名聊天</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Name of the chat</source>
        <translation>聊天名称</translation>
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
    <message>
        <source>Hugging Face</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>Downloads on the Models page. Gated and private models need an access token (huggingface.co → Settings → Access Tokens, read access).</source>
        <translation>用于模型页面的下载。受限模型和私有模型需要访问令牌（huggingface.co → Settings → Access Tokens，读取权限）。</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>访问令牌</translation>
    </message>
    <message>
        <source>hf_… (optional)</source>
        <translation>hf_…（可选）</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Enter an http:// or https:// address, or leave it empty for huggingface.co.</source>
        <translation>请输入 http:// 或 https:// 地址；留空则使用 huggingface.co。</translation>
    </message>
    <message>
        <source>Set by FT_HF_ENDPOINT in the environment.</source>
        <translation>由环境变量 FT_HF_ENDPOINT 设置。</translation>
    </message>
    <message>
        <source>Serves the loaded model to OpenAI and Anthropic clients and coding agents on this PC (127.0.0.1 only).</source>
        <translation>在本机为 OpenAI、Anthropic 客户端和编程智能体提供已加载的模型（仅限 127.0.0.1）。</translation>
    </message>
    <message>
        <source>Serve the loaded model</source>
        <translation>提供已加载的模型</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Waiting for a model</source>
        <translation>等待模型</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Enter a port from 1 to 65535.</source>
        <translation>请输入 1 到 65535 之间的端口。</translation>
    </message>
    <message>
        <source>OpenAI clients</source>
        <translation>OpenAI 客户端</translation>
    </message>
    <message>
        <source>Claude Code</source>
        <translation>Claude Code</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>New chats</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>What a new chat starts with. Each chat keeps its own copy: change one chat with Chat settings on the Chat page.</source>
        <translation>新对话开始时使用的设置。每个对话保留自己的副本：要修改某个对话，请使用对话页面上的“对话设置”。</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation>助手应如何表现（可选）</translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation>温度（0–2）</translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation>Top-p（0–1）</translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation>每条回复的最大词元数</translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation>种子（0：随机）</translation>
    </message>
    <message>
        <source>Startup</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Load the last model when FreeToken starts (if it is still in the library)</source>
        <translation>FreeToken 启动时加载上次的模型（如果它仍在模型库中）</translation>
    </message>
    <message>
        <source>Use the sampling the loaded model recommends (temperature, top-p, top-k) where its file names one</source>
        <translation>如果已加载模型的文件给出了推荐的采样参数（温度、top-p、top-k），就使用它们</translation>
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
    <message>
        <source>API server: %1</source>
        <translation>API 服务器：%1</translation>
    </message>
    <message>
        <source>API server: waiting for a model</source>
        <translation>API 服务器：等待模型</translation>
    </message>
    <message>
        <source>API server: not running</source>
        <translation>API 服务器：未运行</translation>
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
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome to FreeToken</source>
        <translation>欢迎使用 FreeToken</translation>
    </message>
    <message>
        <source>The demo model is tiny and made only for trying the app: chat, the Console and the API server all work with it, but its answers are not useful. It is marked Demo on the Models page.</source>
        <translation>演示模型非常小，仅供试用本应用：聊天、控制台和 API 服务器都能使用它，但它的回答没有实际用处。它在“模型”页面上标为“演示”。</translation>
    </message>
    <message>
        <source>Loading the demo model: %1</source>
        <translation>正在加载演示模型：%1</translation>
    </message>
    <message>
        <source>The demo model is loaded and ready.</source>
        <translation>演示模型已加载，可以使用。</translation>
    </message>
    <message>
        <source>The demo model could not be loaded: %1</source>
        <translation>无法加载演示模型：%1</translation>
    </message>
    <message>
        <source>CPU-only mode: %1.</source>
        <translation>仅 CPU 模式：%1。</translation>
    </message>
    <message>
        <source>For real work, download a model on the Models page: a Qwen3-30B-A3B GGUF runs on an 8 GB GPU.</source>
        <translation>实际使用请在“模型”页面下载模型：Qwen3-30B-A3B GGUF 可在 8 GB 显存的 GPU 上运行。</translation>
    </message>
    <message>
        <source>Go to Models and download a real model</source>
        <translation>前往“模型”页面下载真正的模型</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Try it in Chat</source>
        <translation>在聊天中试用</translation>
    </message>
    <message>
        <source>FreeToken runs large Mixture-of-Experts models on this PC. So that you can try it right away, it has added a small demo model to your library.</source>
        <translation>FreeToken 在这台电脑上运行大型混合专家（MoE）模型。为了让你马上试用，它已把一个小型演示模型加入你的模型库。</translation>
    </message>
</context>
<context>
    <name>ft::ApiServerHost</name>
    <message>
        <source>The server could not start: %1</source>
        <translation>服务器无法启动：%1</translation>
    </message>
    <message>
        <source>Port %1 is in use by another program (another FreeToken or ft serve?): choose another port here, or stop that program.</source>
        <translation>端口 %1 正被其他程序（另一个 FreeToken 或 ft serve？）占用：请在此选择其他端口，或关闭该程序。</translation>
    </message>
</context>
<context>
    <name>ft::EngineHost</name>
    <message>
        <source>No model path was given. Choose a .gguf file or a model folder on the Models page.</source>
        <translation>未指定模型路径。请在“模型”页面选择 .gguf 文件或模型文件夹。</translation>
    </message>
    <message>
        <source>Loading was cancelled.</source>
        <translation>加载已取消。</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>无法加载 %1：%2</translation>
    </message>
    <message>
        <source>The engine could not be restarted: %1</source>
        <translation>无法重新启动引擎：%1</translation>
    </message>
    <message>
        <source>The model is still loading; wait until it is ready.</source>
        <translation>模型仍在加载，请等待其就绪。</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page first.</source>
        <translation>未加载模型。请先在“模型”页面加载一个模型。</translation>
    </message>
    <message>
        <source>The engine refused the request: %1</source>
        <translation>引擎拒绝了请求：%1</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>回复失败：%1</translation>
    </message>
    <message>
        <source>Opening the file</source>
        <translation>正在打开文件</translation>
    </message>
    <message>
        <source>Mapping the weights</source>
        <translation>正在映射权重</translation>
    </message>
    <message>
        <source>Reading the tokenizer</source>
        <translation>正在读取分词器</translation>
    </message>
    <message>
        <source>Measuring PCIe and CPU bandwidth (once for this GPU)</source>
        <translation>正在测量 PCIe 和 CPU 带宽（此 GPU 仅一次）</translation>
    </message>
    <message>
        <source>Uploading the weights</source>
        <translation>正在上传权重</translation>
    </message>
    <message>
        <source>Allocating the KV cache</source>
        <translation>正在分配 KV 缓存</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
</context>
<context>
    <name>ft::RemoteClient</name>
    <message>
        <source>The server at %1 did not pass the TLS check (%2). FreeToken verifies certificates: give the server a certificate this system trusts, or add its certificate authority to the system&apos;s store.</source>
        <translation>%1 的服务器未通过 TLS 检查（%2）。FreeToken 会验证证书：请为服务器配置本系统信任的证书，或将其证书颁发机构添加到系统证书库。</translation>
    </message>
    <message>
        <source>Cannot reach the server at %1 (%2). Check the address and port, and that the server is running.</source>
        <translation>无法连接 %1 的服务器（%2）。请检查地址和端口，并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>The server at %1 refused the API key (HTTP %2: %3). Check the key, then add the server again with the right one.</source>
        <translation>%1 的服务器拒绝了 API 密钥（HTTP %2：%3）。请检查密钥，然后用正确的密钥重新添加服务器。</translation>
    </message>
    <message>
        <source>The server at %1 has no %2 (HTTP %3). Is this the base URL of an OpenAI-compatible server? Give it without the path, e.g. http://192.168.1.20:8000.</source>
        <translation>%1 的服务器没有 %2（HTTP %3）。这是兼容 OpenAI 的服务器的基础 URL 吗？请不带路径填写，例如 http://192.168.1.20:8000。</translation>
    </message>
    <message>
        <source>The server at %1 answered %2 with HTTP %3: %4</source>
        <translation>%1 的服务器对 %2 返回了 HTTP %3：%4</translation>
    </message>
    <message>
        <source>The connection to the server at %1 failed (%2). Check the address and that the server is running.</source>
        <translation>与 %1 的服务器连接失败（%2）。请检查地址，并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>The server at %1 answered %2, but not with the JSON an OpenAI-compatible server sends (%3: “%4”). Is this the right address?</source>
        <translation>%1 的服务器响应了 %2，但返回的不是兼容 OpenAI 的服务器会发送的 JSON（%3：“%4”）。地址正确吗？</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>无内容类型</translation>
    </message>
    <message>
        <source>The server at %1 stopped the reply with an error: %2</source>
        <translation>%1 的服务器因错误停止了回复：%2</translation>
    </message>
    <message>
        <source>The server at %1 closed the connection before the reply finished (%2). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation>%1 的服务器在回复结束前关闭了连接（%2）。已收到的文本会保留；请检查服务器，然后点击重新生成。</translation>
    </message>
    <message>
        <source>The server at %1 ended the reply without finishing it (no finish reason, no [DONE]). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation>%1 的服务器未完成就结束了回复（没有结束原因，也没有 [DONE]）。已收到的文本会保留；请检查服务器，然后点击重新生成。</translation>
    </message>
    <message>
        <source>the server says: “%1”</source>
        <translation>服务器的原话：“%1”</translation>
    </message>
</context>
<context>
    <name>ft::app::SingleInstance</name>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds.</source>
        <translation>FreeToken 已在运行，但在 %1 秒内没有响应。</translation>
    </message>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds, so it did not open %2.</source>
        <translation>FreeToken 已在运行，但在 %1 秒内没有响应，因此没有打开 %2。</translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end freetoken.exe in the Task Manager (Ctrl+Shift+Esc, Details). Then start FreeToken again.</source>
        <translation>请关闭已打开的 FreeToken 窗口。如果看不到窗口，请在任务管理器（Ctrl+Shift+Esc，“详细信息”）中结束 freetoken.exe。然后重新启动 FreeToken。</translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end the freetoken process (for example with the system monitor, or pkill -x freetoken). Then start FreeToken again.</source>
        <translation>请关闭已打开的 FreeToken 窗口。如果看不到窗口，请结束 freetoken 进程（例如用系统监视器，或 pkill -x freetoken）。然后重新启动 FreeToken。</translation>
    </message>
</context>
<context>
    <name>ft::ui::ChatSession</name>
    <message>
        <source>New chat</source>
        <translation>新聊天</translation>
    </message>
    <message>
        <source>The chat history cannot be opened: %1</source>
        <translation>无法打开聊天记录：%1</translation>
    </message>
    <message>
        <source>The chat history cannot be read: %1</source>
        <translation>无法读取聊天记录：%1</translation>
    </message>
    <message>
        <source>That conversation no longer exists.</source>
        <translation>该对话已不存在。</translation>
    </message>
    <message>
        <source>The conversation cannot be opened: %1</source>
        <translation>无法打开对话：%1</translation>
    </message>
    <message>
        <source>A conversation needs a name. Type one, or press Cancel.</source>
        <translation>对话需要一个名称。请输入名称，或点击取消。</translation>
    </message>
    <message>
        <source>The conversation cannot be renamed: %1</source>
        <translation>无法重命名对话：%1</translation>
    </message>
    <message>
        <source>The conversation cannot be deleted: %1</source>
        <translation>无法删除对话：%1</translation>
    </message>
    <message>
        <source>Temperature must be between 0 and 2 (0 always picks the most likely token).</source>
        <translation>温度必须在 0 到 2 之间（0 表示总是选择可能性最大的词元）。</translation>
    </message>
    <message>
        <source>Top-p must be above 0 and at most 1 (1 turns it off).</source>
        <translation>Top-p 必须大于 0 且不超过 1（1 表示关闭）。</translation>
    </message>
    <message>
        <source>Max tokens must be between 1 and 1048576.</source>
        <translation>最大词元数必须在 1 到 1048576 之间。</translation>
    </message>
    <message>
        <source>The seed must be 0 (a new random seed each reply) or a positive number.</source>
        <translation>种子必须为 0（每条回复使用新的随机种子）或正数。</translation>
    </message>
    <message>
        <source>The chat settings cannot be saved: %1</source>
        <translation>无法保存聊天设置：%1</translation>
    </message>
    <message>
        <source>Wait for the reply to finish, or press Stop (Esc).</source>
        <translation>请等待回复完成，或点击停止（Esc）。</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then send your message again.</source>
        <translation>未加载模型。请在“模型”页面加载模型，然后重新发送消息。</translation>
    </message>
    <message>
        <source>Your message cannot be saved: %1</source>
        <translation>无法保存你的消息：%1</translation>
    </message>
    <message>
        <source>This model has no usable tokenizer, so it cannot chat. Choose another model.</source>
        <translation>此模型没有可用的分词器，无法聊天。请选择其他模型。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed on this conversation: %1</source>
        <translation>模型的聊天模板处理此对话时失败：%1</translation>
    </message>
    <message>
        <source>This conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Start a new chat (Ctrl+N), or load the model with a larger context.</source>
        <translation>此对话（%1 个词元）已超出模型 %2 个词元的上下文。请开始新聊天（Ctrl+N），或以更大的上下文加载模型。</translation>
    </message>
    <message>
        <source>The reply cannot be saved: %1</source>
        <translation>无法保存回复：%1</translation>
    </message>
    <message>
        <source>The engine did not accept the request.</source>
        <translation>引擎未接受该请求。</translation>
    </message>
    <message>
        <source>The reply cannot be saved as it streams: %1</source>
        <translation>无法在流式输出时保存回复：%1</translation>
    </message>
    <message>
        <source>There is no reply to regenerate yet: send a message first.</source>
        <translation>还没有可重新生成的回复：请先发送消息。</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then try again.</source>
        <translation>未加载模型。请在“模型”页面加载模型，然后重试。</translation>
    </message>
    <message>
        <source>The old reply cannot be replaced: %1</source>
        <translation>无法替换旧回复：%1</translation>
    </message>
    <message>
        <source>The edited message cannot be saved: %1</source>
        <translation>无法保存编辑后的消息：%1</translation>
    </message>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation>无法读取服务器列表：%1</translation>
    </message>
    <message>
        <source>The API key of %1 is in the system keychain (%2), which did not give it: %3. Unlock the keychain and press Regenerate, or add the server again with its key.</source>
        <translation>%1 的 API 密钥在系统钥匙串（%2）中，但钥匙串没有提供：%3。请解锁钥匙串并点击重新生成，或带上密钥重新添加该服务器。</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>top-p %1</source>
        <translation>top-p %1</translation>
    </message>
    <message>
        <source>top-k %1</source>
        <translation>top-k %1</translation>
    </message>
    <message>
        <source>The loaded model recommends %1.</source>
        <translation>已加载的模型推荐：%1。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>ft::ui::ConsoleModel</name>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation>%1 个 KV 位置超过了此计划允许的 %2 个。</translation>
    </message>
    <message>
        <source>The KV cache and the expert cache would need %1 MiB; the budget leaves %2 MiB for them.</source>
        <translation>KV 缓存和专家缓存需要 %1 MiB；预算只为它们留出 %2 MiB。</translation>
    </message>
</context>
<context>
    <name>ft::ui::DownloadListModel</name>
    <message>
        <source>&quot;%1&quot; is not a Hugging Face repository: enter owner/name (for example Qwen/Qwen3-30B-A3B-GGUF) or paste its address</source>
        <translation>“%1”不是 Hugging Face 仓库：请输入 所有者/名称（例如 Qwen/Qwen3-30B-A3B-GGUF），或粘贴它的地址</translation>
    </message>
    <message>
        <source>%1 was not found (HTTP 404): check the repository name and that the file still exists</source>
        <translation>找不到 %1（HTTP 404）：请检查仓库名称，并确认文件仍然存在</translation>
    </message>
    <message>
        <source>%1 is gated or private (HTTP %2): accept its licence on the Hugging Face website, then enter an access token in Settings</source>
        <translation>%1 是受限或私有仓库（HTTP %2）：请先在 Hugging Face 网站上接受其许可协议，然后在设置中填写访问令牌</translation>
    </message>
    <message>
        <source>The access token was refused for %1 (HTTP %2): check the token in Settings</source>
        <translation>%1 拒绝了访问令牌（HTTP %2）：请在设置中检查令牌</translation>
    </message>
    <message>
        <source>%1 failed: the server answered HTTP %2; try again later</source>
        <translation>%1 失败：服务器返回 HTTP %2；请稍后再试</translation>
    </message>
    <message>
        <source>The file list of %1 from %2 is not what the Hugging Face API returns: check the address in Settings</source>
        <translation>从 %2 获取的 %1 文件列表不是 Hugging Face API 的格式：请检查设置中的地址</translation>
    </message>
    <message>
        <source>%1 has no GGUF files and is not a safetensors model: pick another repository (GGUF repositories often end in -GGUF)</source>
        <translation>%1 没有 GGUF 文件，也不是 safetensors 模型：请换一个仓库（GGUF 仓库名通常以 -GGUF 结尾）</translation>
    </message>
    <message>
        <source>Not enough disk space: %1 more is needed, %2 is free on %3. Free some space, then resume</source>
        <translation>磁盘空间不足：还需要 %1，%3 上只剩 %2。请释放一些空间后继续下载</translation>
    </message>
    <message>
        <source>Cannot write %1 (%2): check the disk and the folder&apos;s permissions, then resume</source>
        <translation>无法写入 %1（%2）：请检查磁盘和文件夹权限，然后继续下载</translation>
    </message>
    <message>
        <source>%1 arrived corrupted (its sha256 does not match the Hub&apos;s). The damaged file was deleted: resume to download it again</source>
        <translation>%1 下载后已损坏（sha256 与 Hub 上的不一致）。损坏的文件已删除：点击继续即可重新下载</translation>
    </message>
    <message>
        <source>The server sent %1 with the wrong size: try again later</source>
        <translation>服务器发送的 %1 大小不对：请稍后再试</translation>
    </message>
    <message>
        <source>Downloaded, but the library refused %1: %2</source>
        <translation>已下载，但模型库拒绝了 %1：%2</translation>
    </message>
    <message>
        <source>Cannot download %1 (%2): check the network connection, then resume</source>
        <translation>无法下载 %1（%2）：请检查网络连接，然后继续下载</translation>
    </message>
    <message>
        <source>Cannot reach %1 (%2): check the network connection and the Hugging Face address in Settings, then try again</source>
        <translation>无法访问 %1（%2）：请检查网络连接和设置中的 Hugging Face 地址，然后重试</translation>
    </message>
</context>
<context>
    <name>ft::ui::ModelListModel</name>
    <message>
        <source>No models found in %1</source>
        <translation>在 %1 中没有找到模型</translation>
    </message>
    <message numerus="yes">
        <source>%n new model(s) added</source>
        <translation>
            <numerusform>已添加 %n 个新模型</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already in the library</source>
        <translation>
            <numerusform>%n 个已在模型库中</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) added</source>
        <translation>
            <numerusform>已添加 %n 个模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ft::ui::RemoteServerListModel</name>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation>无法读取服务器列表：%1</translation>
    </message>
    <message>
        <source>The Windows Credential Manager cannot be used (%1), so the API key is kept in %2, in your user profile, which other users of this PC cannot read.</source>
        <translation>无法使用 Windows 凭据管理器（%1），因此 API 密钥保存在你的用户配置文件中的 %2，此电脑的其他用户无法读取。</translation>
    </message>
    <message>
        <source>The system keychain cannot be used (%1), so the API key is kept in %2, a file only your user account can read (permissions 0600).</source>
        <translation>无法使用系统钥匙串（%1），因此 API 密钥保存在 %2，只有你的用户账户能读取此文件（权限 0600）。</translation>
    </message>
    <message>
        <source>%1 is plain http to another computer: your messages, the replies and the API key travel unencrypted, and anyone on the network path can read them. Use https if the server offers it. Add it anyway?</source>
        <translation>%1 是通往另一台计算机的未加密 http：你的消息、回复和 API 密钥都以明文传输，网络路径上的任何人都能读取。如果服务器提供 https，请使用 https。仍要添加吗？</translation>
    </message>
    <message>
        <source>A server is being checked; wait for it.</source>
        <translation>正在检查一个服务器，请稍候。</translation>
    </message>
    <message>
        <source>This address cannot be used: %1</source>
        <translation>无法使用此地址：%1</translation>
    </message>
    <message>
        <source>The API key has spaces or line breaks in it. Paste the key alone.</source>
        <translation>API 密钥中含有空格或换行。请只粘贴密钥本身。</translation>
    </message>
    <message>
        <source>The server cannot be saved: %1</source>
        <translation>无法保存服务器：%1</translation>
    </message>
    <message>
        <source>The server cannot be removed: %1</source>
        <translation>无法移除服务器：%1</translation>
    </message>
    <message>
        <source>this build of FreeToken has no keychain support</source>
        <translation>此 FreeToken 版本不支持钥匙串</translation>
    </message>
    <message>
        <source>turned off by FT_KEYCHAIN=off</source>
        <translation>已由 FT_KEYCHAIN=off 关闭</translation>
    </message>
    <message>
        <source>no D-Bus session bus is running</source>
        <translation>没有正在运行的 D-Bus 会话总线</translation>
    </message>
    <message>
        <source>no keychain service is running</source>
        <translation>没有正在运行的钥匙串服务</translation>
    </message>
    <message>
        <source>the keychain did not answer within %1 s</source>
        <translation>钥匙串在 %1 秒内没有响应</translation>
    </message>
    <message>
        <source>the keychain refused to store or give the key</source>
        <translation>钥匙串拒绝保存或提供该密钥</translation>
    </message>
    <message>
        <source>The API key is kept in the system keychain (%1), not in FreeToken&apos;s files.</source>
        <translation>API 密钥保存在系统钥匙串（%1）中，而不是 FreeToken 的文件里。</translation>
    </message>
    <message>
        <source>Its API key is in the system keychain (%1), which did not give it: %2. Unlock the keychain and press Refresh, or add the server again with its key.</source>
        <translation>它的 API 密钥在系统钥匙串（%1）中，但钥匙串没有提供：%2。请解锁钥匙串并点击刷新，或带上密钥重新添加该服务器。</translation>
    </message>
    <message>
        <source>Checking whether the system keychain can keep the API key…</source>
        <translation>正在检查系统钥匙串能否保存 API 密钥…</translation>
    </message>
</context>
</TS>
