<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AddServerDialog</name>
    <message>
        <source>Add a server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An OpenAI-compatible server: another PC running FreeToken (ft serve), vLLM, SGLang or llama.cpp&apos;s llama-server. Its models are listed beside your local ones; chatting with them loads nothing on this PC.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave empty if the server asks for none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use plain http to this server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asking the server for its models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving the server and its API key… If the system keychain asks to be unlocked, unlock it.</source>
        <translation>Saving the server and its API key… If the system keychain asks to be unlocked, unlock it.</translation>
    </message>
</context>
<context>
    <name>CacheConfigCard</name>
    <message>
        <source>%1K tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Minimum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent / long context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expert slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>≈ %1 tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cache config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MoE cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rebuilding…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not applied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Synced</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move VRAM between the KV cache and the expert cache while the model serves; click Apply to rebuild the caches.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Presets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Past the budget: the engine will refuse this size.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MoE expert cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert slots resident in VRAM · %1 across all MoE layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every expert is resident in VRAM: there is no expert cache to size.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The CPU engine reads every expert from host RAM: there is no expert cache to size, only the KV cache resizes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 % · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>≥ %1 enables prefill overlap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV + experts: %1 of %2 for the caches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (misses scale with the experts left out; each costs its bytes over B_P + B_C)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (the cache sizes do not change the CPU engine&apos;s speed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted decode: run a reply first, the prediction scales from measured speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rejected: %1 Nothing changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restored your last setting for this model: KV %1%2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 expert slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applied: KV %1%2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The least memory: the smallest KV cache.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One conversation&apos;s full context (%1 tokens).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most KV that keeps prefill overlapped: long contexts, several at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most KV the budget allows: long contexts, several conversations at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most experts in VRAM, the least KV: the fastest decode.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Presets · with no expert cache to size, they only set the KV cache: decode speed stays the same</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together. One conversation stops at the context, %1 tokens (set when the model loads): more KV serves more conversations at once, not longer ones.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one conversation ≤ %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatCodeBlock</name>
    <message>
        <source>code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatComposer</name>
    <message>
        <source>Message the model (Enter sends, Shift+Enter adds a line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A model must be loaded before you can chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatConversationList</name>
    <message>
        <source>New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No chat matches “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your conversations appear here.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatMessage</name>
    <message>
        <source>%1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the first token…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens · %2 tok/s · first token in %3 ms · prompt %4 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped before the end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit and resend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cut off at the token limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The reply reached its length limit: Max tokens in Chat settings, or the room left in the model&apos;s context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed: the server&apos;s own timing where it reports one (llama.cpp does), else measured here from the first token to the last, or from the request when the whole reply arrived at once.</source>
        <translation>Speed: the server&apos;s own timing where it reports one (llama.cpp does), else measured here from the first token to the last, or from the request when the whole reply arrived at once.</translation>
    </message>
    <message>
        <source>No speed: the whole reply arrived at once, too fast to time (under 20 ms from the request), and the server did not report its own timing.</source>
        <translation>No speed: the whole reply arrived at once, too fast to time (under 20 ms from the request), and the server did not report its own timing.</translation>
    </message>
    <message>
        <source>No speed: a reply of one token has no decoding time to measure.</source>
        <translation>No speed: a reply of one token has no decoding time to measure.</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model to chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start a conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a message below. Replies stream in as the model writes them and are saved as they arrive.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This chat uses %1 of the model&apos;s %2 context tokens. Near the limit replies get cut off: start a new chat (Ctrl+N).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit this chat&apos;s settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model: %1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the server&apos;s API key from the system keychain… If it asks to be unlocked, unlock it; Stop (Esc) gives up.</source>
        <translation>Reading the server&apos;s API key from the system keychain… If it asks to be unlocked, unlock it; Stop (Esc) gives up.</translation>
    </message>
</context>
<context>
    <name>ChatReasoning</name>
    <message>
        <source>Thinking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thought process</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This chat samples from the %1 likeliest tokens (top-k), as the model recommends.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConsoleCharts</name>
    <message>
        <source>No GPU: the CPU engine has no VRAM or PCIe traffic.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No expert cache: every expert is resident in VRAM.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No expert cache: the CPU engine computes every expert from host RAM.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Experts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scratch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>VRAM by category</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PCIe GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>H2D</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>D2H</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert fetches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prefill streaming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hit rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Misses per token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fetched over PCIe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computed on the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q* fraction in use: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fetched</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the first sample.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prefill tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU expert GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU experts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache positions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hit rate per layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cold (misses)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hot (hits)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert weights the CPU engine reads from RAM per second (it computes every expert); 0 while idle.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert weights the CPU reads per second for the misses it computes; 0 while idle.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart.</source>
        <translation>The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart.</translation>
    </message>
    <message>
        <source>No expert cache on the server: every expert is resident in its VRAM.</source>
        <translation>No expert cache on the server: every expert is resident in its VRAM.</translation>
    </message>
    <message>
        <source>No expert cache on the server: its CPU engine computes every expert from its RAM.</source>
        <translation>No expert cache on the server: its CPU engine computes every expert from its RAM.</translation>
    </message>
</context>
<context>
    <name>ConsoleModelCard</name>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running · %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Idle · up %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 experts × %2 layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ctx %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>backend %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unload the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt; 1 min</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConsolePage</name>
    <message>
        <source>Console</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · up %2 · %3 requests total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model loaded · hardware figures are live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>5 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>15 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live · 8 Hz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live · %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bandwidth profile: B_P %1 GB/s (PCIe expert fetches) · B_C %2 GB/s (CPU expert kernel) · q* fetches %3 % of the misses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>VRAM · GPU %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System RAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Experts live here; the GPU caches the busy ones.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>threads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SIMD %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of it is the model file, mapped into memory: the experts live here and are read from it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DeleteChatDialog</name>
    <message>
        <source>Delete “%1”?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The conversation and all its messages are removed from this PC. This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DownloadDialog</name>
    <message>
        <source>Download from Hugging Face</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a repository (owner/name) or paste its address from huggingface.co.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for example Qwen/Qwen3-30B-A3B-GGUF</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>List files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Whole repository (safetensors, %n file(s))</source>
        <translation>
            <numerusform>Whole repository (safetensors, %n file)</numerusform>
            <numerusform>Whole repository (safetensors, %n files)</numerusform>
        </translation>
    </message>
    <message>
        <source>Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking sha256…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done: added to the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove from this list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditMessageDialog</name>
    <message>
        <source>Edit and resend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replies after this message are replaced by a new one.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EngineText</name>
    <message>
        <source>%1 is damaged or incomplete (%2): download or convert it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file (it starts with &quot;%2&quot;): choose a .gguf file or a Hugging Face folder of safetensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A KV cache of 0 positions cannot serve.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV positions are less than one %2-token context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV positions are fewer than the %2 the running requests hold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The CPU engine has no expert cache to resize.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 backend&apos;s expert cache cannot be resized.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expert slots are fewer than one layer&apos;s %2 experts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expert slots are more than the model&apos;s %2 experts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expert slots (%2) and %3 KV positions (%4) need %5 with the rest of the plan; the budget is %6.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The rebuild failed and was undone: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this build has no CUDA support</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no NVIDIA GPU found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no NVIDIA driver found (install the NVIDIA driver to use the GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the NVIDIA driver supports CUDA %1, older than this build&apos;s CUDA %2 (update the NVIDIA driver to use the GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA is not usable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU (%1 threads)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not there any more: it was moved or deleted. Add it again from its new place.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the model&apos;s context holds %2. Start a new chat or shorten the message, or load the model with a larger context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is incomplete: it has %2, but its contents need at least %3. The download or conversion stopped early: download or convert it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is empty: download or convert it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a big-endian GGUF file; this PC reads little-endian ones. Convert the model again for this PC.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a GGUF file of version 1, which is no longer read. Convert the model again with a current llama.cpp.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has GGUF version %2, which this version of FreeToken does not know (versions 2 and 3 are read). The file is newer than this program, or damaged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the tensor %2 uses a quantization this version of FreeToken does not know (type %3). Use another quantization of the model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the architecture &quot;%2&quot; does not run in this version of FreeToken. Supported: %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The architecture %1 is recognised, but it does not run in this version of FreeToken yet. Supported: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot compute with yet. Use another quantization or a GGUF file of the model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has no scale tensor %3. The checkpoint is incomplete: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 has shape %3, but its weight needs %4. The checkpoint is damaged: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 is %3; FreeToken expects %4. The checkpoint is damaged: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has shape %3, where a matrix was expected. The checkpoint is damaged: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the %3 tensor %2 has rows of %4 values; FreeToken keeps %3 rows in blocks of %5 values, so it cannot read this tensor. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the FP8 tensor %2 has scale blocks %3 columns wide; FreeToken reads blocks whose width is a multiple of 32. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot read yet. Use the model&apos;s NVFP4, FP8 or BF16 release, or a GGUF file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: quantization_config.weight_block_size must be two positive integers, not %2. The config.json is damaged: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: quantization_config is not an object. The config.json is damaged: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: config.json says rotary_dim %2, but partial_rotary_factor %3 of the head size %4 rotates %5 dimensions. The config.json is damaged or was edited: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: partial_rotary_factor rotates %2 dimensions of each head; it must be an even number above 0. The config.json is damaged or was edited: download it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of video memory is too little for this model with the %2 backend: it needs at least %3. It runs on the CPU instead; close programs that use the GPU to free video memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The video memory left for the KV cache holds %1 positions, less than one %2-token context; it needs at least %3 of video memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV positions need %2; the video memory budget leaves %3 for them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 expert slots need %2; the video memory budget leaves %3 for them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no usable GPU: it runs on the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The weights need about %1 of RAM; this PC has %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server&apos;s name was not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server refused the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server did not answer in time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the secure connection could not be set up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the network is down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the proxy cannot be reached</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No usable GPU: %1. Load the model on the CPU instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPU ran out of video memory (%1). Use a smaller context, fewer parallel requests or a smaller model, or close programs that use the GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (compute capability %2) is not among the GPUs this build of FreeToken was made for (%3 failed). Load the model on the CPU, or use a build for this GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPU reported an error in %1: %2 (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cuBLAS, the GPU&apos;s matrix library, failed in %1 (status %2). Update the NVIDIA driver, or load the model on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sampling setting %1 must lie in %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sampling setting %1 must be %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request&apos;s %1 is %3; the server takes values in %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server has no model named “%1”; it serves “%2”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the server&apos;s model holds %2. Start a new chat or shorten the message, or restart the server with a larger context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the API key is missing or wrong</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server is busy: %1 requests are already running or waiting. Try again shortly.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server is shutting down.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request is larger than the server accepts.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FaultBanner</name>
    <message>
        <source>The engine stopped with an error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restart engine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LogsPage</name>
    <message>
        <source>Logs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also written to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not written to a file (see the first lines)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Info</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auto-scroll</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No lines match the filter</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>FreeToken Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken Desktop — API server on %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelRow</name>
    <message>
        <source>Runs on the GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hybrid GPU + CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does not fit in RAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · ≈ %2–%3 tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not supported yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 parameters, %2 active</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n part(s)</source>
        <translation>
            <numerusform>%n part</numerusform>
            <numerusform>%n parts</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove from the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The small demo model that comes with FreeToken, for trying the app. Download a real model for real work.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan models folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add every model in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a GGUF model file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a Hugging Face model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a model to start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded (or drop it here); it is used where it is, nothing is copied.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A GGUF file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A Hugging Face folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A downloaded model folder with config.json, the tokenizer and .safetensors weights.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models you download with FreeToken will be stored in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop a .gguf file or a model folder to add it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a server…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>%1 s ago</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min ago</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RemoteConsoleCard</name>
    <message>
        <source>%1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken server · live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This server does not report its memory, GPU, cache or queue figures (only a FreeToken server does, through /v1/stats). Shown here is what this app measured on its last reply: time to first token and tokens per second, network included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time to first token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prefill %1 tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 queued · %2 served</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>of %1; context %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server runs on its CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PCIe to GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No expert cache on this server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TTFT measured here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send a message to measure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from sending to the first text, network included</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed of the last reply</source>
        <translation>Speed of the last reply</translation>
    </message>
    <message>
        <source>%1 tokens in the last reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its charts and cache sizes are below. Apply sends the sizes to the server (/v1/cache/rebuild, with this server&apos;s key), which rebuilds its caches or says why not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last reply arrived at once, too fast to time</source>
        <translation>The last reply arrived at once, too fast to time</translation>
    </message>
</context>
<context>
    <name>RemoteServersCard</name>
    <message>
        <source>Servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask every server for its models again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key in the keychain</source>
        <translation>API key in the keychain</translation>
    </message>
    <message>
        <source>Unencrypted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove this server (and its key) from the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This server lists no model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>context %1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>context not stated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key in a file</source>
        <translation>API key in a file</translation>
    </message>
    <message>
        <source>Reading the servers&apos; API keys from the system keychain… If it asks to be unlocked, unlock it.</source>
        <translation>Reading the servers&apos; API keys from the system keychain… If it asks to be unlocked, unlock it.</translation>
    </message>
</context>
<context>
    <name>RemoveModelDialog</name>
    <message>
        <source>Remove %1?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model leaves the library. Its files stay where they are unless you tick the box below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also delete the folder from the disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also delete the file from the disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove and delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RenameChatDialog</name>
    <message>
        <source>Rename chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the chat</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes apply immediately and are saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Storage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hugging Face</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloads on the Models page. Gated and private models need an access token (huggingface.co → Settings → Access Tokens, read access).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Access token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hf_… (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter an http:// or https:// address, or leave it empty for huggingface.co.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set by FT_HF_ENDPOINT in the environment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serves the loaded model to OpenAI and Anthropic clients and coding agents on this PC (127.0.0.1 only).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve the loaded model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for a model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a port from 1 to 65535.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenAI clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Claude Code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What a new chat starts with. Each chat keeps its own copy: change one chat with Chat settings on the Chat page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Startup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load the last model when FreeToken starts (if it is still in the library)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use the sampling the loaded model recommends (temperature, top-p, top-k) where its file names one</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Console</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch to the light theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch to the dark theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API server: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API server: waiting for a model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API server: not running</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SystemBox</name>
    <message>
        <source>VRAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 threads</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome to FreeToken</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The demo model is tiny and made only for trying the app: chat, the Console and the API server all work with it, but its answers are not useful. It is marked Demo on the Models page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the demo model: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The demo model is loaded and ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The demo model could not be loaded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU-only mode: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>For real work, download a model on the Models page: a Qwen3-30B-A3B GGUF runs on an 8 GB GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to Models and download a real model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try it in Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken runs large Mixture-of-Experts models on this PC. So that you can try it right away, it has added a small demo model to your library.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::ApiServerHost</name>
    <message>
        <source>The server could not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port %1 is in use by another program (another FreeToken or ft serve?): choose another port here, or stop that program.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::EngineHost</name>
    <message>
        <source>No model path was given. Choose a .gguf file or a model folder on the Models page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The engine could not be restarted: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model is still loading; wait until it is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The engine refused the request: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mapping the weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measuring PCIe and CPU bandwidth (once for this GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Uploading the weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allocating the KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::RemoteClient</name>
    <message>
        <source>The server at %1 did not pass the TLS check (%2). FreeToken verifies certificates: give the server a certificate this system trusts, or add its certificate authority to the system&apos;s store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot reach the server at %1 (%2). Check the address and port, and that the server is running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 refused the API key (HTTP %2: %3). Check the key, then add the server again with the right one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 has no %2 (HTTP %3). Is this the base URL of an OpenAI-compatible server? Give it without the path, e.g. http://192.168.1.20:8000.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 answered %2 with HTTP %3: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection to the server at %1 failed (%2). Check the address and that the server is running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 answered %2, but not with the JSON an OpenAI-compatible server sends (%3: “%4”). Is this the right address?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no content type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 stopped the reply with an error: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 closed the connection before the reply finished (%2). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server at %1 ended the reply without finishing it (no finish reason, no [DONE]). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the server says: “%1”</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::app::SingleInstance</name>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds, so it did not open %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end freetoken.exe in the Task Manager (Ctrl+Shift+Esc, Details). Then start FreeToken again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end the freetoken process (for example with the system monitor, or pkill -x freetoken). Then start FreeToken again.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::ui::ChatSession</name>
    <message>
        <source>New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chat history cannot be opened: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chat history cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That conversation no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The conversation cannot be opened: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A conversation needs a name. Type one, or press Cancel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The conversation cannot be renamed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The conversation cannot be deleted: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature must be between 0 and 2 (0 always picks the most likely token).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top-p must be above 0 and at most 1 (1 turns it off).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max tokens must be between 1 and 1048576.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The seed must be 0 (a new random seed each reply) or a positive number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chat settings cannot be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait for the reply to finish, or press Stop (Esc).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then send your message again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your message cannot be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This model has no usable tokenizer, so it cannot chat. Choose another model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed on this conversation: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Start a new chat (Ctrl+N), or load the model with a larger context.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The reply cannot be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The engine did not accept the request.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The reply cannot be saved as it streams: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no reply to regenerate yet: send a message first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The old reply cannot be replaced: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The edited message cannot be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The API key of %1 is in the system keychain (%2), which did not give it: %3. Unlock the keychain and press Regenerate, or add the server again with its key.</source>
        <translation>The API key of %1 is in the system keychain (%2), which did not give it: %3. Unlock the keychain and press Regenerate, or add the server again with its key.</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>top-p %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>top-k %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loaded model recommends %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::ui::ConsoleModel</name>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The KV cache and the expert cache would need %1 MiB; the budget leaves %2 MiB for them.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::ui::DownloadListModel</name>
    <message>
        <source>&quot;%1&quot; is not a Hugging Face repository: enter owner/name (for example Qwen/Qwen3-30B-A3B-GGUF) or paste its address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not found (HTTP 404): check the repository name and that the file still exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is gated or private (HTTP %2): accept its licence on the Hugging Face website, then enter an access token in Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The access token was refused for %1 (HTTP %2): check the token in Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 failed: the server answered HTTP %2; try again later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file list of %1 from %2 is not what the Hugging Face API returns: check the address in Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no GGUF files and is not a safetensors model: pick another repository (GGUF repositories often end in -GGUF)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not enough disk space: %1 more is needed, %2 is free on %3. Free some space, then resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1 (%2): check the disk and the folder&apos;s permissions, then resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 arrived corrupted (its sha256 does not match the Hub&apos;s). The damaged file was deleted: resume to download it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server sent %1 with the wrong size: try again later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloaded, but the library refused %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot download %1 (%2): check the network connection, then resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot reach %1 (%2): check the network connection and the Hugging Face address in Settings, then try again</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ft::ui::ModelListModel</name>
    <message>
        <source>No models found in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n new model(s) added</source>
        <translation>
            <numerusform>%n new model added</numerusform>
            <numerusform>%n new models added</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already in the library</source>
        <translation>
            <numerusform>%n already in the library</numerusform>
            <numerusform>%n already in the library</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) added</source>
        <translation>
            <numerusform>%n model added</numerusform>
            <numerusform>%n models added</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ft::ui::RemoteServerListModel</name>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Windows Credential Manager cannot be used (%1), so the API key is kept in %2, in your user profile, which other users of this PC cannot read.</source>
        <translation>The Windows Credential Manager cannot be used (%1), so the API key is kept in %2, in your user profile, which other users of this PC cannot read.</translation>
    </message>
    <message>
        <source>The system keychain cannot be used (%1), so the API key is kept in %2, a file only your user account can read (permissions 0600).</source>
        <translation>The system keychain cannot be used (%1), so the API key is kept in %2, a file only your user account can read (permissions 0600).</translation>
    </message>
    <message>
        <source>%1 is plain http to another computer: your messages, the replies and the API key travel unencrypted, and anyone on the network path can read them. Use https if the server offers it. Add it anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A server is being checked; wait for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This address cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The API key has spaces or line breaks in it. Paste the key alone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server cannot be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server cannot be removed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this build of FreeToken has no keychain support</source>
        <translation>this build of FreeToken has no keychain support</translation>
    </message>
    <message>
        <source>turned off by FT_KEYCHAIN=off</source>
        <translation>turned off by FT_KEYCHAIN=off</translation>
    </message>
    <message>
        <source>no D-Bus session bus is running</source>
        <translation>no D-Bus session bus is running</translation>
    </message>
    <message>
        <source>no keychain service is running</source>
        <translation>no keychain service is running</translation>
    </message>
    <message>
        <source>the keychain did not answer within %1 s</source>
        <translation>the keychain did not answer within %1 s</translation>
    </message>
    <message>
        <source>the keychain refused to store or give the key</source>
        <translation>the keychain refused to store or give the key</translation>
    </message>
    <message>
        <source>The API key is kept in the system keychain (%1), not in FreeToken&apos;s files.</source>
        <translation>The API key is kept in the system keychain (%1), not in FreeToken&apos;s files.</translation>
    </message>
    <message>
        <source>Its API key is in the system keychain (%1), which did not give it: %2. Unlock the keychain and press Refresh, or add the server again with its key.</source>
        <translation>Its API key is in the system keychain (%1), which did not give it: %2. Unlock the keychain and press Refresh, or add the server again with its key.</translation>
    </message>
    <message>
        <source>Checking whether the system keychain can keep the API key…</source>
        <translation>Checking whether the system keychain can keep the API key…</translation>
    </message>
</context>
</TS>
