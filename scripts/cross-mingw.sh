#!/usr/bin/env bash
# Cross compiles the CPU-only engine, kernels and `ft` for 64-bit Windows with Debian's MinGW-w64 GCC, so the Win32
# code paths (engine/src/platform/platform_win32.cpp, engine/src/format/mapped_file_win32.cpp, the _WIN32 branches
# of the CLI and the API server) are compiled against the Windows headers and linked on every CI run.
#   scripts/cross-mingw.sh [BUILD_DIR]      default build/mingw; scripts/test.sh runs it
# The C and C++ libraries the engine links are built here from Debian's own source packages (apt-get source with a
# private apt state under BUILD_DIR: the machine's apt configuration is not touched): PCRE2, Highway, SQLite, hwloc,
# fmt and spdlog as static libraries, nlohmann-json and cpp-httplib header-only (Debian's libcpp-httplib-dev is a
# split, compiled build; its source package has the single header), each installed with its CMake config package
# where it has one. Everything stays under BUILD_DIR; a second run reuses the libraries already built there.
# Checks at the end: ft.exe is a PE32+ x86-64 executable and imports only DLLs that every Windows has.
# The desktop app, with FT_MINGW_QT=<the Qt for MinGW of scripts/cross-qt-mingw.sh> (its four modules built; e.g.
# /var/cache/freetoken-qt-mingw/qt-6.4.2-mingw): BUILD_DIR/app is a second build with FT_GUI=ON: freetoken.exe and
# ft.exe linked against Qt's and MinGW's DLLs, installed into BUILD_DIR/app/install with everything they load beside
# them (installer/windows/deploy.cmake), and an installer with the app (BUILD_DIR/app/freetoken-*-win64.exe). Without
# FT_MINGW_QT this part is skipped, said in one line (CI: the Qt build does not fit its time; docs/windows.md).
set -euo pipefail
cd "$(dirname "$0")/.."
src_root=$PWD
out=${1:-build/mingw}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=$out/deps
prefix=$deps/prefix
jobs=${FT_MINGW_JOBS:-$(nproc)}
triple=x86_64-w64-mingw32
export FT_MINGW_PREFIX=$prefix
qt_mingw=${FT_MINGW_QT:-}
unset FT_MINGW_QT  # the CI build below is Qt-free and static; the desktop app's build at the end sets it again
start=$(date +%s)

die() { echo "cross-mingw: $*" >&2; exit 1; }
step() { echo "cross-mingw: [$(( $(date +%s) - start )) s] $*"; }

for tool in $triple-gcc-posix $triple-g++-posix $triple-objdump dpkg-source tclsh make cmake ninja; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh (it installs the MinGW-w64 toolchain)"
done
mkdir -p "$deps/src" "$prefix/include" "$prefix/lib/pkgconfig"

# --- Debian source packages, fetched with a private apt state (nothing under /etc or /var/lib/apt changes) -------
fetch_sources() {
  local apt=$deps/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc"
  local codename
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian %s-updates main\n' \
    "$codename" "$codename" >"$apt/etc/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/none"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
              -o APT::Sandbox::User=root -qq)
  apt-get "${opts[@]}" update || die "apt-get update of the source index failed (network?)"
  (cd "$deps/src" && apt-get "${opts[@]}" source --download-only "$@") || die "apt-get source $* failed"
  local dsc
  for dsc in "$deps"/src/*.dsc; do
    (cd "$deps/src" && dpkg-source --no-check -x "$(basename "$dsc")" >/dev/null) || die "dpkg-source -x $dsc failed"
  done
}

srcdir() { local d; d=$(ls -d "$deps"/src/"$1"-[0-9]*/ 2>/dev/null | head -1); [[ -n "$d" ]] || die "no source of $1"; echo "${d%/}"; }
done_mark() { [[ -f "$prefix/.built-$1" ]]; }
mark_done() { touch "$prefix/.built-$1"; }

