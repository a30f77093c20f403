# Installers (CPack): .deb and a portable .tar.gz on Linux, NSIS on Windows. `cmake --build <dir> --target package`.
# installer/ holds the per-platform pieces (desktop entry install rules, NSIS extras, deploy scripts).
include(GNUInstallDirs)
if(EXISTS ${CMAKE_SOURCE_DIR}/installer/install-rules.cmake)
  include(${CMAKE_SOURCE_DIR}/installer/install-rules.cmake)
endif()

set(CPACK_PACKAGE_NAME "freetoken")
set(CPACK_PACKAGE_VENDOR "FreeToken Desktop team")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "FreeToken")
set(CPACK_PACKAGE_EXECUTABLES "freetoken;FreeToken")
set(CPACK_RESOURCE_FILE_README "${CMAKE_SOURCE_DIR}/README.md")
set(CPACK_STRIP_FILES ON)
if(WIN32)
  set(CPACK_GENERATOR "NSIS;ZIP")
  set(CPACK_NSIS_DISPLAY_NAME "FreeToken Desktop")
  set(CPACK_NSIS_CREATE_ICONS_EXTRA "CreateShortCut '$SMPROGRAMS\\\\$STARTMENU_FOLDER\\\\FreeToken.lnk' '$INSTDIR\\\\bin\\\\freetoken.exe'")
else()
  set(CPACK_GENERATOR "DEB;TGZ")
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER "FreeToken Desktop team")
  set(CPACK_DEBIAN_PACKAGE_SECTION "science")
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # What shlibdeps cannot see: the QML modules and the SQLite driver the app loads at run time
  # (Qt.labs.folderlistmodel: the file and folder dialogs of QtQuick.Dialogs crash without it).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-layouts, \
qml6-module-qtquick-window, qml6-module-qtquick-templates, qml6-module-qtquick-dialogs, qml6-module-qtqml-workerscript, \
qml6-module-qtquick-shapes, qml6-module-qt-labs-folderlistmodel, libqt6sql6-sqlite, libqt6svg6")
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
endif()
include(CPack)
