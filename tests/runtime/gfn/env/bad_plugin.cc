// Plugins that must be refused (plugin_loader_test.cc), one per definition:
//   GFN_BAD_ABI: a newer plugin ABI version; GFN_OLD_ABI: an older one (a discrete
//   environment), GFN_OLD_ABI_CONTINUOUS: an older one (a continuous environment);
//   GFN_BAD_BUILD_ID: another LibTorch;
//   GFN_NO_ENTRY: the version functions but no gfn_environment_plugin;
//   GFN_UNDEFINED_SYMBOL: a function nobody defines (dlopen with RTLD_NOW fails);
//   GFN_BUILTIN_NAME: an environment named like a built-in one ("walk").
#include "runtime/gfn/env/plugin.h"

extern "C" __attribute__((visibility("default"))) int gfn_environment_plugin_abi_version() {
#if defined(GFN_BAD_ABI)
  return gfn::core::kEnvironmentPluginAbiVersion + 1;
#elif defined(GFN_OLD_ABI) || defined(GFN_OLD_ABI_CONTINUOUS)
  return gfn::core::kEnvironmentPluginAbiVersion - 1;
#else
  return gfn::core::kEnvironmentPluginAbiVersion;
#endif
}

extern "C" __attribute__((visibility("default"))) const char* gfn_environment_plugin_build_id() {
#ifdef GFN_BAD_BUILD_ID
  return "LibTorch 0.4.0, gcc 5, libstdc++ cxx11-abi 0";
#else
  return gfn::core::kEnvironmentPluginBuildId;
#endif
}

#ifdef GFN_UNDEFINED_SYMBOL
int gfn_function_nobody_defines();
extern "C" __attribute__((visibility("default"))) int gfn_plugin_uses_it() {
  return gfn_function_nobody_defines();
}
#endif

#ifndef GFN_NO_ENTRY
namespace {
struct NoOptions {};
const gfn::config::Fields<NoOptions>& no_fields() {
  static const gfn::config::Fields<NoOptions> fields;
  return fields;
}
}  // namespace
#ifdef GFN_BUILTIN_NAME
#define GFN_BAD_PLUGIN_NAME walk
#else
#define GFN_BAD_PLUGIN_NAME bad
#endif
extern "C" __attribute__((visibility("default"))) const gfn::core::EnvironmentPluginInfo*
gfn_environment_plugin() {
#ifdef GFN_OLD_ABI_CONTINUOUS
  static const gfn::core::EnvironmentPluginInfo info =
      gfn::core::plugin_detail::make_continuous_info<NoOptions>(
          GFN_PLUGIN_STRINGIFY(GFN_BAD_PLUGIN_NAME), no_fields(),
          [](const NoOptions&) -> gfn::core::ContinuousParts { return {}; });
#else
  static const gfn::core::EnvironmentPluginInfo info =
      gfn::core::plugin_detail::make_info<NoOptions>(
          GFN_PLUGIN_STRINGIFY(GFN_BAD_PLUGIN_NAME), no_fields(),
          [](const NoOptions&) -> std::unique_ptr<gfn::core::Environment> { return nullptr; });
#endif
  return &info;
}
#endif
