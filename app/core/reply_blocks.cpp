#include "reply_blocks.h"

#include <QStringView>

#include <algorithm>

namespace ft {

namespace {

bool is_blank(QStringView line) {
    for (const QChar c : line)
        if (!c.isSpace()) return false;
    return true;
}

// A line that opens a fenced code block ("```python", "~~~~"): the fence, and its info string in *info.
QString fence_open(QStringView line, QString* info) {
    const QStringView t = line.trimmed();
    if (!(t.startsWith(u"```") || t.startsWith(u"~~~"))) return {};
    const QChar c = t.at(0);
    qsizetype n = 0;
    while (n < t.size() && t.at(n) == c) ++n;
    *info = t.mid(n).trimmed().toString();
    return t.left(n).toString();
}

bool fence_close(QStringView line, const QString& fence) {
    const QStringView t = line.trimmed();
    return t.startsWith(fence) && t.mid(fence.size()).trimmed().isEmpty();
}

// Nested deeper than markdown text can show: more than 8 block-quote levels, or list indentation past 24 spaces
// (a markdown renderer indents each level, and a few hundred levels leave no width for the text).
bool too_deep(QStringView line) {
    qsizetype i = 0;
    while (i < line.size() && line.at(i) == QLatin1Char(' ')) ++i;
    if (i > 24) return true;
    int quotes = 0;
    for (; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (c == QLatin1Char('>')) {
            if (++quotes > 8) return true;
        } else if (c != QLatin1Char(' ')) {
            break;
        }
    }
    return false;
}

// Mostly markup: more than a quarter of a sizeable block is emphasis, bracket, code or HTML punctuation (natural
// text, identifiers with underscores included, stays well below).
bool mostly_markup(QStringView text) {
    if (text.size() < 200) return false;
    qsizetype n = 0;
    for (const QChar c : text)
        if (c == u'*' || c == u'_' || c == u'[' || c == u']' || c == u'`' || c == u'<' || c == u'>' || c == u'~' ||
            c == u'\\' || c == u'(' || c == u')')
            ++n;
    return n * 4 > text.size();
}

}  // namespace

int ReplyBlocks::update(const QString& text) {
    const bool extends = text.size() >= m_text.size() && QStringView(text).startsWith(QStringView(m_text));
    if (extends && text.size() == m_text.size()) return int(m_blocks.size());
    m_text = text;
    if (!extends || m_resumeIndex < 0) {
        m_blocks.clear();
        cutFrom(0, nullptr);
        return 0;
    }
    const int from = m_resumeIndex;
    const ReplyBlock resume = m_resume;
    m_blocks.resize(from);
    cutFrom(resume.start, &resume);
    return from;
}

void ReplyBlocks::cutFrom(qsizetype pos, const ReplyBlock* resume) {
    m_resumeIndex = -1;
    int nextCode = 0;
    for (const ReplyBlock& b : std::as_const(m_blocks))
        if (b.kind == ReplyBlock::Code) nextCode = std::max(nextCode, b.codeBlock + 1);

    ReplyBlock cur;
    bool inCode = false;
    bool deep = false;
    if (resume) {
        cur = *resume;
        inCode = resume->kind == ReplyBlock::Code;
        if (inCode) nextCode = resume->codeBlock + 1;
    }
    cur.start = pos;
    cur.length = 0;
    cur.closed = false;
    if (!inCode) cur.kind = ReplyBlock::Prose;

    const QStringView all(m_text);
    // Ends `cur` at `end` and starts the next block there (same kind: a prose block or the next chunk of the code).
    auto push = [&](qsizetype end, bool closed) {
        cur.length = end - cur.start;
        cur.closed = closed;
        bool keep = true;
        if (cur.kind != ReplyBlock::Code) {
            const QStringView body = all.mid(cur.start, cur.length);
            keep = !is_blank(body);
            cur.kind = deep || mostly_markup(body) ? ReplyBlock::Plain : ReplyBlock::Prose;
        }
        if (keep) {
            if (!closed && m_resumeIndex < 0) {
                m_resumeIndex = int(m_blocks.size());
                m_resume = cur;
            }
            m_blocks.append(cur);
        }
        deep = false;
    };
    auto start_next = [&](qsizetype at, bool midLine) {
        const ReplyBlock prev = cur;
        cur = ReplyBlock{};
        cur.start = at;
        cur.midLine = midLine;
        if (inCode) {
            cur.kind = ReplyBlock::Code;
            cur.fence = prev.fence;
            cur.language = prev.language;
            cur.codeBlock = prev.codeBlock;
            cur.first = false;
        }
    };

    const qsizetype n = m_text.size();
    qsizetype p = pos;
    bool lineStart = !cur.midLine;
    while (p < n) {
        const qsizetype nl = m_text.indexOf(QLatin1Char('\n'), p);
        const bool complete = nl >= 0;
        const qsizetype le = complete ? nl : n;
        const qsizetype next = complete ? nl + 1 : n;
        const QStringView line = all.mid(p, le - p);

        if (lineStart && !inCode && complete) {
            QString info;
            const QString fence = fence_open(line, &info);
            if (!fence.isEmpty()) {
                push(p, true);
                inCode = true;
                cur = ReplyBlock{};
                cur.kind = ReplyBlock::Code;
                cur.fence = fence;
                cur.language = info;
                cur.codeBlock = nextCode++;
                cur.start = next;
                p = next;
                continue;
            }
        }
        if (lineStart && inCode && fence_close(line, cur.fence)) {
            // The code ends before this line; a closing line still incomplete may yet turn out to be code.
            cur.last = true;
            push(p, complete);
            inCode = false;
            start_next(next, false);
            p = next;
            continue;
        }
        if (lineStart && !inCode && too_deep(line)) deep = true;
        // A block holding earlier lines ends before a line that would take it past the limit.
        if (cur.start < p && le - cur.start > kMaxChars) {
            if (inCode) cur.last = false;
            push(p, true);
            start_next(p, false);
            if (!inCode && too_deep(line)) deep = true;
        }
        // A line longer than the limit is cut inside.
        while (le - cur.start > kMaxChars) {
            const qsizetype cut = cur.start + kMaxChars;
            if (inCode) cur.last = false;
            push(cut, true);
            start_next(cut, true);
        }
        p = next;
        lineStart = complete;
        // Prose ends at a blank line once the block is big enough.
        if (complete && !inCode && next - cur.start >= kTargetChars && is_blank(line)) {
            push(next, true);
            start_next(next, false);
        }
    }
    push(n, false);
    if (m_resumeIndex < 0) {
        // The open block was blank (not kept): resume where it starts.
        m_resumeIndex = int(m_blocks.size());
        m_resume = cur;
        m_resume.length = 0;
    }
}

QString ReplyBlocks::blockText(int index) const {
    if (index < 0 || index >= m_blocks.size()) return {};
    const ReplyBlock& b = m_blocks.at(index);
    QString t = m_text.mid(b.start, b.length);
    if (b.kind == ReplyBlock::Code && t.endsWith(QLatin1Char('\n'))) t.chop(1);
    return t;
}

QString ReplyBlocks::codeText(int codeBlock) const {
    QString out;
    bool any = false;
    for (const ReplyBlock& b : m_blocks) {
        if (b.kind != ReplyBlock::Code || b.codeBlock != codeBlock) continue;
        any = true;
        out += m_text.mid(b.start, b.length);
    }
    if (any && out.endsWith(QLatin1Char('\n'))) out.chop(1);
    return out;
}

}  // namespace ft
