#include "reply_text.h"

#include <QStringList>

namespace ft {

namespace {

struct Tags {
    QString open, close;
};

// Where a reasoning block starts in `raw` (from `from`), and with which tags; -1 if none.
qsizetype find_open(const QString& raw, qsizetype from, Tags& tags) {
    static const QList<Tags> kForms = {
        {QStringLiteral("<think>"), QStringLiteral("</think>")},
        {QStringLiteral("<thinking>"), QStringLiteral("</thinking>")},
        {QStringLiteral("<|channel|>analysis<|message|>"), QStringLiteral("<|end|>")},
    };
    qsizetype best = -1;
    for (const Tags& t : kForms) {
        const qsizetype at = raw.indexOf(t.open, from);
        if (at >= 0 && (best < 0 || at < best)) {
            best = at;
            tags = t;
        }
    }
    return best;
}

// A tag cut off at the end of streamed text ("<thi") is held back rather than shown.
qsizetype partial_tag_start(const QString& text, const QStringList& tags) {
    for (qsizetype n = 1; n < 32 && n <= text.size(); ++n) {
        const QString tail = text.right(n);
        for (const QString& t : tags)
            if (t.size() > n && t.startsWith(tail)) return text.size() - n;
    }
    return -1;
}

}  // namespace

ReplyParts split_reasoning(const QString& raw, bool opened_by_prompt) {
    static const QString kFinal = QStringLiteral("<|channel|>final<|message|>");
    static const QString kStartAssistant = QStringLiteral("<|start|>assistant");
    ReplyParts out;
    QString answer;
    QStringList reasoning;
    qsizetype pos = 0;
    if (opened_by_prompt) {
        const qsizetype close = raw.indexOf(QStringLiteral("</think>"));
        if (close < 0) {
            out.reasoning = raw.trimmed();
            out.thinking = true;
            return out;
        }
        reasoning << raw.left(close);
        pos = close + 8;
    }
    while (pos < raw.size()) {
        Tags tags;
        const qsizetype open = find_open(raw, pos, tags);
        if (open < 0) {
            answer += raw.mid(pos);
            break;
        }
        answer += raw.mid(pos, open - pos);
        const qsizetype body = open + tags.open.size();
        const qsizetype close = raw.indexOf(tags.close, body);
        if (close < 0) {
            reasoning << raw.mid(body);
            out.thinking = true;
            pos = raw.size();
            break;
        }
        reasoning << raw.mid(body, close - body);
        pos = close + tags.close.size();
    }
    answer.remove(kFinal);
    answer.remove(kStartAssistant);
    const qsizetype cut = partial_tag_start(answer, {QStringLiteral("<think>"), QStringLiteral("<thinking>"), kFinal,
                                                     QStringLiteral("<|channel|>analysis<|message|>"), kStartAssistant});
    if (cut >= 0) answer.truncate(cut);
    QStringList parts;
    for (const QString& r : reasoning)
        if (!r.trimmed().isEmpty()) parts << r.trimmed();
    out.reasoning = parts.join(QStringLiteral("\n\n"));
    qsizetype start = 0;
    while (start < answer.size() && answer.at(start).isSpace()) ++start;
    out.answer = answer.mid(start);
    return out;
}

QList<MarkdownSegment> split_markdown(const QString& text) {
    QList<MarkdownSegment> out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    MarkdownSegment current;
    QString fence;  // the open fence ("```" or "~~~", possibly longer); empty in prose
    QStringList body;
    auto flush = [&] {
        current.text = body.join(QLatin1Char('\n'));
        if (current.code || !current.text.trimmed().isEmpty()) out.append(current);
        current = MarkdownSegment{};
        body.clear();
    };
    for (const QString& line : lines) {
        const QString t = line.trimmed();
        if (fence.isEmpty()) {
            if (t.startsWith(QStringLiteral("```")) || t.startsWith(QStringLiteral("~~~"))) {
                flush();
                const QChar c = t.at(0);
                qsizetype n = 0;
                while (n < t.size() && t.at(n) == c) ++n;
                fence = t.left(n);
                current.code = true;
                current.language = t.mid(n).trimmed();
                continue;
            }
        } else if (t.startsWith(fence) && t.mid(fence.size()).trimmed().isEmpty()) {
            flush();
            fence.clear();
            continue;
        }
        body << line;
    }
    flush();
    return out;
}

}  // namespace ft
