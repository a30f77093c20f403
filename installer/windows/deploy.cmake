# Windows: what the installer carries besides our executables, next to them in bin\ (Windows looks for DLLs in the
# executable's folder first). Included by installer/install-rules.cmake on WIN32 only.
#  - Qt: windeployqt copies the Qt DLLs, the platform/imageformat/sqldriver plugins and the QML modules that
#    ui/qml imports (--qmldir), into bin\ (with a qt.conf-free layout: plugins and qml\ beside the .exe).
#  - CUDA: the cuBLAS DLLs (cublas64_NN.dll, cublasLt64_NN.dll; the runtime is linked statically), which NVIDIA's
#    license lets applications redistribute, so a PC with only the NVIDIA driver runs on the GPU.
#  - MSVC: the Visual C++ runtime DLLs (InstallRequiredSystemLibraries), so no separate VC++ redistributable is needed.
#  - MinGW cross build (scripts/cross-mingw.sh): CI's links everything statically and has no GUI: nothing here
#    applies. With the Qt for MinGW (FT_MINGW_QT, the desktop app's build) there is no windeployqt: deploy-mingw.cmake
#    copies by rule what windeployqt would (the Qt and MinGW runtime DLLs the executables and plugins import, the
#    plugins and QML modules the app loads, a qt.conf naming their folders).
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

if(FT_GUI AND TARGET freetoken AND MINGW AND CMAKE_CROSSCOMPILING)
  # The runtime DLLs Qt's own DLLs import (libstdc++-6, libgcc_s_seh-1, libwinpthread-1): where the compiler finds them.
  set(ft_runtime_dirs "")
  foreach(dll libstdc++-6.dll libgcc_s_seh-1.dll libwinpthread-1.dll)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${dll} OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${found}" OR NOT EXISTS "${found}")
      # libwinpthread lives with the MinGW-w64 runtime, not with GCC.
      find_file(found_${dll} ${dll} PATHS /usr/${CMAKE_C_COMPILER_TARGET} /usr/x86_64-w64-mingw32 PATH_SUFFIXES lib bin
                NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
      set(found "${found_${dll}}")
    endif()
    if(NOT found OR NOT EXISTS "${found}")
      message(FATAL_ERROR "MinGW's ${dll} not found (${CMAKE_CXX_COMPILER} -print-file-name): Qt's DLLs need it beside freetoken.exe")
    endif()
    get_filename_component(dir "${found}" DIRECTORY)
    list(APPEND ft_runtime_dirs "${dir}")
  endforeach()
  list(REMOVE_DUPLICATES ft_runtime_dirs)
  if(NOT CMAKE_OBJDUMP)
    find_program(CMAKE_OBJDUMP x86_64-w64-mingw32-objdump REQUIRED)
  endif()
  install(CODE "
    set(FT_DEPLOY_QT \"${QT6_INSTALL_PREFIX}\")
    set(FT_DEPLOY_RUNTIME_DIRS \"${ft_runtime_dirs}\")
    set(FT_DEPLOY_OBJDUMP \"${CMAKE_OBJDUMP}\")
    include(\"${CMAKE_CURRENT_LIST_DIR}/deploy-mingw.cmake\")")
elseif(FT_GUI AND TARGET freetoken)
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
