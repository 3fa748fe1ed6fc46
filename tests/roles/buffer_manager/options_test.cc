// buffer_manager_options / modes_scorer_options: the manager's options from the experiment.
#include <gtest/gtest.h>

#include "roles/buffer_manager/buffer_manager.h"

namespace gfn::roles {
namespace {

TEST(BufferManagerOptions, TakeTheBufferSectionAndTheRank) {
  roles::ExperimentConfig config;
  config.buffer.capacity = 123;
  config.buffer.store = false;
  config.buffer.baseline = buffer::BaselineStrategy::kPercentile;
  config.buffer.baseline_percentile = 25.0;
  config.buffer.samples_per_insert = 4.0;
  config.buffer.baseline_report_interval = 3;
  config.transport.timeout_s = 7.5;
  config.train.seed = 40;
  config.buffer.priority_exponent = 2.5;
  const auto options = buffer_manager_options(config, /*rank=*/2, /*coordinator_rank=*/5);
  EXPECT_EQ(options.capacity, 123);
  EXPECT_FALSE(options.store);
  EXPECT_EQ(options.coordinator_rank, 5);
  EXPECT_DOUBLE_EQ(options.idle_timeout_s, 7.5);
  EXPECT_EQ(options.baseline.strategy, buffer::BaselineStrategy::kPercentile);
  EXPECT_DOUBLE_EQ(options.baseline.percentile, 25.0);
  EXPECT_DOUBLE_EQ(options.rate_limiter.samples_per_insert, 4.0);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_DOUBLE_EQ(options.priority_exponent, 2.5);
  EXPECT_EQ(options.n_actions, config.env.get<core::HyperGridOptions>().ndim +
                                   1);  // HyperGrid: ndim increments + exit
  EXPECT_EQ(options.baseline_report_interval, 3);
  ASSERT_NE(options.scorer, nullptr);
}

TEST(BufferManagerOptions, ScorerTakesTheScoreFields) {
  roles::BufferOptions buffer;
  buffer.score_w_reward = 2.5;
  buffer.score_p_norm = 1.0;
  buffer.score_novelty = buffer::NoveltyMethod::kBruteForce;
  buffer.score_cdist_max_bytes = 1024;
  const auto so = modes_scorer_options(buffer);
  EXPECT_DOUBLE_EQ(so.w_reward, 2.5);
  EXPECT_DOUBLE_EQ(so.p_norm, 1.0);
  EXPECT_EQ(so.novelty, buffer::NoveltyMethod::kBruteForce);
  EXPECT_EQ(so.cdist_max_bytes, 1024u);
  EXPECT_EQ(modes_scorer_options(roles::BufferOptions{}).novelty, buffer::NoveltyMethod::kIndex);
}

}  // namespace
}  // namespace gfn::roles
