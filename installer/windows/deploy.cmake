# Windows: what the installer carries besides our executables, next to them in bin\ (Windows looks for DLLs in the
# executable's folder first). Included by installer/install-rules.cmake on WIN32 only.
#  - Qt: windeployqt copies the Qt DLLs, the platform/imageformat/sqldriver plugins and the QML modules that
#    ui/qml imports (--qmldir), into bin\ (with a qt.conf-free layout: plugins and qml\ beside the .exe).
#  - CUDA: the cuBLAS DLLs (cublas64_NN.dll, cublasLt64_NN.dll; the runtime is linked statically), which NVIDIA's
#    license lets applications redistribute, so a PC with only the NVIDIA driver runs on the GPU.
#  - MSVC: the Visual C++ runtime DLLs (InstallRequiredSystemLibraries), so no separate VC++ redistributable is needed.
# The MinGW cross build of CI links everything statically and has no GUI: only the CUDA/Qt-free parts apply there.
# Nothing here runs on Linux CI except under MinGW; keep it small and reviewed.

if(MSVC)
  set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION bin)
  set(CMAKE_INSTALL_UCRT_LIBRARIES TRUE)  # Windows 10 has the UCRT; older 10 builds may not: ship it
  include(InstallRequiredSystemLibraries)
endif()

if(FT_CUDA)
  # CUDA 12 keeps its DLLs in bin\, CUDA 13 in bin\x64\.
  file(GLOB FT_CUDA_DLLS "${CUDAToolkit_BIN_DIR}/cublas64_*.dll" "${CUDAToolkit_BIN_DIR}/cublasLt64_*.dll"
                         "${CUDAToolkit_BIN_DIR}/x64/cublas64_*.dll" "${CUDAToolkit_BIN_DIR}/x64/cublasLt64_*.dll")
  list(LENGTH FT_CUDA_DLLS n)
  if(n LESS 2)
    message(FATAL_ERROR "FT_CUDA=ON but the cuBLAS DLLs were not found in ${CUDAToolkit_BIN_DIR}: the installer "
                        "would not run on the GPU. Install the CUDA toolkit's cuBLAS or configure with -DFT_CUDA=OFF.")
  endif()
  install(FILES ${FT_CUDA_DLLS} DESTINATION bin)
  message(STATUS "The installer ships ${FT_CUDA_DLLS}")
endif()

if(FT_GUI AND TARGET freetoken)
  find_program(FT_WINDEPLOYQT windeployqt HINTS "${QT6_INSTALL_PREFIX}/${QT6_INSTALL_BINS}" "${QT6_INSTALL_PREFIX}/bin")
  if(NOT FT_WINDEPLOYQT)
    message(FATAL_ERROR "windeployqt not found next to Qt (${QT6_INSTALL_PREFIX}): the installer needs it")
  endif()
  # At install time (cmake --install, CPack): deploy what freetoken.exe needs into the install's bin\.
  install(CODE "
    message(STATUS \"windeployqt: bin/freetoken.exe\")
    execute_process(
      COMMAND \"${FT_WINDEPLOYQT}\" --release --qmldir \"${CMAKE_SOURCE_DIR}/ui/qml\" --no-translations
              --no-system-d3d-compiler --no-opengl-sw --compiler-runtime
              \"\${CMAKE_INSTALL_PREFIX}/bin/freetoken.exe\"
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR \"windeployqt failed (\${rc})\")
    endif()")
endif()
