// The two merge models: BPE by merge rank (byte-level or character-level with byte fallback) and
// SentencePiece-style BPE by token score. Both merge the best adjacent pair first, the leftmost on ties.
#include <algorithm>

#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/tokenizer_unicode.h"

namespace ft {

namespace {

struct Symbol {
    std::int32_t id;
    std::int32_t prev, next;
    std::uint32_t start, len;  // bytes of the word
};

struct Candidate {
    double priority;  // lower merges first
    std::int32_t left, right;
    std::int32_t left_id, right_id;  // rank model: ids the pair had when queued
    std::uint32_t total_len;         // score model: length the pair had when queued
    bool operator>(const Candidate& o) const {
        return priority != o.priority ? priority > o.priority : left > o.left;
    }
};

// Min-heap on (priority, left) over a reusable per-thread buffer.
struct Heap {
    std::vector<Candidate>& v;
    explicit Heap(std::vector<Candidate>& storage) : v(storage) { v.clear(); }
    bool empty() const { return v.empty(); }
    void push(const Candidate& c) {
        v.push_back(c);
        std::push_heap(v.begin(), v.end(), std::greater<Candidate>{});
    }
    Candidate pop() {
        std::pop_heap(v.begin(), v.end(), std::greater<Candidate>{});
        Candidate c = v.back();
        v.pop_back();
        return c;
    }
};

}  // namespace

void Tokenizer::Impl::bpe_word(std::string_view word, std::vector<std::int32_t>& out) const {
    const auto& bl = tok::ByteLevel::get();
    if (ignore_merges) {
        std::int32_t whole = -1;
        if (byte_level) {
            std::string mapped;
            mapped.reserve(word.size() * 2);
            for (unsigned char c : word) mapped += bl.byte_to_utf8[c];
            whole = id_of(mapped);
        } else {
            whole = id_of(word);
        }
        if (whole >= 0) {
            out.push_back(whole);
            return;
        }
    }
    // Initial symbols, as HF's BPE builds them: a character missing from the vocabulary becomes its <0xXX> byte
    // tokens (byte_fallback), else the unknown token, else it is dropped (so its neighbours may merge).
    thread_local std::vector<Symbol> sym;
    sym.clear();
    auto add = [&](std::int32_t id, std::uint32_t start, std::uint32_t len) {
        const auto k = static_cast<std::int32_t>(sym.size());
        sym.push_back({id, k - 1, k + 1, start, len});
    };
    for (std::uint32_t i = 0; i < word.size();) {
        const auto n = byte_level ? 1u
                                  : static_cast<std::uint32_t>(std::min<std::size_t>(
                                        tok::utf8_seq_len(static_cast<unsigned char>(word[i])), word.size() - i));
        const std::int32_t id = byte_level ? byte_ids[static_cast<unsigned char>(word[i])] : id_of(word.substr(i, n));
        if (id >= 0) {
            add(id, i, n);
        } else {
            bool bytes_ok = byte_fallback && !byte_level;
            for (std::uint32_t k = 0; bytes_ok && k < n; ++k)
                bytes_ok = byte_ids[static_cast<unsigned char>(word[i + k])] >= 0;
            if (bytes_ok) {
                for (std::uint32_t k = 0; k < n; ++k) add(byte_ids[static_cast<unsigned char>(word[i + k])], i + k, 1);
            } else if (unk >= 0) {
                add(unk, i, n);
            }
        }
        i += n;
    }
    if (sym.empty()) return;
    sym.back().next = -1;

    auto lookup = [&](std::int32_t l, std::int32_t r, Candidate& c) {
        const std::int32_t a = sym[static_cast<std::size_t>(l)].id, b = sym[static_cast<std::size_t>(r)].id;
        if (a < 0 || b < 0) return false;
        auto it = merges.find((static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
                              static_cast<std::uint32_t>(b));
        if (it == merges.end()) return false;
        c = {static_cast<double>(it->second.rank), l, r, a, b, 0};
        return true;
    };
    if (sym.size() > 1) {
        thread_local std::vector<Candidate> storage;
        Heap heap(storage);
        Candidate c{};
        for (std::int32_t i = 0; i + 1 < static_cast<std::int32_t>(sym.size()); ++i)
            if (lookup(i, i + 1, c)) heap.push(c);
        while (!heap.empty()) {
            const Candidate top = heap.pop();
            Symbol& L = sym[static_cast<std::size_t>(top.left)];
            if (L.len == 0 || L.next != top.right || L.id != top.left_id ||
                sym[static_cast<std::size_t>(top.right)].id != top.right_id)
                continue;  // stale
            Symbol& R = sym[static_cast<std::size_t>(top.right)];
            L.id = merges.at((static_cast<std::uint64_t>(static_cast<std::uint32_t>(top.left_id)) << 32) |
                             static_cast<std::uint32_t>(top.right_id))
                       .result;
            L.len += R.len;
            L.next = R.next;
            R.len = 0;
            R.id = -1;
            if (R.next >= 0) sym[static_cast<std::size_t>(R.next)].prev = top.left;
            if (L.prev >= 0 && lookup(L.prev, top.left, c)) heap.push(c);
            if (L.next >= 0 && lookup(top.left, L.next, c)) heap.push(c);
        }
    }
    for (std::int32_t i = 0; i >= 0; i = sym[static_cast<std::size_t>(i)].next) out.push_back(sym[static_cast<std::size_t>(i)].id);
}

void Tokenizer::Impl::spm_word(std::string_view word, std::vector<std::int32_t>& out) const {
    thread_local std::vector<Symbol> sym;
    sym.clear();
    for (std::uint32_t i = 0; i < word.size();) {
        const auto n = static_cast<std::uint32_t>(
            std::min<std::size_t>(tok::utf8_seq_len(static_cast<unsigned char>(word[i])), word.size() - i));
        const auto k = static_cast<std::int32_t>(sym.size());
        sym.push_back({0, k - 1, k + 1, i, n});
        i += n;
    }
    if (sym.empty()) return;
    sym.back().next = -1;

    auto lookup = [&](std::int32_t l, std::int32_t r, Candidate& c) {
        const Symbol& a = sym[static_cast<std::size_t>(l)];
        const Symbol& b = sym[static_cast<std::size_t>(r)];
        const std::int32_t id = id_of(word.substr(a.start, a.len + b.len));
        if (id < 0) return false;
        c = {-static_cast<double>(scores[static_cast<std::size_t>(id)]), l, r, id, 0, a.len + b.len};
        return true;
    };
    thread_local std::vector<Candidate> storage;
    Heap heap(storage);
    Candidate c{};
    for (std::int32_t i = 0; i + 1 < static_cast<std::int32_t>(sym.size()); ++i)
        if (lookup(i, i + 1, c)) heap.push(c);
    while (!heap.empty()) {
        const Candidate top = heap.pop();
        Symbol& L = sym[static_cast<std::size_t>(top.left)];
        if (L.len == 0 || L.next != top.right || L.len + sym[static_cast<std::size_t>(top.right)].len != top.total_len)
            continue;  // stale
        Symbol& R = sym[static_cast<std::size_t>(top.right)];
        L.len += R.len;
        L.next = R.next;
        R.len = 0;
        if (R.next >= 0) sym[static_cast<std::size_t>(R.next)].prev = top.left;
        if (L.prev >= 0 && lookup(L.prev, top.left, c)) heap.push(c);
        if (L.next >= 0 && lookup(top.left, L.next, c)) heap.push(c);
    }
    for (std::int32_t i = 0; i >= 0; i = sym[static_cast<std::size_t>(i)].next) {
        const Symbol& s = sym[static_cast<std::size_t>(i)];
        const std::int32_t id = id_of(word.substr(s.start, s.len));
        if (id >= 0) {
            out.push_back(id);
            continue;
        }
        bool all = true;
        for (std::uint32_t k = 0; k < s.len; ++k)
            if (byte_ids[static_cast<unsigned char>(word[s.start + k])] < 0) all = false;
        if (all) {
            for (std::uint32_t k = 0; k < s.len; ++k) out.push_back(byte_ids[static_cast<unsigned char>(word[s.start + k])]);
        } else if (unk >= 0) {
            out.push_back(unk);
        }
    }
}

}  // namespace ft
