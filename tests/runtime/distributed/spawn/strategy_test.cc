// runtime/distributed/spawn/strategy.h: per-agent exploration draws are deterministic per
// (seed, draw), differ between agents and respawns, stay in their ranges, and are the
// configured values when every standard deviation is 0; an agent group's number of noisy
// layers is deterministic per group seed and within 0..model.n_noisy_layers.

#include "runtime/distributed/spawn/strategy.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

namespace gfn::dist::spawn {
namespace {

TEST(DrawStrategy, ZeroDeviationsGiveTheConfiguredValues) {
  dist::spawn::SpawnOptions spawn;
  spawn.epsilon_std = spawn.temperature_std = spawn.noisy_std_init_std = 0.0;
  core::TrainOptions train;
  train.epsilon = 0.3;
  train.temperature = 2.0;
  core::ModelOptions model;
  model.noisy_std_init = 0.7;
  const auto s = draw_strategy(spawn, train, model, 42, 3);
  EXPECT_EQ(s.epsilon, 0.3);
  EXPECT_EQ(s.temperature, 2.0);
  EXPECT_EQ(s.noisy_std_init, 0.7);
}

TEST(DrawStrategy, SameSeedAndDrawSameStrategyOtherwiseDifferent) {
  dist::spawn::SpawnOptions spawn;
  core::TrainOptions train;
  train.epsilon = 0.1;
  const core::ModelOptions model;
  const auto a = draw_strategy(spawn, train, model, 7, 0);
  const auto b = draw_strategy(spawn, train, model, 7, 0);
  EXPECT_EQ(a.epsilon, b.epsilon);
  EXPECT_EQ(a.temperature, b.temperature);
  EXPECT_EQ(a.noisy_std_init, b.noisy_std_init);
  std::set<double> temperatures;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    for (std::int64_t draw = 0; draw < 4; ++draw) {
      temperatures.insert(draw_strategy(spawn, train, model, seed, draw).temperature);
    }
  }
  EXPECT_EQ(temperatures.size(), 16u) << "4 agents x 4 respawns: 16 different temperatures";
}

RC_GTEST_PROP(DrawStrategyProperty, ClampedToValidRanges, ()) {
  dist::spawn::SpawnOptions spawn;
  spawn.epsilon_std = *rc::gen::inRange(0, 300) / 100.0;
  spawn.temperature_std = *rc::gen::inRange(0, 3000) / 100.0;
  spawn.noisy_std_init_std = *rc::gen::inRange(0, 3000) / 100.0;
  core::TrainOptions train;
  train.epsilon = *rc::gen::inRange(0, 101) / 100.0;
  train.temperature = *rc::gen::inRange(1, 500) / 100.0;
  core::ModelOptions model;
  model.noisy_std_init = *rc::gen::inRange(1, 100) / 100.0;
  const auto s = draw_strategy(spawn, train, model, *rc::gen::arbitrary<std::uint64_t>(),
                               *rc::gen::inRange<std::int64_t>(0, 100));
  RC_ASSERT(s.epsilon >= 0.0 && s.epsilon <= 1.0);
  RC_ASSERT(s.temperature >= 0.05 && s.temperature <= 20.0);
  RC_ASSERT(s.noisy_std_init >= 1e-3 && s.noisy_std_init <= 10.0);
}

TEST(DrawGroupNoisyLayers, NoneConfiguredNoneDrawn) {
  core::ModelOptions model;
  model.n_noisy_layers = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed)
    EXPECT_EQ(draw_group_noisy_layers(model, seed), 0);
}

TEST(DrawGroupNoisyLayers, DeterministicAndEveryCountDrawn) {
  core::ModelOptions model;
  model.n_noisy_layers = 2;
  std::set<int> seen;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    const int n = draw_group_noisy_layers(model, seed);
    EXPECT_EQ(n, draw_group_noisy_layers(model, seed)) << "seed " << seed;
    seen.insert(n);
  }
  EXPECT_EQ(seen, (std::set<int>{0, 1, 2})) << "64 groups: every count from 0 to 2";
}

RC_GTEST_PROP(DrawGroupNoisyLayersProperty, WithinZeroAndTheConfiguredCount, ()) {
  core::ModelOptions model;
  model.n_noisy_layers = *rc::gen::inRange(0, 6);
  const int n = draw_group_noisy_layers(model, *rc::gen::arbitrary<std::uint64_t>());
  RC_ASSERT(n >= 0 && n <= model.n_noisy_layers);
}

}  // namespace
}  // namespace gfn::dist::spawn
