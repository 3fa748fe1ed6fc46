// runtime/distributed/spawn/donor_pull.h: maximum-age draws in range and deterministic,
// the three replacement modes (age, threshold with cooldown, worst_ratio with ties and
// NaN), donor draws (distinct, never the agent itself, capped at n - 1).

#include "runtime/distributed/spawn/donor_pull.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace gfn::dist::spawn {
namespace {

using dist::spawn::SpawnReplacementMode;

dist::spawn::SpawnOptions options_with(SpawnReplacementMode mode) {
  dist::spawn::SpawnOptions o;
  o.policy = dist::spawn::SpawnPolicy::kDonorPull;
  o.replacement_mode = mode;
  return o;
}

TEST(DonorPull, MaxAgeIsDrawnInRangeAndRedrawnPerRespawn) {
  auto o = options_with(SpawnReplacementMode::kAge);
  o.age_range = {10, 20};
  std::set<std::int64_t> seen;
  for (std::int64_t draw = 0; draw < 200; ++draw) {
    const auto a = draw_max_age(o, 7, draw);
    EXPECT_GE(a, 10);
    EXPECT_LE(a, 20);
    EXPECT_EQ(a, draw_max_age(o, 7, draw)) << "deterministic";
    seen.insert(a);
  }
  EXPECT_GT(seen.size(), 5u) << "redraws differ";
  o.age_range = {5, 5};
  EXPECT_EQ(draw_max_age(o, 1, 3), 5);
  o.age_range = {0, 5};
  EXPECT_THROW(draw_max_age(o, 1, 0), std::invalid_argument);
  o.age_range = {6, 5};
  EXPECT_THROW(draw_max_age(o, 1, 0), std::invalid_argument);
}

TEST(DonorPull, AgeModeDiesAtItsMaximumAge) {
  const auto o = options_with(SpawnReplacementMode::kAge);
  DyingInput in;
  in.max_age = 30;
  in.last_respawn = 10;
  in.iteration = 39;
  EXPECT_FALSE(is_dying(in, 4, o));
  in.iteration = 40;
  EXPECT_TRUE(is_dying(in, 4, o));
  EXPECT_FALSE(is_dying(in, 1, o)) << "a group of one never respawns";
}

TEST(DonorPull, ThresholdModeHonoursTheCooldown) {
  auto o = options_with(SpawnReplacementMode::kThreshold);
  o.threshold = 0.5;
  o.cooldown = 10;
  DyingInput in;
  in.iteration = 4;
  in.metric = 0.25;
  EXPECT_TRUE(is_dying(in, 2, o)) << "no respawn yet: no cooldown";
  in.metric = 0.5;
  EXPECT_FALSE(is_dying(in, 2, o));
  in.metric = std::nan("");
  EXPECT_TRUE(is_dying(in, 2, o)) << "NaN counts as dying";
  in.metric = 0.0;
  in.last_respawn = 4;
  in.iteration = 13;
  EXPECT_FALSE(is_dying(in, 2, o)) << "within the cooldown";
  in.iteration = 14;
  EXPECT_TRUE(is_dying(in, 2, o));
}

TEST(DonorPull, WorstRatioModeOrdersAsTheSelectiveDecision) {
  auto o = options_with(SpawnReplacementMode::kWorstRatio);
  o.replacement_ratio = 0.5;
  DyingInput in;
  in.iteration = 8;
  in.group_metrics = {1.0, 1.0, std::nan(""), 3.0};  // NaN worst, then the tie: rank 0
  const bool expected[] = {true, false, true, false};
  for (int r = 0; r < 4; ++r) {
    in.group_rank = r;
    in.metric = in.group_metrics[static_cast<std::size_t>(r)];
    EXPECT_EQ(is_dying(in, 4, o), expected[r]) << "group rank " << r;
  }
  in.group_rank = 4;
  EXPECT_THROW(is_dying(in, 4, o), std::invalid_argument);
}

RC_GTEST_PROP(DonorPull, DonorsAreDistinctOthersCappedAtNMinusOne, ()) {
  const int n = *rc::gen::inRange(1, 12);
  const int self = *rc::gen::inRange(0, n);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 15);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto donors = draw_donors(n, self, k, seed, 1);
  if (n == 1) {
    RC_ASSERT(donors.empty());
    return;
  }
  RC_ASSERT(static_cast<std::int64_t>(donors.size()) == std::min<std::int64_t>(k, n - 1));
  RC_ASSERT(std::is_sorted(donors.begin(), donors.end()));
  RC_ASSERT(std::adjacent_find(donors.begin(), donors.end()) == donors.end());
  for (int d : donors) RC_ASSERT(d != self && d >= 0 && d < n);
  RC_ASSERT(donors == draw_donors(n, self, k, seed, 1));
}

}  // namespace
}  // namespace gfn::dist::spawn
