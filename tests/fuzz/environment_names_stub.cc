// The environment registry as the config loader sees it (runtime/gfn/env/registry.h), for
// the config fuzz target only: the real registry links LibTorch, the loader needs only the
// names. Keep in step with GFN_ENVIRONMENT_LIST in runtime/gfn/env/registry.cc.

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/gfn/env/registry.h"

namespace gfn::core {

std::vector<std::string> environment_names() {
  return {"bit_sequence", "discrete_ebm", "hypergrid", "line"};  // sorted
}

bool has_environment(const std::string& name) {
  const auto names = environment_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace gfn::core
