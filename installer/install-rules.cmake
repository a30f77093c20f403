# What an installed FreeToken contains besides the executables (their install() rules live with the targets).
if(NOT WIN32)
  if(EXISTS ${CMAKE_SOURCE_DIR}/resources/freetoken.desktop)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/freetoken.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  endif()
  if(EXISTS ${CMAKE_SOURCE_DIR}/resources/icons/freetoken.svg)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/icons/freetoken.svg
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  endif()
endif()
