#!/usr/bin/env bash
# The .deb's install / run / remove cycle on this machine (CTest: package_deb, label package).
#   installer/linux/test-deb.sh BUILD_DIR
# Builds the .deb with CPack, installs it with apt, runs `ft --version`, `ft info`, `ft run` on the bundled model
# and an offscreen `freetoken --smoke` (with LD_DEBUG=files: every library and plugin the app loads from the system
# must belong to a package the .deb depends on, directly or not), checks the desktop entry, the .gguf MIME type and
# where the CUDA libraries resolve from, then removes the package and checks that none of its files is left.
# The machine ends as it began, also when a step fails (an EXIT trap purges the package): apt must not need to
# install anything else (scripts/install-deps.sh installs every dependency first), and an already installed
# freetoken package is refused rather than replaced. Needs root (apt); exits 77 (skipped) without it, unless
# FT_REQUIRE_PACKAGE_TESTS=1 (scripts/test.sh sets it), which turns every skip into a failure.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
say() { echo "test-deb: [$(( $(date +%s) - start )) s] $*"; }
die() { echo "test-deb: FAILED: $*" >&2; exit 1; }
skip() {
  if [[ "${FT_REQUIRE_PACKAGE_TESTS:-0}" == 1 ]]; then die "$* (FT_REQUIRE_PACKAGE_TESTS=1)"; fi
  echo "test-deb: skipped: $*"; exit 77
}

[[ $(id -u) -eq 0 ]] || skip "needs root to install a package with apt"
if dpkg-query -W -f='${Status}' freetoken 2>/dev/null | grep -q 'ok installed'; then
  skip "a freetoken package is already installed on this machine; this test would replace it (apt remove freetoken first)"
fi
work=$(mktemp -d)
installed=0
cleanup() {
  local rc=$?
  if ((installed)) || dpkg-query -W -f='${Status}' freetoken 2>/dev/null | grep -q 'ok installed'; then
    echo "test-deb: removing the package (cleanup)"
    DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq freetoken >/dev/null 2>&1 || rc=1
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT

bash "$src/installer/linux/demo-standin.sh" "$build"

say "building the .deb (cpack -G DEB)"
rm -f "$build"/freetoken_*.deb
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { tail -40 "$work/cpack.log"; die "cpack failed"; }
deb=$(ls "$build"/freetoken_*.deb 2>/dev/null | head -1)
[[ -f "$deb" ]] || die "cpack wrote no freetoken_*.deb (see $work/cpack.log)"
say "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "test-deb: Depends: $depends"
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/files"
for f in /usr/bin/ft /usr/bin/freetoken /usr/share/applications/freetoken.desktop \
         /usr/share/icons/hicolor/scalable/apps/freetoken.svg /usr/share/mime/packages/freetoken.xml \
         /usr/share/freetoken/models/freetoken-demo.gguf /usr/share/freetoken/tokenizers/qwen3/tokenizer.json; do
  grep -qx "$f" "$work/files" || die "the package lacks $f"
done
for dep in libhwloc libhwy libpcre2-8 libspdlog libsqlite3 libcpp-httplib libqt6quick6 qml6-module-qt-labs-folderlistmodel \
           libqt6sql6-sqlite qml6-module-qtquick-dialogs; do
  grep -q "$dep" <<<"$depends" || die "Depends lacks $dep"
done
cuda=0
if grep -q '^FT_CUDA:BOOL=ON' "$build/CMakeCache.txt"; then
  cuda=1
  grep -q '^/usr/lib/freetoken/libcublas.so' "$work/files" && grep -q '^/usr/lib/freetoken/libcublasLt.so' "$work/files" \
    || die "a CUDA build's package must ship libcublas and libcublasLt in /usr/lib/freetoken"
fi

# apt may only add the package itself: anything more would stay on the machine after the test.
DEBIAN_FRONTEND=noninteractive apt-get install -s --no-install-recommends "$deb" >"$work/sim" 2>&1 \
  || { cat "$work/sim"; die "apt cannot install the package"; }
extra=$(awk '/^Inst / {print $2}' "$work/sim" | grep -vx freetoken || true)
[[ -z "$extra" ]] || die "apt would also install: $extra (run scripts/install-deps.sh first)"
say "apt-get install $(basename "$deb")"
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; die "apt-get install failed"; }

export FT_DATA_DIR=$work/data HOME=$work/home XDG_DATA_HOME=$work/home/.local/share
mkdir -p "$HOME"
unset LD_LIBRARY_PATH QT_PLUGIN_PATH QML2_IMPORT_PATH QML_IMPORT_PATH
[[ "$(command -v ft)" == /usr/bin/ft ]] || die "ft is not on the PATH as /usr/bin/ft"
out=$(ft --version) || die "ft --version failed"
echo "test-deb: ft --version: $out"
grep -q "$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")" <<<"$out" || die "ft --version does not print the version"
ft info | sed 's/^/test-deb: ft info: /'
if ((cuda)); then
  for exe in /usr/bin/ft /usr/bin/freetoken; do
    deps_of_exe=$(ldd "$exe")  # not piped into grep -q: with pipefail, ldd's SIGPIPE would fail the check
    grep -qE 'libcublas.so[.0-9]* => /usr/(bin/\.\./)?lib/freetoken/libcublas.so' <<<"$deps_of_exe" \
      || { echo "$deps_of_exe"; die "$exe does not load cuBLAS from /usr/lib/freetoken"; }
  done
  say "cuBLAS resolves to /usr/lib/freetoken for both executables"
