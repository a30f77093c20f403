// ReplyBlocks: a reply's answer cut into display blocks of bounded size, kept up to date as the reply streams.
//
// Why: a text item lays out all of its text whenever the text changes, and laying out a long run without spaces, or
// parsing deep markdown, costs more than linear time. A streamed reply drawn as one growing text item therefore costs
// the whole message per batch, and a long reply froze the window. Cut into blocks of at most kMaxChars characters,
// only the last block changes while a reply streams: each batch costs what the new text costs.
//
// The cuts: prose is cut at a blank line once a block holds kTargetChars characters, at a line end at kMaxChars, and
// inside a line (a run without line breaks, such as one 100,000-character word) every kMaxChars characters. Fenced
// code blocks (``` / ~~~, a longer fence holding shorter ones, a fence still open at the end being code too) are cut
// into chunks the same way; chunks of one fenced block share its codeBlock number. Prose nested deeper than markdown
// text can sensibly show (block quotes or list indentation), or made mostly of markup characters (thousands of
// nested emphasis and bracket openers), is marked Plain: shown as it is, not parsed.
//
// update() is incremental: when the new text extends the previous one, only the last (open) block and what follows
// are cut again; blocks that ended before it never change. Pure Qt Core, no UI; not thread-safe.
#pragma once

#include <QList>
#include <QString>

namespace ft {

struct ReplyBlock {
    enum Kind { Prose, Code, Plain };
    Kind kind = Prose;
    qsizetype start = 0;     // where the block's text starts in the reply
    qsizetype length = 0;    // its length (code: without the closing fence line)
    QString language;        // code: the fence's info string ("python")
    QString fence;           // code: the opening fence ("```", "````", "~~~")
    int codeBlock = -1;      // code: which fenced block of the reply, 0, 1, …
    bool first = true;       // code: the first chunk of its fenced block (it shows the header)
    bool last = true;        // code: the last chunk of its fenced block
    bool midLine = false;    // starts inside a line (after a cut within a long line)
    bool closed = false;     // ended: text appended later cannot change it

    bool sameAs(const ReplyBlock& o) const {
        return kind == o.kind && start == o.start && length == o.length && language == o.language &&
               codeBlock == o.codeBlock && first == o.first && last == o.last;
    }
};

class ReplyBlocks {
public:
    static constexpr qsizetype kTargetChars = 800;
    static constexpr qsizetype kMaxChars = 1600;

    // Cuts `text`. Returns the index of the first block that may differ from before (blocks before it are
    // unchanged, text included); 0 when the text does not extend the previous one.
    int update(const QString& text);
    const QList<ReplyBlock>& blocks() const { return m_blocks; }
    const QString& text() const { return m_text; }
    // The text a block shows (code: without a trailing line break).
    QString blockText(int index) const;
    // The whole code of one fenced block (all its chunks).
    QString codeText(int codeBlock) const;

private:
    void cutFrom(qsizetype pos, const ReplyBlock* resume);

    QString m_text;
    QList<ReplyBlock> m_blocks;
    int m_resumeIndex = -1;  // the first block that is not closed (or where the next one starts)
    ReplyBlock m_resume;     // that block as it started: where and in which state cutting resumes
};

}  // namespace ft
