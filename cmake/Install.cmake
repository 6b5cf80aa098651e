# `cmake --install` produces a CMake package: find_package(adjit) then
# target_link_libraries(app adjit::adjit).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libadjit.so finds libMLIR/libLLVM in the LLVM prefix, which is not on the
# default loader path.
set_target_properties(adjit adjit-cli adjit-opt PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR};$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

install(TARGETS adjit adjit_runtime adjit_aot_runtime EXPORT adjitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS adjit-cli adjit-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY runtime/include/ compiler/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(ADJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/adjit)
install(EXPORT adjitTargets NAMESPACE adjit:: DESTINATION ${ADJIT_CMAKE_DIR})
configure_package_config_file(cmake/adjitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/adjitConfig.cmake INSTALL_DESTINATION ${ADJIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/adjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/adjitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/adjitConfigVersion.cmake
        DESTINATION ${ADJIT_CMAKE_DIR})
