<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko">
    <context>
        <name>ChatPage</name>
        <message>
            <source>Chat</source>
            <translation>채팅</translation>
        </message>
        <message>
            <source>No model loaded</source>
            <translation>불러온 모델 없음</translation>
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
            <source>A model must be loaded before you can chat</source>
            <translation>채팅하려면 먼저 모델을 불러와야 합니다</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>보내기</translation>
        </message>
    </context>
    <context>
        <name>ConsolePage</name>
        <message>
            <source>Console</source>
            <translation>콘솔</translation>
        </message>
        <message>
            <source>No model loaded · hardware figures are live</source>
            <translation>불러온 모델 없음 · 하드웨어 수치는 실시간입니다</translation>
        </message>
        <message>
            <source>Live · %1 s</source>
            <translation>실시간 · %1초</translation>
        </message>
        <message>
            <source>No model loaded</source>
            <translation>불러온 모델 없음</translation>
        </message>
        <message>
            <source>Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.</source>
            <translation>모델 페이지에서 모델을 불러오세요. 실행 중에는 속도, 전문가 캐시, PCIe 수치가 여기에 표시됩니다.</translation>
        </message>
        <message>
            <source>Idle</source>
            <translation>대기 중</translation>
        </message>
        <message>
            <source>Go to Models</source>
            <translation>모델로 이동</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>엔진</translation>
        </message>
        <message>
            <source>Decode speed</source>
            <translation>디코딩 속도</translation>
        </message>
        <message>
            <source>Available when a model runs</source>
            <translation>모델이 실행되면 표시됩니다</translation>
        </message>
        <message>
            <source>Expert cache hit rate</source>
            <translation>전문가 캐시 적중률</translation>
        </message>
        <message>
            <source>PCIe transfer</source>
            <translation>PCIe 전송</translation>
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
            <source>No CUDA GPU: %1. The CPU runs everything, slowly.</source>
            <translation>CUDA GPU 없음: %1. 모든 연산을 CPU가 맡아 느리게 실행됩니다.</translation>
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
    </context>
    <context>
        <name>ModelRow</name>
        <message>
            <source>Added %1</source>
            <translation>%1 추가됨</translation>
        </message>
        <message>
            <source>Remove from the library (the files stay)</source>
            <translation>라이브러리에서 제거(파일은 그대로 남습니다)</translation>
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
            <source>Add a model to start</source>
            <translation>모델을 추가해 시작하세요</translation>
        </message>
        <message>
            <source>FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.</source>
            <translation>FreeToken은 Mixture-of-Experts 모델을 이 PC에서 실행합니다. 전문가 가중치는 시스템 RAM에 두고, 가장 많이 쓰이는 것은 GPU 가까이에 둡니다. 다운로드한 모델을 추가하세요. 모델은 있는 자리에서 그대로 사용되며 복사되지 않습니다.</translation>
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
            <source>Dismiss</source>
            <translation>닫기</translation>
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
            <source>An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.</source>
            <translation>이 PC에서 동작하는 OpenAI 및 Anthropic 호환 서버입니다. 아직 시작되지 않았습니다: 엔진과 함께 제공됩니다.</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>주소</translation>
        </message>
        <message>
            <source>Not started</source>
            <translation>시작되지 않음</translation>
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
</TS>
