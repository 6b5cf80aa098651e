# `cmake --install` produces a CMake package: find_package(adjit) then
# target_link_libraries(app adjit::adjit).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libadjit.so finds libMLIR/libLLVM in the LLVM prefix, which is not on the
# default loader path.
set_target_properties(adjit adjit-cli adjit-opt PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR};$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# Exported as adjit::adjit, adjit::runtime and adjit::aot_runtime, the
# names the build tree's aliases have.
set_target_properties(adjit_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(adjit_aot_runtime PROPERTIES EXPORT_NAME aot_runtime)
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
install(FILES cmake/AdjitAot.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/adjitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/adjitConfigVersion.cmake
        DESTINATION ${ADJIT_CMAKE_DIR})
