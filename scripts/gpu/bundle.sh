#!/usr/bin/env bash
# Builds the headless CUDA configuration for sm_90 here (Debian 12) and packs what the GPU machine needs to run its
# tests and benchmarks into .gpu/bundle.tar.xz: the build tree without object files, plus every shared library the
# binaries need that the GPU machine (Ubuntu 24.04 + CUDA 13, no Qt) lacks — Qt Core/Test and their ICU, spdlog,
# fmt, hwloc, Highway, PCRE2, SQLite, cpp-httplib (the API server; with its OpenSSL, zlib, brotli). glibc, libstdc++
# and the CUDA libraries are taken from the GPU machine.
# Then, on the GPU machine (device tool), from the repo root:  bash scripts/gpu/run.sh
#   device run: command "bash scripts/gpu/run.sh", carry [".gpu"]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
preset=gpu-sm90
build=$root/build/$preset
# FT_BUNDLE_BUILD=DIR packs an existing CUDA build tree instead (building only FT_BUNDLE_TARGETS there, if given):
# a quick bundle of a few tests while the rest of the tree is mid-change.
if [[ -n "${FT_BUNDLE_BUILD:-}" ]]; then
  build=$(cd "$FT_BUNDLE_BUILD" && pwd)
  [[ -n "${FT_BUNDLE_TARGETS:-}" ]] && cmake --build "$build" -j "$(nproc)" --target $FT_BUNDLE_TARGETS
else
  bash scripts/install-deps.sh --headless >/dev/null
  cmake --preset $preset >/dev/null
  cmake --build --preset $preset -j "$(nproc)"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build" "$stage/lib"
# The build tree minus objects and CMake internals: executables, CTestTestfile.cmake files, test data.
# FT_BUNDLE_ONLY (a regex over executable names) keeps only the executables it matches: a small bundle for a few runs.
# Left behind: the installers' outputs (the .deb, CPack's staging, the portable bundle), what earlier test runs
# wrote (test-data-dir, the tokenizer tests' downloads, Wine prefixes) and the GUI's build (no Qt Quick there).
(cd "$build" && find . \( -name '*.o' -o -name '*.a' -o -path '*/CMakeFiles/*' -o -name '*.ninja*' \
   -o -name '.ninja_*' -o -path '*_autogen/*' -o -name '*.deb' -o -path ./_CPack_Packages -o -path ./bundle \
   -o -path ./test-data-dir -o -path './test-tokenizer-*' -o -path './wine-*' -o -path ./ui \) -prune \
   -o -type f -print) |
  while read -r f; do
    if [[ -n "${FT_BUNDLE_ONLY:-}" && -x "$build/$f" && "$f" != *.sh && ! "$(basename "$f")" =~ ^(${FT_BUNDLE_ONLY})$ ]]; then
      continue
    fi
    mkdir -p "$stage/build/$(dirname "$f")"; cp -p "$build/$f" "$stage/build/$f"
  done

skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s|libcuda|libcublas|libcudart|libnvidia)'
find "$stage/build" -type f -perm -u+x ! -name '*.so*' ! -path '*/CMakeFiles/*' | while read -r exe; do
  ldd "$exe" 2>/dev/null | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  cp -L "$path" "$stage/lib/$name"
done
echo "$build" > "$stage/BUILD_DIR"
echo "$root" > "$stage/SOURCE_DIR"
mkdir -p "$root/.gpu"
# One xz stream with a dictionary larger than the tree: the test binaries share most of their bytes (the same
# CUDA fatbin and engine code linked into each), which a large window stores once (23 MB instead of 53 MB with plain -J).
tar -C "$stage" -cf - . | xz -T1 --lzma2=preset=6,dict=256MiB > "$root/.gpu/bundle.tar.xz"
ls -l "$root/.gpu/bundle.tar.xz"
echo "libs bundled: $(ls "$stage/lib" | tr '\n' ' ')"
