#!/usr/bin/env bash
# Installs (with apt) whatever FreeToken Desktop needs to build and test that is missing on Debian 12.
# Idempotent: packages already present are skipped, so a second run does nothing and needs no network.
# Usage: scripts/install-deps.sh [--gui|--headless]   (default --gui: Qt Quick app too)
set -euo pipefail

mode=${1:---gui}
pkgs=(
  build-essential cmake ninja-build pkg-config git xz-utils
  libhwloc-dev libspdlog-dev libfmt-dev libhwy-dev libpcre2-dev libsqlite3-dev sqlite3 nlohmann-json3-dev
  libcpp-httplib-dev
  # API keys of remote servers in the Secret Service (app/server/keychain_secret.cpp; optional at build time).
  libsecret-1-dev
  qt6-base-dev libqt6test6 qt6-base-dev-tools
  # The Windows cross build of engine + kernels + ft (scripts/cross-mingw.sh) and its NSIS installer check:
  # MinGW-w64 GCC with POSIX threads, dpkg-source and tclsh for the libraries built from Debian's sources.
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix dpkg-dev tcl nsis
  # Wine runs that ft.exe and installer in the tests labelled windows (tests/windows).
  wine64
)
# Node.js + npm run the differential tests (reference tokenizers/templates from npm). Any node >= 18 will do,
# so a node from elsewhere (nodesource) is kept rather than replaced by Debian's.
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
if [[ "$mode" == "--gui" ]]; then
  pkgs+=(
    qt6-declarative-dev qt6-declarative-dev-tools qt6-charts-dev qt6-websockets-dev qt6-tools-dev qt6-tools-dev-tools
    qt6-l10n-tools qt6-shadertools-dev libqt6sql6-sqlite libqt6svg6
    qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts qml6-module-qtquick-window
    qml6-module-qtquick-templates qml6-module-qtquick-dialogs qml6-module-qtqml-workerscript qml6-module-qtcharts
    qml6-module-qtqml-models qml6-module-qtquick-shapes
    qml6-module-qt-labs-folderlistmodel
    # Qt's own strings in Korean and Chinese (its dialogs' buttons), embedded in the app.
    qt6-translations-l10n
    libgl-dev libvulkan-dev xvfb xauth imagemagick fonts-noto-cjk
    # tests/ui/walkthrough.sh: the real window driven by clicks and keys; tests/windows/test_wine_app finds the app's
    # window with xwininfo (x11-utils).
    xdotool x11-utils
    # test_keychain: a Secret Service of its own (a session bus and GNOME Keyring).
    dbus-daemon gnome-keyring
    # The .deb and portable-bundle tests (installer/linux): RPATHs, the desktop entry, the MIME database.
    patchelf desktop-file-utils shared-mime-info
  )
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all build and test dependencies are present"
fi

# The CUDA toolkit is not a Debian 12 package in the version we need (13.x): it is optional. Report it.
if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: CUDA toolkit found ($( (command -v nvcc || echo /usr/local/cuda/bin/nvcc) ))"
else
  echo "install-deps: no CUDA toolkit found: building the CPU-only engine (install CUDA 13 from NVIDIA for GPU support)"
fi
