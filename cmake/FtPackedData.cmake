# Large data files live xz-compressed in git — the bundled Qwen3 tokenizer.json and the golden fixtures' weights —
# because the working tree is copied to the GPU machine in every call, capped at 64 MiB. Each resources/**.xz and
# tests/data/**.xz is unpacked beside itself at configure time (the unpacked copy is ignored by git), again whenever
# the packed file is newer. scripts/gpu/env.sh does the same on the GPU machine.
find_program(FT_XZ xz)
if(NOT FT_XZ)
  message(FATAL_ERROR "xz is needed to unpack the packed data files (apt install xz-utils)")
endif()
file(GLOB_RECURSE FT_PACKED_FILES CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/resources/*.xz"
     "${CMAKE_SOURCE_DIR}/tests/data/*.xz")
foreach(packed IN LISTS FT_PACKED_FILES)
  string(REGEX REPLACE "\\.xz$" "" plain "${packed}")
  set(unpack TRUE)
  if(EXISTS "${plain}")
    file(TIMESTAMP "${packed}" t_packed "%s" UTC)
    file(TIMESTAMP "${plain}" t_plain "%s" UTC)
    if(NOT t_packed GREATER t_plain)
      set(unpack FALSE)
    endif()
  endif()
  if(unpack)
    execute_process(COMMAND "${FT_XZ}" --decompress --keep --force "${packed}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cannot unpack ${packed} (xz exit ${rc})")
    endif()
  endif()
endforeach()
