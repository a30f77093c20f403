#include "sched/stop_matcher.h"

#include <algorithm>

namespace ft {

StopMatcher::StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {
    stops_.erase(std::remove(stops_.begin(), stops_.end(), std::string()), stops_.end());
}

StopMatcher::Result StopMatcher::push(std::string_view text) {
    Result r;
    held_ += text;
    if (stops_.empty()) {
        r.text = std::move(held_);
        held_.clear();
        return r;
    }
    std::size_t best = std::string::npos;
    for (const auto& s : stops_) {
        const std::size_t at = held_.find(s);
        if (at < best) {
            best = at;
            r.stop = s;
        }
    }
    if (best != std::string::npos) {
        r.text = held_.substr(0, best);
        r.stopped = true;
        held_.clear();
        return r;
    }
    // Keep the longest suffix that is a proper prefix of some stop string.
    std::size_t keep = 0;
    for (const auto& s : stops_) {
        for (std::size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
            if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
                keep = n;
                break;
            }
        }
    }
    r.text = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return r;
}

std::string StopMatcher::flush(std::string tail) {
    std::string out = std::move(held_);
    held_.clear();
    return out + tail;
}

}  // namespace ft
