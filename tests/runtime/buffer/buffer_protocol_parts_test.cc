// Units of the buffer manager's building blocks: baselines over the manager's
// replay table, the Reverb-style rate limiter and the default ModesScorer. (The table
// itself: table_test.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "runtime/buffer/baseline.h"
#include "runtime/buffer/rate_limiter.h"
#include "runtime/buffer/scorer.h"
#include "runtime/buffer/table.h"
#include "tests/runtime/buffer/manager_tables.h"

namespace gfn::buffer {
namespace {

const float kInf = std::numeric_limits<float>::infinity();

ReplayTable manager(std::int64_t capacity) { return testing::manager_table(capacity, 0); }

ReplayTable filled(std::int64_t capacity, const std::vector<float>& log_rewards) {
  return testing::filled_table(capacity, log_rewards, 0);
}

TEST(Baseline, MinAndPercentileOnlyOnceFull) {
  BaselineTracker min_t({BaselineStrategy::kMin, 10, 0.9});
  auto b = filled(4, {3.f, 1.f, 2.f});
  EXPECT_FALSE(min_t.local(b).has_value());
  b.add({7}, {4.f}, 1);
  EXPECT_EQ(*min_t.local(b), 1.f);
  BaselineTracker pct({BaselineStrategy::kPercentile, 50, 0.9});
  EXPECT_EQ(*pct.local(b), 2.f);
}

TEST(Baseline, EmaOfBatchMinimaExcludesNonFinite) {
  BaselineTracker t({BaselineStrategy::kEma, 10, 0.5});
  ReplayTable empty = manager(3);
  EXPECT_FALSE(t.current(empty).has_value());
  t.observe_batch({-kInf, 4.f, 2.f, std::nanf("")});
  EXPECT_FLOAT_EQ(*t.local(empty), 2.f);
  t.observe_batch({6.f});
  EXPECT_FLOAT_EQ(*t.local(empty), 4.f);   // 0.5*2 + 0.5*6
  t.observe_batch({kInf, std::nanf("")});  // nothing finite: ignored
  EXPECT_FLOAT_EQ(*t.local(empty), 4.f);
}

TEST(Baseline, GlobalOverridesEveryStrategy) {
  for (const auto& entry : buffer::kBaselineStrategyNames) {
    const char* s = entry.name;
    BaselineTracker t({entry.value, 10, 0.9});
    EXPECT_STREQ(to_string(t.strategy()), s);
    auto b = filled(2, {1.f, 2.f});
    t.observe_batch({1.f});
    t.set_global(-3.f);
    EXPECT_EQ(*t.current(b), -3.f) << s;
    t.set_global(std::nanf(""));
    EXPECT_EQ(*t.current(b), -3.f) << s;
  }
  EXPECT_THROW(BaselineTracker({BaselineStrategy::kMin, 120, 0.9}), std::invalid_argument);
  EXPECT_THROW(BaselineTracker({BaselineStrategy::kEma, 10, 1.0}), std::invalid_argument);
}

TEST(RateLimiter, MinSizeAndSamplesPerInsertWithErrorBand) {
  RateLimiter r({2.0, 4, 3.0});  // min_diff = 8 - 3 = 5
  auto d = r.can_sample(1, 3);
  EXPECT_FALSE(d.allowed);
  EXPECT_NE(d.reason.find("min_size_to_sample"), std::string::npos);
  r.record_insert(4);                        // diff = 8
  EXPECT_TRUE(r.can_sample(3, 4).allowed);   // 8 - 3 = 5 >= 5
  EXPECT_FALSE(r.can_sample(4, 4).allowed);  // 4 < 5
  r.record_sample(3);                        // diff = 5
  EXPECT_FALSE(r.can_sample(1, 4).allowed);
  r.record_insert(1);  // diff = 7
  EXPECT_TRUE(r.can_sample(2, 5).allowed);
  EXPECT_FALSE(r.inserts_ahead());
  r.record_insert(10);  // diff = 27 > max_diff 11
  EXPECT_TRUE(r.inserts_ahead());
  RateLimiter off({0.0, 2, 0.0});
  EXPECT_FALSE(off.can_sample(100, 1).allowed);
  EXPECT_TRUE(off.can_sample(100, 2).allowed);
  EXPECT_THROW(RateLimiter({-1.0, 1, 0.0}), std::invalid_argument);
  EXPECT_THROW(RateLimiter({1.0, 0, 0.0}), std::invalid_argument);
}

TEST(ModesScorer, NoveltyIsChunkedAndMatchesBruteForce) {
  ReplayTable buf = manager(100);
  std::vector<std::int64_t> bs;
  std::vector<float> br;
  for (int i = 0; i < 37; ++i) {
    bs.insert(bs.end(), {i % 7, (i * 3) % 11});
    br.push_back(static_cast<float>(i));
  }
  buf.add(bs, br, 2);
  std::vector<std::int64_t> s{20, 20, 0, 0, 6, 10};
  std::vector<float> r{0.f, 0.f, 0.f};
  BatchView batch{s, r, 2};
  double expected = 0;
  for (int i = 0; i < 3; ++i) {
    double best = 1e30;
    for (int j = 0; j < 37; ++j) {
      const double dx = s[2 * i] - bs[2 * j], dy = s[2 * i + 1] - bs[2 * j + 1];
      best = std::min(best, std::sqrt(dx * dx + dy * dy));
    }
    expected += best;
  }
  const double whole = novelty_sum_reference(batch, buf, 2.0, 1 << 20);
  const double tiny_chunks = novelty_sum_reference(batch, buf, 2.0, 1);  // one row per chunk
  EXPECT_NEAR(whole, expected, 1e-4);
  EXPECT_NEAR(tiny_chunks, expected, 1e-4);
  EXPECT_NEAR(novelty_sum(batch, buf, 2.0), expected, 1e-4);               // the index
  EXPECT_NEAR(novelty_sum_reference(batch, manager(5), 2.0, 64), 3.0, 0);  // empty
  EXPECT_NEAR(novelty_sum(batch, manager(5), 2.0), 3.0, 0);
  EXPECT_THROW(novelty_sum_reference(batch, buf, 0.0, 64), std::invalid_argument);
  EXPECT_THROW(novelty_sum(batch, buf, 0.0), std::invalid_argument);
}

TEST(ModesScorer, WeightsAndEmaFollowModesReplayBufferManager) {
  ModesScorerOptions o;
  o.w_retained = 1;
  o.w_novelty = 0.5;
  o.w_reward = 2;
  o.w_mode_bonus = 10;
  o.ema_decay = 0.5;
  ModesScorer scorer(o);
  ReplayTable empty = manager(10);
  std::vector<std::int64_t> s{1, 2};
  std::vector<float> r{0.f, std::log(3.f)};
  const auto first = scorer.score({s, r, 1}, empty, 1);
  EXPECT_EQ(first.retained, 2);
  EXPECT_DOUBLE_EQ(first.novelty_sum, 2.0);
  EXPECT_NEAR(first.reward_sum, 4.0, 1e-5);
  EXPECT_NEAR(first.score_before_ema, 2 + 1 + 8 + 10, 1e-4);
  EXPECT_DOUBLE_EQ(first.score, first.score_before_ema);
  const auto second = scorer.score({s, r, 1}, empty, 0);
  EXPECT_NEAR(second.score, 0.5 * first.score + 0.5 * second.score_before_ema, 1e-9);
  EXPECT_THROW(ModesScorer({1, 1, 0, 10, -1.0, 64, 0.9}), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::buffer
