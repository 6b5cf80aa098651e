function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
# A sanitized adjit needs its C++ users sanitized too (sanitize.cmake).
set(sanitize_options "")
if(SANITIZE)
  set(sanitize_options -DCMAKE_PROJECT_INCLUDE=${CMAKE_CURRENT_LIST_DIR}/sanitize.cmake
                       "-DADJIT_CONSUMER_SANITIZE=${SANITIZE}")
endif()
run(${CMAKE_COMMAND} --install ${ADJIT_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -G Ninja -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${sanitize_options})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${EXAMPLE})
message(STATUS "consumer output:\n${output}")
if(NOT output MATCHES "rows sum to 1.*jit works")
  message(FATAL_ERROR "unexpected consumer output")
endif()

# examples/aot on its own against the install tree: adjit_add_aot_library
# runs the generator, and the C program's output equals the JIT's.
run(${CMAKE_COMMAND} -G Ninja -S ${AOT_EXAMPLE_DIR} -B ${WORK_DIR}/aot
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${sanitize_options})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/aot)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/aot --output-on-failure)
message(STATUS "aot example from the install tree:\n${output}")
