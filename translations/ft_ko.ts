<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko">
<context>
    <name>AddServerDialog</name>
    <message>
        <source>Add a server</source>
        <translation>서버 추가</translation>
    </message>
    <message>
        <source>An OpenAI-compatible server: another PC running FreeToken (ft serve), vLLM, SGLang or llama.cpp&apos;s llama-server. Its models are listed beside your local ones; chatting with them loads nothing on this PC.</source>
        <translation>OpenAI 호환 서버: FreeToken(ft serve)을 실행하는 다른 PC, vLLM, SGLang 또는 llama.cpp의 llama-server. 서버의 모델이 로컬 모델 옆에 표시되며, 그 모델과 채팅해도 이 PC에는 아무것도 불러오지 않습니다.</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>주소</translation>
    </message>
    <message>
        <source>API key (optional)</source>
        <translation>API 키(선택)</translation>
    </message>
    <message>
        <source>Leave empty if the server asks for none</source>
        <translation>서버가 키를 요구하지 않으면 비워 두세요</translation>
    </message>
    <message>
        <source>Use plain http to this server</source>
        <translation>이 서버에 암호화되지 않은 http 사용</translation>
    </message>
    <message>
        <source>Asking the server for its models…</source>
        <translation>서버에 모델 목록을 요청하는 중…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Add server</source>
        <translation>서버 추가</translation>
    </message>
    <message>
        <source>Saving the server and its API key… If the system keychain asks to be unlocked, unlock it.</source>
        <translation>서버와 API 키를 저장하는 중… 시스템 키체인이 잠금 해제를 요청하면 잠금을 해제하세요.</translation>
    </message>
</context>
<context>
    <name>CacheConfigCard</name>
    <message>
        <source>%1K tokens</source>
        <translation>%1K 토큰</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 토큰</translation>
    </message>
    <message>
        <source>Minimum</source>
        <translation>최소</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <source>Agent / long context</source>
        <translation>에이전트 / 긴 컨텍스트</translation>
    </message>
    <message>
        <source>Max speed</source>
        <translation>최고 속도</translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <source>%1 expert slots</source>
        <translation>전문가 슬롯 %1개</translation>
    </message>
    <message>
        <source>≈ %1 tok/s</source>
        <translation>≈ %1 tok/s</translation>
    </message>
    <message>
        <source>Cache config</source>
        <translation>캐시 구성</translation>
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
        <translation>MoE 캐시</translation>
    </message>
    <message>
        <source>Rebuilding…</source>
        <translation>재구성 중…</translation>
    </message>
    <message>
        <source>Not applied</source>
        <translation>적용되지 않음</translation>
    </message>
    <message>
        <source>Synced</source>
        <translation>동기화됨</translation>
    </message>
    <message>
        <source>Move VRAM between the KV cache and the expert cache while the model serves; click Apply to rebuild the caches.</source>
        <translation>모델이 서비스하는 동안 KV 캐시와 전문가 캐시 사이에서 VRAM을 옮깁니다. 적용을 누르면 캐시를 다시 구성합니다.</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>프리셋</translation>
    </message>
    <message>
        <source>KV cache size</source>
        <translation>KV 캐시 크기</translation>
    </message>
    <message>
        <source>Past the budget: the engine will refuse this size.</source>
        <translation>예산 초과: 엔진이 이 크기를 거부합니다.</translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together</source>
        <translation>어텐션 KV 캐시가 담는 토큰 위치 수(모든 대화 합계)</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>예산 %1</translation>
    </message>
    <message>
        <source>MoE expert cache</source>
        <translation>MoE 전문가 캐시</translation>
    </message>
    <message>
        <source>Expert slots resident in VRAM · %1 across all MoE layers</source>
        <translation>VRAM에 상주하는 전문가 슬롯 · 전체 MoE 레이어에 %1개</translation>
    </message>
    <message>
        <source>Every expert is resident in VRAM: there is no expert cache to size.</source>
        <translation>모든 전문가가 VRAM에 상주합니다. 크기를 조정할 전문가 캐시가 없습니다.</translation>
    </message>
    <message>
        <source>The CPU engine reads every expert from host RAM: there is no expert cache to size, only the KV cache resizes.</source>
        <translation>CPU 엔진은 모든 전문가를 호스트 RAM에서 읽습니다. 크기를 조정할 전문가 캐시가 없으며 KV 캐시만 크기가 바뀝니다.</translation>
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
        <translation>%1 이상이면 프리필 중첩 사용</translation>
    </message>
    <message>
        <source>KV + experts: %1 of %2 for the caches</source>
        <translation>KV + 전문가: 캐시용 %2 중 %1</translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (misses scale with the experts left out; each costs its bytes over B_P + B_C)</source>
        <translation>예상 디코딩: ≈ %1 tok/s (미스는 캐시에서 빠진 전문가 수에 비례하며, 각 미스는 그 바이트 수를 B_P + B_C로 나눈 시간이 듭니다)</translation>
    </message>
    <message>
        <source>Predicted decode: ≈ %1 tok/s (the cache sizes do not change the CPU engine&apos;s speed)</source>
        <translation>예상 디코딩: ≈ %1 tok/s (캐시 크기는 CPU 엔진의 속도를 바꾸지 않습니다)</translation>
    </message>
    <message>
        <source>Predicted decode: run a reply first, the prediction scales from measured speed</source>
        <translation>예상 디코딩: 먼저 응답을 하나 실행하세요. 예측은 측정된 속도를 기준으로 합니다</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>되돌리기</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>적용</translation>
    </message>
    <message>
        <source>Rejected: %1 Nothing changed.</source>
        <translation>거부됨: %1 아무것도 바뀌지 않았습니다.</translation>
    </message>
    <message>
        <source>Restored your last setting for this model: KV %1%2.</source>
        <translation>이 모델의 마지막 설정을 복원했습니다: KV %1%2.</translation>
    </message>
    <message>
        <source>, %1 expert slots</source>
        <translation>, 전문가 슬롯 %1개</translation>
    </message>
    <message>
        <source>Applied: KV %1%2.</source>
        <translation>적용됨: KV %1%2.</translation>
    </message>
    <message>
        <source>The least memory: the smallest KV cache.</source>
        <translation>가장 적은 메모리: 가장 작은 KV 캐시.</translation>
    </message>
    <message>
        <source>One conversation&apos;s full context (%1 tokens).</source>
        <translation>대화 하나의 전체 컨텍스트(%1 토큰).</translation>
    </message>
    <message>
        <source>The most KV that keeps prefill overlapped: long contexts, several at once.</source>
        <translation>프리필 겹침을 유지하는 최대 KV: 긴 컨텍스트를 여러 개 동시에.</translation>
    </message>
    <message>
        <source>The most KV the budget allows: long contexts, several conversations at once.</source>
        <translation>예산이 허용하는 최대 KV: 긴 컨텍스트, 여러 대화를 동시에.</translation>
    </message>
    <message>
        <source>The most experts in VRAM, the least KV: the fastest decode.</source>
        <translation>VRAM에 가장 많은 전문가, 가장 적은 KV: 가장 빠른 디코딩.</translation>
    </message>
    <message>
        <source>Presets · with no expert cache to size, they only set the KV cache: decode speed stays the same</source>
        <translation>프리셋 · 크기를 정할 전문가 캐시가 없어 KV 캐시만 설정합니다: 디코딩 속도는 그대로입니다</translation>
    </message>
    <message>
        <source>Token positions the attention KV cache holds, all conversations together. One conversation stops at the context, %1 tokens (set when the model loads): more KV serves more conversations at once, not longer ones.</source>
        <translation>어텐션 KV 캐시가 담는 토큰 위치 수(모든 대화 합계). 대화 하나는 컨텍스트인 %1 토큰(모델을 불러올 때 정해짐)에서 멈춥니다: KV를 늘리면 더 긴 대화가 아니라 더 많은 대화를 동시에 처리합니다.</translation>
    </message>
    <message>
        <source>one conversation ≤ %1</source>
        <translation>대화 하나 ≤ %1</translation>
    </message>
</context>
<context>
    <name>ChatCodeBlock</name>
    <message>
        <source>code</source>
        <translation>코드</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>복사됨</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>코드 복사</translation>
    </message>
</context>
<context>
    <name>ChatComposer</name>
    <message>
        <source>Message the model (Enter sends, Shift+Enter adds a line)</source>
        <translation>모델에게 메시지 보내기 (Enter: 보내기, Shift+Enter: 줄 바꿈)</translation>
    </message>
    <message>
        <source>A model must be loaded before you can chat</source>
        <translation>채팅하려면 먼저 모델을 불러와야 합니다</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>보내기</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>중지</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>답변 중지 (Esc)</translation>
    </message>
</context>
<context>
    <name>ChatConversationList</name>
    <message>
        <source>New chat</source>
        <translation>새 채팅</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>새 대화 시작 (Ctrl+N)</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>채팅 검색</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>이름 바꾸기</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>삭제</translation>
    </message>
    <message>
        <source>No chat matches “%1”.</source>
        <translation>“%1”과(와) 일치하는 채팅이 없습니다.</translation>
    </message>
    <message>
        <source>Your conversations appear here.</source>
        <translation>대화가 여기에 표시됩니다.</translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>OK</source>
        <translation>확인</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
