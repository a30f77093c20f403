# Every third-party dependency is found here, once. On Linux all come from Debian packages (scripts/install-deps.sh);
# the MinGW cross build (scripts/cross-mingw.sh) builds them from Debian's sources; on Windows vcpkg or a prefix in
# CMAKE_PREFIX_PATH provides them. A CMake config package is used where the library ships one; pkg-config only
# where it does not (hwloc) or a distribution leaves it out (Debian's PCRE2 and cpp-httplib). Targets use the
# ft::<name> interface targets below, whichever way the library was found.
find_package(Threads REQUIRED)

find_package(spdlog CONFIG REQUIRED)
find_package(nlohmann_json 3.10 CONFIG REQUIRED)
find_package(hwy CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)  # CMake's own FindSQLite3: SQLite::SQLite3

# ft_find_dependency(<ft name> CONFIG <package> <target> [COMPONENTS …] PKG <pkg-config module>)
function(ft_find_dependency name)
  cmake_parse_arguments(D "" "PKG" "CONFIG;COMPONENTS" ${ARGN})
  set(package)
  set(target)
  if(D_CONFIG)
    list(GET D_CONFIG 0 package)
    list(GET D_CONFIG 1 target)
  endif()
  add_library(ft_dep_${name} INTERFACE)
  add_library(ft::${name} ALIAS ft_dep_${name})
  set(components)
  if(D_COMPONENTS)
    set(components COMPONENTS ${D_COMPONENTS})
  endif()
  if(package)
    find_package(${package} CONFIG QUIET ${components})
  endif()
  if(package AND TARGET ${target})
    target_link_libraries(ft_dep_${name} INTERFACE ${target})
    message(STATUS "${name}: CMake package ${package} (${target})")
  else()
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(FT_PC_${name} REQUIRED IMPORTED_TARGET ${D_PKG})
    target_link_libraries(ft_dep_${name} INTERFACE PkgConfig::FT_PC_${name})
    message(STATUS "${name}: pkg-config ${D_PKG}")
  endif()
endfunction()

ft_find_dependency(hwloc PKG hwloc)  # hwloc ships no CMake package
set(PCRE2_USE_STATIC_LIBS ${FT_STATIC_DEPS})
ft_find_dependency(pcre2 CONFIG PCRE2 PCRE2::8BIT COMPONENTS 8BIT PKG libpcre2-8)
# The API server's HTTP/1.1 transport (app/server). Debian's libcpp-httplib-dev is a header plus a shared library
# (pkg-config); elsewhere the upstream package (httplib::httplib, header-only or compiled).
ft_find_dependency(httplib CONFIG httplib httplib::httplib PKG cpp-httplib)
if(WIN32)
  target_link_libraries(ft_dep_httplib INTERFACE ws2_32)
endif()
if(FT_STATIC_DEPS)
  # Static PCRE2 on Windows: its header must not declare the functions dllimport.
  target_compile_definitions(ft_dep_pcre2 INTERFACE PCRE2_STATIC)
endif()

if(FT_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${FT_CUDA_ARCHS})
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 does not know nvcc's C++20 flag
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit 12.4 REQUIRED)
  else()
    message(WARNING "FT_CUDA=ON but no CUDA compiler was found: building the CPU-only engine. "
                    "Install CUDA 13 or configure with -DFT_CUDA=OFF to silence this.")
    set(FT_CUDA OFF CACHE BOOL "" FORCE)
  endif()
endif()

set(FT_QT_COMPONENTS)
if(FT_TESTS)
  list(APPEND FT_QT_COMPONENTS Core Test)
endif()
if(FT_GUI)
  list(APPEND FT_QT_COMPONENTS Core Gui Widgets Qml Quick QuickControls2 Sql Network Concurrent
       LinguistTools Test)
endif()
if(FT_QT_COMPONENTS)
  list(REMOVE_DUPLICATES FT_QT_COMPONENTS)
  if(FT_GUI)
    find_package(Qt6 6.4 REQUIRED COMPONENTS ${FT_QT_COMPONENTS})
  else()
    # Headless: engine + CLI need no Qt at all. Tests need Qt Core + Test (two libraries; the GPU bundle carries
    # them). Without them the tests are left out, loudly.
    find_package(Qt6 6.4 COMPONENTS ${FT_QT_COMPONENTS})
    if(NOT Qt6Test_FOUND)
      message(WARNING "Qt6 Test not found: tests are not built in this headless configuration")
      set(FT_TESTS OFF CACHE BOOL "" FORCE)
    endif()
  endif()
endif()
if(FT_GUI)
  qt_standard_project_setup(REQUIRES 6.4)
endif()
