// Smoke runs of every loss on every environment through Learner: a few iterations,
// finite losses, validation metrics in their ranges; and the refusals (modified DB
// where intermediate states cannot terminate).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {
namespace {

struct Case {
  std::string label;
  core::EnvOptions env;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  core::EnvOptions grid;
  grid.get<core::HyperGridOptions>().ndim = 2;
  grid.get<core::HyperGridOptions>().height = 4;
  out.push_back({"hypergrid", grid});
  core::EnvOptions ebm;
  ebm.name = "discrete_ebm";
  ebm.get<core::DiscreteEbmOptions>().ndim = 4;
  ebm.get<core::DiscreteEbmOptions>().alpha = 0.5;
  out.push_back({"discrete_ebm khot", ebm});
  ebm.preprocessor = PreprocessorKind::kIdentity;
  out.push_back({"discrete_ebm identity", ebm});
  core::EnvOptions bits;
  bits.name = "bit_sequence";
  bits.get<core::BitSequenceOptions>().seq_size = 8;
  bits.get<core::BitSequenceOptions>().word_size = 2;
  bits.get<core::BitSequenceOptions>().n_modes = 4;
  bits.get<core::BitSequenceOptions>().beta = 0.5;
  bits.get<core::BitSequenceOptions>().mode_threshold = 1;
  out.push_back({"bit_sequence n8 k2 (enumerable)", bits});
  bits.get<core::BitSequenceOptions>().seq_size = 120;
  bits.get<core::BitSequenceOptions>().word_size = 8;
  bits.get<core::BitSequenceOptions>().n_modes = 60;
  bits.get<core::BitSequenceOptions>().mode_threshold = -1;
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
      core::ModelOptions model;
      model.hidden_dim = 32;
      model.tied = loss == "db";
      core::TrainOptions train;
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
      core::ValidationOptions v;
      v.n_samples = 2000;
      check_ranges(learner.validate(v), learner.env(), what);
    }
  }
}

// TB on DiscreteEBM ndim 4 learns the target: the exact L1 drops well below its start.
TEST(EnvironmentSmoke, TrajectoryBalanceLearnsDiscreteEbm) {
  core::EnvOptions ebm;
  ebm.name = "discrete_ebm";
  ebm.get<core::DiscreteEbmOptions>().ndim = 4;
  ebm.get<core::DiscreteEbmOptions>().alpha = 0.1;
  core::ModelOptions model;
  model.hidden_dim = 64;
  core::TrainOptions train;
  Learner learner(ebm, model, train, 1);
  core::ValidationOptions v;
  v.n_samples = 1000;
  const ValidationResult before = learner.validate(v);
  for (int i = 0; i < 150; ++i) learner.train_iteration(64);
  const ValidationResult after = learner.validate(v);
  EXPECT_LT(after.l1_exact, 0.5 * before.l1_exact) << before.l1_exact << " -> " << after.l1_exact;
  EXPECT_LT(after.log_z_error, 0.3) << after.log_z << " vs " << after.log_z_true;
}

}  // namespace
}  // namespace gfn::core