</context>
<context>
    <name>ChatMessage</name>
    <message>
        <source>%1 on %2</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Waiting for the first token…</source>
        <translation>첫 토큰을 기다리는 중…</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>답변 실패: %1</translation>
    </message>
    <message>
        <source>%1 tokens · %2 tok/s · first token in %3 ms · prompt %4 tokens</source>
        <translation>토큰 %1개 · %2 tok/s · 첫 토큰 %3 ms · 프롬프트 토큰 %4개</translation>
    </message>
    <message>
        <source>Stopped before the end</source>
        <translation>끝나기 전에 중지됨</translation>
    </message>
    <message>
        <source>Edit and resend</source>
        <translation>수정 후 다시 보내기</translation>
    </message>
    <message>
        <source>Copy reply</source>
        <translation>답변 복사</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>다시 생성</translation>
    </message>
    <message>
        <source>Cut off at the token limit</source>
        <translation>토큰 한도에서 잘림</translation>
    </message>
    <message>
        <source>The reply reached its length limit: Max tokens in Chat settings, or the room left in the model&apos;s context.</source>
        <translation>답변이 길이 한도에 도달했습니다: 채팅 설정의 최대 토큰 수, 또는 모델 컨텍스트에 남은 공간.</translation>
    </message>
    <message>
        <source>Speed: the server&apos;s own timing where it reports one (llama.cpp does), else measured here from the first token to the last, or from the request when the whole reply arrived at once.</source>
        <translation>속도: 서버가 자체 시간을 알려 주면(llama.cpp처럼) 그 값이고, 아니면 여기서 잰 값입니다. 첫 토큰부터 마지막 토큰까지, 응답 전체가 한 번에 왔다면 요청을 보낸 때부터 잽니다.</translation>
    </message>
    <message>
        <source>No speed: the whole reply arrived at once, too fast to time (under 20 ms from the request), and the server did not report its own timing.</source>
        <translation>속도 없음: 응답 전체가 한 번에, 잴 수 없을 만큼 빨리(요청 후 20 ms 이내) 도착했고, 서버도 자체 시간을 알려 주지 않았습니다.</translation>
    </message>
    <message>
        <source>No speed: a reply of one token has no decoding time to measure.</source>
        <translation>속도 없음: 토큰 하나짜리 응답에는 잴 디코딩 시간이 없습니다.</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>Chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 불러오는 중…</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>모델: %1</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>불러온 모델 없음</translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation>채팅 설정</translation>
    </message>
    <message>
        <source>Load a model to chat</source>
        <translation>채팅하려면 모델을 불러오세요</translation>
    </message>
    <message>
        <source>Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.</source>
        <translation>대화는 전부 이 PC에서 실행됩니다. 모델 페이지에서 모델을 추가하세요. 모델을 불러오면 채팅이 열립니다.</translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation>모델로 이동</translation>
    </message>
    <message>
        <source>Start a conversation</source>
        <translation>대화 시작하기</translation>
    </message>
    <message>
        <source>Type a message below. Replies stream in as the model writes them and are saved as they arrive.</source>
        <translation>아래에 메시지를 입력하세요. 답변은 모델이 쓰는 대로 실시간으로 표시되고 도착하는 즉시 저장됩니다.</translation>
    </message>
    <message>
        <source>This chat uses %1 of the model&apos;s %2 context tokens. Near the limit replies get cut off: start a new chat (Ctrl+N).</source>
        <translation>이 채팅은 모델의 컨텍스트 토큰 %2개 중 %1개를 사용합니다. 한도에 가까워지면 답변이 잘립니다. 새 채팅을 시작하세요 (Ctrl+N).</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>닫기</translation>
    </message>
    <message>
        <source>System prompt: %1</source>
        <translation>시스템 프롬프트: %1</translation>
    </message>
    <message>
        <source>Edit this chat&apos;s settings</source>
        <translation>이 채팅의 설정 편집</translation>
    </message>
    <message>
        <source>Model: %1 on %2</source>
        <translation>모델: %1 (%2)</translation>
    </message>
    <message>
        <source>Reading the server&apos;s API key from the system keychain… If it asks to be unlocked, unlock it; Stop (Esc) gives up.</source>
        <translation>시스템 키체인에서 서버의 API 키를 읽는 중… 잠금 해제를 요청하면 잠금을 해제하세요. 중지(Esc)를 누르면 포기합니다.</translation>
    </message>
</context>
<context>
    <name>ChatReasoning</name>
    <message>
        <source>Thinking…</source>
        <translation>생각하는 중…</translation>
    </message>
    <message>
        <source>Thought process</source>
        <translation>생각 과정</translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat settings</source>
        <translation>채팅 설정</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>저장</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>시스템 프롬프트</translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation>어시스턴트의 행동 방식 (선택 사항)</translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation>온도 (0–2)</translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation>Top-p (0–1)</translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation>답변당 최대 토큰 수</translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation>시드 (0: 무작위)</translation>
    </message>
    <message>
        <source>This chat samples from the %1 likeliest tokens (top-k), as the model recommends.</source>
        <translation>이 채팅은 모델의 권장에 따라 가장 가능성이 높은 토큰 %1개 중에서 샘플링합니다 (top-k).</translation>
    </message>
</context>
<context>
    <name>ConsoleCharts</name>
    <message>
        <source>No GPU: the CPU engine has no VRAM or PCIe traffic.</source>
        <translation>GPU 없음: CPU 엔진에는 VRAM이나 PCIe 트래픽이 없습니다.</translation>
    </message>
    <message>
        <source>No expert cache: every expert is resident in VRAM.</source>
        <translation>전문가 캐시 없음: 모든 전문가가 VRAM에 상주합니다.</translation>
    </message>
    <message>
        <source>No expert cache: the CPU engine computes every expert from host RAM.</source>
        <translation>전문가 캐시 없음: CPU 엔진이 모든 전문가를 호스트 RAM에서 계산합니다.</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>전문가</translation>
    </message>
    <message>
        <source>KV</source>
        <translation>KV</translation>
    </message>
    <message>
        <source>Scratch</source>
        <translation>작업 메모리</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>기타</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>여유</translation>
    </message>
    <message>
        <source>VRAM by category</source>
        <translation>범주별 VRAM</translation>
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
        <translation>전문가 가져오기</translation>
    </message>
    <message>
        <source>Prefill streaming</source>
        <translation>프리필 스트리밍</translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation>전문가 캐시 적중률</translation>
    </message>
    <message>
        <source>Hit rate</source>
        <translation>적중률</translation>
    </message>
    <message>
        <source>Misses per token</source>
        <translation>토큰당 미스</translation>
    </message>
    <message>
        <source>Fetched over PCIe</source>
        <translation>PCIe로 가져옴</translation>
    </message>
    <message>
        <source>Computed on the CPU</source>
        <translation>CPU에서 계산</translation>
    </message>
    <message>
        <source>q* fraction in use: %1</source>
        <translation>사용 중인 q* 비율: %1</translation>
    </message>
    <message>
        <source>Fetched</source>
        <translation>가져옴</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Decode tok/s</source>
        <translation>디코딩 tok/s</translation>
    </message>
    <message>
        <source>Waiting for the first sample.</source>
        <translation>첫 샘플을 기다리는 중입니다.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>디코딩</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>tok/s</translation>
    </message>
    <message>
        <source>Prefill tok/s</source>
        <translation>프리필 tok/s</translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation>프리필</translation>
    </message>
    <message>
        <source>CPU expert GB/s</source>
        <translation>CPU 전문가 GB/s</translation>
    </message>
    <message>
        <source>CPU experts</source>
        <translation>CPU 전문가</translation>
    </message>
    <message>
        <source>KV cache positions</source>
        <translation>KV 캐시 위치</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>사용 중</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>할당됨</translation>
    </message>
    <message>
        <source>Hit rate per layer</source>
        <translation>레이어별 적중률</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>레이어 %1개</translation>
    </message>
    <message>
        <source>Cold (misses)</source>
        <translation>차가움 (미스)</translation>
    </message>
    <message>
        <source>Hot (hits)</source>
        <translation>뜨거움 (적중)</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>레이어 %1</translation>
    </message>
    <message>
        <source>Expert weights the CPU engine reads from RAM per second (it computes every expert); 0 while idle.</source>
        <translation>CPU 엔진이 초당 RAM에서 읽는 전문가 가중치(모든 전문가를 계산함); 유휴 시 0.</translation>
    </message>
    <message>
        <source>Expert weights the CPU reads per second for the misses it computes; 0 while idle.</source>
        <translation>CPU가 계산하는 미스에 대해 초당 읽는 전문가 가중치; 유휴 시 0.</translation>
    </message>
    <message>
        <source>The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart.</source>
        <translation>서버에 GPU가 없습니다: 모델을 CPU에서 실행하므로 차트로 그릴 VRAM이나 PCIe 트래픽이 없습니다.</translation>
    </message>
    <message>
        <source>No expert cache on the server: every expert is resident in its VRAM.</source>
        <translation>서버에 전문가 캐시가 없습니다: 모든 전문가가 서버의 VRAM에 상주합니다.</translation>
    </message>
    <message>
        <source>No expert cache on the server: its CPU engine computes every expert from its RAM.</source>
        <translation>서버에 전문가 캐시가 없습니다: 서버의 CPU 엔진이 모든 전문가를 서버 RAM에서 계산합니다.</translation>
    </message>
</context>
<context>
    <name>ConsoleModelCard</name>
    <message>
        <source>%1 min</source>
        <translation>%1분</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1시간 %2분</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>불러오는 중</translation>
    </message>
    <message>
        <source>Running · %1</source>
        <translation>실행 중 · %1</translation>
    </message>
    <message>
        <source>Idle · up %1</source>
        <translation>대기 · 가동 %1</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>오류</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>모델 없음</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>불러온 모델 없음</translation>
    </message>
    <message>
        <source>%1 experts × %2 layers</source>
        <translation>전문가 %1개 × 레이어 %2개</translation>
    </message>
    <message>
        <source>ctx %1</source>
        <translation>컨텍스트 %1</translation>
    </message>
    <message>
        <source>backend %1</source>
        <translation>백엔드 %1</translation>
    </message>
    <message>
        <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
        <translation>모델 페이지에서 모델을 불러오세요. 실행 중에는 속도, 전문가 캐시, PCIe 수치가 여기에 표시됩니다.</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>토큰/초</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>요청</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>중지</translation>
    </message>
    <message>
        <source>Unload the model</source>
        <translation>모델 내리기</translation>
    </message>
    <message>
        <source>Go to Models</source>
        <translation>모델로 이동</translation>
    </message>
    <message>
        <source>&lt; 1 min</source>
        <translation>1분 미만</translation>
    </message>
