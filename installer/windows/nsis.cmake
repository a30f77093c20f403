# The Windows installer (NSIS through CPack), included by cmake/FtPackaging.cmake on WIN32. It installs into
# %ProgramFiles%\FreeToken (bin\ft.exe, bin\freetoken.exe where the build has the desktop app, the DLLs
# installer/windows/deploy.cmake adds, share\), adds Start-menu entries and a .gguf association that name programs
# this installer installs, and registers an uninstaller in "Apps & features". Per-user data (models, library, chats,
# logs) lives in %LOCALAPPDATA%\FreeToken and is kept on uninstall.
#  - With the desktop app (FT_GUI: the MSVC build, and the MinGW build with FT_MINGW_QT of scripts/cross-mingw.sh):
#    "FreeToken Desktop" starts freetoken.exe, and a double-click on a .gguf runs `freetoken.exe "<file>"` (the file
#    is added to the library and loaded).
#  - Without it (the MinGW cross build of CI, which has no Qt for MinGW): "FreeToken Chat" opens `ft.exe chat` on the
#    bundled model in a console, and a double-click on a .gguf runs `ft.exe chat --model "<file>"`.
#  Both: "Uninstall FreeToken" (CPack's own entry).
# CI builds it with Debian's makensis around the MinGW cross build (scripts/cross-mingw.sh) and installs and
# uninstalls it under Wine (tests/windows/test_wine_installer.cpp, which checks that every shortcut and registry
# entry names an installed file; tests/windows/test_wine_app.cpp does the same for the one with the app); it has not
# been run on a Windows PC.
set(CPACK_GENERATOR "NSIS;ZIP")
set(CPACK_NSIS_DISPLAY_NAME "FreeToken Desktop")
set(CPACK_NSIS_PACKAGE_NAME "FreeToken Desktop ${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "FreeToken")
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MUI_ICON "${CMAKE_SOURCE_DIR}/resources/freetoken.ico")
set(CPACK_NSIS_MUI_UNIICON "${CMAKE_SOURCE_DIR}/resources/freetoken.ico")
set(CPACK_NSIS_EXECUTABLES_DIRECTORY "bin")  # CPACK_PACKAGE_EXECUTABLES: the Start-menu entry
if(TARGET freetoken)
  set(ft_nsis_open_exe "freetoken.exe")
  set(ft_nsis_open_args "\\\"%1\\\"")
  set(CPACK_NSIS_MUI_FINISHPAGE_RUN "freetoken.exe")
else()
  # No desktop app in this build: the terminal chat instead of FtPackaging's freetoken.exe entry.
  set(CPACK_PACKAGE_EXECUTABLES "")
  set(ft_nsis_open_exe "ft.exe")
  set(ft_nsis_open_args "chat --model \\\"%1\\\"")
  set(CPACK_NSIS_CREATE_ICONS_EXTRA "
  CreateShortCut '$SMPROGRAMS\\\\$STARTMENU_FOLDER\\\\FreeToken Chat.lnk' '$INSTDIR\\\\bin\\\\ft.exe' 'chat' '$INSTDIR\\\\bin\\\\ft.exe' 0
")
  set(CPACK_NSIS_DELETE_ICONS_EXTRA "
  Delete '$SMPROGRAMS\\\\$MUI_TEMP\\\\FreeToken Chat.lnk'
")
endif()
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\${ft_nsis_open_exe}")
set(CPACK_NSIS_MANIFEST_DPI_AWARE ON)
# A 64-bit installer where this NSIS has the amd64 stubs (Debian's makensis has; the nsis.sf.io build for Windows
# has only x86): it writes the 64-bit registry view and runs where no 32-bit Windows layer is (Debian's wine64
# alone starts a 32-bit installer, fails, and still exits 0 — which is how `/S` "installed nothing" under Wine).
# A 32-bit NSIS installer of this script installs the same files on a real Windows (WoW64).
find_program(FT_MAKENSIS makensis)
if(FT_MAKENSIS)
  get_filename_component(ft_nsis_bin "${FT_MAKENSIS}" DIRECTORY)
  find_path(FT_NSIS_AMD64_STUBS lzma-amd64-unicode NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH
            PATHS "${ft_nsis_bin}/../share/nsis/Stubs" "${ft_nsis_bin}/Stubs" "${ft_nsis_bin}/../Stubs")
  if(FT_NSIS_AMD64_STUBS)
    set(CPACK_NSIS_DEFINES "Target amd64-unicode")
  endif()
endif()

# .gguf → FreeToken.GGUF (HKLM\Software\Classes: every user of the PC), opened by the program above; undone by the
# uninstaller, which removes .gguf's default only while it still points at FreeToken.
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS "
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf' '' 'FreeToken.GGUF'
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf' 'Content Type' 'application/x-gguf'
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf\\\\OpenWithProgids' 'FreeToken.GGUF' ''
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF' '' 'GGUF model'
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF\\\\DefaultIcon' '' '$INSTDIR\\\\bin\\\\${ft_nsis_open_exe},0'
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF\\\\shell\\\\open\\\\command' '' '\\\"$INSTDIR\\\\bin\\\\${ft_nsis_open_exe}\\\" ${ft_nsis_open_args}'
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
")
set(CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS "
  DeleteRegKey HKLM 'Software\\\\Classes\\\\FreeToken.GGUF'
  DeleteRegValue HKLM 'Software\\\\Classes\\\\.gguf\\\\OpenWithProgids' 'FreeToken.GGUF'
  ReadRegStr $0 HKLM 'Software\\\\Classes\\\\.gguf' ''
  StrCmp $0 'FreeToken.GGUF' 0 +2
    DeleteRegKey HKLM 'Software\\\\Classes\\\\.gguf'
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
")
