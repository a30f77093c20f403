// What a model's reply text is made of, for the chat: its reasoning ("thinking") split from the answer, and the
// answer cut into markdown prose and fenced code blocks (so code gets its own block with a copy button).
// Pure functions of their input; usable while the reply still streams (an open block is reported as such).
#pragma once

#include <QList>
#include <QString>

namespace ft {

struct ReplyParts {
    QString reasoning;    // the thinking, tags removed, trimmed
    QString answer;       // everything else, trimmed at the start
    bool thinking = false;  // the reasoning block is still open (the model is thinking now)
};

// Recognises <think>…</think> (Qwen3, DeepSeek-R1, GLM), <thinking>…</thinking>, and gpt-oss's analysis channel
// (<|channel|>analysis<|message|>…<|end|>, answer after <|channel|>final<|message|>). `opened_by_prompt`: the
// prompt itself ended inside a reasoning block (a template that starts the reply with "<think>").
ReplyParts split_reasoning(const QString& raw, bool opened_by_prompt = false);

struct MarkdownSegment {
    bool code = false;
    QString text;         // prose (markdown) or the code block's text without its fences
    QString language;     // the fence's info string ("cpp"), code only
};

// Splits at ``` / ~~~ fences (a fence still open at the end is a code block too).
QList<MarkdownSegment> split_markdown(const QString& text);

}  // namespace ft
