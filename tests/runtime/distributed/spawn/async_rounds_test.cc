// runtime/distributed/spawn/async_rounds.h: decision points handed out complete and in
// iteration order whatever the interleaving of the senders, refusals of inconsistent metrics, and
// the weighted sum of the donors' parameters (examples and a RapidCheck property).

#include "runtime/distributed/spawn/async_rounds.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace gfn::dist::spawn {
namespace {

TEST(MetricRounds, HandsOutAPointOnlyWhenEveryRankIsIn) {
  MetricRounds rounds(3);
  rounds.add(4, 2, 2.5);
  rounds.add(4, 0, 0.5);
  EXPECT_FALSE(rounds.pop_complete().has_value());
  rounds.add(4, 1, 1.5);
  const auto r = rounds.pop_complete();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->iteration, 4);
  EXPECT_EQ(r->metrics, (std::vector<double>{0.5, 1.5, 2.5}));
  EXPECT_TRUE(rounds.empty());
  EXPECT_FALSE(rounds.pop_complete().has_value());
}

TEST(MetricRounds, ALaterCompletePointWaitsForTheOlderOne) {
  MetricRounds rounds(2);
  rounds.add(4, 0, 1.0);  // rank 1's metric of 4 is late
  rounds.add(8, 0, 2.0);
  rounds.add(8, 1, 3.0);
  EXPECT_FALSE(rounds.pop_complete().has_value());
  rounds.add(4, 1, 4.0);
  EXPECT_EQ(rounds.pop_complete()->iteration, 4);
  EXPECT_EQ(rounds.pop_complete()->iteration, 8);
  EXPECT_TRUE(rounds.empty());
}

TEST(MetricRounds, RefusesInconsistentMetrics) {
  EXPECT_THROW(MetricRounds(0), std::invalid_argument);
  MetricRounds rounds(2);
  EXPECT_THROW(rounds.add(2, 2, 0.0), std::invalid_argument);
  EXPECT_THROW(rounds.add(2, -1, 0.0), std::invalid_argument);
  rounds.add(2, 0, 0.0);
  EXPECT_THROW(rounds.add(2, 0, 1.0), std::invalid_argument);  // twice the same rank
  rounds.add(2, 1, 0.0);
  ASSERT_TRUE(rounds.pop_complete().has_value());
  EXPECT_THROW(rounds.add(2, 0, 0.0), std::invalid_argument);  // already decided
  EXPECT_THROW(rounds.add(1, 0, 0.0), std::invalid_argument);  // before a decided point
}

RC_GTEST_PROP(MetricRounds, AnyInterleavingOfTheSendersGivesThePointsInOrder, ()) {
  // Each sender posts its points in increasing order and its messages arrive in that order
  // (MPI non-overtaking; one Gloo channel per pair and tag); the senders interleave freely.
  const int n = *rc::gen::inRange(1, 6);
  const int points = *rc::gen::inRange(1, 6);
  std::vector<int> next(static_cast<std::size_t>(n), 1);  // next point of each sender
  std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
  MetricRounds rounds(n);
  std::vector<std::int64_t> popped;
  for (int left = n * points; left > 0; --left) {
    std::vector<int> ready;
    for (int r = 0; r < n; ++r) {
      if (next[static_cast<std::size_t>(r)] <= points) ready.push_back(r);
    }
    const int r = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
    const std::int64_t it = 10 * next[static_cast<std::size_t>(r)]++;
    rounds.add(it, r, static_cast<double>(it + r));
    while (auto round = rounds.pop_complete()) {
      for (int k = 0; k < n; ++k) {
        RC_ASSERT(round->metrics[static_cast<std::size_t>(k)] ==
                  static_cast<double>(round->iteration + k));
      }
      popped.push_back(round->iteration);
    }
  }
  RC_ASSERT(rounds.empty());
  RC_ASSERT(static_cast<int>(popped.size()) == points);
  RC_ASSERT(std::is_sorted(popped.begin(), popped.end()));
}

TEST(WeightedSum, CombinesTheSourcesByTheirWeights) {
  const std::vector<float> a = {1.f, 2.f, 3.f};
  const std::vector<float> b = {10.f, 20.f, 30.f};
  std::vector<float> out(3, -1.f);
  weighted_sum({a.data(), b.data()}, {0.25, 0.75}, 3, out.data());
  EXPECT_EQ(out, (std::vector<float>{7.75f, 15.5f, 23.25f}));
  weighted_sum({b.data()}, {1.0}, 3, out.data());
  EXPECT_EQ(out, b);
  EXPECT_THROW(weighted_sum({a.data()}, {0.5, 0.5}, 3, out.data()), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::dist::spawn
