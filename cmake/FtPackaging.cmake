# Installers (CPack): a .deb on Linux, the NSIS installer (+ a .zip) on Windows. `cmake --build <dir> --target package`.
# installer/ holds the per-platform pieces: install-rules.cmake (what is installed besides the executables),
# linux/ (the portable bundle and the CI checks of the .deb and the bundle), windows/ (deployment and NSIS extras).
include(GNUInstallDirs)
include(${CMAKE_SOURCE_DIR}/installer/install-rules.cmake)

set(CPACK_PACKAGE_NAME "freetoken")
set(CPACK_PACKAGE_VENDOR "FreeToken Desktop team")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "FreeToken")
set(CPACK_PACKAGE_EXECUTABLES "freetoken;FreeToken Desktop")
set(CPACK_RESOURCE_FILE_README "${CMAKE_SOURCE_DIR}/README.md")
set(CPACK_STRIP_FILES ON)  # strips what install(TARGETS) installs; the shipped CUDA libraries stay as NVIDIA built them
set(CPACK_THREADS 0)       # compress on every core
if(WIN32)
  include(${CMAKE_SOURCE_DIR}/installer/windows/nsis.cmake)
else()
  set(CPACK_GENERATOR "DEB")  # the portable bundle is installer/linux/make-bundle.sh (Qt deployed beside the binaries)
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER "FreeToken Desktop team")
  set(CPACK_DEBIAN_PACKAGE_SECTION "science")
  set(CPACK_DEBIAN_COMPRESSION_TYPE zstd)  # dpkg reads zstd since Debian 12 / Ubuntu 21.10; fast for cuBLAS's 570 MB
  # Libraries the executables link (hwloc, Highway, PCRE2, spdlog, fmt, SQLite, cpp-httplib, Qt…): dpkg-shlibdeps.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  if(FT_PRIVATE_LIBDIR)
    # The CUDA libraries in lib/freetoken belong to the package itself.
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
        "${CMAKE_BINARY_DIR}/_CPack_Packages/Linux/DEB/${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-Linux/usr/${FT_PRIVATE_LIBDIR}")
  endif()
  # What dpkg-shlibdeps cannot see, because the app loads it at run time: the QML modules it imports, the
  # Qt.labs.folderlistmodel module behind QtQuick.Dialogs' file and folder dialogs, the SQLite driver, the SVG
  # image plugin. installer/linux/test-deb.sh checks that every file the installed app loads belongs to a package
  # in this list's closure.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-layouts, \
qml6-module-qtquick-window, qml6-module-qtquick-templates, qml6-module-qtquick-dialogs, qml6-module-qtqml-workerscript, \
qml6-module-qtqml-models, qml6-module-qtquick-shapes, qml6-module-qt-labs-folderlistmodel, libqt6sql6-sqlite, libqt6svg6")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-noto-cjk")
  set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Run large Mixture-of-Experts models on one gaming PC
 FreeToken Desktop keeps every routed expert of a Mixture-of-Experts model in host RAM and a cache of the busiest
 ones on the GPU. The desktop app (freetoken) chats with the model and shows the engine live; the command-line tool
 (ft) runs, benchmarks and serves models through an OpenAI- and Anthropic-compatible API. The CUDA runtime and
 cuBLAS come with the package: only the NVIDIA driver is needed for the GPU, and without one it runs on the CPU.")
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
endif()
include(CPack)
