// Per-user locations of the product's files. Platform code: POSIX (XDG) and Win32 (%LOCALAPPDATA%) implementations.
//
//   data_dir()   Linux: $XDG_DATA_HOME/freetoken or ~/.local/share/freetoken;  Windows: %LOCALAPPDATA%\FreeToken
//   log_dir()    data_dir()/logs
//   models_dir() data_dir()/models
// FT_DATA_DIR, when set, replaces data_dir() (tests and portable installs use it). The directories are created on
// first use; a failure to create one throws ft::Error(io) naming the path.
//
// The bundled demo model (kBundledModelFile, trained by scripts/demo-model, resources/models/ in the source tree) is
// looked for, in order, in
//   <folder of the executable>/../share/freetoken/models   an installed FreeToken: <prefix>/bin/ft → <prefix>/share/…
//                                                          (the .deb, the portable bundle, a Windows install)
//   <source_resources>/models                              a build or source tree: the repository's resources/
// These lookups create nothing and never throw.
#pragma once

#include <filesystem>
#include <vector>

namespace ft {

std::filesystem::path data_dir();
std::filesystem::path log_dir();
std::filesystem::path models_dir();

inline constexpr const char* kBundledModelFile = "freetoken-demo.gguf";

// The folders searched for the bundled model, in the order above, for an executable at `exe` (an empty
// `source_resources` adds no second folder).
std::vector<std::filesystem::path> bundled_model_dirs(const std::filesystem::path& exe,
                                                      const std::filesystem::path& source_resources = {});
// The first regular file named kBundledModelFile in bundled_model_dirs(exe, source_resources); empty if none.
std::filesystem::path find_bundled_model(const std::filesystem::path& exe, const std::filesystem::path& source_resources);
// The same for the running executable (executable_path()).
std::filesystem::path find_bundled_model(const std::filesystem::path& source_resources = {});

// The running executable's absolute path (/proc/self/exe on Linux, GetModuleFileNameW on Windows); empty if the OS
// does not say.
std::filesystem::path executable_path();

}  // namespace ft
