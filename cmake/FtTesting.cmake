# ft_add_qtest(NAME <name> SOURCES <files…> LABELS <unit|gpu|model|ui|perf…> [LIBS <targets…>] [TIMEOUT s]
#              [ARGS <args…>] [ENVIRONMENT <VAR=value…>] [USES_FT])
# USES_FT: the test runs the `ft` binary (tests/support/ft_process.h): FT_EXE is defined and ft is built first.
# One Qt Test executable = one CTest test. Tests labelled `gpu` report "skipped" (exit 77) without a GPU.
function(ft_add_qtest)
  cmake_parse_arguments(T "USES_FT;WINDOW" "NAME;TIMEOUT" "SOURCES;LABELS;LIBS;ARGS;ENVIRONMENT" ${ARGN})
  if(NOT T_NAME OR NOT T_SOURCES OR NOT T_LABELS)
    message(FATAL_ERROR "ft_add_qtest needs NAME, SOURCES and LABELS")
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  set_target_properties(${T_NAME} PROPERTIES AUTOMOC ON)
  target_include_directories(${T_NAME} PRIVATE ${FT_TESTS_SUPPORT_DIR})
  target_link_libraries(${T_NAME} PRIVATE Qt6::Core Qt6::Test ft_engine ${T_LIBS})
  target_compile_definitions(${T_NAME} PRIVATE FT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                             FT_TESTDATA_DIR="${FT_TESTDATA_DIR}" FT_BINARY_DIR="${CMAKE_BINARY_DIR}")
  if(T_USES_FT)
    target_compile_definitions(${T_NAME} PRIVATE FT_EXE="$<TARGET_FILE:ft>")
    add_dependencies(${T_NAME} ft)
  endif()
  ft_set_warnings(${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # FT_KEYCHAIN=off: no test reads or writes the OS keychain of the person running it (test_keychain turns it on
  # for a Secret Service of its own).
  if(T_WINDOW AND FT_XVFB_RUN)
    # A window test runs once, in a real X window where there is one (Xvfb, the xcb platform: keyboard focus, window
    # activation and the platform's dialogs behave as on a desktop), else offscreen.
    set(T_TEST ${T_NAME}_xvfb)
    add_test(NAME ${T_TEST} COMMAND ${FT_XVFB_RUN} -a $<TARGET_FILE:${T_NAME}> ${T_ARGS})
    set(env "FT_DATA_DIR=${CMAKE_BINARY_DIR}/test-data-dir-xvfb;QT_QPA_PLATFORM=xcb;FT_KEYCHAIN=off" ${T_ENVIRONMENT})
  else()
    set(T_TEST ${T_NAME})
    add_test(NAME ${T_TEST} COMMAND ${T_NAME} ${T_ARGS})
    set(env "FT_DATA_DIR=${CMAKE_BINARY_DIR}/test-data-dir;QT_QPA_PLATFORM=offscreen;FT_KEYCHAIN=off" ${T_ENVIRONMENT})
  endif()
  set_tests_properties(${T_TEST} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${env}")
  if("gpu" IN_LIST T_LABELS)
    set_tests_properties(${T_TEST} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()
