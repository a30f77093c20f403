#!/usr/bin/env bash
# Cross compiles Qt 6 for 64-bit Windows (x86_64-w64-mingw32) from Debian's own Qt source packages — the modules the
# desktop app uses: qtbase (Core, Gui, Widgets, Network, Sql + its SQLite driver, Concurrent, the Windows platform
# plugin), qtshadertools (Qt Quick's shaders), qtsvg (the SVG icons), qtdeclarative (Qml, Quick, Quick Controls'
# Basic style and templates, Layouts, Dialogs, Shapes, Qt.labs.folderlistmodel) — with the host tools (moc, rcc, uic,
# qsb, qmlcachegen, qmltyperegistrar …) of Debian's installed Qt packages of the same version (QT_HOST_PATH=/usr),
# into a cache folder outside the tree:
#   nice -n 19 scripts/cross-qt-mingw.sh [CACHE_DIR]      default /var/cache/freetoken-qt-mingw
# Result: CACHE_DIR/qt-<version>-mingw (a Qt prefix for CMAKE_PREFIX_PATH). Every module's source is fetched first
# (with a private apt state under CACHE_DIR: the machine's apt configuration is not touched), so a source the mirror
# lacks stops the run in seconds rather than after hours of qtbase; FT_QT_MODULES="qtbase qtshadertools" builds
# only those (e.g. while a source is missing). Each module is built once (a mark file per module); a later run
# reuses what is there, so an interrupted run continues where it stopped.
# Where the mirror does not give a module's source (from the dev machine it answers 404 for qt6-svg's and
# qt6-declarative's tarballs, docs/windows.md), FT_QT_SOURCES=DIR takes that module from DIR/<module> (qtsvg,
# qtdeclarative …): the same Qt release's source tree (Qt's release tarball unpacked, or Qt's git at tag v<version>);
# its .cmake.conf must name the version of the host Qt, and the run says which modules came from there.
# qtdeclarative is built without what the app does not load (the list at its configure step below).
# SQLite for Qt's SQL driver is compiled here from the amalgamation scripts/cross-mingw.sh made (Debian's Qt source leaves out Qt's bundled copy; the driver needs
# SQLITE_ENABLE_COLUMN_METADATA, which ft.exe's copy leaves out): run that first. Not part of CI: docs/windows.md
# gives its time and size on the dev machine.
# Jobs: FT_QT_JOBS (default: the number of CPUs). Log of each step: CACHE_DIR/logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
src_root=$PWD
cache=${1:-/var/cache/freetoken-qt-mingw}
jobs=${FT_QT_JOBS:-$(nproc)}
triple=x86_64-w64-mingw32
start=$(date +%s)

die() { echo "cross-qt-mingw: $*" >&2; exit 1; }
step() { echo "cross-qt-mingw: [$(( $(date +%s) - start )) s] $*"; }

for tool in $triple-g++-posix dpkg-source dpkg-query cmake ninja; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
done
qt_version=$(dpkg-query -W -f '${Version}' qt6-base-dev 2>/dev/null | sed 's/[+~-].*//') \
  || die "Debian's qt6-base-dev is not installed (scripts/install-deps.sh): its host tools build Qt for Windows"
[[ -n "$qt_version" ]] || die "cannot tell the version of qt6-base-dev"
host_cmake=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/cmake
[[ -d "$host_cmake/Qt6CoreTools" ]] || die "$host_cmake/Qt6CoreTools missing: install qt6-base-dev-tools"
amalgamation=$src_root/build/mingw/deps/build-sqlite3
[[ -f "$amalgamation/sqlite3.c" && -f "$amalgamation/sqlite3.h" ]] \
  || die "$amalgamation/sqlite3.c missing: run scripts/cross-mingw.sh first"

prefix=$cache/qt-$qt_version-mingw
mkdir -p "$cache/src" "$cache/logs" "$prefix"
step "Qt $qt_version for $triple into $prefix, $jobs jobs"

