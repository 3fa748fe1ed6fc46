// The item selectors of the replay table (runtime/buffer/selectors/), each alone: what they
// select, with and without replacement, after inserts and erases, and the removers' admission
// rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runtime/buffer/selectors/fifo.h"
#include "runtime/buffer/selectors/lowest_reward.h"
#include "runtime/buffer/selectors/prioritized.h"
#include "runtime/buffer/selectors/rank.h"
#include "runtime/buffer/selectors/uniform.h"

namespace gfn::buffer {
namespace {

std::vector<Slot> select(ItemSelector& s, std::int64_t n, std::mt19937_64& rng) {
  std::vector<Slot> out;
  s.select(n, rng, out);
  return out;
}

TEST(UniformSampler, DrawsHeldSlotsEquallyDistinctWhenAsked) {
  std::mt19937_64 rng(1);
  UniformSampler always(Replacement::kAlways);
  UniformSampler distinct(Replacement::kOnlyWhenNeeded);
  for (Slot s : {3, 5, 8, 9}) {
    always.insert(s, {0, 0.f});
    distinct.insert(s, {0, 0.f});
  }
  always.erase(5);
  distinct.erase(5);
  EXPECT_EQ(always.size(), 3);
  std::map<Slot, int> counts;
  for (Slot s : select(always, 9000, rng)) ++counts[s];
  ASSERT_EQ(counts.size(), 3u);
  for (const auto& [slot, c] : counts) EXPECT_NEAR(c / 9000.0, 1.0 / 3, 0.03) << slot;
  for (int k = 0; k < 50; ++k) {
    const auto d = select(distinct, 3, rng);
    EXPECT_EQ(std::set<Slot>(d.begin(), d.end()), (std::set<Slot>{3, 8, 9}));
  }
  EXPECT_EQ(select(distinct, 7, rng).size(), 7u);  // n > size: with replacement
  EXPECT_THROW(always.erase(5), std::logic_error);
  EXPECT_THROW(always.insert(3, {0, 0.f}), std::logic_error);
}

TEST(PrioritizedSampler, DrawsProportionallyToTheReward) {
  std::mt19937_64 rng(2);
  PrioritizedSampler always(Replacement::kAlways);
  always.insert(0, {0, std::log(1.f)});
  always.insert(4, {1, std::log(3.f)});
  always.insert(2, {2, 100.f});
  always.erase(2);
  int high = 0;
  for (Slot s : select(always, 8000, rng)) high += s == 4;
  EXPECT_NEAR(high / 8000.0, 0.75, 0.02);
  // Without replacement (Gumbel top-n): the first draw ∝ R, then the other one.
  PrioritizedSampler distinct(Replacement::kOnlyWhenNeeded);
  distinct.insert(0, {0, std::log(1.f)});
  distinct.insert(4, {1, std::log(3.f)});
  high = 0;
  for (int k = 0; k < 8000; ++k) {
    const auto d = select(distinct, 2, rng);
    ASSERT_NE(d[0], d[1]);
    high += d[0] == 4;
  }
  EXPECT_NEAR(high / 8000.0, 0.75, 0.02);
}

TEST(PrioritizedSampler, DrawsProportionallyToTheRewardToThePriorityExponent) {
  // R = 1 and 3: with α = 2 the weights are 1 and 9 (P = 0.9), with α = 0.5 1 and √3.
  const double expected[][2] = {{2.0, 0.9}, {0.5, std::sqrt(3.0) / (1.0 + std::sqrt(3.0))}};
  std::mt19937_64 rng(5);
  for (const auto& [alpha, p_high] : expected) {
    for (const auto replacement : {Replacement::kAlways, Replacement::kOnlyWhenNeeded}) {
      PrioritizedSampler sampler(replacement, alpha);
      sampler.insert(0, {0, std::log(1.f)});
      sampler.insert(4, {1, std::log(3.f)});
      int high = 0;
      for (int k = 0; k < 8000; ++k) high += select(sampler, 1, rng)[0] == 4;
      EXPECT_NEAR(high / 8000.0, p_high, 0.02) << "alpha " << alpha;
    }
  }
  for (const double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW(PrioritizedSampler(Replacement::kAlways, bad), std::invalid_argument) << bad;
  }
}

// gfn-diffusion's rank weights (energy_sampling/buffer.py): ranks = argsort(argsort(-log R)),
// w = 1 / (k N + rank), computed here from the keys by sorting, apart from the sampler's set.
std::map<Slot, double> rank_probabilities(const std::vector<std::pair<Slot, float>>& items,
                                          double k) {
  std::vector<std::pair<Slot, float>> sorted = items;  // inserted oldest first
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<Slot, double> p;
  double total = 0;
  for (std::size_t r = 0; r < sorted.size(); ++r) {
    p[sorted[r].first] = 1.0 / (k * static_cast<double>(sorted.size()) + static_cast<double>(r));
    total += p[sorted[r].first];
  }
  for (auto& [slot, w] : p) w /= total;
  return p;
}

TEST(RankSampler, DrawsProportionallyToTheReciprocalRank) {
  // Rewards far apart in scale: the rank weights do not see the scale (prioritized would
  // draw the best item only). Ties: the older item ranks first.
  const std::vector<std::pair<Slot, float>> items = {{7, -300.f}, {2, 5.f},   {9, -1.f},
                                                     {4, 5.f},    {0, -40.f}, {5, 80.f}};
  for (const double k : {0.01, 0.5, 3.0}) {
    for (const auto replacement : {Replacement::kAlways, Replacement::kOnlyWhenNeeded}) {
      RankSampler sampler(replacement, k);
      std::uint64_t serial = 0;
      for (const auto& [slot, lr] : items) sampler.insert(slot, {serial++, lr});
      sampler.insert(11, {serial++, 1000.f});
      sampler.erase(11);
      ASSERT_EQ(sampler.size(), 6);
      const auto expected = rank_probabilities(items, k);
      std::mt19937_64 rng(11);
      std::map<Slot, int> counts;
      const int n = 30000;
      for (int draw = 0; draw < n; ++draw) ++counts[select(sampler, 1, rng)[0]];
      for (const auto& [slot, p] : expected) {
        EXPECT_NEAR(counts[slot] / double(n), p, 0.012) << "k " << k << " slot " << slot;
      }
    }
  }
}

TEST(RankSampler, DrawsDistinctItemsWhenAskedAndRefusesBadWeights) {
  std::mt19937_64 rng(3);
  RankSampler distinct(Replacement::kOnlyWhenNeeded, 0.01);
  for (Slot s : {3, 5, 8}) distinct.insert(s, {static_cast<std::uint64_t>(s), float(s)});
  int best_first = 0;
  for (int k = 0; k < 4000; ++k) {
    const auto d = select(distinct, 3, rng);
    ASSERT_EQ(std::set<Slot>(d.begin(), d.end()), (std::set<Slot>{3, 5, 8}));
    best_first += d[0] == 8;
  }
  // The first draw is ∝ 1 / (0.03 + rank): rank 0 of 3 has weight 1/0.03 against 1/1.03, 1/2.03.
  const double w0 = 1 / 0.03, p0 = w0 / (w0 + 1 / 1.03 + 1 / 2.03);
  EXPECT_NEAR(best_first / 4000.0, p0, 0.02);
  EXPECT_EQ(select(distinct, 7, rng).size(), 7u);  // n > size: with replacement
  EXPECT_THROW(distinct.erase(4), std::logic_error);
  EXPECT_THROW(distinct.insert(3, {99, 0.f}), std::logic_error);
  for (const double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW(RankSampler(Replacement::kAlways, bad), std::invalid_argument) << bad;
  }
}

TEST(FifoRemover, SelectsTheOldestAndAlwaysAdmits) {
  std::mt19937_64 rng(3);
  FifoRemover fifo;
  fifo.insert(2, {10, 5.f});
  fifo.insert(0, {11, -1.f});
  fifo.insert(1, {12, 0.f});
  EXPECT_EQ(select(fifo, 1, rng), (std::vector<Slot>{2}));
  fifo.erase(2);
  EXPECT_EQ(select(fifo, 1, rng), (std::vector<Slot>{0}));
  fifo.insert(2, {13, 0.f});  // a slot reused by a newer item
  fifo.erase(0);
  EXPECT_EQ(select(fifo, 2, rng), (std::vector<Slot>{1, 1}));
  EXPECT_TRUE(fifo.admits({14, -100.f}, {12, 0.f}));
  EXPECT_THROW(fifo.erase(0), std::logic_error);
}

TEST(LowestRewardRemover, SelectsTheLowestThenOldestAndAdmitsByTheTieRule) {
  std::mt19937_64 rng(4);
  LowestRewardRemover older(LowestRewardRemover::Ties::kKeepOlder);
  older.insert(0, {0, 2.f});
  older.insert(1, {1, 1.f});
  older.insert(2, {2, 1.f});
  older.insert(3, {3, 3.f});
  EXPECT_EQ(select(older, 1, rng), (std::vector<Slot>{1}));  // lowest, then oldest
  older.erase(1);
  EXPECT_EQ(select(older, 1, rng), (std::vector<Slot>{2}));
  EXPECT_FALSE(older.admits({9, 1.f}, {2, 1.f}));  // equal: the older stays
  EXPECT_TRUE(older.admits({9, 1.5f}, {2, 1.f}));
  LowestRewardRemover newer(LowestRewardRemover::Ties::kKeepNewer);
  EXPECT_TRUE(newer.admits({9, 1.f}, {2, 1.f}));  // equal: the newer replaces it
  EXPECT_FALSE(newer.admits({9, 0.5f}, {2, 1.f}));
  EXPECT_THROW(older.erase(1), std::logic_error);
}

}  // namespace
}  // namespace gfn::buffer