</context>
<context>
    <name>ConsolePage</name>
    <message>
        <source>Console</source>
        <translation>콘솔</translation>
    </message>
    <message>
        <source>%1 · up %2 · %3 requests total</source>
        <translation>%1 · 가동 %2 · 총 요청 %3개</translation>
    </message>
    <message>
        <source>No model loaded · hardware figures are live</source>
        <translation>불러온 모델 없음 · 하드웨어 수치는 실시간입니다</translation>
    </message>
    <message>
        <source>1 min</source>
        <translation>1분</translation>
    </message>
    <message>
        <source>5 min</source>
        <translation>5분</translation>
    </message>
    <message>
        <source>15 min</source>
        <translation>15분</translation>
    </message>
    <message>
        <source>Live · 8 Hz</source>
        <translation>실시간 · 8 Hz</translation>
    </message>
    <message>
        <source>Live · %1 s</source>
        <translation>실시간 · %1초</translation>
    </message>
    <message>
        <source>Bandwidth profile: B_P %1 GB/s (PCIe expert fetches) · B_C %2 GB/s (CPU expert kernel) · q* fetches %3 % of the misses</source>
        <translation>대역폭 프로필: B_P %1 GB/s (PCIe 전문가 가져오기) · B_C %2 GB/s (CPU 전문가 커널) · q*가 미스의 %3 %를 가져옴</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>하드웨어</translation>
    </message>
    <message>
        <source>VRAM · GPU %1</source>
        <translation>VRAM · GPU %1</translation>
    </message>
    <message>
        <source>%1 free</source>
        <translation>%1 사용 가능</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>None</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
        <translation>CUDA GPU 없음: %1. 모든 연산을 CPU가 맡아 느리게 실행됩니다.</translation>
    </message>
    <message>
        <source>System RAM</source>
        <translation>시스템 RAM</translation>
    </message>
    <message>
        <source>Experts live here; the GPU caches the busy ones.</source>
        <translation>전문가 가중치는 여기에 있고, 자주 쓰이는 것은 GPU가 캐시합니다.</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>threads</source>
        <translation>스레드</translation>
    </message>
    <message>
        <source>SIMD %1</source>
        <translation>SIMD %1</translation>
    </message>
    <message>
        <source>%1 of it is the model file, mapped into memory: the experts live here and are read from it.</source>
        <translation>그중 %1은(는) 메모리에 매핑된 모델 파일입니다: 전문가 가중치가 여기에 있고 여기서 읽힙니다.</translation>
    </message>
</context>
<context>
    <name>DeleteChatDialog</name>
    <message>
        <source>Delete “%1”?</source>
        <translation>“%1”을(를) 삭제할까요?</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>삭제</translation>
    </message>
    <message>
        <source>The conversation and all its messages are removed from this PC. This cannot be undone.</source>
        <translation>대화와 모든 메시지가 이 PC에서 삭제됩니다. 되돌릴 수 없습니다.</translation>
    </message>
</context>
<context>
    <name>DownloadDialog</name>
    <message>
        <source>Download from Hugging Face</source>
        <translation>Hugging Face에서 다운로드</translation>
    </message>
    <message>
        <source>Enter a repository (owner/name) or paste its address from huggingface.co.</source>
        <translation>저장소(소유자/이름)를 입력하거나 huggingface.co의 주소를 붙여 넣으세요.</translation>
    </message>
    <message>
        <source>for example Qwen/Qwen3-30B-A3B-GGUF</source>
        <translation>예: Qwen/Qwen3-30B-A3B-GGUF</translation>
    </message>
    <message>
        <source>List files</source>
        <translation>파일 목록</translation>
    </message>
    <message>
        <source>From %1</source>
        <translation>출처: %1</translation>
    </message>
    <message numerus="yes">
        <source>Whole repository (safetensors, %n file(s))</source>
        <translation>
            <numerusform>저장소 전체(safetensors, 파일 %n개)</numerusform>
        </translation>
    </message>
    <message>
        <source>Download</source>
        <translation>다운로드</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>닫기</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>%1 s</source>
        <translation>%1초</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1분</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1시간 %2분</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>다운로드 중</translation>
    </message>
    <message>
        <source>Checking sha256…</source>
        <translation>sha256 확인 중…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>일시 정지됨</translation>
    </message>
    <message>
        <source>Done: added to the library</source>
        <translation>완료: 라이브러리에 추가됨</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>실패</translation>
    </message>
    <message>
        <source>file %1 of %2</source>
        <translation>파일 %1/%2</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>일시 정지</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>이어받기</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Remove from this list</source>
        <translation>이 목록에서 제거</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/초</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>%1 남음</translation>
    </message>
</context>
<context>
    <name>EditMessageDialog</name>
    <message>
        <source>Edit and resend</source>
        <translation>수정 후 다시 보내기</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>다시 보내기</translation>
    </message>
    <message>
        <source>The replies after this message are replaced by a new one.</source>
        <translation>이 메시지 이후의 답변은 새 답변으로 바뀝니다.</translation>
    </message>
