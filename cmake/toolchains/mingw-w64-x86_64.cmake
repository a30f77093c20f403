# Cross compile for 64-bit Windows with Debian's MinGW-w64 GCC (g++-mingw-w64-x86-64-posix: the POSIX thread model,
# which libstdc++'s std::thread and std::mutex need in GCC 12). scripts/cross-mingw.sh uses it for the CPU-only
# engine, kernels and `ft`; FT_MINGW_PREFIX names the folder with the dependencies it built from Debian's sources,
# FT_MINGW_QT the Qt for MinGW of scripts/cross-qt-mingw.sh where the desktop app is built too.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(FT_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${FT_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${FT_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${FT_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${FT_MINGW_TRIPLE} $ENV{FT_MINGW_PREFIX} $ENV{FT_MINGW_QT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# One self-contained .exe: libgcc, libstdc++ and winpthreads linked in, so it runs without MinGW's DLLs. Not with Qt:
# Qt's DLLs use MinGW's runtime DLLs, and the app must share them (one C++ runtime, one heap in the process);
# installer/windows/deploy.cmake ships them beside freetoken.exe.
if(NOT DEFINED ENV{FT_MINGW_QT} OR "$ENV{FT_MINGW_QT}" STREQUAL "")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
endif()
# pkg-config (the fallback for hwloc) must see the cross-built .pc files only, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} "$ENV{FT_MINGW_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
