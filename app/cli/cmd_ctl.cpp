#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_ctl() {
    static const CommandSpec spec{
        "ctl",
        "health|stats|cache [...]",
        "control a running engine (ft serve or the desktop app)",
        "Talks to a running engine over its local API: health, stats, cache status and live cache rebuild.",
        {
            {"url", "URL", "engine address", "http://127.0.0.1:1919"},
        },
        "",
    };
    return spec;
}

int run_ctl(const Args&) { return command_unavailable(spec_ctl(), "the API server issue"); }

}  // namespace ft::cli
