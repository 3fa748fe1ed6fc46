#include "runtime/buffer/state_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gfn::buffer {
namespace {

/// min_j ||q - b_j||_p by brute force over `stored` rows (the oracle of these tests).
double brute_nearest(const std::vector<std::vector<std::int64_t>>& stored,
                     const std::vector<std::int64_t>& q, double p) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& b : stored) {
    double acc = 0;
    for (std::size_t k = 0; k < q.size(); ++k) acc += std::pow(std::abs(double(q[k] - b[k])), p);
    best = std::min(best, std::pow(acc, 1 / p));
  }
  return best;
}

TEST(StateIndex, CountsOccurrencesAndAnswersDuplicatesWithZero) {
  StateIndex index;
  const std::vector<std::int64_t> a{1, 2}, b{4, 6};
  index.insert(a.data(), 2);
  index.insert(a.data(), 2);
  index.insert(b.data(), 2);
  EXPECT_EQ(index.size(), 3);
  EXPECT_EQ(index.distinct(), 2);
  EXPECT_EQ(index.count(a.data()), 2);
  EXPECT_EQ(index.nearest_distance(a.data(), 2.0), 0.0);
  const std::vector<std::int64_t> q{4, 2};
  EXPECT_DOUBLE_EQ(index.nearest_distance(q.data(), 2.0), 3.0);  // to a
  EXPECT_DOUBLE_EQ(index.nearest_distance(q.data(), 1.0), 3.0);
  index.erase(a.data());
  EXPECT_EQ(index.count(a.data()), 1);
  EXPECT_DOUBLE_EQ(index.nearest_distance(q.data(), 2.0), 3.0);  // a is still there once
  index.erase(a.data());
  EXPECT_EQ(index.distinct(), 1);
  EXPECT_DOUBLE_EQ(index.nearest_distance(q.data(), 2.0), 4.0);  // now b
  EXPECT_THROW(index.erase(a.data()), std::logic_error);
}

TEST(StateIndex, EmptyIndexGivesInfinityAndTheBatchSizePlaceholder) {
  StateIndex index;
  const std::vector<std::int64_t> q{0, 0, 0};
  EXPECT_TRUE(std::isinf(index.nearest_distance(q.data(), 2.0)));
  EXPECT_EQ(index.novelty_sum(q.data(), 1, 3, 2.0), 1.0);
  index.insert(q.data(), 3);
  index.erase(q.data());
  EXPECT_EQ(index.novelty_sum(q.data(), 1, 3, 2.0), 1.0);  // empty again
}

TEST(StateIndex, RefusesBadDimensionsAndNorms) {
  StateIndex index;
  const std::vector<std::int64_t> s{1, 2, 3};
  EXPECT_THROW(index.insert(s.data(), 0), std::invalid_argument);
  index.insert(s.data(), 3);
  EXPECT_THROW(index.insert(s.data(), 2), std::invalid_argument);
  EXPECT_THROW(index.novelty_sum(s.data(), 1, 2, 2.0), std::invalid_argument);
  EXPECT_THROW(index.nearest_distance(s.data(), 0.0), std::invalid_argument);
  EXPECT_THROW(index.novelty_sum(s.data(), 1, 3, -1.0), std::invalid_argument);
}

// Heavy churn (far more removals than live states) exercises the rebuild; every query
// must still match brute force over what is stored.
TEST(StateIndex, MatchesBruteForceThroughChurnAndRebuilds) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> coord(0, 40);
  StateIndex index;
  std::vector<std::vector<std::int64_t>> stored;
  const int d = 3;
  for (int step = 0; step < 20000; ++step) {
    if (stored.size() < 200 || rng() % 2) {
      std::vector<std::int64_t> s{coord(rng), coord(rng), coord(rng)};
      index.insert(s.data(), d);
      stored.push_back(s);
    } else {
      const auto i = rng() % stored.size();
      index.erase(stored[i].data());
      stored[i] = stored.back();
      stored.pop_back();
    }
    if (step % 97 == 0) {
      const std::vector<std::int64_t> q{coord(rng) - 5, coord(rng), coord(rng) + 5};
      for (double p : {1.0, 2.0, 3.0}) {
        EXPECT_NEAR(index.nearest_distance(q.data(), p), brute_nearest(stored, q, p), 1e-9)
            << "step " << step << " p " << p;
      }
    }
  }
  EXPECT_EQ(index.size(), static_cast<std::int64_t>(stored.size()));
}

}  // namespace
}  // namespace gfn::buffer