# Source package name, CMake project folder prefix, binary package whose version the source must match.
modules=(
  "qt6-base qtbase qt6-base-dev"
  "qt6-shadertools qtshadertools qt6-shadertools-dev"
  "qt6-svg qtsvg libqt6svg6"
  "qt6-declarative qtdeclarative qt6-declarative-dev"
)
wanted=${FT_QT_MODULES:-qtbase qtshadertools qtsvg qtdeclarative}

fetch() {  # fetch and unpack one source package, the version of the installed binary package
  local src=$1 bin=$2 name=$3 apt=$cache/apt
  ls -d "$cache"/src/"$src"-[0-9]*/ >/dev/null 2>&1 && return 0
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc"
  if [[ ! -f "$apt/etc/sources.list" ]]; then
    local codename
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian %s-updates main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
      "$codename" "$codename" "$codename" >"$apt/etc/sources.list"
  fi
  local opts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/none"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
              -o APT::Sandbox::User=root -qq)
  [[ -n "$(ls "$apt/lists" | grep -v partial)" ]] || apt-get "${opts[@]}" update || die "apt-get update failed (network?)"
  local version
  version=$(dpkg-query -W -f '${source:Version}' "$bin" 2>/dev/null) || die "$bin is not installed (scripts/install-deps.sh)"
  if ! (cd "$cache/src" && apt-get "${opts[@]}" source --download-only "$src=$version" >"$cache/logs/fetch-$src.log" 2>&1); then
    local up
    if up=$(upstream_dir "$name"); then
      step "$name: Debian's mirror did not give $src=$version ($(grep -m1 -oE '[0-9]{3} [A-Za-z ]+' \
        "$cache/logs/fetch-$src.log" || echo 'see '"$cache/logs/fetch-$src.log")); taking $up (FT_QT_SOURCES)"
      return 0
    fi
    cat "$cache/logs/fetch-$src.log" >&2
    [[ -n "${FT_QT_SOURCES:-}" ]] && die "the source package $src=$version could not be downloaded (above), and \
FT_QT_SOURCES=$FT_QT_SOURCES has no $name folder of Qt $qt_version: put that module's source tree there (Qt's \
$name-everywhere-src-$qt_version tarball unpacked, or Qt's git at tag v$qt_version) as $FT_QT_SOURCES/$name"
    die "the source package $src=$version could not be downloaded (above: which file the mirror did not give). The \
Windows desktop app needs it; try again where deb.debian.org serves it, set FT_QT_SOURCES (the header of this \
script), or build the others with FT_QT_MODULES"
  fi
  (cd "$cache/src" && dpkg-source --no-check -x "${src}_${version#*:}.dsc" >/dev/null) || die "unpacking $src failed"
}

upstream_dir() {  # FT_QT_SOURCES/<module> when it holds that module's source of the host Qt's version
  local d=${FT_QT_SOURCES:-}/$1 v
  [[ -n "${FT_QT_SOURCES:-}" && -f "$d/CMakeLists.txt" && -f "$d/.cmake.conf" ]] || return 1
  v=$(sed -n 's/^set(QT_REPO_MODULE_VERSION "\([^"]*\)").*/\1/p' "$d/.cmake.conf")
  [[ "$v" == "$qt_version" ]] || die "$d is Qt ${v:-of no version} (.cmake.conf), the host Qt is $qt_version: \
the host tools build only their own version; put $1's $qt_version source there"
  echo "$d"
}
source_dir() {  # Debian's unpacked source package, else the FT_QT_SOURCES tree
  local d
  d=$(ls -d "$cache"/src/"$1"-[0-9]*/ 2>/dev/null | head -1)
  if [[ -n "$d" ]]; then echo "${d%/}"; else upstream_dir "$2" || die "no source of $2 (run without FT_QT_MODULES once)"; fi
}

# Every source first: a missing one is known before hours of building. Debian's source package first; where the
# mirror lacks it, FT_QT_SOURCES.
for m in "${modules[@]}"; do
  read -r src name bin <<<"$m"
  [[ " $wanted " == *" $name "* ]] || continue
  [[ -f "$prefix/.built-$name" ]] && continue
  step "$name: fetching $src"
  fetch "$src" "$bin" "$name"
  step "$name: source $(source_dir "$src" "$name")"
done

