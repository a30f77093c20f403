// UTF-8 at the process boundary. Inside FreeToken every std::string is UTF-8; these are the places where that meets
// the OS: file paths, the command line and the standard streams. Platform code: POSIX passes bytes through; Windows
// converts from/to UTF-16 (the ANSI code page is never used, so a path like C:\모델\a.gguf works whatever the
// system's language).
//
//   path_from_utf8("C:\\모델\\a.gguf")   a path naming that file (on Windows std::filesystem::path(std::string) would
//                                       decode the bytes in the C locale, not as UTF-8)
//   path_to_utf8(p)                     the path as UTF-8, for messages, JSON and SQLite (never throws for a name
//                                       the ANSI code page cannot represent)
//   command_line_utf8(argc, argv)       the program's arguments as UTF-8 (Windows: from GetCommandLineW; argv there
//                                       holds the arguments in the ANSI code page, with '?' for what it lacks)
//   stdio_binary_utf8()                 standard output and error carry exactly the bytes written (Windows: binary
//                                       mode, no "\n" → "\r\n"), and a Windows console shows them as UTF-8
// None of these throws except path_from_utf8/path_to_utf8 on bytes that are not UTF-8 on Windows (ft::Error).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ft {

std::filesystem::path path_from_utf8(std::string_view utf8);
std::string path_to_utf8(const std::filesystem::path& path);

std::vector<std::string> command_line_utf8(int argc, char** argv);
void stdio_binary_utf8();

}  // namespace ft
