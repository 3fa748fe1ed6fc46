// submitter_options: a trainer's submitter options from the experiment.
#include <gtest/gtest.h>

#include "roles/trainer/submitter.h"

namespace gfn::roles {
namespace {

TEST(SubmitterOptionsFromConfig, Defaults) {
  const auto so = submitter_options(roles::ExperimentConfig{});
  EXPECT_EQ(so.mode, SubmitterOptions::Mode::kSync);
  EXPECT_FALSE(so.scoring_only);
  EXPECT_FALSE(so.baseline_filter);
}

TEST(SubmitterOptionsFromConfig, TakeTheBufferSection) {
  roles::ExperimentConfig config;
  config.buffer.submit_mode = roles::SubmitMode::kFireAndForget;
  config.buffer.payload = roles::Payload::kScoringOnly;
  config.buffer.baseline_filter = true;
  config.buffer.baseline_refresh_after = 9;
  config.transport.timeout_s = 12.0;
  const auto so = submitter_options(config);
  EXPECT_EQ(so.mode, SubmitterOptions::Mode::kFireAndForget);
  EXPECT_TRUE(so.scoring_only);
  EXPECT_TRUE(so.baseline_filter);
  EXPECT_EQ(so.baseline_refresh_after, 9);
  EXPECT_DOUBLE_EQ(so.timeout_s, 12.0);
}

}  // namespace
}  // namespace gfn::roles
