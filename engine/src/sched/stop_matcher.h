// Stop strings over streamed text: text that might be the start of a stop string is held back until it is known
// not to be; text from a stop string on is never emitted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ft {

class StopMatcher {
public:
    StopMatcher() = default;
    explicit StopMatcher(std::vector<std::string> stops);

    struct Result {
        std::string text;   // safe to emit now
        bool stopped = false;
        std::string stop;   // the stop string that matched
    };
    Result push(std::string_view text);
    // End of stream: everything held back, plus `tail`.
    std::string flush(std::string tail = {});

private:
    std::vector<std::string> stops_;
    std::string held_;
};

}  // namespace ft