fi
model=/usr/share/freetoken/models/freetoken-demo.gguf
say "ft run on the bundled model"
ft run --model "$model" --prompt "The capital of France is" --max-tokens 8 --temperature 0 >"$work/run.out" 2>"$work/run.err" \
  || { cat "$work/run.err"; die "ft run failed"; }
[[ -s "$work/run.out" ]] || die "ft run printed nothing"
echo "test-deb: ft run: $(tr '\n' ' ' <"$work/run.out" | cut -c1-200)"

say "freetoken --smoke (offscreen, LD_DEBUG=files)"
QT_QPA_PLATFORM=offscreen LD_DEBUG=files LD_DEBUG_OUTPUT=$work/lddebug freetoken --smoke >"$work/smoke.out" 2>&1 \
  || { cat "$work/smoke.out"; die "freetoken --smoke failed"; }
grep '^freetoken --smoke' "$work/smoke.out" | sed 's/^/test-deb: /'
grep -q '^freetoken --smoke: ok' "$work/smoke.out" || die "freetoken --smoke did not report ok"

# Every shared object the app loaded from the system belongs to a package in the .deb's dependency closure (packages
# that provide a virtual dependency, such as libspdlog1.10 for libspdlog1.10-fmt9, included).
loaded=$(cat "$work"/lddebug.* | sed -nE 's/^[[:space:]]*[0-9]+:[[:space:]]+calling init: (.*)$/\1/p' | sort -u)
[[ -n "$loaded" ]] || die "LD_DEBUG recorded no loaded file"
closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
            --no-enhances freetoken 2>/dev/null | sed -E 's/^ *\|?(Pre)?Depends: //; s/^ +//; s/[<>]//g; s/:amd64$//' | sort -u)
# apt-cache leaves uninstalled virtual names out: add the package's own Depends names (libspdlog1.10-fmt9).
closure=$(printf '%s\n%s\n' "$closure" "$(tr ',|' '\n\n' <<<"$depends" | sed -E 's/^ *//; s/[ (].*//')" | sort -u)
n=0
while IFS= read -r f; do
  [[ "$f" == /usr/lib/freetoken/* ]] && continue
  real=$(readlink -f "$f")
  pkg=$(dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1) || true
  [[ -n "$pkg" ]] || pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1) || true
  [[ -n "$pkg" ]] || { echo "test-deb: note: $f belongs to no package (left out of the check)"; continue; }
  if ! grep -qx "$pkg" <<<"$closure"; then  # or it provides a virtual package of the closure
    provided=0
    for v in $(dpkg-query -W -f='${Provides}' "$pkg" 2>/dev/null | tr ',' '\n' | sed -E 's/^ *//; s/ .*//'); do
      grep -qx "$v" <<<"$closure" && provided=1
    done
    ((provided)) || die "the app loaded $f from $pkg, which the package does not depend on"
  fi
  n=$((n + 1))
done <<<"$loaded"
say "$n loaded libraries and plugins, each from a package in the dependency closure"

# Desktop integration.
grep -q '^Exec=freetoken %f$' /usr/share/applications/freetoken.desktop || die "the desktop entry does not pass the file (%f)"
grep -q '^MimeType=application/x-gguf;' /usr/share/applications/freetoken.desktop || die "the desktop entry lacks the .gguf MIME type"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate /usr/share/applications/freetoken.desktop || die "desktop-file-validate failed"
fi
if command -v update-mime-database >/dev/null; then
  # dpkg's trigger has rebuilt the MIME database: the type is known and a .gguf name maps to it.
  [[ -f /usr/share/mime/application/x-gguf.xml ]] || die "the MIME database does not know application/x-gguf"
  grep -q 'application/x-gguf:\*\.gguf' /usr/share/mime/globs2 || die "*.gguf is not mapped to application/x-gguf"
  say "MIME type application/x-gguf registered for *.gguf"
fi

say "apt-get remove --purge freetoken"
DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq freetoken >"$work/remove.log" 2>&1 \
  || { cat "$work/remove.log"; die "apt-get remove failed"; }
installed=0
if dpkg-query -W -f='${Status}' freetoken 2>/dev/null | grep -q 'ok installed'; then die "freetoken is still installed"; fi
left=$(while IFS= read -r f; do [[ -n "$f" && "$f" != */ && -e "$f" ]] && echo "$f"; done <"$work/files" || true)
[[ -z "$left" ]] || die "files left after removal: $left"
for d in /usr/lib/freetoken /usr/share/freetoken; do [[ ! -e "$d" ]] || die "$d is left after removal"; done
if command -v update-mime-database >/dev/null; then
  [[ ! -f /usr/share/mime/application/x-gguf.xml ]] || die "application/x-gguf is still in the MIME database"
fi
say "ok: installed, ran and removed cleanly"
