# adjit_add_aot_library(TARGET
#                       GENERATOR gen.cpp [more sources...]
#                       FUNCTIONS name...
#                       [TARGET_CPU cpu] [TARGET_FEATURES features] [TUNE_CPU cpu]
#                       [THREADS n] [GENERATOR_ARGS ...])
#
# Builds the generator program GENERATOR (C++, linked with adjit::adjit), runs
# it at build time as `gen -o DIR [--target-cpu=CPU] [--mattr=FEATURES]
# [--tune-cpu=CPU] [--threads=N]`, and
# makes TARGET a static library of the objects it writes: one NAME.o and
# NAME.h per function in FUNCTIONS, each from one adjit::aot::compile call
# with AotOptions::from_command_line(argc, argv).named("NAME"). Linking
# TARGET gives the headers' directory and the AOT runtime (no LLVM, MLIR or
# JIT). As Halide's add_halide_library does for Halide generators.
function(adjit_add_aot_library target)
  cmake_parse_arguments(PARSE_ARGV 1 AOT "" "TARGET_CPU;TARGET_FEATURES;TUNE_CPU;THREADS"
                        "GENERATOR;FUNCTIONS;GENERATOR_ARGS")
  if(NOT AOT_GENERATOR)
    message(FATAL_ERROR "adjit_add_aot_library(${target}): GENERATOR gen.cpp is required")
  endif()
  if(NOT AOT_FUNCTIONS)
    message(FATAL_ERROR "adjit_add_aot_library(${target}): FUNCTIONS lists the functions "
                        "the generator writes (one NAME.o and NAME.h each)")
  endif()
  if(AOT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "adjit_add_aot_library(${target}): unknown arguments ${AOT_UNPARSED_ARGUMENTS}")
  endif()

  set(generator ${target}_generator)
  add_executable(${generator} ${AOT_GENERATOR})
  target_link_libraries(${generator} PRIVATE adjit::adjit)

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.aot)
  set(objects)
  set(headers)
  foreach(function ${AOT_FUNCTIONS})
    list(APPEND objects ${dir}/${function}.o)
    list(APPEND headers ${dir}/${function}.h)
  endforeach()
  set(arguments -o ${dir})
  if(AOT_TARGET_CPU)
    list(APPEND arguments --target-cpu=${AOT_TARGET_CPU})
  endif()
  if(AOT_TARGET_FEATURES)
    list(APPEND arguments --mattr=${AOT_TARGET_FEATURES})
  endif()
  if(AOT_TUNE_CPU)
    list(APPEND arguments --tune-cpu=${AOT_TUNE_CPU})
  endif()
  if(DEFINED AOT_THREADS)
    list(APPEND arguments --threads=${AOT_THREADS})
  endif()
  add_custom_command(
    OUTPUT ${objects} ${headers}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${generator} ${arguments} ${AOT_GENERATOR_ARGS}
    DEPENDS ${generator}
    COMMENT "adjit: compiling ${AOT_FUNCTIONS} ahead of time"
    VERBATIM)
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)

  add_library(${target} STATIC ${objects} ${headers})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  target_include_directories(${target} PUBLIC ${dir})
  target_link_libraries(${target} PUBLIC adjit::aot_runtime m)
endfunction()
