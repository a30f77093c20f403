#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_bench() {
    static const CommandSpec spec{
        "bench",
        "bw|decode|prefill|cpu-moe [...]",
        "benchmarks that print figures and write JSON",
        "Benchmarks of the product: PCIe/host bandwidth profile (bw), decode and prefill speed per backend.",
        {
            {"model", "PATH", "model to benchmark", ""},
            {"json", "FILE", "also write the results as JSON", ""},
        },
        "",
    };
    return spec;
}

int run_bench(const Args&) { return command_unavailable(spec_bench(), "the hybrid decode issue"); }

}  // namespace ft::cli
