# Injected into the consumer projects (CMAKE_PROJECT_INCLUDE) when adjit is
# built with sanitizers: their C++ is compiled and linked with the same ones,
# as adjit's own CMakeLists.txt does it. Not through CMAKE_CXX_FLAGS: CMake
# would then count the sanitizer's runtime among C++'s implicit libraries
# and link it into the C programs too, which stay plain.
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${ADJIT_CONSUMER_SANITIZE}>")
add_link_options("$<$<LINK_LANGUAGE:CXX>:-fsanitize=${ADJIT_CONSUMER_SANITIZE}>")