</context>
<context>
    <name>EngineText</name>
    <message>
        <source>%1 is damaged or incomplete (%2): download or convert it again</source>
        <translation>%1 파일이 손상되었거나 불완전합니다(%2): 다시 다운로드하거나 변환하세요</translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file (it starts with &quot;%2&quot;): choose a .gguf file or a Hugging Face folder of safetensors</source>
        <translation>%1은(는) GGUF 모델 파일이 아닙니다(&quot;%2&quot;(으)로 시작함): .gguf 파일이나 safetensors가 든 Hugging Face 폴더를 고르세요</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <source>A KV cache of 0 positions cannot serve.</source>
        <translation>위치가 0개인 KV 캐시로는 처리할 수 없습니다.</translation>
    </message>
    <message>
        <source>%1 KV positions are less than one %2-token context.</source>
        <translation>KV 위치 %1개는 %2 토큰 컨텍스트 하나보다 적습니다.</translation>
    </message>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation>KV 위치 %1개는 이 계획이 허용하는 %2개보다 많습니다.</translation>
    </message>
    <message>
        <source>%1 KV positions are fewer than the %2 the running requests hold.</source>
        <translation>KV 위치 %1개는 실행 중인 요청이 쓰는 %2개보다 적습니다.</translation>
    </message>
    <message>
        <source>The CPU engine has no expert cache to resize.</source>
        <translation>CPU 엔진에는 크기를 바꿀 전문가 캐시가 없습니다.</translation>
    </message>
    <message>
        <source>The %1 backend&apos;s expert cache cannot be resized.</source>
        <translation>%1 백엔드의 전문가 캐시는 크기를 바꿀 수 없습니다.</translation>
    </message>
    <message>
        <source>%1 expert slots are fewer than one layer&apos;s %2 experts.</source>
        <translation>전문가 슬롯 %1개는 한 레이어의 전문가 %2개보다 적습니다.</translation>
    </message>
    <message>
        <source>%1 expert slots are more than the model&apos;s %2 experts.</source>
        <translation>전문가 슬롯 %1개는 모델의 전문가 %2개보다 많습니다.</translation>
    </message>
    <message>
        <source>%1 expert slots (%2) and %3 KV positions (%4) need %5 with the rest of the plan; the budget is %6.</source>
        <translation>전문가 슬롯 %1개(%2)와 KV 위치 %3개(%4)는 계획의 나머지와 함께 %5이(가) 필요합니다. 예산은 %6입니다.</translation>
    </message>
    <message>
        <source>The rebuild failed and was undone: %1</source>
        <translation>재구성이 실패해 되돌렸습니다: %1</translation>
    </message>
    <message>
        <source>this build has no CUDA support</source>
        <translation>이 빌드는 CUDA를 지원하지 않습니다</translation>
    </message>
    <message>
        <source>no NVIDIA GPU found</source>
        <translation>NVIDIA GPU를 찾을 수 없습니다</translation>
    </message>
    <message>
        <source>no NVIDIA driver found (install the NVIDIA driver to use the GPU)</source>
        <translation>NVIDIA 드라이버를 찾을 수 없습니다(GPU를 쓰려면 NVIDIA 드라이버를 설치하세요)</translation>
    </message>
    <message>
        <source>the NVIDIA driver supports CUDA %1, older than this build&apos;s CUDA %2 (update the NVIDIA driver to use the GPU)</source>
        <translation>NVIDIA 드라이버가 지원하는 CUDA %1은(는) 이 빌드의 CUDA %2보다 오래되었습니다(GPU를 쓰려면 NVIDIA 드라이버를 업데이트하세요)</translation>
    </message>
    <message>
        <source>CUDA is not usable: %1</source>
        <translation>CUDA를 사용할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>CPU (%1 threads)</source>
        <translation>CPU(%1 스레드)</translation>
    </message>
    <message>
        <source>%1 is not there any more: it was moved or deleted. Add it again from its new place.</source>
        <translation>%1 파일이 더 이상 그 자리에 없습니다. 옮겨졌거나 지워졌습니다. 새 위치에서 다시 추가하세요.</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the model&apos;s context holds %2. Start a new chat or shorten the message, or load the model with a larger context.</source>
        <translation>프롬프트가 %1 토큰인데 모델의 컨텍스트는 %2 토큰까지입니다. 새 채팅을 시작하거나 메시지를 줄이거나, 더 큰 컨텍스트로 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>%1 is incomplete: it has %2, but its contents need at least %3. The download or conversion stopped early: download or convert it again.</source>
        <translation>%1 파일이 완전하지 않습니다. 크기는 %2이지만 내용에는 최소 %3이(가) 필요합니다. 다운로드나 변환이 중간에 멈췄습니다. 다시 다운로드하거나 변환하세요.</translation>
    </message>
    <message>
        <source>%1 is empty: download or convert it again.</source>
        <translation>%1 파일이 비어 있습니다. 다시 다운로드하거나 변환하세요.</translation>
    </message>
    <message>
        <source>%1 is a big-endian GGUF file; this PC reads little-endian ones. Convert the model again for this PC.</source>
        <translation>%1은(는) 빅 엔디언 GGUF 파일입니다. 이 PC는 리틀 엔디언 파일을 읽습니다. 이 PC에 맞게 모델을 다시 변환하세요.</translation>
    </message>
    <message>
        <source>%1 is a GGUF file of version 1, which is no longer read. Convert the model again with a current llama.cpp.</source>
        <translation>%1은(는) 버전 1 GGUF 파일이며 더 이상 읽을 수 없습니다. 최신 llama.cpp로 모델을 다시 변환하세요.</translation>
    </message>
    <message>
        <source>%1 has GGUF version %2, which this version of FreeToken does not know (versions 2 and 3 are read). The file is newer than this program, or damaged.</source>
        <translation>%1의 GGUF 버전 %2은(는) 이 버전의 FreeToken이 모르는 버전입니다(버전 2와 3을 읽습니다). 파일이 이 프로그램보다 새롭거나 손상되었습니다.</translation>
    </message>
    <message>
        <source>%1: the tensor %2 uses a quantization this version of FreeToken does not know (type %3). Use another quantization of the model.</source>
        <translation>%1: 텐서 %2은(는) 이 버전의 FreeToken이 모르는 양자화(유형 %3)를 사용합니다. 모델의 다른 양자화를 사용하세요.</translation>
    </message>
    <message>
        <source>%1: the architecture &quot;%2&quot; does not run in this version of FreeToken. Supported: %3.</source>
        <translation>%1: 아키텍처 &quot;%2&quot;은(는) 이 버전의 FreeToken에서 실행되지 않습니다. 지원: %3.</translation>
    </message>
    <message>
        <source>The architecture %1 is recognised, but it does not run in this version of FreeToken yet. Supported: %2.</source>
        <translation>아키텍처 %1은(는) 인식되지만 이 버전의 FreeToken에서는 아직 실행되지 않습니다. 지원: %2.</translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot compute with yet. Use another quantization or a GGUF file of the model.</source>
        <translation>%1: 텐서 %2은(는) %3 형식으로 저장되어 있으며, FreeToken은 아직 이 형식으로 계산할 수 없습니다. 모델의 다른 양자화나 GGUF 파일을 사용하세요.</translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has no scale tensor %3. The checkpoint is incomplete: download it again.</source>
        <translation>%1: 양자화된 텐서 %2에 스케일 텐서 %3이(가) 없습니다. 체크포인트가 불완전합니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 has shape %3, but its weight needs %4. The checkpoint is damaged: download it again.</source>
        <translation>%1: 스케일 텐서 %2의 형태는 %3이지만, 해당 가중치에는 %4이(가) 필요합니다. 체크포인트가 손상되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: the scale tensor %2 is %3; FreeToken expects %4. The checkpoint is damaged: download it again.</source>
        <translation>%1: 스케일 텐서 %2은(는) %3 형식이지만, FreeToken은 %4 형식을 기대합니다. 체크포인트가 손상되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: the quantized tensor %2 has shape %3, where a matrix was expected. The checkpoint is damaged: download it again.</source>
        <translation>%1: 양자화된 텐서 %2의 형태가 %3입니다. 행렬이어야 합니다. 체크포인트가 손상되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: the %3 tensor %2 has rows of %4 values; FreeToken keeps %3 rows in blocks of %5 values, so it cannot read this tensor. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation>%1: %3 텐서 %2의 행은 값 %4개로 이루어져 있습니다. FreeToken은 %3 행을 값 %5개 단위의 블록으로 저장하므로 이 텐서를 읽을 수 없습니다. 모델의 BF16 릴리스나 GGUF 파일을 사용하세요.</translation>
    </message>
    <message>
        <source>%1: the FP8 tensor %2 has scale blocks %3 columns wide; FreeToken reads blocks whose width is a multiple of 32. Use the model&apos;s BF16 release or a GGUF file.</source>
        <translation>%1: FP8 텐서 %2의 스케일 블록 너비는 %3열입니다. FreeToken은 너비가 32의 배수인 블록만 읽습니다. 모델의 BF16 릴리스나 GGUF 파일을 사용하세요.</translation>
    </message>
    <message>
        <source>%1: the tensor %2 is stored as %3, which FreeToken cannot read yet. Use the model&apos;s NVFP4, FP8 or BF16 release, or a GGUF file.</source>
        <translation>%1: 텐서 %2은(는) %3 형식으로 저장되어 있으며, FreeToken은 아직 이 형식을 읽을 수 없습니다. 모델의 NVFP4, FP8 또는 BF16 릴리스나 GGUF 파일을 사용하세요.</translation>
    </message>
    <message>
        <source>%1: quantization_config.weight_block_size must be two positive integers, not %2. The config.json is damaged: download it again.</source>
        <translation>%1: quantization_config.weight_block_size는 양의 정수 두 개여야 하지만 %2입니다. config.json이 손상되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: quantization_config is not an object. The config.json is damaged: download it again.</source>
        <translation>%1: quantization_config가 객체가 아닙니다. config.json이 손상되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: config.json says rotary_dim %2, but partial_rotary_factor %3 of the head size %4 rotates %5 dimensions. The config.json is damaged or was edited: download it again.</source>
        <translation>%1: config.json의 rotary_dim은 %2이지만, 헤드 크기 %4에 partial_rotary_factor %3을(를) 적용하면 %5차원이 회전합니다. config.json이 손상되었거나 수정되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1: partial_rotary_factor rotates %2 dimensions of each head; it must be an even number above 0. The config.json is damaged or was edited: download it again.</source>
        <translation>%1: partial_rotary_factor에 따라 각 헤드에서 %2차원이 회전합니다. 0보다 큰 짝수여야 합니다. config.json이 손상되었거나 수정되었습니다. 다시 다운로드하세요.</translation>
    </message>
    <message>
        <source>%1 of video memory is too little for this model with the %2 backend: it needs at least %3. It runs on the CPU instead; close programs that use the GPU to free video memory.</source>
        <translation>비디오 메모리 %1은(는) %2 백엔드로 이 모델을 실행하기에 부족합니다. 최소 %3이(가) 필요합니다. 대신 CPU에서 실행됩니다. GPU를 쓰는 프로그램을 닫으면 비디오 메모리가 확보됩니다.</translation>
    </message>
    <message>
        <source>The video memory left for the KV cache holds %1 positions, less than one %2-token context; it needs at least %3 of video memory.</source>
        <translation>KV 캐시에 남는 비디오 메모리는 위치 %1개를 담아 %2토큰 컨텍스트 하나보다 적습니다. 비디오 메모리가 최소 %3 필요합니다.</translation>
    </message>
    <message>
        <source>%1 KV positions need %2; the video memory budget leaves %3 for them.</source>
        <translation>KV 위치 %1개에는 %2이(가) 필요합니다. 비디오 메모리 예산에서 남는 것은 %3입니다.</translation>
    </message>
    <message>
        <source>%1 expert slots need %2; the video memory budget leaves %3 for them.</source>
        <translation>전문가 슬롯 %1개에는 %2이(가) 필요합니다. 비디오 메모리 예산에서 남는 것은 %3입니다.</translation>
    </message>
    <message>
        <source>no usable GPU: it runs on the CPU</source>
        <translation>사용할 수 있는 GPU가 없습니다: CPU에서 실행됩니다</translation>
    </message>
    <message>
        <source>The weights need about %1 of RAM; this PC has %2.</source>
        <translation>가중치에 RAM이 약 %1 필요합니다. 이 PC의 RAM은 %2입니다.</translation>
    </message>
    <message>
        <source>the server&apos;s name was not found</source>
        <translation>서버 이름을 찾을 수 없습니다</translation>
    </message>
    <message>
        <source>the server refused the connection</source>
        <translation>서버가 연결을 거부했습니다</translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation>서버가 연결을 끊었습니다</translation>
    </message>
    <message>
        <source>the server did not answer in time</source>
        <translation>서버가 제때 응답하지 않았습니다</translation>
    </message>
    <message>
        <source>the secure connection could not be set up</source>
        <translation>보안 연결을 설정할 수 없습니다</translation>
    </message>
    <message>
        <source>the network is down</source>
        <translation>네트워크가 끊겼습니다</translation>
    </message>
    <message>
        <source>the proxy cannot be reached</source>
        <translation>프록시에 연결할 수 없습니다</translation>
    </message>
    <message>
        <source>No usable GPU: %1. Load the model on the CPU instead.</source>
        <translation>사용할 수 있는 GPU가 없습니다: %1. 대신 CPU에서 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>The GPU ran out of video memory (%1). Use a smaller context, fewer parallel requests or a smaller model, or close programs that use the GPU.</source>
        <translation>GPU의 비디오 메모리가 부족합니다(%1). 더 작은 컨텍스트, 더 적은 동시 요청 또는 더 작은 모델을 쓰거나, GPU를 쓰는 프로그램을 닫으세요.</translation>
    </message>
    <message>
        <source>%1 (compute capability %2) is not among the GPUs this build of FreeToken was made for (%3 failed). Load the model on the CPU, or use a build for this GPU.</source>
        <translation>%1(연산 능력 %2)은(는) 이 FreeToken 빌드가 지원하는 GPU가 아닙니다(%3 실패). CPU에서 모델을 불러오거나, 이 GPU용 빌드를 사용하세요.</translation>
    </message>
    <message>
        <source>The GPU reported an error in %1: %2 (%3).</source>
        <translation>GPU가 %1에서 오류를 보고했습니다: %2(%3).</translation>
    </message>
    <message>
        <source>cuBLAS, the GPU&apos;s matrix library, failed in %1 (status %2). Update the NVIDIA driver, or load the model on the CPU.</source>
        <translation>GPU 행렬 라이브러리 cuBLAS가 %1에서 실패했습니다(상태 %2). NVIDIA 드라이버를 업데이트하거나 CPU에서 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>The sampling setting %1 must lie in %2.</source>
        <translation>샘플링 설정 %1의 값은 %2 범위 안에 있어야 합니다.</translation>
    </message>
    <message>
        <source>The sampling setting %1 must be %2.</source>
        <translation>샘플링 설정 %1의 값은 %2이어야 합니다.</translation>
    </message>
    <message>
        <source>The request&apos;s %1 is %3; the server takes values in %2.</source>
        <translation>요청의 %1 값이 %3입니다. 서버는 %2 범위의 값만 받습니다.</translation>
    </message>
    <message>
        <source>The server has no model named “%1”; it serves “%2”.</source>
        <translation>서버에 “%1” 모델이 없습니다. 이 서버가 제공하는 모델은 “%2”입니다.</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; the server&apos;s model holds %2. Start a new chat or shorten the message, or restart the server with a larger context.</source>
        <translation>프롬프트가 %1 토큰인데 서버 모델의 컨텍스트는 %2 토큰까지입니다. 새 채팅을 시작하거나 메시지를 줄이거나, 더 큰 컨텍스트로 서버를 다시 시작하세요.</translation>
    </message>
    <message>
        <source>the API key is missing or wrong</source>
        <translation>API 키가 없거나 잘못되었습니다</translation>
    </message>
    <message>
        <source>The server is busy: %1 requests are already running or waiting. Try again shortly.</source>
        <translation>서버가 바쁩니다. 이미 요청 %1개가 실행 중이거나 대기 중입니다. 잠시 후 다시 시도하세요.</translation>
    </message>
    <message>
        <source>The server is shutting down.</source>
        <translation>서버가 종료되는 중입니다.</translation>
    </message>
    <message>
        <source>The request is larger than the server accepts.</source>
        <translation>요청이 서버가 받는 크기보다 큽니다.</translation>
    </message>
