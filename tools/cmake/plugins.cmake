# Environment plugins (runtime/gfn/env/plugin.h; docs/environments.md "Plugins"). Included by
# the top-level CMakeLists.txt and, installed, by GfnRuntimeConfig.cmake, so a plugin builds
# the same way in this tree (examples/) and out of it:
#
#   find_package(GfnRuntime 0.1 CONFIG REQUIRED)
#   gfn_add_environment_plugin(my_env my_env.cc)      # -> libmy_env.so
#
# gfn_add_environment_plugin(<target> <sources>...): a MODULE library (loaded with dlopen)
#   linking GfnRuntime::plugin (the headers, LibTorch, yaml-cpp, fmt). Its symbols are hidden
#   but for the entry points GFN_ENVIRONMENT_PLUGIN exports; gfn-runtime's own functions stay
#   undefined and are resolved from the program that loads it.
# gfn_plugin_host(<executable>): a program that may load plugins exports gfn-runtime's
#   symbols (those of namespace gfn, e.g. Environment's vtable and members, the
#   preprocessors) to them: GNU ld's --export-dynamic-symbol with the mangled-name pattern.

function(gfn_add_environment_plugin target)
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE GfnRuntime::plugin)
  target_compile_features(${target} PRIVATE cxx_std_17)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
endfunction()

function(gfn_plugin_host target)
  target_link_options(${target} PRIVATE "LINKER:--export-dynamic-symbol=*3gfn*")
endfunction()
