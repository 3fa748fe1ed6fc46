#include "roles/buffer_manager/mode_predicate.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <boost/functional/hash.hpp>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"

namespace gfn::roles {

namespace {

/// The predicate of an environment that defines no modes: flags none.
ModePredicate flags_none() {
  return [](const std::vector<std::int64_t>& states, int ndim) {
    return std::vector<bool>(states.size() / static_cast<std::size_t>(ndim), false);
  };
}

/// core::Environment::is_mode over the states, read in place (from_blob does not copy).
ModePredicate environment_is_mode(std::shared_ptr<core::Environment> env) {
  return [env](const std::vector<std::int64_t>& states, int ndim) {
    const auto n = static_cast<std::int64_t>(states.size()) / ndim;
    auto t = at::from_blob(const_cast<std::int64_t*>(states.data()), {n, ndim}, at::kLong);
    const auto flags = env->is_mode(t).contiguous();
    const bool* p = flags.data_ptr<bool>();
    return std::vector<bool>(p, p + n);
  };
}

}  // namespace

ModePredicate environment_mode_predicate(const core::EnvOptions& env_options) {
  // A continuous environment's states are float32: the manager asks no predicate of them.
  if (env_options.plugin.empty() && core::is_continuous_environment(env_options.name)) {
    return flags_none();
  }
  std::shared_ptr<core::Environment> env = core::make_environment(env_options);
  if (env->n_modes() == 0) return flags_none();
  return memoize_mode_predicate(environment_is_mode(std::move(env)));
}

FloatModeHits environment_float_mode_hits(const core::EnvOptions& env_options) {
  std::shared_ptr<core::ContinuousEnvironment> env =
      core::make_continuous_environment(env_options).env;
  if (env->n_modes() == 0) return nullptr;
  return [env](const std::vector<float>& states, int ndim) {
    const auto n = static_cast<std::int64_t>(states.size()) / ndim;
    auto t = at::from_blob(const_cast<float*>(states.data()), {n, ndim}, at::kFloat);
    const auto ids = env->mode_hits(t).contiguous();
    const std::int64_t* p = ids.data_ptr<std::int64_t>();
    return std::vector<std::int64_t>(p, p + ids.size(0));
  };
}

ModePredicate environment_mode_predicate_reference(const core::EnvOptions& env_options) {
  std::shared_ptr<core::Environment> env = core::make_environment(env_options);
  if (env->n_modes() == 0) return flags_none();  // e.g. a HyperGrid too large to enumerate
  return environment_is_mode(std::move(env));
}

namespace {

/// The cache of memoize_mode_predicate, shared by the copies of its std::function.
struct ModeCache {
  using Key = std::vector<std::int64_t>;
  ModePredicate inner;
  std::size_t max_states;
  std::unordered_map<Key, bool, boost::hash<Key>> flags;
  Key key;                             ///< reused look-up key
  std::vector<std::int64_t> misses;    ///< rows not cached, row-major
  std::vector<std::size_t> miss_rows;  ///< their row numbers

  std::vector<bool> operator()(const std::vector<std::int64_t>& states, int ndim) {
    if (ndim < 1) throw std::invalid_argument(fmt::format("mode predicate: ndim {} < 1", ndim));
    const std::size_t d = static_cast<std::size_t>(ndim);
    const std::size_t n = states.size() / d;
    std::vector<bool> out(n, false);
    misses.clear();
    miss_rows.clear();
    for (std::size_t i = 0; i < n; ++i) {
      key.assign(states.begin() + i * d, states.begin() + (i + 1) * d);
      const auto it = flags.find(key);
      if (it != flags.end()) {
        out[i] = it->second;
        continue;
      }
      misses.insert(misses.end(), key.begin(), key.end());
      miss_rows.push_back(i);
    }
    if (miss_rows.empty()) return out;
    const std::vector<bool> answered = inner(misses, ndim);
    for (std::size_t m = 0; m < miss_rows.size(); ++m) {
      out[miss_rows[m]] = answered[m];
      if (flags.size() >= max_states) flags.clear();
      flags.emplace(Key(misses.begin() + m * d, misses.begin() + (m + 1) * d), answered[m]);
    }
    return out;
  }
};

}  // namespace

ModePredicate memoize_mode_predicate(ModePredicate inner, std::size_t max_states) {
  if (max_states < 1) throw std::invalid_argument("mode predicate: a cache of 0 states");
  auto cache = std::make_shared<ModeCache>();
  cache->inner = std::move(inner);
  cache->max_states = max_states;
  return
      [cache](const std::vector<std::int64_t>& states, int ndim) { return (*cache)(states, ndim); };
}

}  // namespace gfn::roles