</context>
<context>
    <name>FaultBanner</name>
    <message>
        <source>The engine stopped with an error</source>
        <translation>엔진이 오류로 멈췄습니다</translation>
    </message>
    <message>
        <source>Restart engine</source>
        <translation>엔진 다시 시작</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>닫기</translation>
    </message>
</context>
<context>
    <name>LogsPage</name>
    <message>
        <source>Logs</source>
        <translation>로그</translation>
    </message>
    <message>
        <source>Also written to %1</source>
        <translation>%1에도 기록됩니다</translation>
    </message>
    <message>
        <source>Not written to a file (see the first lines)</source>
        <translation>파일에 기록되지 않습니다(처음 몇 줄 참고)</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>복사</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>폴더 열기</translation>
    </message>
    <message>
        <source>All</source>
        <translation>전체</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>정보</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>경고</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>오류</translation>
    </message>
    <message>
        <source>Search the log</source>
        <translation>로그 검색</translation>
    </message>
    <message>
        <source>%1 of %2 lines</source>
        <translation>%2줄 중 %1줄</translation>
    </message>
    <message>
        <source>Auto-scroll</source>
        <translation>자동 스크롤</translation>
    </message>
    <message>
        <source>No lines match the filter</source>
        <translation>필터와 일치하는 줄이 없습니다</translation>
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
        <translation>FreeToken Desktop — API 서버 %1</translation>
    </message>
</context>
<context>
    <name>ModelRow</name>
    <message>
        <source>Runs on the GPU</source>
        <translation>GPU에서 실행</translation>
    </message>
    <message>
        <source>Hybrid GPU + CPU</source>
        <translation>GPU + CPU 혼합</translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation>CPU 전용</translation>
    </message>
    <message>
        <source>Does not fit in RAM</source>
        <translation>RAM에 들어가지 않음</translation>
    </message>
    <message>
        <source>%1 · ≈ %2–%3 tok/s</source>
        <translation>%1 · 약 %2–%3 tok/s</translation>
    </message>
    <message>
        <source>Not supported yet</source>
        <translation>아직 지원하지 않음</translation>
    </message>
    <message>
        <source>Cannot be read</source>
        <translation>읽을 수 없음</translation>
    </message>
    <message>
        <source>%1 parameters, %2 active</source>
        <translation>매개변수 %1개, 활성 %2개</translation>
    </message>
    <message numerus="yes">
        <source>%n part(s)</source>
        <translation>
            <numerusform>%n개 파트</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — %2 of %3</source>
        <translation>%1 — %2 / %3</translation>
    </message>
    <message>
        <source>Added %1</source>
        <translation>%1 추가됨</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>불러오기</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>내리기</translation>
    </message>
    <message>
        <source>Remove from the library</source>
        <translation>라이브러리에서 제거</translation>
    </message>
    <message>
        <source>Demo</source>
        <translation>데모</translation>
    </message>
    <message>
        <source>The small demo model that comes with FreeToken, for trying the app. Download a real model for real work.</source>
        <translation>FreeToken에 포함된 작은 데모 모델로, 앱을 체험해 보기 위한 것입니다. 실제로 쓰려면 실제 모델을 다운로드하세요.</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Models</source>
        <translation>모델</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) in your library</source>
        <translation>
            <numerusform>라이브러리에 모델 %n개</numerusform>
        </translation>
    </message>
    <message>
        <source>Your library is empty</source>
        <translation>라이브러리가 비어 있습니다</translation>
    </message>
    <message>
        <source>Download…</source>
        <translation>다운로드…</translation>
    </message>
    <message>
        <source>Scan models folder</source>
        <translation>모델 폴더 검색</translation>
    </message>
    <message>
        <source>Add every model in %1</source>
        <translation>%1에 있는 모든 모델 추가</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>폴더 추가…</translation>
    </message>
    <message>
        <source>Add model…</source>
        <translation>모델 추가…</translation>
    </message>
    <message>
        <source>Choose a GGUF model file</source>
        <translation>GGUF 모델 파일 선택</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 모델 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>모든 파일 (*)</translation>
    </message>
    <message>
        <source>Choose a Hugging Face model folder</source>
        <translation>Hugging Face 모델 폴더 선택</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>닫기</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>다운로드</translation>
    </message>
    <message>
        <source>Add a model to start</source>
        <translation>모델을 추가해 시작하세요</translation>
    </message>
    <message>
        <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded (or drop it here); it is used where it is, nothing is copied.</source>
        <translation>FreeToken은 Mixture-of-Experts 모델을 이 PC에서 실행합니다. 전문가 가중치는 시스템 RAM에 두고, 가장 많이 쓰이는 것은 GPU 가까이에 둡니다. 다운로드한 모델을 추가하거나 여기에 끌어다 놓으세요. 모델은 있는 자리에서 그대로 사용되며 복사되지 않습니다.</translation>
    </message>
    <message>
        <source>A GGUF file</source>
        <translation>GGUF 파일</translation>
    </message>
    <message>
        <source>One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.</source>
        <translation>.gguf 파일 하나. 예: Qwen3-30B-A3B-Q4_K_M.gguf</translation>
    </message>
    <message>
        <source>Choose file…</source>
        <translation>파일 선택…</translation>
    </message>
    <message>
        <source>A Hugging Face folder</source>
        <translation>Hugging Face 폴더</translation>
    </message>
    <message>
        <source>A downloaded model folder with config.json, the tokenizer and .safetensors weights.</source>
        <translation>config.json, 토크나이저, .safetensors 가중치가 들어 있는 다운로드한 모델 폴더.</translation>
    </message>
    <message>
        <source>Choose folder…</source>
        <translation>폴더 선택…</translation>
    </message>
    <message>
        <source>Models you download with FreeToken will be stored in</source>
        <translation>FreeToken으로 다운로드한 모델은 다음 위치에 저장됩니다</translation>
    </message>
    <message>
        <source>Drop a .gguf file or a model folder to add it</source>
        <translation>.gguf 파일이나 모델 폴더를 놓으면 추가됩니다</translation>
    </message>
    <message>
        <source>Add a server…</source>
        <translation>서버 추가…</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>%1 s ago</source>
        <translation>%1초 전</translation>
    </message>
    <message>
        <source>%1 min ago</source>
        <translation>%1분 전</translation>
    </message>
</context>
<context>
    <name>RemoteConsoleCard</name>
    <message>
        <source>%1 on %2</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>응답 없음</translation>
    </message>
    <message>
        <source>FreeToken server · live</source>
        <translation>FreeToken 서버 · 실시간</translation>
    </message>
    <message>
        <source>Other server</source>
        <translation>다른 서버</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>확인 중…</translation>
    </message>
    <message>
        <source>This server does not report its memory, GPU, cache or queue figures (only a FreeToken server does, through /v1/stats). Shown here is what this app measured on its last reply: time to first token and tokens per second, network included.</source>
        <translation>이 서버는 메모리, GPU, 캐시, 대기열 수치를 알려 주지 않습니다(/v1/stats로 알려 주는 것은 FreeToken 서버뿐입니다). 여기에는 이 앱이 마지막 응답에서 직접 잰 값, 즉 네트워크를 포함한 첫 토큰까지의 시간과 초당 토큰 수가 표시됩니다.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>디코딩</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>tok/s</translation>
    </message>
    <message>
        <source>Time to first token</source>
        <translation>첫 토큰까지의 시간</translation>
    </message>
    <message>
        <source>prefill %1 tok/s</source>
        <translation>프리필 %1 tok/s</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>요청</translation>
    </message>
    <message>
        <source>running</source>
        <translation>실행 중</translation>
    </message>
    <message>
        <source>%1 queued · %2 served</source>
        <translation>대기 %1 · 처리 %2</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>토큰</translation>
    </message>
    <message>
        <source>of %1; context %2</source>
        <translation>전체 %1 중; 컨텍스트 %2</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>VRAM</translation>
    </message>
    <message>
        <source>The server runs on its CPU</source>
        <translation>서버가 CPU에서 실행 중입니다</translation>
    </message>
    <message>
        <source>PCIe to GPU</source>
        <translation>GPU로 가는 PCIe</translation>
    </message>
    <message>
        <source>Expert cache hit rate</source>
        <translation>전문가 캐시 적중률</translation>
    </message>
    <message>
        <source>No expert cache on this server</source>
        <translation>이 서버에는 전문가 캐시가 없습니다</translation>
    </message>
    <message>
        <source>%1 slots</source>
        <translation>슬롯 %1개</translation>
    </message>
    <message>
        <source>TTFT measured here</source>
        <translation>여기서 잰 TTFT</translation>
    </message>
    <message>
        <source>Send a message to measure</source>
        <translation>메시지를 보내면 측정합니다</translation>
    </message>
    <message>
        <source>from sending to the first text, network included</source>
        <translation>보낸 순간부터 첫 텍스트까지, 네트워크 포함</translation>
    </message>
    <message>
        <source>Speed of the last reply</source>
        <translation>마지막 응답의 속도</translation>
    </message>
    <message>
        <source>%1 tokens in the last reply</source>
        <translation>마지막 응답의 토큰 %1개</translation>
    </message>
    <message>
        <source>Its charts and cache sizes are below. Apply sends the sizes to the server (/v1/cache/rebuild, with this server&apos;s key), which rebuilds its caches or says why not.</source>
        <translation>차트와 캐시 크기는 아래에 있습니다. 적용을 누르면 크기를 서버로 보내고(/v1/cache/rebuild, 이 서버의 키로), 서버가 캐시를 다시 만들거나 안 되는 이유를 알려 줍니다.</translation>
    </message>
    <message>
        <source>The last reply arrived at once, too fast to time</source>
        <translation>마지막 응답이 한 번에, 잴 수 없을 만큼 빨리 도착했습니다</translation>
    </message>
