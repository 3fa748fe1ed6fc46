# `cmake --install build --prefix P` (docs/install.md): the programs, the public headers, the
# static libraries and a versioned CMake package, so that a project outside this repository
# writes
#   find_package(GfnRuntime 0.1 CONFIG REQUIRED)
#   target_link_libraries(my_target PRIVATE GfnRuntime::gfn_roles)
# and gets the imported targets GfnRuntime::<library> of every project library, GfnRuntime::plugin
# and gfn_add_environment_plugin() for environment plugins (plugins.cmake) (their
# dependencies found again by GfnRuntimeConfig.cmake: MPI, LibTorch, spdlog, yaml-cpp, cereal,
# Boost, CLI11, nlohmann_json, ZLIB).
include(CMakePackageConfigHelpers)

get_property(gfn_installed_libraries GLOBAL PROPERTY GFN_LAYER_LIBRARIES)
# gfn_python (the embedded CPython of gfn-train) is inside gfn-train only: a consumer of the
# package would need Python's and pybind11's CMake packages for it.
list(REMOVE_ITEM gfn_installed_libraries gfn_python)
install(TARGETS ${gfn_installed_libraries} gfn_plugin
        EXPORT GfnRuntimeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Every header of the libraries, by its path from the root ("runtime/gfn/env/environment.h").
install(DIRECTORY transport runtime roles
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The programs users run; the benchmarks stay in the build tree.
install(TARGETS gfn-train gfn-launch gfn-export RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS tools/gfn-plot tools/mpirun.sh tools/mpirun-restart.sh
        DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY tools/plotting DESTINATION ${CMAKE_INSTALL_BINDIR}
        FILES_MATCHING PATTERN "*.py")

set(gfn_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/GfnRuntime)
install(EXPORT GfnRuntimeTargets NAMESPACE GfnRuntime:: DESTINATION ${gfn_package_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/tools/cmake/GfnRuntimeConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/GfnRuntimeConfig.cmake
                              INSTALL_DESTINATION ${gfn_package_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/GfnRuntimeConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/GfnRuntimeConfig.cmake
              ${CMAKE_BINARY_DIR}/GfnRuntimeConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/tools/cmake/plugins.cmake
        DESTINATION ${gfn_package_dir})

# The Python package gfn_runtime (python/gfn_runtime, docs/python.md): pure Python, into
# <prefix>/${GFN_PYTHON_INSTALL_DIR} (default lib/python3/dist-packages, Debian's layout: on
# sys.path for the prefix /usr; elsewhere PYTHONPATH=<prefix>/lib/python3/dist-packages).
# _installed.py records the installed bin/ so that gfn_runtime.launch finds gfn-train there.
set(GFN_PYTHON_INSTALL_DIR lib/python3/dist-packages
    CACHE STRING "where cmake --install puts the gfn_runtime Python package (under the prefix)")
install(DIRECTORY python/gfn_runtime DESTINATION ${GFN_PYTHON_INSTALL_DIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(CODE "
  set(gfn_python_dir \"\${CMAKE_INSTALL_PREFIX}/${GFN_PYTHON_INSTALL_DIR}/gfn_runtime\")
  file(WRITE \"\$ENV{DESTDIR}\${gfn_python_dir}/_installed.py\"
       \"\\\"\\\"\\\"Written by cmake --install: where the programs were installed.\\\"\\\"\\\"\\nBIN_DIR = \\\"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\\\"\\n\")
  message(STATUS \"Installing: \${gfn_python_dir} (PYTHONPATH=\${CMAKE_INSTALL_PREFIX}/${GFN_PYTHON_INSTALL_DIR})\")
")
