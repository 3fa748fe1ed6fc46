#include "roles/buffer_manager/mode_predicate.h"

#include <gtest/gtest.h>

#include <vector>

namespace gfn::roles {
namespace {

TEST(EnvironmentModePredicate, FlagsTheHyperGridModes) {
  // HyperGrid 2-D, height 8, "original" reward: the top tier needs 0.3 < |x/7 - 0.5| < 0.4
  // in every coordinate, i.e. x in {1, 6}.
  config::EnvOptions env;
  env.ndim = 2;
  env.height = 8;
  const auto is_mode = environment_mode_predicate(env);
  const std::vector<std::int64_t> states{0, 0, 1, 1, 3, 4, 1, 6, 7, 7};
  const auto flags = is_mode(states, 2);
  EXPECT_EQ(flags, (std::vector<bool>{false, true, false, true, false}));
}

// 8^8 states are more than HyperGrid enumerates: it defines no modes, and the manager's
// predicate must flag none instead of throwing on every submission.
TEST(EnvironmentModePredicate, AnEnvironmentWithoutModesFlagsNone) {
  config::EnvOptions env;
  env.ndim = 8;
  env.height = 8;
  env.R0 = 0.01;
  const auto is_mode = environment_mode_predicate(env);
  const std::vector<std::int64_t> states(8 * 3, 7);
  EXPECT_EQ(is_mode(states, 8), std::vector<bool>(3, false));
}

}  // namespace
}  // namespace gfn::roles
