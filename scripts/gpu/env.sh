#!/usr/bin/env bash
# Sourced by the GPU-machine scripts: unpacks .gpu/bundle.tar.xz (made by scripts/gpu/bundle.sh), recreates the
# build/source paths the CTest files name, sets the library path, and defines `step` (runs a command, logs it,
# records a failure in $status). Logs go to $OUT/<log name> when OUT is set.
cd "$(dirname "$0")/../.."
repo=$PWD

# The data files git keeps xz-compressed (cmake/FtPackedData.cmake unpacks them when configuring; nothing is
# configured here).
while IFS= read -r f; do [[ -f "${f%.xz}" ]] || xz --decompress --keep "$f"; done < <(find resources tests/data -name '*.xz')
[[ -f .gpu/bundle.tar.xz ]] || { echo "no .gpu/bundle.tar.xz: run scripts/gpu/bundle.sh first (and carry .gpu)"; exit 2; }
dest=/tmp/ft-bundle
rm -rf "$dest" && mkdir -p "$dest" && tar -C "$dest" -xJf .gpu/bundle.tar.xz
build_dir=$(cat "$dest/BUILD_DIR")
source_dir=$(cat "$dest/SOURCE_DIR")
# CTest files name the build and source folders by the paths they had where they were built: recreate them.
mkdir -p "$(dirname "$build_dir")"
[[ -e "$build_dir" ]] || ln -s "$dest/build" "$build_dir"
[[ -e "$source_dir" ]] || { mkdir -p "$(dirname "$source_dir")"; ln -s "$repo" "$source_dir"; }
cuda_lib=$(dirname "$(find / -name 'libcublas.so.13' -not -path '*/proc/*' 2>/dev/null | head -n 1)")
export LD_LIBRARY_PATH="$dest/lib:${cuda_lib}:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FT_REQUIRE_GPU=1

status=0
step() { echo; echo "=== $* ==="; "$@" || { echo "=== FAILED: $* ==="; status=1; }; }
ft=$build_dir/app/ft
