# What windeployqt does for freetoken.exe, for the MinGW cross build, where there is no windeployqt: run at install time
# (cmake --install, CPack) by the install(CODE) of installer/windows/deploy.cmake, with
#   FT_DEPLOY_QT             the Qt for MinGW (scripts/cross-qt-mingw.sh's prefix)
#   FT_DEPLOY_RUNTIME_DIRS   the folders of MinGW's runtime DLLs (libstdc++-6, libgcc_s_seh-1, libwinpthread-1)
#   FT_DEPLOY_OBJDUMP        x86_64-w64-mingw32-objdump, which lists the DLLs a Windows executable imports
# Layout, all in the install's bin\ beside the executables (Windows looks for DLLs in the program's folder first):
#   bin\Qt6*.dll, MinGW's runtime DLLs     every DLL of Qt or MinGW that an executable, a plugin or a QML module imports
#   bin\plugins\<kind>\*.dll               the plugins the app loads (list below)
#   bin\qml\…                              the QML modules ui/qml imports, with what they import in turn
#   bin\qt.conf                            names those two folders (Qt looks beside the executable for qt.conf)
# A DLL that is neither Qt's nor MinGW's is taken to be Windows' own; the list of those is printed, and the tests under
# Wine (tests/windows/test_wine_app.cpp) start the installed app, which fails on anything missing.

cmake_policy(PUSH)
cmake_policy(VERSION 3.25)  # install scripts run with no policy set; this file uses IN_LIST and list(POP_FRONT)

set(bin "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin")
if(NOT EXISTS "${bin}/freetoken.exe")
  message(FATAL_ERROR "deploy-mingw: ${bin}/freetoken.exe is not installed")
endif()

# Plugins: the Windows platform (window, input, fonts through DirectWrite), the image formats and the icon engine of
# the SVG icons and the .ico, the SQLite driver of the model library, the Widgets style of QApplication's message
# boxes, and the TLS back ends of QNetworkAccessManager (Schannel: remote servers over https).
set(plugins
  platforms/qwindows.dll
  imageformats/qsvg.dll imageformats/qico.dll imageformats/qjpeg.dll imageformats/qgif.dll
  iconengines/qsvgicon.dll
  sqldrivers/qsqlite.dll
  styles/qwindowsvistastyle.dll
  tls/qschannelbackend.dll tls/qcertonlybackend.dll)
# QML modules: QtQuick (with Controls' Basic style and templates, Layouts, Dialogs, Shapes, Window, Templates), QtQml
# (Models, WorkerScript) and Qt.labs.folderlistmodel, which QtQuick.Dialogs' file and folder dialogs import.
set(qml_dirs QtQuick QtQml Qt/labs/folderlistmodel)

set(scan "${bin}/freetoken.exe")
if(EXISTS "${bin}/ft.exe")
  list(APPEND scan "${bin}/ft.exe")
endif()
foreach(p IN LISTS plugins)
  if(NOT EXISTS "${FT_DEPLOY_QT}/plugins/${p}")
    message(FATAL_ERROR "deploy-mingw: the Qt plugin ${p} is not in ${FT_DEPLOY_QT}/plugins (scripts/cross-qt-mingw.sh builds it)")
  endif()
  get_filename_component(kind "${p}" DIRECTORY)
  file(COPY "${FT_DEPLOY_QT}/plugins/${p}" DESTINATION "${bin}/plugins/${kind}")
  list(APPEND scan "${bin}/plugins/${p}")
endforeach()
foreach(d IN LISTS qml_dirs)
  if(NOT IS_DIRECTORY "${FT_DEPLOY_QT}/qml/${d}")
    message(FATAL_ERROR "deploy-mingw: the QML module folder ${d} is not in ${FT_DEPLOY_QT}/qml (scripts/cross-qt-mingw.sh builds it)")
  endif()
  get_filename_component(parent "${d}" DIRECTORY)
  # Run-time files only: not the static plugin libraries nor the type descriptions for tools.
  file(COPY "${FT_DEPLOY_QT}/qml/${d}" DESTINATION "${bin}/qml/${parent}"
       PATTERN "*.a" EXCLUDE PATTERN "*.prl" EXCLUDE PATTERN "*.qmltypes" EXCLUDE PATTERN "designer" EXCLUDE)
  file(GLOB_RECURSE qml_dlls "${bin}/qml/${d}/*.dll")
  list(APPEND scan ${qml_dlls})
endforeach()

# The closure of their imports over Qt's bin\ and MinGW's runtime folders.
set(copied "")
set(system "")
while(scan)
  list(POP_FRONT scan file)
  execute_process(COMMAND "${FT_DEPLOY_OBJDUMP}" -p "${file}" OUTPUT_VARIABLE dump RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deploy-mingw: ${FT_DEPLOY_OBJDUMP} -p ${file} failed (${rc})")
  endif()
  string(REGEX MATCHALL "DLL Name: [^\r\n]+" names "${dump}")
  foreach(entry IN LISTS names)
    string(REGEX REPLACE "^DLL Name: " "" dll "${entry}")
    string(STRIP "${dll}" dll)
    string(TOLOWER "${dll}" key)
    if(key IN_LIST copied OR key IN_LIST system)
      continue()
    endif()
    set(from "")
    foreach(dir "${FT_DEPLOY_QT}/bin" ${FT_DEPLOY_RUNTIME_DIRS})
      if(EXISTS "${dir}/${dll}")
        set(from "${dir}/${dll}")
        break()
      endif()
    endforeach()
    if(from)
      file(COPY "${from}" DESTINATION "${bin}")
      list(APPEND copied "${key}")
      list(APPEND scan "${bin}/${dll}")
    elseif(key MATCHES "^(qt6|lib)")
      message(FATAL_ERROR "deploy-mingw: ${file} imports ${dll}, which is neither in ${FT_DEPLOY_QT}/bin nor in MinGW's "
                          "runtime folders (${FT_DEPLOY_RUNTIME_DIRS}): the installed app would not start")
    else()
      list(APPEND system "${key}")
    endif()
  endforeach()
endwhile()

file(WRITE "${bin}/qt.conf" "[Paths]\nPrefix = .\nPlugins = plugins\nQmlImports = qml\nQml2Imports = qml\n")
list(SORT copied)
list(SORT system)
list(JOIN copied " " copied_text)
list(JOIN system " " system_text)
message(STATUS "deploy-mingw: copied ${copied_text}; plugins ${plugins}; qml/ ${qml_dirs}")
message(STATUS "deploy-mingw: taken as Windows' own: ${system_text}")
cmake_policy(POP)