# SQLite for Qt's driver, with the column metadata API it calls (sqlite3_column_table_name16 …).
sqlite=$cache/sqlite
if [[ ! -f "$sqlite/lib/libsqlite3.a" ]]; then
  step "SQLite for Qt's SQL driver"
  mkdir -p "$sqlite/lib" "$sqlite/include"
  $triple-gcc-posix -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_COLUMN_METADATA \
    -c "$amalgamation/sqlite3.c" -o "$sqlite/sqlite3.o" || die "compiling sqlite3.c for Qt failed"
  $triple-ar rcs "$sqlite/lib/libsqlite3.a" "$sqlite/sqlite3.o"
  cp "$amalgamation/sqlite3.h" "$sqlite/include/"
fi

# qtdeclarative 6.4 builds every Quick Controls style whatever its feature says (CMakeLists add_subdirectory's them
# unconditionally), and its dialogs carry a variant of each dialog per style; the app uses the Basic style only. The
# features turned off at its configure step are made to decide, in the unpacked source (once, marked): with them
# 802 of its 1,296 objects are left to compile.
trim_qtdeclarative() {
  local d=$1 qc=$1/src/quickcontrols2/CMakeLists.txt dlg=$1/src/quickdialogs2/quickdialogs2quickimpl/CMakeLists.txt
  [[ -f "$d/.ft-trimmed" ]] && return 0
  local style
  for style in fusion imagine material universal windows; do
    grep -q "^ *add_subdirectory($style)" "$qc" || die "$qc has no add_subdirectory($style): another qtdeclarative?"
    sed -i "s/^\( *\)add_subdirectory($style)/\1if(QT_FEATURE_quickcontrols2_$style)\n\1  add_subdirectory($style)\n\1endif()/" "$qc"
  done
  grep -q '^ *add_subdirectory(quicknativestyle)' "$d/src/CMakeLists.txt" || die "$d/src/CMakeLists.txt: no quicknativestyle"
  sed -i 's/^\( *\)add_subdirectory(quicknativestyle)/\1if(QT_FEATURE_quickcontrols2_windows OR QT_FEATURE_quickcontrols2_macos)\n\1  add_subdirectory(quicknativestyle)\n\1endif()/' \
    "$d/src/CMakeLists.txt"
  sed -i '/"qml\/+\(Fusion\|Imagine\|Material\|Universal\)\//d' "$dlg"
  # qmllint's Qt Quick plugin needs the QML development tools' library (FEATURE_qml_devtools, off below); Qt Quick
  # Test and the test utilities are for Qt's own tests; Qt.labs.platform's native dialogs the app does not import.
  grep -q '^add_subdirectory(qmllint)' "$d/src/plugins/CMakeLists.txt" || die "$d/src/plugins/CMakeLists.txt: no qmllint"
  sed -i 's/^add_subdirectory(qmllint)/if(QT_FEATURE_qml_devtools)\n  add_subdirectory(qmllint)\nendif()/' "$d/src/plugins/CMakeLists.txt"
  grep -q 'QT_FEATURE_testlib AND TARGET Qt::Test' "$d/src/CMakeLists.txt" || die "$d/src/CMakeLists.txt: no testlib switch"
  sed -i 's/QT_FEATURE_testlib AND TARGET Qt::Test/QT_FEATURE_testlib AND TARGET Qt::Test AND NOT FT_NO_QT_QUICK_TEST/' "$d/src/CMakeLists.txt"
  grep -q '^ *add_subdirectory(platform)' "$d/src/labs/CMakeLists.txt" || die "$d/src/labs/CMakeLists.txt: no platform"
  sed -i 's/^\( *\)add_subdirectory(platform)/\1if(NOT FT_NO_LABS_PLATFORM)\n\1  add_subdirectory(platform)\n\1endif()/' "$d/src/labs/CMakeLists.txt"
  touch "$d/.ft-trimmed"
}

