function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${ADJIT_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# A sanitized adjit needs sanitized C++ programs around it (C ones stay plain).
run(${CMAKE_COMMAND} -G Ninja -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${EXAMPLE})
message(STATUS "consumer output:\n${output}")
if(NOT output MATCHES "rows sum to 1.*jit works")
  message(FATAL_ERROR "unexpected consumer output")
endif()

# examples/aot on its own against the install tree: adjit_add_aot_library
# runs the generator, and the C program's output equals the JIT's.
run(${CMAKE_COMMAND} -G Ninja -S ${AOT_EXAMPLE_DIR} -B ${WORK_DIR}/aot
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/aot)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/aot --output-on-failure)
message(STATUS "aot example from the install tree:\n${output}")
