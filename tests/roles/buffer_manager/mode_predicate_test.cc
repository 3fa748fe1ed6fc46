#include "roles/buffer_manager/mode_predicate.h"
#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/env_options.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <stdexcept>
#include <vector>

namespace gfn::roles {
namespace {

TEST(EnvironmentModePredicate, FlagsTheHyperGridModes) {
  // HyperGrid 2-D, height 8, "original" reward: the top tier needs 0.3 < |x/7 - 0.5| < 0.4
  // in every coordinate, i.e. x in {1, 6}.
  core::EnvOptions env;
  env.get<core::HyperGridOptions>().ndim = 2;
  env.get<core::HyperGridOptions>().height = 8;
  const auto is_mode = environment_mode_predicate(env);
  const std::vector<std::int64_t> states{0, 0, 1, 1, 3, 4, 1, 6, 7, 7};
  const auto flags = is_mode(states, 2);
  EXPECT_EQ(flags, (std::vector<bool>{false, true, false, true, false}));
}

// 8^8 states are more than HyperGrid enumerates: it defines no modes, and the manager's
// predicate must flag none instead of throwing on every submission.
TEST(EnvironmentModePredicate, AnEnvironmentWithoutModesFlagsNone) {
  core::EnvOptions env;
  env.get<core::HyperGridOptions>().ndim = 8;
  env.get<core::HyperGridOptions>().height = 8;
  env.get<core::HyperGridOptions>().R0 = 0.01;
  const auto is_mode = environment_mode_predicate(env);
  const std::vector<std::int64_t> states(8 * 3, 7);
  EXPECT_EQ(is_mode(states, 8), std::vector<bool>(3, false));
}

// A continuous environment's modes (Box 2-D: the 4 corner squares where every
// 0.3 < |x_i - 0.5| < 0.4, id = sum over i of [x_i > 0.5] 2^i): the ids of the rows in a mode,
// in row order; without the corner tiers (R1 = R2 = 0) the Box has no modes and no function.
TEST(EnvironmentFloatModeHits, GivesTheBoxCornerIds) {
  core::EnvOptions env;
  env.name = "box";
  const auto hits = environment_float_mode_hits(env);
  ASSERT_TRUE(hits);
  const std::vector<float> states{0.15f, 0.15f, 0.85f, 0.15f, 0.5f,  0.5f,
                                  0.85f, 0.85f, 0.15f, 0.86f, 0.85f, 0.15f};
  EXPECT_EQ(hits(states, 2), (std::vector<std::int64_t>{0, 1, 3, 2, 1}));
  auto& box = env.get<core::BoxEnvOptions>();
  box.R1 = 0;
  box.R2 = 0;
  EXPECT_FALSE(environment_float_mode_hits(env));
}

// The memoized predicate (what the manager runs) answers as core::Environment::is_mode
// on every call, over random sequences of batches with repeated states, on HyperGrids
// with modes, including caches so small that they are cleared between and within batches.
RC_GTEST_PROP(MemoizedModePredicate, AnswersAsTheEnvironment, ()) {
  core::EnvOptions env;
  env.get<core::HyperGridOptions>().ndim = *rc::gen::inRange(1, 5);
  env.get<core::HyperGridOptions>().height = *rc::gen::inRange(2, 9);
  const auto max_states = *rc::gen::inRange<std::size_t>(1, 40);
  const auto reference = environment_mode_predicate_reference(env);
  const auto memoized =
      memoize_mode_predicate(environment_mode_predicate_reference(env), max_states);
  const int n_batches = *rc::gen::inRange(1, 12);
  for (int b = 0; b < n_batches; ++b) {
    const auto n = *rc::gen::inRange(0, 64);
    const auto states = *rc::gen::container<std::vector<std::int64_t>>(
        static_cast<std::size_t>(n * env.get<core::HyperGridOptions>().ndim),
        rc::gen::inRange<std::int64_t>(0, env.get<core::HyperGridOptions>().height));
    RC_ASSERT(memoized(states, static_cast<int>(env.get<core::HyperGridOptions>().ndim)) ==
              reference(states, static_cast<int>(env.get<core::HyperGridOptions>().ndim)));
  }
}

// The cache works: the inner predicate is asked only for states it has not answered.
TEST(MemoizedModePredicate, AsksTheInnerPredicateOnlyForNewStates) {
  std::vector<std::size_t> asked;  // rows per call of the inner predicate
  const auto inner = [&asked](const std::vector<std::int64_t>& states, int ndim) {
    asked.push_back(states.size() / static_cast<std::size_t>(ndim));
    std::vector<bool> flags;
    for (std::size_t i = 0; i < states.size(); i += ndim) flags.push_back(states[i] % 2 == 1);
    return flags;
  };
  const auto memoized = memoize_mode_predicate(inner, 100);
  EXPECT_EQ(memoized({1, 0, 2, 0, 1, 0}, 2), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(memoized({2, 0, 1, 0, 3, 3}, 2), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(memoized({3, 3, 1, 0}, 2), (std::vector<bool>{true, true}));
  EXPECT_EQ(asked, (std::vector<std::size_t>{3, 1}));  // {3, 3} only; the third call none
}

TEST(MemoizedModePredicate, RefusesAnEmptyCacheAndABadNdim) {
  const auto inner = [](const std::vector<std::int64_t>& states, int) {
    return std::vector<bool>(states.size(), false);
  };
  EXPECT_THROW(memoize_mode_predicate(inner, 0), std::invalid_argument);
  EXPECT_THROW(memoize_mode_predicate(inner, 4)({1, 2}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::roles