</context>
<context>
    <name>RemoteServersCard</name>
    <message>
        <source>Servers</source>
        <translation>서버</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>새로 고침</translation>
    </message>
    <message>
        <source>Ask every server for its models again</source>
        <translation>모든 서버에 모델 목록을 다시 요청</translation>
    </message>
    <message>
        <source>FreeToken server</source>
        <translation>FreeToken 서버</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>연결됨</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>응답 없음</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>확인 중…</translation>
    </message>
    <message>
        <source>API key in the keychain</source>
        <translation>키체인의 API 키</translation>
    </message>
    <message>
        <source>Unencrypted</source>
        <translation>암호화 안 됨</translation>
    </message>
    <message>
        <source>Remove this server (and its key) from the list</source>
        <translation>이 서버(와 키)를 목록에서 제거</translation>
    </message>
    <message>
        <source>This server lists no model.</source>
        <translation>이 서버에는 모델이 없습니다.</translation>
    </message>
    <message>
        <source>context %1 tokens</source>
        <translation>컨텍스트 %1 토큰</translation>
    </message>
    <message>
        <source>context not stated</source>
        <translation>컨텍스트 알 수 없음</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>사용 중</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <source>API key in a file</source>
        <translation>파일의 API 키</translation>
    </message>
    <message>
        <source>Reading the servers&apos; API keys from the system keychain… If it asks to be unlocked, unlock it.</source>
        <translation>시스템 키체인에서 서버의 API 키를 읽는 중… 잠금 해제를 요청하면 잠금을 해제하세요.</translation>
    </message>
</context>
<context>
    <name>RemoveModelDialog</name>
    <message>
        <source>Remove %1?</source>
        <translation>%1을(를) 제거할까요?</translation>
    </message>
    <message>
        <source>The model leaves the library. Its files stay where they are unless you tick the box below.</source>
        <translation>모델이 라이브러리에서 빠집니다. 아래 상자를 선택하지 않으면 파일은 그대로 남습니다.</translation>
    </message>
    <message>
        <source>Also delete the folder from the disk</source>
        <translation>디스크에서 폴더도 삭제</translation>
    </message>
    <message>
        <source>Also delete the file from the disk</source>
        <translation>디스크에서 파일도 삭제</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Remove and delete</source>
        <translation>제거 및 삭제</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>제거</translation>
    </message>
</context>
<context>
    <name>RenameChatDialog</name>
    <message>
        <source>Rename chat</source>
        <translation>채팅 이름 바꾸기</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>이름 바꾸기</translation>
    </message>
    <message>
        <source>Name of the chat</source>
        <translation>채팅 이름</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <source>Settings</source>
        <translation>설정</translation>
    </message>
    <message>
        <source>Changes apply immediately and are saved</source>
        <translation>변경 사항은 즉시 적용되고 저장됩니다</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>모양</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>테마</translation>
    </message>
    <message>
        <source>System</source>
        <translation>시스템</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>다크</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>라이트</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>언어</translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation>로컬 API 서버</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>저장 위치</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>데이터 폴더</translation>
    </message>
    <message>
        <source>Models folder</source>
        <translation>모델 폴더</translation>
    </message>
    <message>
        <source>Log folder</source>
        <translation>로그 폴더</translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation>설정 파일</translation>
    </message>
    <message>
        <source>About</source>
        <translation>정보</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>버전</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>빌드</translation>
    </message>
    <message>
        <source>Hugging Face</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>Downloads on the Models page. Gated and private models need an access token (huggingface.co → Settings → Access Tokens, read access).</source>
        <translation>모델 페이지의 다운로드에 쓰입니다. 접근 제한 모델과 비공개 모델에는 액세스 토큰이 필요합니다(huggingface.co → Settings → Access Tokens, 읽기 권한).</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>액세스 토큰</translation>
    </message>
    <message>
        <source>hf_… (optional)</source>
        <translation>hf_…(선택 사항)</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>서버</translation>
    </message>
    <message>
        <source>Enter an http:// or https:// address, or leave it empty for huggingface.co.</source>
        <translation>http:// 또는 https:// 주소를 입력하세요. 비워 두면 huggingface.co를 사용합니다.</translation>
    </message>
    <message>
        <source>Set by FT_HF_ENDPOINT in the environment.</source>
        <translation>환경 변수 FT_HF_ENDPOINT로 설정됨.</translation>
    </message>
    <message>
        <source>Serves the loaded model to OpenAI and Anthropic clients and coding agents on this PC (127.0.0.1 only).</source>
        <translation>불러온 모델을 이 PC의 OpenAI·Anthropic 클라이언트와 코딩 에이전트에 제공합니다(127.0.0.1 전용).</translation>
    </message>
    <message>
        <source>Serve the loaded model</source>
        <translation>불러온 모델 제공</translation>
    </message>
    <message>
        <source>On</source>
        <translation>켜짐</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>꺼짐</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>실행 중</translation>
    </message>
    <message>
        <source>Waiting for a model</source>
        <translation>모델을 기다리는 중</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>실행되지 않음</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>포트</translation>
    </message>
    <message>
        <source>Enter a port from 1 to 65535.</source>
        <translation>1부터 65535 사이의 포트를 입력하세요.</translation>
    </message>
    <message>
        <source>OpenAI clients</source>
        <translation>OpenAI 클라이언트</translation>
    </message>
    <message>
        <source>Claude Code</source>
        <translation>Claude Code</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>복사됨</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>복사</translation>
    </message>
    <message>
        <source>New chats</source>
        <translation>새 채팅</translation>
    </message>
    <message>
        <source>What a new chat starts with. Each chat keeps its own copy: change one chat with Chat settings on the Chat page.</source>
        <translation>새 채팅이 시작할 때 쓰는 설정입니다. 각 채팅은 자기 사본을 유지하므로, 한 채팅만 바꾸려면 채팅 페이지의 채팅 설정을 사용하세요.</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>시스템 프롬프트</translation>
    </message>
    <message>
        <source>How the assistant should behave (optional)</source>
        <translation>어시스턴트의 행동 방식 (선택 사항)</translation>
    </message>
    <message>
        <source>Temperature (0–2)</source>
        <translation>온도 (0–2)</translation>
    </message>
    <message>
        <source>Top-p (0–1)</source>
        <translation>Top-p (0–1)</translation>
    </message>
    <message>
        <source>Max tokens per reply</source>
        <translation>답변당 최대 토큰 수</translation>
    </message>
    <message>
        <source>Seed (0: random)</source>
        <translation>시드 (0: 무작위)</translation>
    </message>
    <message>
        <source>Startup</source>
        <translation>시작</translation>
    </message>
    <message>
        <source>Load the last model when FreeToken starts (if it is still in the library)</source>
        <translation>FreeToken을 시작할 때 마지막 모델 불러오기 (라이브러리에 아직 있는 경우)</translation>
    </message>
    <message>
        <source>Use the sampling the loaded model recommends (temperature, top-p, top-k) where its file names one</source>
        <translation>불러온 모델의 파일에 권장 샘플링(온도, top-p, top-k)이 있으면 그 값을 사용</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>Desktop</source>
        <translation>데스크톱</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>Console</source>
        <translation>콘솔</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>로그</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>설정</translation>
    </message>
    <message>
        <source>Switch to the light theme</source>
        <translation>라이트 테마로 전환</translation>
    </message>
    <message>
        <source>Switch to the dark theme</source>
        <translation>다크 테마로 전환</translation>
    </message>
    <message>
        <source>API server: %1</source>
        <translation>API 서버: %1</translation>
    </message>
    <message>
        <source>API server: waiting for a model</source>
        <translation>API 서버: 모델을 기다리는 중</translation>
    </message>
    <message>
        <source>API server: not running</source>
        <translation>API 서버: 실행되지 않음</translation>
    </message>
</context>
<context>
    <name>SystemBox</name>
    <message>
        <source>VRAM</source>
        <translation>VRAM</translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation>GPU 없음</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>RAM</translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation>CPU 전용</translation>
    </message>
    <message>
        <source>%1 threads</source>
        <translation>%1 스레드</translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome to FreeToken</source>
        <translation>FreeToken에 오신 것을 환영합니다</translation>
    </message>
    <message>
        <source>The demo model is tiny and made only for trying the app: chat, the Console and the API server all work with it, but its answers are not useful. It is marked Demo on the Models page.</source>
        <translation>데모 모델은 앱 체험용으로만 만든 아주 작은 모델입니다. 채팅, 콘솔, API 서버 모두 이 모델로 동작하지만 답변은 쓸모가 없습니다. 모델 페이지에서 ‘데모’로 표시됩니다.</translation>
    </message>
    <message>
        <source>Loading the demo model: %1</source>
        <translation>데모 모델 불러오는 중: %1</translation>
    </message>
    <message>
        <source>The demo model is loaded and ready.</source>
        <translation>데모 모델을 불러왔습니다. 바로 사용할 수 있습니다.</translation>
    </message>
    <message>
        <source>The demo model could not be loaded: %1</source>
        <translation>데모 모델을 불러올 수 없습니다: %1</translation>
    </message>
    <message>
        <source>CPU-only mode: %1.</source>
        <translation>CPU 전용 모드: %1.</translation>
    </message>
    <message>
        <source>For real work, download a model on the Models page: a Qwen3-30B-A3B GGUF runs on an 8 GB GPU.</source>
        <translation>실제로 쓰려면 모델 페이지에서 모델을 다운로드하세요. Qwen3-30B-A3B GGUF는 8 GB GPU에서 실행됩니다.</translation>
    </message>
    <message>
        <source>Go to Models and download a real model</source>
        <translation>모델 페이지에서 실제 모델 다운로드하기</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>닫기</translation>
    </message>
    <message>
        <source>Try it in Chat</source>
        <translation>채팅에서 사용해 보기</translation>
    </message>
    <message>
        <source>FreeToken runs large Mixture-of-Experts models on this PC. So that you can try it right away, it has added a small demo model to your library.</source>
        <translation>FreeToken은 대형 Mixture-of-Experts 모델을 이 PC에서 실행합니다. 바로 체험해 볼 수 있도록 작은 데모 모델을 라이브러리에 추가했습니다.</translation>
    </message>
