// ft::Message — a message for a person as a stable key and its arguments, beside the English text that says the
// same. Front ends that speak other languages (the desktop app) translate the key and fill in the arguments; the
// others print the English text. An empty key: no translation known, show the text.
#pragma once

#include <string>
#include <vector>

namespace ft {

struct Message {
    std::string key;                // e.g. "kv_above_plan"; the keys are listed where the message is made
    std::vector<std::string> args;  // in the order the key's translation takes them (%1, %2, …)
    bool empty() const { return key.empty(); }
};

}  // namespace ft
