# The Windows installer (NSIS through CPack), included by cmake/FtPackaging.cmake on WIN32. It installs into
# %ProgramFiles%\FreeToken (bin\freetoken.exe, bin\ft.exe, the DLLs installer/windows/deploy.cmake adds, share\),
# adds a Start-menu entry, associates .gguf files with FreeToken (a double-click runs `freetoken.exe "<file>"`:
# the file is added to the library and loaded) and registers an uninstaller in "Apps & features". Per-user data
# (models, library, chats, logs) lives in %LOCALAPPDATA%\FreeToken and is kept on uninstall.
# CI builds it with Debian's makensis around the MinGW cross build (scripts/cross-mingw.sh) and installs and
# uninstalls it under Wine (tests/windows/test_wine_installer.cpp); it has not been run on a Windows PC.
set(CPACK_GENERATOR "NSIS;ZIP")
set(CPACK_NSIS_DISPLAY_NAME "FreeToken Desktop")
set(CPACK_NSIS_PACKAGE_NAME "FreeToken Desktop ${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "FreeToken")
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MUI_ICON "${CMAKE_SOURCE_DIR}/resources/freetoken.ico")
set(CPACK_NSIS_MUI_UNIICON "${CMAKE_SOURCE_DIR}/resources/freetoken.ico")
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\freetoken.exe")
set(CPACK_NSIS_EXECUTABLES_DIRECTORY "bin")  # CPACK_PACKAGE_EXECUTABLES: the Start-menu entry
set(CPACK_NSIS_MUI_FINISHPAGE_RUN "freetoken.exe")
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

# .gguf → FreeToken.GGUF (HKLM\Software\Classes: every user of the PC); undone by the uninstaller, which removes
# .gguf's default only while it still points at FreeToken.
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS "
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf' '' 'FreeToken.GGUF'
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf' 'Content Type' 'application/x-gguf'
  WriteRegStr HKLM 'Software\\\\Classes\\\\.gguf\\\\OpenWithProgids' 'FreeToken.GGUF' ''
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF' '' 'GGUF model'
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF\\\\DefaultIcon' '' '$INSTDIR\\\\bin\\\\freetoken.exe,0'
  WriteRegStr HKLM 'Software\\\\Classes\\\\FreeToken.GGUF\\\\shell\\\\open\\\\command' '' '\\\"$INSTDIR\\\\bin\\\\freetoken.exe\\\" \\\"%1\\\"'
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
