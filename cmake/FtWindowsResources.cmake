# ft_windows_resources(<target> <description>): on Windows, gives an executable its icon, version block and the
# application manifest resources/windows/freetoken.manifest (longPathAware, asInvoker). The .rc is written into the
# build tree from resources/windows/resources.rc.in. MinGW's windres embeds the manifest from the .rc; MSVC's linker
# embeds .manifest sources itself (an RT_MANIFEST in the .rc as well would clash with it). Nothing on other systems.
function(ft_windows_resources target description)
  if(NOT WIN32)
    return()
  endif()
  set(manifest ${CMAKE_SOURCE_DIR}/resources/windows/freetoken.manifest)
  set(FT_RC_NAME ${target})
  set(FT_RC_FILE ${target}.exe)
  set(FT_RC_DESCRIPTION "${description}")
  set(FT_RC_ICON ${CMAKE_SOURCE_DIR}/resources/freetoken.ico)
  if(MSVC)
    set(FT_RC_MANIFEST_LINE "")
    target_sources(${target} PRIVATE ${manifest})
  else()
    set(FT_RC_MANIFEST_LINE "1 24 \"${manifest}\"")
  endif()
  set(rc ${CMAKE_CURRENT_BINARY_DIR}/${target}_resources.rc)
  configure_file(${CMAKE_SOURCE_DIR}/resources/windows/resources.rc.in ${rc} @ONLY)
  target_sources(${target} PRIVATE ${rc})
  # windres reads the files named in the .rc at build time: rebuild when they change.
  set_source_files_properties(${rc} PROPERTIES OBJECT_DEPENDS "${manifest};${FT_RC_ICON}")
endfunction()
