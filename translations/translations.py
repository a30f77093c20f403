#!/usr/bin/env python3
"""Fills translations/ft_ko.ts and ft_zh_CN.ts (and the English plural forms in ft_en.ts) from the tables below.

Workflow: `cmake --build <build> --target update_translations` (lupdate refreshes the .ts files from the QML/C++
sources), then `python3 translations/translations.py` writes every translation in. A source string missing from a
table is reported and left unfinished, so a new UI string cannot ship untranslated unnoticed.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

KO = {
    "%1 free": "%1 사용 가능",
    "%1 of %2 lines": "%2줄 중 %1줄",
    "%1 threads": "%1 스레드",
    "%n model(s) in your library": ["라이브러리에 모델 %n개"],
    "A GGUF file": "GGUF 파일",
    "A Hugging Face folder": "Hugging Face 폴더",
    "A downloaded model folder with config.json, the tokenizer and .safetensors weights.":
        "config.json, 토크나이저, .safetensors 가중치가 들어 있는 다운로드한 모델 폴더.",
    "A model must be loaded before you can chat": "채팅하려면 먼저 모델을 불러와야 합니다",
    "About": "정보",
    "Add a model to start": "모델을 추가해 시작하세요",
    "Add folder…": "폴더 추가…",
    "Add model…": "모델 추가…",
    "Added %1": "%1 추가됨",
    "Address": "주소",
    "All files (*)": "모든 파일 (*)",
    "All": "전체",
    "Also written to %1": "%1에도 기록됩니다",
    "An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.":
        "이 PC에서 동작하는 OpenAI 및 Anthropic 호환 서버입니다. 아직 시작되지 않았습니다: 엔진과 함께 제공됩니다.",
    "Appearance": "모양",
    "Auto-scroll": "자동 스크롤",
    "Available when a model runs": "모델이 실행되면 표시됩니다",
    "Build": "빌드",
    "CPU only": "CPU 전용",
    "CPU": "CPU",
    "Changes apply immediately and are saved": "변경 사항은 즉시 적용되고 저장됩니다",
    "Chat": "채팅",
    "Choose a GGUF model file": "GGUF 모델 파일 선택",
    "Choose a Hugging Face model folder": "Hugging Face 모델 폴더 선택",
    "Choose file…": "파일 선택…",
    "Choose folder…": "폴더 선택…",
    "Console": "콘솔",
    "Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.":
        "대화는 전부 이 PC에서 실행됩니다. 모델 페이지에서 모델을 추가하세요. 모델을 불러오면 채팅이 열립니다.",
    "Copy": "복사",
    "Dark": "다크",
    "Data folder": "데이터 폴더",
    "Decode speed": "디코딩 속도",
    "Desktop": "데스크톱",
    "Engine": "엔진",
    "Errors": "오류",
    "Expert cache hit rate": "전문가 캐시 적중률",
    "Experts live here; the GPU caches the busy ones.": "전문가 가중치는 여기에 있고, 자주 쓰이는 것은 GPU가 캐시합니다.",
    "FreeToken Desktop": "FreeToken Desktop",
    "FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.":
        "FreeToken은 Mixture-of-Experts 모델을 이 PC에서 실행합니다. 전문가 가중치는 시스템 RAM에 두고, 가장 많이 쓰이는 것은 GPU 가까이에 둡니다. 다운로드한 모델을 추가하세요. 모델은 있는 자리에서 그대로 사용되며 복사되지 않습니다.",
    "GGUF models (*.gguf)": "GGUF 모델 (*.gguf)",
    "GPU": "GPU",
    "Go to Models": "모델로 이동",
    "Hardware": "하드웨어",
    "Idle": "대기 중",
    "Info": "정보",
    "Language": "언어",
    "Light": "라이트",
    "Live · %1 s": "실시간 · %1초",
    "Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.":
        "모델 페이지에서 모델을 불러오세요. 실행 중에는 속도, 전문가 캐시, PCIe 수치가 여기에 표시됩니다.",
    "Load a model to chat": "채팅하려면 모델을 불러오세요",
    "Local API server": "로컬 API 서버",
    "Log folder": "로그 폴더",
    "Logs": "로그",
    "Models folder": "모델 폴더",
    "Models you download with FreeToken will be stored in": "FreeToken으로 다운로드한 모델은 다음 위치에 저장됩니다",
    "Models": "모델",
    "No CUDA GPU: %1. The CPU runs everything, slowly.":
        "CUDA GPU 없음: %1. 모든 연산을 CPU가 맡아 느리게 실행됩니다.",
    "No GPU": "GPU 없음",
    "No lines match the filter": "필터와 일치하는 줄이 없습니다",
    "No model loaded · hardware figures are live": "불러온 모델 없음 · 하드웨어 수치는 실시간입니다",
    "No model loaded": "불러온 모델 없음",
    "None": "없음",
    "Not started": "시작되지 않음",
    "Not written to a file (see the first lines)": "파일에 기록되지 않습니다(처음 몇 줄 참고)",
    "One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.": ".gguf 파일 하나. 예: Qwen3-30B-A3B-Q4_K_M.gguf",
    "Open folder": "폴더 열기",
    "PCIe transfer": "PCIe 전송",
    "RAM": "RAM",
    "SIMD %1": "SIMD %1",
    "Search the log": "로그 검색",
    "Settings file": "설정 파일",
    "Settings": "설정",
    "Storage": "저장 위치",
    "System RAM": "시스템 RAM",
    "System": "시스템",
    "Theme": "테마",
    "VRAM · GPU %1": "VRAM · GPU %1",
    "VRAM": "VRAM",
    "Version": "버전",
    "Warnings": "경고",
    "Your library is empty": "라이브러리가 비어 있습니다",
    "threads": "스레드",
    "Switch to the light theme": "라이트 테마로 전환",
    "Switch to the dark theme": "다크 테마로 전환",
    "Remove from the library (the files stay)": "라이브러리에서 제거(파일은 그대로 남습니다)",
    "Dismiss": "닫기",
    "Send": "보내기",
}

ZH = {
    "%1 free": "可用 %1",
    "%1 of %2 lines": "%1 / %2 行",
    "%1 threads": "%1 线程",
    "%n model(s) in your library": ["库中有 %n 个模型"],
    "A GGUF file": "GGUF 文件",
    "A Hugging Face folder": "Hugging Face 文件夹",
    "A downloaded model folder with config.json, the tokenizer and .safetensors weights.":
        "已下载的模型文件夹，包含 config.json、分词器和 .safetensors 权重。",
    "A model must be loaded before you can chat": "需要先加载模型才能聊天",
    "About": "关于",
    "Add a model to start": "添加模型即可开始",
    "Add folder…": "添加文件夹…",
    "Add model…": "添加模型…",
    "Added %1": "添加于 %1",
    "Address": "地址",
    "All files (*)": "所有文件 (*)",
    "All": "全部",
    "Also written to %1": "同时写入 %1",
    "An OpenAI- and Anthropic-compatible server on this PC. It is not started yet: it arrives with the engine.":
        "运行在本机的 OpenAI 与 Anthropic 兼容服务器。尚未启动：它将随推理引擎一起提供。",
    "Appearance": "外观",
    "Auto-scroll": "自动滚动",
    "Available when a model runs": "模型运行时显示",
    "Build": "构建",
    "CPU only": "仅 CPU",
    "CPU": "CPU",
    "Changes apply immediately and are saved": "更改会立即生效并保存",
    "Chat": "聊天",
    "Choose a GGUF model file": "选择 GGUF 模型文件",
    "Choose a Hugging Face model folder": "选择 Hugging Face 模型文件夹",
    "Choose file…": "选择文件…",
    "Choose folder…": "选择文件夹…",
    "Console": "控制台",
    "Conversations run entirely on this PC. Add a model on the Models page; the chat opens once it is loaded.":
        "对话完全在本机运行。请在“模型”页面添加模型，加载后即可开始聊天。",
    "Copy": "复制",
    "Dark": "深色",
    "Data folder": "数据文件夹",
    "Decode speed": "解码速度",
    "Desktop": "桌面版",
    "Engine": "引擎",
    "Errors": "错误",
    "Expert cache hit rate": "专家缓存命中率",
    "Experts live here; the GPU caches the busy ones.": "专家权重存放在这里，常用的由 GPU 缓存。",
    "FreeToken Desktop": "FreeToken Desktop",
    "FreeToken runs Mixture-of-Experts models on this PC: the experts stay in system RAM and the GPU keeps the busiest ones close. Add a model you have downloaded; it is used where it is, nothing is copied.":
        "FreeToken 在本机运行混合专家（MoE）模型：专家权重保存在系统内存中，最常用的由 GPU 就近保留。添加一个已下载的模型即可，模型在原位置使用，不会被复制。",
    "GGUF models (*.gguf)": "GGUF 模型 (*.gguf)",
    "GPU": "GPU",
    "Go to Models": "前往模型",
    "Hardware": "硬件",
    "Idle": "空闲",
    "Info": "信息",
    "Language": "语言",
    "Light": "浅色",
    "Live · %1 s": "实时 · %1 秒",
    "Load a model from the Models page. Speed, expert-cache and PCIe figures appear here while it runs.":
        "请从“模型”页面加载模型。运行时，这里会显示速度、专家缓存和 PCIe 数据。",
    "Load a model to chat": "加载模型后即可聊天",
    "Local API server": "本地 API 服务器",
    "Log folder": "日志文件夹",
    "Logs": "日志",
    "Models folder": "模型文件夹",
    "Models you download with FreeToken will be stored in": "通过 FreeToken 下载的模型将保存在",
    "Models": "模型",
    "No CUDA GPU: %1. The CPU runs everything, slowly.":
        "没有 CUDA GPU：%1。所有计算由 CPU 完成，速度较慢。",
    "No GPU": "无 GPU",
    "No lines match the filter": "没有符合筛选条件的行",
    "No model loaded · hardware figures are live": "未加载模型 · 硬件数据实时更新",
    "No model loaded": "未加载模型",
    "None": "无",
    "Not started": "未启动",
    "Not written to a file (see the first lines)": "未写入文件（请查看开头几行）",
    "One .gguf file, for example Qwen3-30B-A3B-Q4_K_M.gguf.": "单个 .gguf 文件，例如 Qwen3-30B-A3B-Q4_K_M.gguf。",
    "Open folder": "打开文件夹",
    "PCIe transfer": "PCIe 传输",
    "RAM": "内存",
    "SIMD %1": "SIMD %1",
    "Search the log": "搜索日志",
    "Settings file": "设置文件",
    "Settings": "设置",
    "Storage": "存储",
    "System RAM": "系统内存",
    "System": "跟随系统",
    "Theme": "主题",
    "VRAM · GPU %1": "显存 · GPU %1",
    "VRAM": "显存",
    "Version": "版本",
    "Warnings": "警告",
    "Your library is empty": "模型库为空",
    "threads": "线程",
    "Switch to the light theme": "切换到浅色主题",
    "Switch to the dark theme": "切换到深色主题",
    "Remove from the library (the files stay)": "从模型库移除（文件保留）",
    "Dismiss": "关闭",
    "Send": "发送",
}

# English needs only its plural forms; every other string is the source text itself.
EN = {"%n model(s) in your library": ["%n model in your library", "%n models in your library"]}


def fill(ts_path: Path, table: dict, complete: bool) -> int:
    tree = ET.parse(ts_path)
    missing = 0
    for message in tree.iter("message"):
        source = message.findtext("source")
        translation = message.find("translation")
        if translation is None:
            translation = ET.SubElement(message, "translation")
        value = table.get(source)
        if value is None:
            if complete:
                print(f"{ts_path.name}: no translation for {source!r}", file=sys.stderr)
                missing += 1
            translation.set("type", "unfinished")
            continue
        translation.attrib.pop("type", None)
        for child in list(translation):
            translation.remove(child)
        if message.get("numerus") == "yes":
            translation.text = None
            forms = value if isinstance(value, list) else [value]
            for form in forms:
                ET.SubElement(translation, "numerusform").text = form
        else:
            translation.text = value if isinstance(value, str) else value[0]
    ET.indent(tree, space="    ")
    with open(ts_path, "wb") as f:
        f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
        tree.write(f, encoding="utf-8", xml_declaration=False)
        f.write(b"\n")
    return missing


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    bad = fill(here / "ft_ko.ts", KO, True) + fill(here / "ft_zh_CN.ts", ZH, True) + fill(here / "ft_en.ts", EN, False)
    sys.exit(1 if bad else 0)
