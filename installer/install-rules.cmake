# What an installed FreeToken contains besides the executables (their install() rules live with the targets).
# One layout everywhere, relative to the install prefix (/usr for the .deb, the bundle's folder, %ProgramFiles%\FreeToken):
#   bin/ft, bin/freetoken                 the CLI (on the PATH in the .deb) and the desktop app
#   lib/freetoken/                        Linux: private shared libraries (CUDA runtime + cuBLAS), found through RPATH
#   share/freetoken/models/               the bundled demo model and its model card
#   share/freetoken/tokenizers/           the Qwen3 tokenizer for `ft synth`
#   share/applications, share/icons, share/mime/packages   Linux desktop integration (.desktop, icon, .gguf type)

# --- The bundled demo model ------------------------------------------------------------------------------------------
# resources/models/freetoken-demo.gguf (+ README.md, its model card) once it is committed. Until then a build can
# carry a stand-in written into the build tree (never committed: installer/linux/test-deb.sh makes one with
# `ft synth --preset tiny` when the real model is missing, so the install/run/remove cycle is tested either way).
set(FT_DEMO_MODEL_SOURCE ${CMAKE_SOURCE_DIR}/resources/models)
set(FT_DEMO_MODEL_STANDIN ${CMAKE_BINARY_DIR}/resources/models)
if(EXISTS ${FT_DEMO_MODEL_SOURCE}/freetoken-demo.gguf)
  install(FILES ${FT_DEMO_MODEL_SOURCE}/freetoken-demo.gguf DESTINATION ${CMAKE_INSTALL_DATADIR}/freetoken/models)
  if(EXISTS ${FT_DEMO_MODEL_SOURCE}/README.md)
    install(FILES ${FT_DEMO_MODEL_SOURCE}/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/freetoken/models)
  endif()
else()
  install(FILES ${FT_DEMO_MODEL_STANDIN}/freetoken-demo.gguf DESTINATION ${CMAKE_INSTALL_DATADIR}/freetoken/models
          OPTIONAL)
endif()

if(WIN32)
  include(${CMAKE_CURRENT_LIST_DIR}/windows/deploy.cmake)
  return()
endif()

# --- Linux desktop integration ---------------------------------------------------------------------------------------
install(FILES ${CMAKE_SOURCE_DIR}/resources/freetoken.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${CMAKE_SOURCE_DIR}/resources/icons/freetoken.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
# application/x-gguf: *.gguf files (and any file starting with "GGUF") open in FreeToken on a double-click.
install(FILES ${CMAKE_SOURCE_DIR}/resources/freetoken-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME freetoken.xml)

# --- CUDA runtime libraries, shipped privately ---------------------------------------------------------------------
# The engine links the CUDA runtime statically and cuBLAS dynamically. cuBLAS (libcublas + libcublasLt, which NVIDIA's
# license lets applications redistribute) goes into lib/freetoken, which the executables find through their RPATH
# ($ORIGIN/../lib/freetoken), so a PC with only the NVIDIA driver runs on the GPU. Without a driver the same
# binaries start and run on the CPU (`ft info` says why in one line).
if(FT_CUDA)
  set(FT_PRIVATE_LIBDIR ${CMAKE_INSTALL_LIBDIR}/freetoken)
  if(CMAKE_INSTALL_LIBDIR MATCHES "^lib/")  # Debian's multiarch lib/x86_64-linux-gnu: keep the private folder short
    set(FT_PRIVATE_LIBDIR lib/freetoken)
  endif()
  foreach(lib cublas cublasLt)
    if(NOT TARGET CUDA::${lib})
      message(FATAL_ERROR "FT_CUDA=ON but CUDA::${lib} was not found: cannot ship the CUDA libraries")
    endif()
    get_target_property(loc CUDA::${lib} IMPORTED_LOCATION)
    if(NOT loc)
      get_target_property(loc CUDA::${lib} IMPORTED_LOCATION_RELEASE)
    endif()
    file(REAL_PATH "${loc}" real)
    # Installed under its SONAME, the name the loader asks for (libcublas.so.13).
    execute_process(COMMAND ${CMAKE_READELF} -d "${real}" OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
    string(REGEX MATCH "Library soname: \\[([^]]+)\\]" _ "${dyn}")
    if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_1)
      message(FATAL_ERROR "cannot read the SONAME of ${real} (readelf: ${CMAKE_READELF})")
    endif()
    install(FILES "${real}" DESTINATION ${FT_PRIVATE_LIBDIR} RENAME ${CMAKE_MATCH_1}
            PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    list(APPEND FT_SHIPPED_CUDA_LIBS ${CMAKE_MATCH_1})
  endforeach()
  foreach(target ft freetoken)
    if(TARGET ${target})
      set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "$ORIGIN/../${FT_PRIVATE_LIBDIR}")
    endif()
  endforeach()
  message(STATUS "Packages ship ${FT_SHIPPED_CUDA_LIBS} in ${FT_PRIVATE_LIBDIR}")
endif()
