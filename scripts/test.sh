#!/usr/bin/env bash
# Builds and runs every test: the README's test command, and exactly what .ci/run calls.
#   scripts/test.sh                 install missing packages, configure (preset "ci"), build, run all tests but perf
#   FT_TEST_PRESET=headless scripts/test.sh   the same for another preset
# CTest prints its summary line ("100% tests passed, 0 tests failed out of N"); GPU tests show as skipped without
# a GPU. Exit status: non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${FT_TEST_PRESET:-ci}
start=$(date +%s)

mode=--gui
[[ "$preset" == headless || "$preset" == gpu-sm90 ]] && mode=--headless
bash scripts/install-deps.sh "$mode"

# Reference implementations for the differential tests (npm, pinned by package-lock.json). With them installed,
# a differential test that cannot find them fails instead of skipping.
(cd tests/reference && npm ci --no-audit --no-fund --loglevel=error)
export FT_REQUIRE_REFERENCE=1

jobs=$(nproc)
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"

# The Windows build, cross compiled with MinGW-w64: every source of the engine, the kernels and ft (CPU only, Win32
# code paths included), linked into ft.exe, and the NSIS installer script compiled by makensis. FT_TEST_CROSS=0
# leaves it out.
if [[ "${FT_TEST_CROSS:-1}" == 1 ]]; then
  cross_start=$(date +%s)
  FT_MINGW_JOBS=$jobs bash scripts/cross-mingw.sh build/mingw
  echo "scripts/test.sh: Windows cross build done in $(( $(date +%s) - cross_start )) s"
  # ...which the tests labelled windows run under Wine: here a skip (no wine64, no ft.exe) is a failure.
  export FT_REQUIRE_WINDOWS_TESTS=1
fi

# The peer tests (label peer: the app against llama.cpp's llama-server) need that server built outside the repository
# (scripts/peer-llama-server.sh: about 9–13 minutes on 2 cores, which a fresh CI run cannot spare under its 45-minute
# budget): FT_TEST_PEER=1 builds it (or reuses it) and runs them; FT_LLAMA_SERVER=PATH uses a prebuilt one; else
# they report skipped.
if [[ "${FT_TEST_PEER:-0}" == 1 && -z "${FT_LLAMA_SERVER:-}" ]]; then
  FT_LLAMA_SERVER=$(bash scripts/peer-llama-server.sh)
  export FT_LLAMA_SERVER
fi

# The installers' tests (label package) install the .deb with apt and run the portable bundle: here a skip (no
# root, a freetoken package already installed) is a failure.
export FT_REQUIRE_PACKAGE_TESTS=1
ctest --test-dir "build/$preset" --output-on-failure -j "$jobs" -LE perf --timeout 900
echo "scripts/test.sh: preset $preset done in $(( $(date +%s) - start )) s"