</context>
<context>
    <name>ft::ApiServerHost</name>
    <message>
        <source>The server could not start: %1</source>
        <translation>서버를 시작할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>Port %1 is in use by another program (another FreeToken or ft serve?): choose another port here, or stop that program.</source>
        <translation>포트 %1을(를) 다른 프로그램(다른 FreeToken 또는 ft serve?)이 사용 중입니다: 여기서 다른 포트를 고르거나 그 프로그램을 종료하세요.</translation>
    </message>
</context>
<context>
    <name>ft::EngineHost</name>
    <message>
        <source>No model path was given. Choose a .gguf file or a model folder on the Models page.</source>
        <translation>모델 경로가 지정되지 않았습니다. 모델 페이지에서 .gguf 파일이나 모델 폴더를 선택하세요.</translation>
    </message>
    <message>
        <source>Loading was cancelled.</source>
        <translation>불러오기가 취소되었습니다.</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>%1을(를) 불러올 수 없습니다: %2</translation>
    </message>
    <message>
        <source>The engine could not be restarted: %1</source>
        <translation>엔진을 다시 시작할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The model is still loading; wait until it is ready.</source>
        <translation>모델을 아직 불러오는 중입니다. 준비될 때까지 기다리세요.</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page first.</source>
        <translation>불러온 모델이 없습니다. 먼저 모델 페이지에서 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>The engine refused the request: %1</source>
        <translation>엔진이 요청을 거부했습니다: %1</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>답변 실패: %1</translation>
    </message>
    <message>
        <source>Opening the file</source>
        <translation>파일을 여는 중</translation>
    </message>
    <message>
        <source>Mapping the weights</source>
        <translation>가중치를 매핑하는 중</translation>
    </message>
    <message>
        <source>Reading the tokenizer</source>
        <translation>토크나이저를 읽는 중</translation>
    </message>
    <message>
        <source>Measuring PCIe and CPU bandwidth (once for this GPU)</source>
        <translation>PCIe와 CPU 대역폭 측정 중(이 GPU에서 한 번만)</translation>
    </message>
    <message>
        <source>Uploading the weights</source>
        <translation>가중치를 올리는 중</translation>
    </message>
    <message>
        <source>Allocating the KV cache</source>
        <translation>KV 캐시를 할당하는 중</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>준비됨</translation>
    </message>
</context>
<context>
    <name>ft::RemoteClient</name>
    <message>
        <source>The server at %1 did not pass the TLS check (%2). FreeToken verifies certificates: give the server a certificate this system trusts, or add its certificate authority to the system&apos;s store.</source>
        <translation>%1 서버가 TLS 검사를 통과하지 못했습니다(%2). FreeToken은 인증서를 검증합니다: 서버에 이 시스템이 신뢰하는 인증서를 설치하거나, 그 인증 기관을 시스템 저장소에 추가하세요.</translation>
    </message>
    <message>
        <source>Cannot reach the server at %1 (%2). Check the address and port, and that the server is running.</source>
        <translation>%1 서버에 연결할 수 없습니다(%2). 주소와 포트, 그리고 서버가 실행 중인지 확인하세요.</translation>
    </message>
    <message>
        <source>The server at %1 refused the API key (HTTP %2: %3). Check the key, then add the server again with the right one.</source>
        <translation>%1 서버가 API 키를 거부했습니다(HTTP %2: %3). 키를 확인한 뒤 올바른 키로 서버를 다시 추가하세요.</translation>
    </message>
    <message>
        <source>The server at %1 has no %2 (HTTP %3). Is this the base URL of an OpenAI-compatible server? Give it without the path, e.g. http://192.168.1.20:8000.</source>
        <translation>%1 서버에 %2이(가) 없습니다(HTTP %3). OpenAI 호환 서버의 기본 URL이 맞나요? 경로 없이 입력하세요. 예: http://192.168.1.20:8000</translation>
    </message>
    <message>
        <source>The server at %1 answered %2 with HTTP %3: %4</source>
        <translation>%1 서버가 %2에 HTTP %3(으)로 응답했습니다: %4</translation>
    </message>
    <message>
        <source>The connection to the server at %1 failed (%2). Check the address and that the server is running.</source>
        <translation>%1 서버와의 연결이 실패했습니다(%2). 주소와 서버가 실행 중인지 확인하세요.</translation>
    </message>
    <message>
        <source>The server at %1 answered %2, but not with the JSON an OpenAI-compatible server sends (%3: “%4”). Is this the right address?</source>
        <translation>%1 서버가 %2에 응답했지만 OpenAI 호환 서버가 보내는 JSON이 아닙니다(%3: “%4”). 주소가 맞나요?</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>콘텐츠 유형 없음</translation>
    </message>
    <message>
        <source>The server at %1 stopped the reply with an error: %2</source>
        <translation>%1 서버가 오류로 응답을 멈췄습니다: %2</translation>
    </message>
    <message>
        <source>The server at %1 closed the connection before the reply finished (%2). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation>%1 서버가 응답이 끝나기 전에 연결을 닫았습니다(%2). 도착한 텍스트는 보존됩니다. 서버를 확인한 뒤 다시 생성을 누르세요.</translation>
    </message>
    <message>
        <source>The server at %1 ended the reply without finishing it (no finish reason, no [DONE]). The text that arrived is kept; check the server, then press Regenerate.</source>
        <translation>%1 서버가 응답을 마무리하지 않고 끝냈습니다(종료 이유 없음, [DONE] 없음). 도착한 텍스트는 보존됩니다. 서버를 확인한 뒤 다시 생성을 누르세요.</translation>
    </message>
    <message>
        <source>the server says: “%1”</source>
        <translation>서버의 메시지: “%1”</translation>
    </message>
</context>
<context>
    <name>ft::app::SingleInstance</name>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds.</source>
        <translation>FreeToken이 이미 실행 중이지만 %1초 안에 응답하지 않았습니다.</translation>
    </message>
    <message>
        <source>FreeToken is already running but did not answer within %1 seconds, so it did not open %2.</source>
        <translation>FreeToken이 이미 실행 중이지만 %1초 안에 응답하지 않아 %2을(를) 열지 못했습니다.</translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end freetoken.exe in the Task Manager (Ctrl+Shift+Esc, Details). Then start FreeToken again.</source>
        <translation>열려 있는 FreeToken 창을 닫으세요. 창이 보이지 않으면 작업 관리자(Ctrl+Shift+Esc, 세부 정보)에서 freetoken.exe를 끝내세요. 그런 다음 FreeToken을 다시 시작하세요.</translation>
    </message>
    <message>
        <source>Close the FreeToken window that is open. If none shows, end the freetoken process (for example with the system monitor, or pkill -x freetoken). Then start FreeToken again.</source>
        <translation>열려 있는 FreeToken 창을 닫으세요. 창이 보이지 않으면 freetoken 프로세스를 끝내세요(예: 시스템 모니터 또는 pkill -x freetoken). 그런 다음 FreeToken을 다시 시작하세요.</translation>
    </message>
</context>
<context>
    <name>ft::ui::ChatSession</name>
    <message>
        <source>New chat</source>
        <translation>새 채팅</translation>
    </message>
    <message>
        <source>The chat history cannot be opened: %1</source>
        <translation>채팅 기록을 열 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The chat history cannot be read: %1</source>
        <translation>채팅 기록을 읽을 수 없습니다: %1</translation>
    </message>
    <message>
        <source>That conversation no longer exists.</source>
        <translation>해당 대화가 더 이상 존재하지 않습니다.</translation>
    </message>
    <message>
        <source>The conversation cannot be opened: %1</source>
        <translation>대화를 열 수 없습니다: %1</translation>
    </message>
    <message>
        <source>A conversation needs a name. Type one, or press Cancel.</source>
        <translation>대화에는 이름이 필요합니다. 이름을 입력하거나 취소를 누르세요.</translation>
    </message>
    <message>
        <source>The conversation cannot be renamed: %1</source>
        <translation>대화 이름을 바꿀 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The conversation cannot be deleted: %1</source>
        <translation>대화를 삭제할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>Temperature must be between 0 and 2 (0 always picks the most likely token).</source>
        <translation>온도는 0에서 2 사이여야 합니다 (0이면 항상 가장 가능성 높은 토큰을 고릅니다).</translation>
    </message>
    <message>
        <source>Top-p must be above 0 and at most 1 (1 turns it off).</source>
        <translation>Top-p는 0보다 크고 1 이하여야 합니다 (1이면 꺼집니다).</translation>
    </message>
    <message>
        <source>Max tokens must be between 1 and 1048576.</source>
        <translation>최대 토큰 수는 1에서 1048576 사이여야 합니다.</translation>
    </message>
    <message>
        <source>The seed must be 0 (a new random seed each reply) or a positive number.</source>
        <translation>시드는 0(답변마다 새 무작위 시드) 또는 양수여야 합니다.</translation>
    </message>
    <message>
        <source>The chat settings cannot be saved: %1</source>
        <translation>채팅 설정을 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>Wait for the reply to finish, or press Stop (Esc).</source>
        <translation>답변이 끝날 때까지 기다리거나 중지(Esc)를 누르세요.</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then send your message again.</source>
        <translation>불러온 모델이 없습니다. 모델 페이지에서 모델을 불러온 뒤 메시지를 다시 보내세요.</translation>
    </message>
    <message>
        <source>Your message cannot be saved: %1</source>
        <translation>메시지를 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>This model has no usable tokenizer, so it cannot chat. Choose another model.</source>
        <translation>이 모델에는 사용할 수 있는 토크나이저가 없어 채팅할 수 없습니다. 다른 모델을 선택하세요.</translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed on this conversation: %1</source>
        <translation>이 대화에서 모델의 채팅 템플릿이 실패했습니다: %1</translation>
    </message>
    <message>
        <source>This conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Start a new chat (Ctrl+N), or load the model with a larger context.</source>
        <translation>이 대화(토큰 %1개)는 더 이상 모델의 컨텍스트(토큰 %2개)에 들어가지 않습니다. 새 채팅을 시작하거나(Ctrl+N) 더 큰 컨텍스트로 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>The reply cannot be saved: %1</source>
        <translation>답변을 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The engine did not accept the request.</source>
        <translation>엔진이 요청을 받아들이지 않았습니다.</translation>
    </message>
    <message>
        <source>The reply cannot be saved as it streams: %1</source>
        <translation>스트리밍 중인 답변을 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>There is no reply to regenerate yet: send a message first.</source>
        <translation>다시 생성할 답변이 아직 없습니다. 먼저 메시지를 보내세요.</translation>
    </message>
    <message>
        <source>No model is loaded. Load one on the Models page, then try again.</source>
        <translation>불러온 모델이 없습니다. 모델 페이지에서 모델을 불러온 뒤 다시 시도하세요.</translation>
    </message>
    <message>
        <source>The old reply cannot be replaced: %1</source>
        <translation>이전 답변을 바꿀 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The edited message cannot be saved: %1</source>
        <translation>수정한 메시지를 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation>서버 목록을 읽을 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The API key of %1 is in the system keychain (%2), which did not give it: %3. Unlock the keychain and press Regenerate, or add the server again with its key.</source>
        <translation>%1의 API 키는 시스템 키체인(%2)에 있지만 키체인이 키를 내주지 않았습니다: %3. 키체인 잠금을 해제하고 다시 생성을 누르거나, 키와 함께 서버를 다시 추가하세요.</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>온도 %1</translation>
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
        <translation>불러온 모델의 권장 설정: %1.</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
