// Per-user locations of the product's files. Platform code: POSIX (XDG) and Win32 (%LOCALAPPDATA%) implementations.
//
//   data_dir()   Linux: $XDG_DATA_HOME/freetoken or ~/.local/share/freetoken;  Windows: %LOCALAPPDATA%\FreeToken
//   log_dir()    data_dir()/logs
//   models_dir() data_dir()/models
// FT_DATA_DIR, when set, replaces data_dir() (tests and portable installs use it). The directories are created on
// first use; a failure to create one throws ft::Error(io) naming the path.
#pragma once

#include <filesystem>

namespace ft {

std::filesystem::path data_dir();
std::filesystem::path log_dir();
std::filesystem::path models_dir();

}  // namespace ft
