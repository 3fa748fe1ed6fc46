// runtime/distributed/spawn/decision.h: which agents are replaced (ratio, ties, NaN,
// threshold, cooldown), donor weights of each strategy, the momentum blend; examples
// worked by hand, then properties on random metric vectors (RapidCheck).

#include "runtime/distributed/spawn/decision.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gfn::dist::spawn {
namespace {

using dist::spawn::SpawnOptions;
using dist::spawn::SpawnStrategy;

SpawnOptions selective(double ratio, SpawnStrategy strategy = SpawnStrategy::kMean) {
  SpawnOptions o;
  o.policy = dist::spawn::SpawnPolicy::kSelective;
  o.replacement_ratio = ratio;
  o.strategy = strategy;
  return o;
}

TEST(ReplacementCount, FloorAtLeastOneAtMostAllButOne) {
  EXPECT_EQ(replacement_count(1, 1.0), 0);
  EXPECT_EQ(replacement_count(2, 0.2), 1);   // floor(0.4) = 0 -> 1
  EXPECT_EQ(replacement_count(10, 0.2), 2);  //
  EXPECT_EQ(replacement_count(10, 0.29), 2);
  EXPECT_EQ(replacement_count(10, 0.3), 3);     // 10 * 0.3 = 3.0000000000000004 or 2.999...
  EXPECT_EQ(replacement_count(100, 0.29), 29);  // 28.999999999999996 in doubles
  EXPECT_EQ(replacement_count(4, 1.0), 3);      // one donor stays
}

TEST(Decide, ReplacesTheWorstByTheOthers) {
  const auto d = decide({3.0, -1.0, 7.0, 0.5}, 10, -1, selective(0.5));
  ASSERT_TRUE(d.replace);
  EXPECT_EQ(d.replaced, (std::vector<int>{1, 3}));
  EXPECT_EQ(d.donors, (std::vector<int>{0, 2}));
  EXPECT_EQ(d.weights, (std::vector<double>{0.5, 0.0, 0.5, 0.0}));
  EXPECT_EQ(d.skipped, "");
}

TEST(Decide, TiesReplaceTheLowerRankFirstAndNanIsWorst) {
  auto d = decide({1.0, 1.0, 1.0}, 5, -1, selective(0.34));
  EXPECT_EQ(d.replaced, (std::vector<int>{0}));
  d = decide({2.0, 1.0, 1.0, 2.0}, 5, -1, selective(0.5));
  EXPECT_EQ(d.replaced, (std::vector<int>{1, 2}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  d = decide({-5.0, nan, 0.0}, 5, -1, selective(0.3));
  EXPECT_EQ(d.replaced, (std::vector<int>{1}));
}

TEST(Decide, SingleAgentNeverReplaces) {
  const auto d = decide({-100.0}, 5, -1, selective(1.0));
  EXPECT_FALSE(d.replace);
  EXPECT_EQ(d.skipped, "single agent");
  EXPECT_TRUE(d.replaced.empty());
}

TEST(Decide, ThresholdGatesOnTheLowestMetric) {
  auto o = selective(0.5);
  o.threshold = 0.0;
  auto d = decide({1.0, 0.5}, 5, -1, o);
  EXPECT_FALSE(d.replace);
  EXPECT_EQ(d.skipped, "threshold");
  d = decide({1.0, 0.0}, 5, -1, o);  // not below: equal
  EXPECT_FALSE(d.replace);
  d = decide({1.0, -0.1}, 5, -1, o);
  EXPECT_TRUE(d.replace);
  EXPECT_EQ(d.replaced, (std::vector<int>{1}));
}

TEST(Decide, CooldownCountsIterationsSinceTheLastReplacement) {
  auto o = selective(0.5);
  o.cooldown = 10;
  EXPECT_TRUE(decide({1.0, 0.0}, 10, -1, o).replace) << "no replacement yet";
  const auto d = decide({1.0, 0.0}, 19, 10, o);
  EXPECT_FALSE(d.replace);
  EXPECT_EQ(d.skipped, "cooldown");
  EXPECT_TRUE(decide({1.0, 0.0}, 20, 10, o).replace);
  o.cooldown = 0;
  EXPECT_TRUE(decide({1.0, 0.0}, 10, 10, o).replace);
}

TEST(Decide, BestOnlyHasOneDonor) {
  const auto d = decide({3.0, -1.0, 7.0, 7.0}, 1, -1, selective(0.25, SpawnStrategy::kBestOnly));
  EXPECT_EQ(d.replaced, (std::vector<int>{1}));
  EXPECT_EQ(d.donors, (std::vector<int>{2})) << "ties: the lower rank";
  EXPECT_EQ(d.weights, (std::vector<double>{0.0, 0.0, 1.0, 0.0}));
}

TEST(Decide, ResetWeightsHasNoDonors) {
  const auto d = decide({3.0, -1.0, 7.0}, 1, -1, selective(0.5, SpawnStrategy::kResetWeights));
  ASSERT_TRUE(d.replace);
  EXPECT_EQ(d.replaced, (std::vector<int>{1}));
  EXPECT_TRUE(d.donors.empty());
  EXPECT_EQ(d.weights, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Decide, RefusesBadInput) {
  EXPECT_THROW(decide({}, 1, -1, selective(0.5)), std::invalid_argument);
  EXPECT_THROW(decide({1.0, 2.0}, 1, -1, selective(0.0)), std::invalid_argument);
  EXPECT_THROW(decide({1.0, 2.0}, 1, -1, selective(1.5)), std::invalid_argument);
}

TEST(DonorWeights, WeightedMeanGrowsWithTheMetricAboveTheGroupMinimum) {
  // Group minimum -4 (the replaced agent 1): donors weigh 1 - (-4) = 5 and 11 - (-4) = 15.
  const auto w = donor_weights({1.0, -4.0, 11.0}, {0, 2}, SpawnStrategy::kWeightedMean);
  EXPECT_DOUBLE_EQ(w[0], 0.25);
  EXPECT_DOUBLE_EQ(w[1], 0.0);
  EXPECT_DOUBLE_EQ(w[2], 0.75);
  // All donors tied with the minimum: the plain mean.
  const auto tied = donor_weights({2.0, 2.0, 2.0}, {1, 2}, SpawnStrategy::kWeightedMean);
  EXPECT_EQ(tied, (std::vector<double>{0.0, 0.5, 0.5}));
  // A donor with a non-finite metric weighs nothing.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto w2 = donor_weights({0.0, nan, 2.0}, {1, 2}, SpawnStrategy::kWeightedMean);
  EXPECT_EQ(w2, (std::vector<double>{0.0, 0.0, 1.0}));
}

TEST(Blend, MomentumMixesOwnAndCombined) {
  std::vector<float> own = {1.0f, 2.0f, -4.0f};
  const std::vector<float> combined = {3.0f, 6.0f, 4.0f};
  blend(own.data(), combined.data(), 3, 0.25);
  EXPECT_EQ(own, (std::vector<float>{2.5f, 5.0f, 2.0f}));
  blend(own.data(), combined.data(), 3, 1.0);
  EXPECT_EQ(own, (std::vector<float>{2.5f, 5.0f, 2.0f}));
  blend(own.data(), combined.data(), 3, 0.0);
  EXPECT_EQ(own, combined);
}

// --- properties on random groups ---------------------------------------------------------

std::vector<double> random_metrics() {
  const int n = *rc::gen::inRange(1, 17);
  // Few distinct values so that ties are common.
  return *rc::gen::container<std::vector<double>>(
      static_cast<std::size_t>(n),
      rc::gen::map(rc::gen::inRange(-3, 4), [](int v) { return static_cast<double>(v); }));
}

RC_GTEST_PROP(DecideProperty, ReplacedAreNoBetterThanDonorsAndPartitionTheGroup, ()) {
  const auto metrics = random_metrics();
  const int n = static_cast<int>(metrics.size());
  const double ratio = *rc::gen::inRange(1, 101) / 100.0;
  const SpawnStrategy strategies[] = {SpawnStrategy::kMean, SpawnStrategy::kWeightedMean,
                                      SpawnStrategy::kBestOnly, SpawnStrategy::kResetWeights};
  const auto strategy = strategies[*rc::gen::inRange(0, 4)];
  const auto d = decide(metrics, 100, -1, selective(ratio, strategy));
  RC_ASSERT(d.weights.size() == metrics.size());
  if (n == 1) {
    RC_ASSERT(!d.replace);
    return;
  }
  RC_ASSERT(d.replace);
  RC_ASSERT(static_cast<int>(d.replaced.size()) == replacement_count(n, ratio));
  RC_ASSERT(std::is_sorted(d.replaced.begin(), d.replaced.end()));
  RC_ASSERT(std::is_sorted(d.donors.begin(), d.donors.end()));
  std::vector<bool> is_replaced(n, false);
  for (int r : d.replaced) is_replaced[r] = true;
  for (int r : d.donors) RC_ASSERT(!is_replaced[r]);
  // No replaced agent is better than a kept one (ties: the lower rank goes first).
  for (int r : d.replaced) {
    for (int k = 0; k < n; ++k) {
      if (is_replaced[k]) continue;
      RC_ASSERT(metrics[r] < metrics[k] || (metrics[r] == metrics[k] && r < k));
    }
  }
  const double sum = std::accumulate(d.weights.begin(), d.weights.end(), 0.0);
  if (strategy == SpawnStrategy::kResetWeights) {
    RC_ASSERT(d.donors.empty());
    RC_ASSERT(sum == 0.0);
  } else {
    RC_ASSERT(std::abs(sum - 1.0) < 1e-12);
    for (int r = 0; r < n; ++r) {
      RC_ASSERT(d.weights[r] >= 0.0);
      if (is_replaced[r]) RC_ASSERT(d.weights[r] == 0.0);
    }
  }
  if (strategy == SpawnStrategy::kMean) {
    RC_ASSERT(static_cast<int>(d.donors.size()) == n - static_cast<int>(d.replaced.size()));
  }
  if (strategy == SpawnStrategy::kBestOnly) {
    RC_ASSERT(d.donors.size() == 1u);
    for (int k = 0; k < n; ++k) RC_ASSERT(metrics[k] <= metrics[d.donors[0]]);
  }
}

RC_GTEST_PROP(DecideProperty, WeightedMeanIsMonotoneInTheMetric, ()) {
  const auto metrics = random_metrics();
  std::vector<int> donors(metrics.size());
  std::iota(donors.begin(), donors.end(), 0);
  const auto w = donor_weights(metrics, donors, SpawnStrategy::kWeightedMean);
  for (std::size_t a = 0; a < metrics.size(); ++a) {
    for (std::size_t b = 0; b < metrics.size(); ++b) {
      if (metrics[a] < metrics[b]) RC_ASSERT(w[a] <= w[b]);
      if (metrics[a] == metrics[b]) RC_ASSERT(w[a] == w[b]);
    }
  }
}

RC_GTEST_PROP(DecideProperty, CooldownBlocksExactlyInsideTheWindow, ()) {
  auto o = selective(0.5);
  o.cooldown = *rc::gen::inRange<std::int64_t>(0, 50);
  const std::int64_t last = *rc::gen::inRange<std::int64_t>(0, 100);
  const std::int64_t it = last + *rc::gen::inRange<std::int64_t>(0, 100);
  const auto d = decide({0.0, 1.0}, it, last, o);
  RC_ASSERT(d.replace == (it - last >= o.cooldown));
}

}  // namespace
}  // namespace gfn::dist::spawn
