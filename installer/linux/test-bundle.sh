#!/usr/bin/env bash
# The portable Linux bundle, run with the system's Qt out of reach (CTest: package_bundle, label package).
#   installer/linux/test-bundle.sh BUILD_DIR
# Makes the bundle (installer/linux/make-bundle.sh), unpacks its tarball into a temporary folder and runs from there
# `ft --version`, `ft run` on the bundled model and an offscreen `freetoken --smoke`, in an environment with
# LD_LIBRARY_PATH = the bundle's lib/ only and QT_PLUGIN_PATH, QML2_IMPORT_PATH, QML_IMPORT_PATH, QT_CONF unset.
# Then checks that no Qt library, Qt plugin or QML module was loaded from outside the bundle (LD_DEBUG=files of the
# smoke run), and that `ldd` resolves every Qt library of every ELF file in the bundle inside it.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
say() { echo "test-bundle: [$(( $(date +%s) - start )) s] $*"; }
die() { echo "test-bundle: FAILED: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$src/installer/linux/demo-standin.sh" "$build"
say "making the bundle"
bash "$src/installer/linux/make-bundle.sh" "$build" "$build/bundle" || die "make-bundle.sh failed"
tarball=$(ls "$build"/bundle/FreeToken-*-linux-x86_64.tar.gz | head -1)
[[ -f "$tarball" ]] || die "no tarball"
tar -C "$work" -xzf "$tarball" || die "cannot unpack $tarball"
root=$(ls -d "$work"/FreeToken-*-linux-x86_64)
say "unpacked $(basename "$tarball") into $root"
for f in bin/ft bin/freetoken bin/qt.conf plugins/platforms/libqxcb.so plugins/platforms/libqoffscreen.so \
         plugins/sqldrivers/libqsqlite.so qml/QtQuick/Dialogs/qmldir qml/Qt/labs/folderlistmodel/qmldir \
         share/freetoken/models/freetoken-demo.gguf share/applications/freetoken.desktop; do
  [[ -e "$root/$f" ]] || die "the bundle lacks $f"
done
ls "$root"/lib/libQt6Core.so.6 >/dev/null 2>&1 || die "the bundle lacks libQt6Core"

# Static check: every Qt library any ELF file of the bundle needs resolves inside the bundle.
bad=$(find "$root" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print |
      while IFS= read -r f; do
        env -u LD_LIBRARY_PATH ldd "$f" 2>/dev/null | awk -v f="$f" '/libQt6|libicu|not found/ && $3 !~ "^'"$root"'" {print f ": " $0}'
      done)
[[ -z "$bad" ]] || die "libraries resolved outside the bundle:
$bad"
say "ldd: every Qt/ICU library of every file resolves inside the bundle (RPATH, no LD_LIBRARY_PATH)"

run() {  # the bundle's environment: its lib/ only, no Qt search paths from outside
  env -u QT_PLUGIN_PATH -u QML2_IMPORT_PATH -u QML_IMPORT_PATH -u QT_CONF -u QT_QPA_PLATFORM_PLUGIN_PATH \
      LD_LIBRARY_PATH="$root/lib" FT_DATA_DIR="$work/data" HOME="$work/home" "$@"
}
mkdir -p "$work/home"
out=$(run "$root/bin/ft" --version) || die "ft --version failed"
echo "test-bundle: ft --version: $out"
run "$root/bin/ft" run --model "$root/share/freetoken/models/freetoken-demo.gguf" --prompt "The capital of France is" \
    --max-tokens 8 --temperature 0 >"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err"; die "ft run failed"; }
[[ -s "$work/run.out" ]] || die "ft run printed nothing"
echo "test-bundle: ft run: $(tr '\n' ' ' <"$work/run.out" | cut -c1-200)"

say "freetoken --smoke from the bundle (offscreen, LD_DEBUG=files)"
run env QT_QPA_PLATFORM=offscreen LD_DEBUG=files LD_DEBUG_OUTPUT="$work/lddebug" "$root/bin/freetoken" --smoke \
    >"$work/smoke.out" 2>&1 || { cat "$work/smoke.out"; die "freetoken --smoke failed"; }
grep '^freetoken --smoke' "$work/smoke.out" | sed 's/^/test-bundle: /'
grep -q '^freetoken --smoke: ok' "$work/smoke.out" || die "freetoken --smoke did not report ok"
loaded=$(cat "$work"/lddebug.* | sed -nE 's/^[[:space:]]*[0-9]+:[[:space:]]+calling init: (.*)$/\1/p' | sort -u)
[[ -n "$loaded" ]] || die "LD_DEBUG recorded no loaded file"
outside=$(grep -E 'libQt6|/qt6/|libicu|libqxcb|libqsqlite|quick|qml' <<<"$loaded" | grep -v "^$root/" || true)
[[ -z "$outside" ]] || die "Qt was loaded from outside the bundle:
$outside"
inside=$(grep -c "^$root/" <<<"$loaded")
say "ok: $inside libraries and plugins loaded from the bundle, no Qt from the system"
