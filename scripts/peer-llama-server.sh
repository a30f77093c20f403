#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only) for the peer tests (tests/ui/test_remote_peer.cpp, label peer), OUTSIDE
# this repository: nothing of llama.cpp enters it. Prints the binary's path; pass it to the tests as FT_LLAMA_SERVER
# (environment) or -DFT_LLAMA_SERVER=… (CMake cache).
#   scripts/peer-llama-server.sh [SOURCE_TARBALL] [BUILD_DIR]
# SOURCE_TARBALL: default ../shared/peers/llama.cpp/llama.cpp-src-2026-08-22.tar.xz (the trimmed source of 2026-08-22);
# BUILD_DIR: default ${XDG_CACHE_HOME:-~/.cache}/freetoken-peers/llama.cpp. The build runs under nice -n 19 and
# took 786 s on 2 cores (Debian 12, beside another build), about 9 minutes alone; an existing binary is reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$root/../shared/peers/llama.cpp/llama.cpp-src-2026-08-22.tar.xz}
dir=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/freetoken-peers/llama.cpp}
case "$(cd "$(dirname "$dir")" 2>/dev/null && pwd)/" in
  "$root"/*) echo "peer-llama-server.sh: build it outside the repository (got $dir)" >&2; exit 2 ;;
esac
bin=$dir/build/bin/llama-server
if [[ -x $bin ]]; then echo "$bin"; exit 0; fi
[[ -f $src ]] || { echo "peer-llama-server.sh: no source tarball at $src" >&2; exit 2; }
mkdir -p "$dir"
tar -C "$dir" --strip-components=1 -xJf "$src"
start=$(date +%s)
nice -n 19 cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  > "$dir/configure.log" 2>&1
nice -n 19 cmake --build "$dir/build" --target llama-server -j "$(nproc)" > "$dir/build.log" 2>&1
echo "peer-llama-server.sh: built in $(( $(date +%s) - start )) s" >&2
echo "$bin"
