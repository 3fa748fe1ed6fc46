#include "roles/buffer_manager/mode_predicate.h"

#include <ATen/ATen.h>

#include <memory>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"

namespace gfn::roles {

ModePredicate environment_mode_predicate(const config::EnvOptions& env_options) {
  std::shared_ptr<core::Environment> env = core::make_environment(env_options);
  if (env->n_modes() == 0) {  // no modes defined (e.g. a HyperGrid too large to enumerate)
    return [](const std::vector<std::int64_t>& states, int ndim) {
      return std::vector<bool>(states.size() / static_cast<std::size_t>(ndim), false);
    };
  }
  return [env](const std::vector<std::int64_t>& states, int ndim) {
    const auto n = static_cast<std::int64_t>(states.size()) / ndim;
    // from_blob does not copy; is_mode only reads the states.
    auto t = at::from_blob(const_cast<std::int64_t*>(states.data()), {n, ndim}, at::kLong);
    const auto flags = env->is_mode(t).contiguous();
    const bool* p = flags.data_ptr<bool>();
    return std::vector<bool>(p, p + n);
  };
}

}  // namespace gfn::roles
