// Options shared by the `ft` commands that run a model (run, chat, serve, bench): the same flags, parsed the same
// way, into the engine's LoadOptions and SamplingParams.
#pragma once

#include <functional>
#include <vector>

#include "args.h"
#include "ft/engine.h"

namespace ft::cli {

// --model --device --threads --ctx --parallel --prefill-chunk …; `bundled_default`: --model may be left out (ft run,
// ft chat), and its help says the bundled demo model is used then.
std::vector<OptionSpec> load_option_specs(bool bundled_default = false);
std::vector<OptionSpec> sampling_option_specs();  // --temperature --top-k --top-p --min-p --repeat-penalty …
// Throws ft::Error naming the flag. Without --model and with `bundled_default`, the bundled demo model
// (ft::find_bundled_model: installed share/freetoken/models, else the source tree's resources/models) is loaded and
// a line on standard error says so; if it is not there either, the error says --model is required.
LoadOptions load_options_from(const Args& args, bool bundled_default = false);
SamplingParams sampling_from(const Args& args, SamplingParams defaults = {});
// Submits a request and waits for its end, calling on_token for each streamed token. `interrupted` (optional) is
// polled every 50 ms and cancels the request when it returns true. Returns the finish event; throws the request's
// ft::Error.
FinishEvent generate(Engine& engine, GenerationRequest request, std::function<void(const TokenEvent&)> on_token,
                     const std::function<bool()>& interrupted = {});

// Appends `more` to `base` (building a command's option table from the shared pieces).
std::vector<OptionSpec> concat(std::vector<OptionSpec> base, const std::vector<OptionSpec>& more);

}  // namespace ft::cli
