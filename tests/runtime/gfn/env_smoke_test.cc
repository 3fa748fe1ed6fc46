// Smoke runs of every loss on every environment through Learner: a few iterations,
// finite losses, validation metrics in their ranges; and the refusals (modified DB
// where intermediate states cannot terminate).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/config/options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {
namespace {

struct Case {
  std::string label;
  config::EnvOptions env;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  config::EnvOptions grid;
  grid.ndim = 2;
  grid.height = 4;
  out.push_back({"hypergrid", grid});
  config::EnvOptions ebm;
  ebm.name = "discrete_ebm";
  ebm.ndim = 4;
  ebm.alpha = 0.5;
  out.push_back({"discrete_ebm khot", ebm});
  ebm.preprocessor = PreprocessorKind::kIdentity;
  out.push_back({"discrete_ebm identity", ebm});
  config::EnvOptions bits;
  bits.name = "bit_sequence";
  bits.seq_size = 8;
  bits.word_size = 2;
  bits.n_modes = 4;
  bits.beta = 0.5;
  bits.mode_threshold = 1;
  out.push_back({"bit_sequence n8 k2 (enumerable)", bits});
  bits.seq_size = 120;
  bits.word_size = 8;
  bits.n_modes = 60;
  bits.mode_threshold = -1;
  out.push_back({"bit_sequence n120 k8", bits});
  return out;
}

void check_ranges(const ValidationResult& v, const Environment& env, const std::string& what) {
  EXPECT_EQ(v.n_modes_total, env.n_modes()) << what;
  EXPECT_GE(v.n_modes_found, 0) << what;
  EXPECT_LE(v.n_modes_found, v.n_modes_total) << what;
  EXPECT_TRUE(std::isfinite(v.log_z)) << what;
  if (!env.enumerable()) {
    EXPECT_FALSE(v.exact) << what;
    EXPECT_TRUE(std::isnan(v.l1_exact)) << what;
    return;
  }
  EXPECT_TRUE(v.exact) << what;
  EXPECT_GE(v.l1_exact, 0) << what;
  EXPECT_LE(v.l1_exact, 2 + 1e-9) << what;
  EXPECT_GE(v.l1_sampled, 0) << what;
  EXPECT_LE(v.l1_sampled, 2 + 1e-9) << what;
  EXPECT_GE(v.jsd, -1e-12) << what;
  EXPECT_LE(v.jsd, std::log(2.0) + 1e-9) << what;
  EXPECT_TRUE(std::isfinite(v.log_z_error)) << what;
}

TEST(EnvironmentSmoke, EveryLossOnEveryEnvironment) {
  for (const Case& c : cases()) {
    for (const auto& [kind, name] : kLossKindNames) {
      const std::string loss = name;
      const std::string what = c.label + " / " + loss;
      config::ModelOptions model;
      model.hidden_dim = 32;
      model.tied = loss == "db";
      config::TrainOptions train;
      train.loss = kind;
      train.epsilon = loss == "subtb" ? 0.1 : 0.0;  // off-policy sampling too
      if (loss == "modified_db" && c.env.name != "hypergrid") {
        EXPECT_THROW(Learner(c.env, model, train, 3), std::invalid_argument) << what;
        continue;
      }
      Learner learner(c.env, model, train, 3);
      for (int i = 0; i < 4; ++i) {
        const IterationResult r = learner.train_iteration(16);
        ASSERT_TRUE(std::isfinite(r.loss)) << what << " iteration " << i;
        ASSERT_TRUE(std::isfinite(r.log_z)) << what;
        ASSERT_EQ(r.terminating_states.size(0), 16) << what;
        ASSERT_EQ(r.terminating_states.size(1), learner.env().state_dim()) << what;
        ASSERT_TRUE(learner.env().can_terminate(r.terminating_states).all().item<bool>()) << what;
      }
      config::ValidationOptions v;
      v.n_samples = 2000;
      check_ranges(learner.validate(v), learner.env(), what);
    }
  }
}

// TB on DiscreteEBM ndim 4 learns the target: the exact L1 drops well below its start.
TEST(EnvironmentSmoke, TrajectoryBalanceLearnsDiscreteEbm) {
  config::EnvOptions ebm;
  ebm.name = "discrete_ebm";
  ebm.ndim = 4;
  ebm.alpha = 0.1;
  config::ModelOptions model;
  model.hidden_dim = 64;
  config::TrainOptions train;
  Learner learner(ebm, model, train, 1);
  config::ValidationOptions v;
  v.n_samples = 1000;
  const ValidationResult before = learner.validate(v);
  for (int i = 0; i < 150; ++i) learner.train_iteration(64);
  const ValidationResult after = learner.validate(v);
  EXPECT_LT(after.l1_exact, 0.5 * before.l1_exact) << before.l1_exact << " -> " << after.l1_exact;
  EXPECT_LT(after.log_z_error, 0.3) << after.log_z << " vs " << after.log_z_true;
}

}  // namespace
}  // namespace gfn::core
