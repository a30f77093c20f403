#!/usr/bin/env bash
# The portable Linux bundle: a folder (and its tarball) that runs FreeToken on a Linux PC without Qt installed.
#   installer/linux/make-bundle.sh BUILD_DIR [OUT_DIR]      OUT_DIR default: BUILD_DIR/bundle
# Produces OUT_DIR/FreeToken-<version>-linux-x86_64/ and OUT_DIR/FreeToken-<version>-linux-x86_64.tar.gz:
#   bin/freetoken, bin/ft, bin/qt.conf   the executables; qt.conf points Qt at the folders below
#   lib/                                 every library they need that a desktop Linux does not have for sure: Qt,
#                                        ICU, the xcb helper libraries, hwloc, Highway, PCRE2, spdlog, fmt, SQLite,
#                                        cpp-httplib…; lib/freetoken: the CUDA runtime libraries (cuBLAS), if built
#   plugins/                             Qt plugins: platforms (xcb, offscreen), image formats, SQLite driver, TLS,
#                                        input methods, network information
#   qml/                                 the Qt Quick, Qt QML and Qt.labs.folderlistmodel modules
#   share/                               demo model, tokenizer, desktop entry, icon, .gguf MIME type
# Every ELF file gets an RPATH relative to itself ($ORIGIN/…), so nothing needs LD_LIBRARY_PATH. Libraries of the
# base system stay out (glibc, libstdc++, libgcc, OpenGL/EGL, X11 and xcb core, fontconfig, freetype, …): they
# must match the user's system. installer/linux/test-bundle.sh runs the result with the system's Qt hidden.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=${2:-$build/bundle}
mkdir -p "$out"
out=$(cd "$out" && pwd)
die() { echo "make-bundle: $*" >&2; exit 1; }
command -v patchelf >/dev/null || die "patchelf not found: run scripts/install-deps.sh"
[[ -x "$build/app/freetoken" && -x "$build/app/ft" ]] || die "$build/app/freetoken and ft must be built first"

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
name=FreeToken-${version}-linux-x86_64
dest=$out/$name
rm -rf "$dest" "$out/$name.tar.gz"

# 1. Our files, as the .deb has them (bin, share, lib/freetoken), into the bundle's root.
cmake --install "$build" --prefix "$dest" --strip >/dev/null || die "cmake --install failed"

# 2. Qt plugins and QML modules from the Qt the app was built with.
qt_prefix=$(sed -n 's/^Qt6_DIR:PATH=//p' "$build/CMakeCache.txt")
qtpaths=$(command -v qtpaths6 || command -v qtpaths || true)
[[ -x /usr/lib/qt6/bin/qtpaths ]] && qtpaths=/usr/lib/qt6/bin/qtpaths
[[ -n "$qtpaths" ]] || die "qtpaths not found (qt6-base-dev-tools)"
qt_plugins=$("$qtpaths" --query QT_INSTALL_PLUGINS)
qt_qml=$("$qtpaths" --query QT_INSTALL_QML)
[[ -d "$qt_plugins" && -d "$qt_qml" ]] || die "Qt plugin/QML folders not found via $qtpaths ($qt_prefix)"
mkdir -p "$dest/plugins" "$dest/qml/Qt/labs" "$dest/lib"
copy_plugin() {  # copy_plugin DIR [FILE…]: a plugin folder, or some of its files
  local dir=$1; shift
  [[ -d "$qt_plugins/$dir" ]] || die "Qt plugin folder $dir missing in $qt_plugins"
  mkdir -p "$dest/plugins/$dir"
  if (($#)); then
    local f
    for f in "$@"; do cp -L "$qt_plugins/$dir/$f" "$dest/plugins/$dir/" || die "Qt plugin $dir/$f missing"; done
  else
    cp -L "$qt_plugins/$dir"/*.so "$dest/plugins/$dir/"
  fi
}
copy_plugin platforms libqxcb.so libqoffscreen.so
copy_plugin xcbglintegrations
copy_plugin imageformats
copy_plugin iconengines
copy_plugin sqldrivers libqsqlite.so
copy_plugin tls
copy_plugin platforminputcontexts
copy_plugin networkinformation
cp -rL "$qt_qml/QtQuick" "$qt_qml/QtQml" "$dest/qml/"
cp -rL "$qt_qml/Qt/labs/folderlistmodel" "$dest/qml/Qt/labs/"
rm -rf "$dest/qml/QtQuick/Controls/designer"  # Qt Design Studio's files, not needed to run

cat >"$dest/bin/qt.conf" <<'EOF'
[Paths]
Prefix = ..
Libraries = lib
Plugins = plugins
QmlImports = qml
Qml2Imports = qml
EOF

# 3. Shared libraries: the closure of every ELF file in the bundle, less the base system's.
base_system='^(ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libnsl|libstdc\+\+|libgcc_s|libGL|libGLX|libEGL|libGLdispatch|libOpenGL|libGLESv2|libdrm|libgbm|libvulkan|libX11|libX11-xcb|libxcb|libXau|libXdmcp|libXext|libXrender|libXi|libSM|libICE|libfontconfig|libfreetype|libharfbuzz|libexpat|libz|libdbus-1|libglib-2\.0|libgobject-2\.0|libgthread-2\.0|libgio-2\.0|libsystemd|libudev|libcap|libgcrypt|libgpg-error|liblzma|liblz4|libbsd|libmd|libselinux|libmount|libblkid|libffi|libpng16|libssl|libcrypto|libcuda|libnvidia-.*)\.so'
elf_files() { find "$dest" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print; }
declare -A seen=()
for round in 1 2 3 4 5 6; do
  added=0
  while IFS= read -r f; do
    while read -r lib path; do
      [[ -n "$path" && "$path" != "not" ]] || continue
      [[ -n "${seen[$lib]:-}" ]] && continue
      seen[$lib]=1
      [[ "$lib" =~ $base_system ]] && continue
      [[ -e "$dest/lib/$lib" || -e "$dest/lib/freetoken/$lib" ]] && continue
      cp -L "$path" "$dest/lib/$lib"
      added=$((added + 1))
    done < <(ldd "$f" 2>/dev/null | awk '/=>/ {print $1, $3}')
  done < <(elf_files)
  ((added == 0)) && break
done
missing=$(for f in $(elf_files); do ldd "$f" 2>/dev/null | grep 'not found' | sed "s|^|$f: |" || true; done | sort -u)
[[ -z "$missing" ]] || die "unresolved libraries: $missing"

# 4. RPATHs relative to each file: bin → lib (and lib/freetoken), lib → itself, plugins/qml → lib.
rel() { realpath --relative-to="$(dirname "$1")" "$dest/lib"; }
while IFS= read -r f; do
  case "$f" in
    "$dest"/lib/freetoken/*) continue ;;   # NVIDIA's libraries keep their own RUNPATH ($ORIGIN)
    "$dest"/bin/*) rp='$ORIGIN/../lib:$ORIGIN/../lib/freetoken' ;;
    *) rp="\$ORIGIN/$(rel "$f")"; rp=${rp%/.} ;;
  esac
  patchelf --set-rpath "$rp" "$f" || die "patchelf failed on $f"
done < <(elf_files)

tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "make-bundle: $dest ($(du -sh "$dest" | cut -f1)), $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"