</context>
<context>
    <name>ft::ui::ConsoleModel</name>
    <message>
        <source>%1 KV positions are more than the %2 this plan allows.</source>
        <translation>KV 위치 %1개는 이 계획이 허용하는 %2개보다 많습니다.</translation>
    </message>
    <message>
        <source>The KV cache and the expert cache would need %1 MiB; the budget leaves %2 MiB for them.</source>
        <translation>KV 캐시와 전문가 캐시에 %1 MiB가 필요하지만 예산으로는 %2 MiB만 남습니다.</translation>
    </message>
</context>
<context>
    <name>ft::ui::DownloadListModel</name>
    <message>
        <source>&quot;%1&quot; is not a Hugging Face repository: enter owner/name (for example Qwen/Qwen3-30B-A3B-GGUF) or paste its address</source>
        <translation>&quot;%1&quot;은(는) Hugging Face 저장소가 아닙니다. 소유자/이름(예: Qwen/Qwen3-30B-A3B-GGUF)을 입력하거나 주소를 붙여 넣으세요</translation>
    </message>
    <message>
        <source>%1 was not found (HTTP 404): check the repository name and that the file still exists</source>
        <translation>%1을(를) 찾을 수 없습니다(HTTP 404). 저장소 이름과 파일이 아직 있는지 확인하세요</translation>
    </message>
    <message>
        <source>%1 is gated or private (HTTP %2): accept its licence on the Hugging Face website, then enter an access token in Settings</source>
        <translation>%1은(는) 접근 제한 또는 비공개 저장소입니다(HTTP %2). Hugging Face 웹사이트에서 라이선스에 동의한 뒤 설정에 액세스 토큰을 입력하세요</translation>
    </message>
    <message>
        <source>The access token was refused for %1 (HTTP %2): check the token in Settings</source>
        <translation>%1에 대한 액세스 토큰이 거부되었습니다(HTTP %2). 설정에서 토큰을 확인하세요</translation>
    </message>
    <message>
        <source>%1 failed: the server answered HTTP %2; try again later</source>
        <translation>%1 실패: 서버가 HTTP %2로 응답했습니다. 나중에 다시 시도하세요</translation>
    </message>
    <message>
        <source>The file list of %1 from %2 is not what the Hugging Face API returns: check the address in Settings</source>
        <translation>%2에서 받은 %1의 파일 목록이 Hugging Face API 형식이 아닙니다. 설정의 주소를 확인하세요</translation>
    </message>
    <message>
        <source>%1 has no GGUF files and is not a safetensors model: pick another repository (GGUF repositories often end in -GGUF)</source>
        <translation>%1에는 GGUF 파일이 없고 safetensors 모델도 아닙니다. 다른 저장소를 고르세요(GGUF 저장소 이름은 보통 -GGUF로 끝납니다)</translation>
    </message>
    <message>
        <source>Not enough disk space: %1 more is needed, %2 is free on %3. Free some space, then resume</source>
        <translation>디스크 공간이 부족합니다. %1이(가) 더 필요한데 %3의 여유 공간은 %2입니다. 공간을 확보한 뒤 이어받으세요</translation>
    </message>
    <message>
        <source>Cannot write %1 (%2): check the disk and the folder&apos;s permissions, then resume</source>
        <translation>%1에 쓸 수 없습니다(%2). 디스크와 폴더 권한을 확인한 뒤 이어받으세요</translation>
    </message>
    <message>
        <source>%1 arrived corrupted (its sha256 does not match the Hub&apos;s). The damaged file was deleted: resume to download it again</source>
        <translation>%1이(가) 손상된 채 받아졌습니다(sha256이 Hub의 값과 다릅니다). 손상된 파일은 삭제했습니다. 이어받기를 누르면 다시 다운로드합니다</translation>
    </message>
    <message>
        <source>The server sent %1 with the wrong size: try again later</source>
        <translation>서버가 보낸 %1의 크기가 맞지 않습니다. 나중에 다시 시도하세요</translation>
    </message>
    <message>
        <source>Downloaded, but the library refused %1: %2</source>
        <translation>다운로드했지만 라이브러리가 %1을(를) 거부했습니다: %2</translation>
    </message>
    <message>
        <source>Cannot download %1 (%2): check the network connection, then resume</source>
        <translation>%1을(를) 다운로드할 수 없습니다(%2). 네트워크 연결을 확인한 뒤 이어받으세요</translation>
    </message>
    <message>
        <source>Cannot reach %1 (%2): check the network connection and the Hugging Face address in Settings, then try again</source>
        <translation>%1에 연결할 수 없습니다(%2): 네트워크 연결과 설정의 Hugging Face 주소를 확인한 뒤 다시 시도하세요</translation>
    </message>
</context>
<context>
    <name>ft::ui::ModelListModel</name>
    <message>
        <source>No models found in %1</source>
        <translation>%1에서 모델을 찾지 못했습니다</translation>
    </message>
    <message numerus="yes">
        <source>%n new model(s) added</source>
        <translation>
            <numerusform>새 모델 %n개 추가됨</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already in the library</source>
        <translation>
            <numerusform>%n개는 이미 라이브러리에 있음</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) added</source>
        <translation>
            <numerusform>모델 %n개 추가됨</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ft::ui::RemoteServerListModel</name>
    <message>
        <source>The server list cannot be read: %1</source>
        <translation>서버 목록을 읽을 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The Windows Credential Manager cannot be used (%1), so the API key is kept in %2, in your user profile, which other users of this PC cannot read.</source>
        <translation>Windows 자격 증명 관리자를 사용할 수 없어(%1) API 키는 사용자 프로필 안의 %2에 보관됩니다. 이 PC의 다른 사용자는 읽을 수 없습니다.</translation>
    </message>
    <message>
        <source>The system keychain cannot be used (%1), so the API key is kept in %2, a file only your user account can read (permissions 0600).</source>
        <translation>시스템 키체인을 사용할 수 없어(%1) API 키는 내 사용자 계정만 읽을 수 있는 파일 %2에 보관됩니다(권한 0600).</translation>
    </message>
    <message>
        <source>%1 is plain http to another computer: your messages, the replies and the API key travel unencrypted, and anyone on the network path can read them. Use https if the server offers it. Add it anyway?</source>
        <translation>%1은(는) 다른 컴퓨터로 가는 암호화되지 않은 http입니다: 메시지, 응답, API 키가 암호화 없이 전송되어 네트워크 경로상의 누구나 읽을 수 있습니다. 서버가 https를 제공하면 https를 사용하세요. 그래도 추가할까요?</translation>
    </message>
    <message>
        <source>A server is being checked; wait for it.</source>
        <translation>서버를 확인하는 중입니다. 잠시 기다리세요.</translation>
    </message>
    <message>
        <source>This address cannot be used: %1</source>
        <translation>이 주소는 사용할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The API key has spaces or line breaks in it. Paste the key alone.</source>
        <translation>API 키에 공백이나 줄바꿈이 있습니다. 키만 붙여 넣으세요.</translation>
    </message>
    <message>
        <source>The server cannot be saved: %1</source>
        <translation>서버를 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The server cannot be removed: %1</source>
        <translation>서버를 제거할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>this build of FreeToken has no keychain support</source>
        <translation>이 FreeToken 빌드에는 키체인 지원이 없습니다</translation>
    </message>
    <message>
        <source>turned off by FT_KEYCHAIN=off</source>
        <translation>FT_KEYCHAIN=off로 꺼져 있습니다</translation>
    </message>
    <message>
        <source>no D-Bus session bus is running</source>
        <translation>D-Bus 세션 버스가 실행 중이 아닙니다</translation>
    </message>
    <message>
        <source>no keychain service is running</source>
        <translation>실행 중인 키체인 서비스가 없습니다</translation>
    </message>
    <message>
        <source>the keychain did not answer within %1 s</source>
        <translation>키체인이 %1초 안에 응답하지 않았습니다</translation>
    </message>
    <message>
        <source>the keychain refused to store or give the key</source>
        <translation>키체인이 키 저장 또는 제공을 거부했습니다</translation>
    </message>
    <message>
        <source>The API key is kept in the system keychain (%1), not in FreeToken&apos;s files.</source>
        <translation>API 키는 FreeToken의 파일이 아니라 시스템 키체인(%1)에 보관됩니다.</translation>
    </message>
    <message>
        <source>Its API key is in the system keychain (%1), which did not give it: %2. Unlock the keychain and press Refresh, or add the server again with its key.</source>
        <translation>이 서버의 API 키는 시스템 키체인(%1)에 있지만 키체인이 키를 내주지 않았습니다: %2. 키체인 잠금을 해제하고 새로 고침을 누르거나, 키와 함께 서버를 다시 추가하세요.</translation>
    </message>
    <message>
        <source>Checking whether the system keychain can keep the API key…</source>
        <translation>시스템 키체인에 API 키를 보관할 수 있는지 확인하는 중…</translation>
    </message>
</context>
</TS>
