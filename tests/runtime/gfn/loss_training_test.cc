// A short training run of every loss on HyperGrid 2D h4 through Learner::train_iteration.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {
namespace {

TEST(LossTraining, EveryLossImprovesExactL1) {
  for (const auto& [kind, name_text] : kLossKindNames) {
    const std::string name = name_text;
    core::EnvOptions env;
    env.get<core::HyperGridOptions>().ndim = 2;
    env.get<core::HyperGridOptions>().height = 4;
    core::ModelOptions model;
    model.hidden_dim = 256;
    model.tied = kind == LossKind::kSubTB;  // exercise the logF head on a shared trunk too
    core::TrainOptions train;
    train.loss = kind;
    Learner learner(env, model, train, 2);
    core::ValidationOptions v;
    v.n_samples = 1000;
    const ValidationResult before = learner.validate(v);
    double loss = 0;
    for (int i = 0; i < 60; ++i) {
      const IterationResult r = learner.train_iteration(64);
      loss = r.loss;
      ASSERT_TRUE(std::isfinite(r.loss)) << name << " iteration " << i;
      ASSERT_TRUE(std::isfinite(r.log_z)) << name;
    }
    const ValidationResult after = learner.validate(v);
    EXPECT_TRUE(std::isfinite(loss)) << name;
    EXPECT_LT(after.l1_exact, 0.5 * before.l1_exact)
        << name << ": " << before.l1_exact << " -> " << after.l1_exact;
    // tb learns logZ; the other losses store their estimate of it (log Z = 1.28 here).
    EXPECT_LT(after.log_z_error, 0.2) << name << ": logZ " << after.log_z;
  }
}

}  // namespace
}  // namespace gfn::core