if ! ls "$deps"/src/*.dsc >/dev/null 2>&1; then
  step "fetching Debian source packages"
  fetch_sources pcre2 highway sqlite3 hwloc cpp-httplib fmtlib spdlog nlohmann-json3
fi
for dsc in "$deps"/src/*.dsc; do echo "cross-mingw: source $(basename "$dsc" .dsc)"; done

tc=$src_root/cmake/toolchains/mingw-w64-x86_64.cmake
cm_dep() {  # configure, build and install one CMake project into $prefix
  local name=$1 dir=$2; shift 2
  cmake -S "$dir" -B "$deps/build-$name" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$tc" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF "$@" >"$deps/build-$name.log" 2>&1 \
    || { tail -30 "$deps/build-$name.log"; die "configuring $name failed"; }
  cmake --build "$deps/build-$name" -j "$jobs" >>"$deps/build-$name.log" 2>&1 \
    && cmake --install "$deps/build-$name" >>"$deps/build-$name.log" 2>&1 \
    || { tail -30 "$deps/build-$name.log"; die "building $name failed"; }
}

if ! done_mark pcre2; then
  step "PCRE2 (8-bit, JIT)"
  cm_dep pcre2 "$(srcdir pcre2)" -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=OFF \
    -DPCRE2_BUILD_TESTS=OFF -DBUILD_STATIC_LIBS=ON
  mark_done pcre2
fi

if ! done_mark highway; then
  step "Highway"
  hwy_src=$(srcdir highway)
  cm_dep highway "$hwy_src" -DHWY_ENABLE_TESTS=OFF -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF \
    -DHWY_ENABLE_INSTALL=ON -DHWY_FORCE_STATIC_LIBS=ON
  # contrib/math is header-only and all the kernels use of contrib: copy it rather than build contrib's libraries.
  mkdir -p "$prefix/include/hwy/contrib/math"
  cp "$hwy_src"/hwy/contrib/math/*.h "$prefix/include/hwy/contrib/math/"
  mark_done highway
fi

if ! done_mark sqlite3; then
  step "SQLite (amalgamation made from the source tree, compiled for Windows)"
  sq_src=$(srcdir sqlite3)
  sq_build=$deps/build-sqlite3
  mkdir -p "$sq_build"
  # The amalgamation generator runs on the build machine (tclsh + the native compiler for lemon/mkkeywordhash).
  (cd "$sq_build" && "$sq_src/configure" --disable-tcl >"$sq_build/configure.log" 2>&1 && make sqlite3.c sqlite3.h \
     >"$sq_build/make.log" 2>&1) || { tail -30 "$sq_build"/*.log; die "making the SQLite amalgamation failed"; }
  $triple-gcc-posix -O1 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -c "$sq_build/sqlite3.c" \
    -o "$sq_build/sqlite3.o" || die "compiling sqlite3.c failed"
  $triple-ar rcs "$prefix/lib/libsqlite3.a" "$sq_build/sqlite3.o"
  cp "$sq_build/sqlite3.h" "$prefix/include/"
  mark_done sqlite3
fi

if ! done_mark hwloc; then
  step "hwloc (library only, Windows topology backend)"
  hw_src=$(srcdir hwloc)
  hw_build=$deps/build-hwloc
  mkdir -p "$hw_build"
  (cd "$hw_build" && "$hw_src/configure" --host=$triple CC=$triple-gcc-posix --prefix="$prefix" \
      --enable-static --disable-shared --disable-io --disable-libxml2 --disable-cairo --disable-plugins \
      --disable-libudev --disable-doxygen >"$hw_build/configure.log" 2>&1 \
    && make -C hwloc -j "$jobs" >"$hw_build/make.log" 2>&1 \
    && make -C hwloc install >>"$hw_build/make.log" 2>&1 \
    && make -C include install >>"$hw_build/make.log" 2>&1 \
    && install -m 644 hwloc.pc "$prefix/lib/pkgconfig/hwloc.pc") \
    || { tail -40 "$hw_build"/*.log; die "building hwloc failed"; }
  mark_done hwloc
fi

# spdlog with wide file names (_wfsopen): the log file lives under %LOCALAPPDATA%, whose path holds the user's name
# in any script; spdlog's narrow names would go through the ANSI code page.
if ! done_mark fmt-spdlog-wchar-json-httplib; then
  step "fmt, spdlog, nlohmann-json, cpp-httplib (header-only, no OpenSSL/zlib/brotli)"
  cm_dep fmt "$(srcdir fmtlib)" -DFMT_DOC=OFF -DFMT_TEST=OFF -DFMT_INSTALL=ON
  cm_dep spdlog "$(srcdir spdlog)" -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_SHARED=OFF -DSPDLOG_BUILD_EXAMPLE=OFF \
    -DSPDLOG_BUILD_TESTS=OFF -DSPDLOG_BUILD_BENCH=OFF -DSPDLOG_INSTALL=ON -DSPDLOG_WCHAR_FILENAMES=ON
  cm_dep nlohmann-json "$(srcdir nlohmann-json3)" -DJSON_BuildTests=OFF -DJSON_Install=ON
  cm_dep httplib "$(srcdir cpp-httplib)" -DHTTPLIB_COMPILE=OFF -DHTTPLIB_USE_OPENSSL_IF_AVAILABLE=OFF \
    -DHTTPLIB_USE_ZLIB_IF_AVAILABLE=OFF -DHTTPLIB_USE_BROTLI_IF_AVAILABLE=OFF
  mark_done fmt-spdlog-wchar-json-httplib
fi

# --- FreeToken: engine + kernels + ft, CPU only, no Qt ---------------------------------------------------------------
# Release flags as on Linux (-O3): this ft.exe goes into the installer and the tests labelled windows time it under
# Wine (docs/benchmarks.md: -O1, which this script used to save build time, decoded at half the speed).
step "configuring FreeToken for Windows (FT_CUDA=OFF FT_GUI=OFF FT_TESTS=OFF)"
cmake -S "$src_root" -B "$out/ft" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$tc" -DCMAKE_BUILD_TYPE=Release \
      -DFT_CUDA=OFF -DFT_GUI=OFF -DFT_TESTS=OFF -DFT_WERROR=OFF -DFT_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$prefix" \
      -DPCRE2_DIR="$prefix/cmake" -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" \
      >"$out/ft-configure.log" 2>&1 \
  || { cat "$out/ft-configure.log"; die "configuring the Windows build failed"; }
grep -E '^-- (FreeToken|Found|hwloc:|pcre2:|httplib:)' "$out/ft-configure.log" | sed 's/^/cross-mingw: /' || true
step "building ft.exe with -j$jobs (every source of ft_engine, ft_kernels, ft_server and ft)"
cmake --build "$out/ft" --target ft -j "$jobs" || die "the Windows build failed (see the compiler output above)"

exe=$out/ft/app/ft.exe
[[ -f "$exe" ]] || die "$exe was not produced"
$triple-objdump -f "$exe" | grep -q 'file format pei-x86-64' || die "$exe is not a PE32+ x86-64 executable"
# Only DLLs of Windows itself: a MinGW runtime DLL here would make ft.exe fail to start on a user's PC.
dlls=$($triple-objdump -p "$exe" | awk '/DLL Name:/ {print $3}' | sort -u)
echo "cross-mingw: ft.exe imports: $(echo $dlls)"
for dll in $dlls; do
  case "${dll,,}" in
    kernel32.dll|user32.dll|advapi32.dll|shell32.dll|ole32.dll|ws2_32.dll|msvcrt.dll|crypt32.dll|bcrypt.dll|\
    shlwapi.dll|psapi.dll|iphlpapi.dll|api-ms-win-*) ;;
    *) die "ft.exe imports $dll, which a Windows PC does not have" ;;
  esac
done
step "ft.exe: $(du -h "$exe" | cut -f1)"

# The Windows installer script (installer/windows/nsis.cmake) compiled by Debian's makensis: CPack's NSIS generator
# with our Start-menu entry, .gguf association and uninstaller, around this build's ft.exe (no desktop app in it
# yet). The tests labelled windows install and uninstall it under Wine.
command -v makensis >/dev/null || die "makensis not found: run scripts/install-deps.sh (package nsis)"
step "NSIS installer (cpack -G NSIS)"
rm -f "$out"/ft/freetoken-*-win64.exe
(cd "$out/ft" && cpack -G NSIS >"$out/nsis.log" 2>&1) || { tail -40 "$out/nsis.log"; die "cpack -G NSIS failed"; }
installer=$(ls "$out"/ft/freetoken-*-win64.exe 2>/dev/null | head -1)
[[ -f "$installer" ]] || { tail -20 "$out/nsis.log"; die "cpack -G NSIS wrote no installer"; }
$triple-objdump -f "$installer" | grep -q 'file format pei-x86-64' || die "$installer is not a 64-bit Windows executable (installer/windows/nsis.cmake: makensis without amd64 stubs?)"
nsi=$out/ft/_CPack_Packages/win64/NSIS/project.nsi
for want in "Software\\Classes\\FreeToken.GGUF\\shell\\open\\command" "WriteUninstaller" "CreateShortCut"; do
  grep -qF "$want" "$nsi" || die "the NSIS script lacks $want"
done
step "done: $exe, $(basename "$installer") ($(du -h "$installer" | cut -f1))"

# --- The desktop app: freetoken.exe against the Qt for MinGW of scripts/cross-qt-mingw.sh -----------------------------
if [[ -z "$qt_mingw" ]]; then
  step "no desktop app (FT_MINGW_QT is not set: scripts/cross-qt-mingw.sh builds the Qt for MinGW it names)"
  exit 0
fi
missing=""
for m in qtbase qtshadertools qtsvg qtdeclarative; do [[ -f "$qt_mingw/.built-$m" ]] || missing+=" $m"; done
if [[ -n "$missing" ]]; then
  die "FT_MINGW_QT=$qt_mingw lacks${missing}: scripts/cross-qt-mingw.sh builds them there (hours)"
fi
export FT_MINGW_QT=$qt_mingw  # the toolchain: Qt's prefix is searched, and executables use MinGW's runtime DLLs as Qt does
host_cmake=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/cmake
step "configuring the desktop app for Windows against $qt_mingw (FT_GUI=ON FT_CUDA=OFF FT_TESTS=OFF)"
cmake -S "$src_root" -B "$out/app" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$tc" -DCMAKE_BUILD_TYPE=Release \
      -DFT_CUDA=OFF -DFT_GUI=ON -DFT_TESTS=OFF -DFT_WERROR=OFF -DFT_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$prefix;$qt_mingw" \
      -DQT_HOST_PATH=/usr -DQT_HOST_PATH_CMAKE_DIR="$host_cmake" -DPCRE2_DIR="$prefix/cmake" \
      -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" >"$out/app-configure.log" 2>&1 \
  || { tail -40 "$out/app-configure.log"; die "configuring the desktop app for Windows failed (log: $out/app-configure.log)"; }
step "building freetoken.exe and ft.exe with -j$jobs"
cmake --build "$out/app" --target freetoken ft -j "$jobs" || die "the Windows desktop app build failed (see above)"
app_exe=$out/app/freetoken.exe  # qt_standard_project_setup puts a Windows build's executables at the top of the tree
$triple-objdump -f "$app_exe" | grep -q 'file format pei-x86-64' || die "$app_exe is not a PE32+ x86-64 executable"
step "installing into $out/app/install (the DLLs, plugins and QML modules it loads beside it)"
rm -rf "$out/app/install"
cmake --install "$out/app" --prefix "$out/app/install" >"$out/app-install.log" 2>&1 \
  || { tail -40 "$out/app-install.log"; die "installing the desktop app failed (log: $out/app-install.log)"; }
step "NSIS installer with the desktop app (cpack -G NSIS)"
rm -f "$out"/app/freetoken-*-win64.exe
(cd "$out/app" && cpack -G NSIS >"$out/app-nsis.log" 2>&1) || { tail -40 "$out/app-nsis.log"; die "cpack -G NSIS (app) failed"; }
app_installer=$(ls "$out"/app/freetoken-*-win64.exe 2>/dev/null | head -1)
[[ -f "$app_installer" ]] || die "cpack -G NSIS wrote no installer with the desktop app"
step "done: $app_exe, $out/app/install ($(du -sh "$out/app/install" | cut -f1)), $(basename "$app_installer") ($(du -h "$app_installer" | cut -f1))"
