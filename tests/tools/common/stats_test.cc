// The statistics of the benchmark harness (tools/common/harness/stats.h) on inputs whose
// figures are known by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "tools/common/harness/stats.h"

namespace gfn::harness {
namespace {

// 1 .. n, shuffled (the statistics must not depend on the order).
std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  return v;
}

TEST(HarnessStats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);  // mean of the two middle values
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median(one_to(200)), 100.5);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(HarnessStats, NearestRankPercentiles) {
  const auto v = one_to(200);
  EXPECT_DOUBLE_EQ(percentile(v, 99), 198);  // ceil(0.99 * 200) = 198th value
  EXPECT_DOUBLE_EQ(percentile(v, 90), 180);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 200);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 100);  // nearest rank: a value, not the mean of two
  // With few values the 99th percentile is the largest one.
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 99), 3);
  EXPECT_DOUBLE_EQ(percentile(one_to(101), 99), 100);  // ceil(99.99) = 100th value
  EXPECT_THROW(percentile({}, 50), std::invalid_argument);
  EXPECT_THROW(percentile({1}, 101), std::invalid_argument);
  EXPECT_THROW(percentile({1}, -1), std::invalid_argument);
  EXPECT_THROW(percentile({1}, std::nan("")), std::invalid_argument);
}

TEST(HarnessStats, SummaryOfOneToTwoHundred) {
  const Summary s = summarize(one_to(200));
  EXPECT_EQ(s.n, 200u);
  EXPECT_DOUBLE_EQ(s.median, 100.5);
  EXPECT_DOUBLE_EQ(s.p90, 180);
  EXPECT_DOUBLE_EQ(s.p99, 198);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 200);
  EXPECT_DOUBLE_EQ(s.mean, 100.5);
  // Sample standard deviation of 1..n: sqrt(n (n + 1) / 12).
  EXPECT_NEAR(s.stddev, std::sqrt(200.0 * 201.0 / 12.0), 1e-12);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(HarnessStats, SummaryOfOneValueAndOfTwo) {
  const Summary one = summarize({4.5});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.median, 4.5);
  EXPECT_DOUBLE_EQ(one.p99, 4.5);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  const Summary two = summarize({1, 3});
  EXPECT_DOUBLE_EQ(two.median, 2);
  EXPECT_DOUBLE_EQ(two.p90, 3);
  EXPECT_DOUBLE_EQ(two.stddev, std::sqrt(2.0));  // ((1-2)^2 + (3-2)^2) / (2 - 1)
}

TEST(HarnessStats, ScaledChangesTheUnitOfEveryFigureButTheCount) {
  const Summary s = summarize({1e-6, 2e-6, 3e-6}).scaled(1e6);
  EXPECT_EQ(s.n, 3u);
  EXPECT_NEAR(s.median, 2, 1e-12);
  EXPECT_NEAR(s.p99, 3, 1e-12);
  EXPECT_NEAR(s.min, 1, 1e-12);
  EXPECT_NEAR(s.max, 3, 1e-12);
  EXPECT_NEAR(s.mean, 2, 1e-12);
  EXPECT_NEAR(s.stddev, 1, 1e-12);
  EXPECT_THROW(s.scaled(-1), std::invalid_argument);
}

TEST(HarnessStats, MeanOfNothingIsZero) {
  EXPECT_DOUBLE_EQ(mean({}), 0);
  EXPECT_DOUBLE_EQ(mean({1, 2, 6}), 3);
}

}  // namespace
}  // namespace gfn::harness