export FT_MINGW_PREFIX=$prefix  # the toolchain's find root: modules after qtbase find Qt6 there
for m in "${modules[@]}"; do
  read -r src name bin <<<"$m"
  [[ " $wanted " == *" $name "* ]] || { step "$name: not in FT_QT_MODULES"; continue; }
  [[ -f "$prefix/.built-$name" ]] && { step "$name: already built"; continue; }
  dir=$(source_dir "$src" "$name")
  extra=()
  if [[ $name == qtbase ]]; then
    # Windows has its own font, image and network back ends; what Debian's source leaves out comes from the cross
    # build's SQLite, everything else from Qt's bundled copies. Debian's source also drops the Wintab header
    # (src/3rdparty/wintab: its license forbids changes), which the Windows platform plugin's tablet support
    # includes: no tablet events (the app has no use for a pen's pressure).
    extra=(-DFEATURE_system_sqlite=ON -DSQLite3_INCLUDE_DIR="$sqlite/include" -DSQLite3_LIBRARY="$sqlite/lib/libsqlite3.a"
           -DFEATURE_system_zlib=OFF -DFEATURE_system_pcre2=OFF -DFEATURE_system_freetype=OFF
           -DFEATURE_system_harfbuzz=OFF -DFEATURE_system_png=OFF -DFEATURE_system_jpeg=OFF -DFEATURE_openssl=OFF
           -DFEATURE_dbus=OFF -DFEATURE_sql_odbc=OFF -DFEATURE_sql_psql=OFF -DFEATURE_sql_mysql=OFF
           -DFEATURE_tabletevent=OFF)
  fi
  if [[ $name == qtdeclarative ]]; then
    trim_qtdeclarative "$dir"
    # Only what the app runs: no QML debugger/profiler/preview, no QML development tools (qmllint's and the QML
    # DOM's libraries: the host tools come from Debian's packages), no particles, no Quick Controls styles but Basic
    # (the app imports QtQuick.Controls.Basic), no XmlListModel, no Qt Design Studio support, no Qt Quick Test, no
    # Qt.labs.platform.
    extra=(-DFEATURE_qml_debug=OFF -DFEATURE_qml_profiler=OFF -DFEATURE_qml_preview=OFF -DFEATURE_qml_devtools=OFF
           -DFT_NO_QT_QUICK_TEST=ON -DFT_NO_LABS_PLATFORM=ON
           -DFEATURE_quick_particles=OFF -DFEATURE_qml_xmllistmodel=OFF -DFEATURE_quick_designer=OFF
           -DFEATURE_quickcontrols2_fusion=OFF -DFEATURE_quickcontrols2_imagine=OFF
           -DFEATURE_quickcontrols2_material=OFF -DFEATURE_quickcontrols2_universal=OFF
           -DFEATURE_quickcontrols2_windows=OFF -DFEATURE_quickcontrols2_macos=OFF -DFEATURE_quickcontrols2_ios=OFF)
  fi
  step "$name: configuring"
  cmake -S "${dir%/}" -B "$cache/build-$name" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src_root/cmake/toolchains/mingw-w64-x86_64.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DQT_HOST_PATH=/usr -DQT_HOST_PATH_CMAKE_DIR="$host_cmake" \
        -DQT_BUILD_EXAMPLES=OFF -DQT_BUILD_TESTS=OFF -DQT_BUILD_BENCHMARKS=OFF -DCMAKE_PREFIX_PATH="$prefix" \
        "${extra[@]}" >"$cache/logs/$name-configure.log" 2>&1 \
    || { tail -40 "$cache/logs/$name-configure.log"; die "configuring $name failed (log: $cache/logs/$name-configure.log)"; }
  step "$name: building"
  cmake --build "$cache/build-$name" -j "$jobs" >"$cache/logs/$name-build.log" 2>&1 \
    || { tail -40 "$cache/logs/$name-build.log"; die "building $name failed (log: $cache/logs/$name-build.log)"; }
  cmake --install "$cache/build-$name" >"$cache/logs/$name-install.log" 2>&1 || die "installing $name failed"
  touch "$prefix/.built-$name"
  step "$name: installed ($(du -sh "$prefix" | cut -f1) in the prefix so far)"
done
step "done: $prefix ($(du -sh "$prefix" | cut -f1)); sources and build folders: $(du -sh "$cache" | cut -f1) in $cache"
