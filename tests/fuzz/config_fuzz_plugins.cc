// The config fuzzer's answer to "is this environment continuous?" (plugin_loader.h
// is_continuous, which the experiment's checks ask): catalogued names as the runtime answers
// them; a plugin is never loaded (the fuzzer must not dlopen paths it generates, and the
// plugin loader needs LibTorch, which the fuzz build has not), so a plugin counts as discrete.
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/env_options.h"

namespace gfn::core {

bool is_continuous(const EnvOptions& env) {
  return env.plugin.empty() && is_continuous_environment(env.name);
}

}  // namespace gfn::core
