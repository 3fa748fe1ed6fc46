// The fused sampler (runtime/gfn/fast/fused_sampler.h) against the reference sampler
// (sampler.h): the same trajectories draw for draw and the generator left in the same state,
// on-policy and exploring, for grids whose trajectories run ~10 to ~60 steps; the same saved
// outputs and gradients through sample_trajectories_saving_outputs; the same losses and
// parameters when a Learner trains with engine.fused_sampler on and off. Also HyperGrid's
// row dynamics against its batched members, and the refusals.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gfn/env/row_dynamics.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/fused_sampler.h"
#include "runtime/gfn/fast/row_split.h"
#include "runtime/gfn/fast/saved_outputs_evaluator.h"
#include "runtime/gfn/fast/saving_sampler.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"
#include "tests/runtime/gfn/fast/fast_test_support.h"

namespace gfn::core {
namespace {

using fast_test::expect_same_trajectories;

ModelOptions small_model(bool tied) {
  ModelOptions m;
  m.hidden_dim = 32;
  m.n_hidden = 2;
  m.tied = tied;
  return m;
}

// Random valid states of a grid: int64 [n, ndim] with coordinates in [0, height).
at::Tensor random_states(std::int64_t n, std::int64_t ndim, std::int64_t height) {
  at::Generator g = at::detail::createCPUGenerator(11);
  return at::randint(height, {n, ndim}, g, at::kLong);
}

TEST(HyperGridRowDynamics, AgreeWithTheBatchedMembers) {
  const auto env = fast_test::grid(3, 5);
  const RowDynamics* rows = env->row_dynamics();
  ASSERT_NE(rows, nullptr);
  const at::Tensor states = random_states(200, 3, 5);
  const at::Tensor masks = env->forward_masks(states);
  const at::Tensor keys = env->state_indices(states);
  for (std::int64_t i = 0; i < states.size(0); ++i) {
    const at::Tensor row = states[i].contiguous();
    bool mask[4];
    rows->forward_mask(row.data_ptr<std::int64_t>(), mask);
    for (std::int64_t a = 0; a < 4; ++a) EXPECT_EQ(mask[a], masks[i][a].item<bool>()) << i;
    EXPECT_EQ(rows->key(row.data_ptr<std::int64_t>()), keys[i].item<std::int64_t>());
    for (std::int64_t a = 0; a < 3; ++a) {
      if (!mask[a]) continue;
      at::Tensor stepped = row.clone();
      rows->step(stepped.data_ptr<std::int64_t>(), a);
      const at::Tensor batched = env->step(row.view({1, 3}), at::full({1}, a, at::kLong));
      EXPECT_TRUE(torch::equal(stepped, batched[0])) << "state " << i << " action " << a;
    }
  }
  // unique() lists its rows in increasing key order, which the fused sampler relies on.
  const at::Tensor unique_keys = env->state_indices(env->unique(states).states);
  EXPECT_TRUE(torch::equal(unique_keys, std::get<0>(unique_keys.sort())));
}

struct SamplerCase {
  int ndim, height;
  double epsilon, temperature;
  bool record;
};

std::string name(const SamplerCase& c) {
  return std::to_string(c.ndim) + "-D h" + std::to_string(c.height) + " eps " +
         std::to_string(c.epsilon) + " T " + std::to_string(c.temperature) +
         (c.record ? "" : " (terminating states only)");
}

TEST(FusedSampler, SameTrajectoriesAndDrawsAsTheReference) {
  const SamplerCase cases[] = {{2, 8, 0, 1, true},   {4, 8, 0, 1, true},    {8, 8, 0, 1, true},
                               {8, 8, 0.1, 1, true}, {8, 8, 0, 0.75, true}, {4, 8, 0.3, 2, true},
                               {4, 8, 0, 0.7, true}, {4, 8, 0, 1, false}};
  for (const SamplerCase& c : cases) {
    SCOPED_TRACE(name(c));
    const auto env = fast_test::grid(c.ndim, c.height);
    const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
    torch::manual_seed(3);
    GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(false), false);
    SamplerOptions options;
    options.epsilon = c.epsilon;
    options.temperature = c.temperature;
    options.record_transitions = c.record;
    for (const std::int64_t n : {0, 1, 200}) {
      at::Generator g_ref = at::detail::createCPUGenerator(5);
      at::Generator g_fused = at::detail::createCPUGenerator(5);
      const Trajectories ref =
          sample_trajectories(*env, model_policy(model, *pre, *env), n, options, g_ref);
      const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady&) {
        return model.pf_logits((*pre)(s));
      };
      const Trajectories fused =
          sample_trajectories_fused(*env, *env->row_dynamics(), policy, n, options, g_fused);
      EXPECT_EQ(fused.states.defined(), c.record);
      if (c.record) {
        expect_same_trajectories(fused, ref);
      } else {
        EXPECT_TRUE(torch::equal(fused.terminating_states, ref.terminating_states));
        EXPECT_TRUE(torch::equal(fused.lengths, ref.lengths));
        EXPECT_TRUE(torch::equal(fused.log_rewards, ref.log_rewards));
      }
      // The generator is left where the reference leaves it.
      EXPECT_EQ(at::check_generator<at::CPUGeneratorImpl>(g_fused)->random64(),
                at::check_generator<at::CPUGeneratorImpl>(g_ref)->random64());
    }
  }
}

// With the draws' logs split over 2 and 3 threads (engine.split_rows): the same trajectories
// and generator state as the reference, on a batch whose steps have enough draws to split.
TEST(FusedSampler, DrawsSplitOverThreadsAreTheSameDraws) {
  const auto env = fast_test::grid(4, 8);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(3);
  GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(false), false);
  for (const int threads : {2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    at::Generator g_ref = at::detail::createCPUGenerator(8);
    at::Generator g_fused = at::detail::createCPUGenerator(8);
    const Trajectories ref = sample_trajectories(*env, model_policy(model, *pre, *env), 1024,
                                                 fast_test::off_policy(), g_ref);
    const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady&) {
      return model.pf_logits((*pre)(s));
    };
    const Trajectories fused =
        sample_trajectories_fused(*env, *env->row_dynamics(), policy, 1024, fast_test::off_policy(),
                                  g_fused, nullptr, threads);
    expect_same_trajectories(fused, ref);
    EXPECT_EQ(at::check_generator<at::CPUGeneratorImpl>(g_fused)->random64(),
              at::check_generator<at::CPUGeneratorImpl>(g_ref)->random64());
  }
  at::Generator g = at::detail::createCPUGenerator(8);
  const DistinctPolicy zeros = [&](const at::Tensor& s, const LogitsReady&) {
    return torch::zeros({s.size(0), env->n_actions()});
  };
  EXPECT_THROW(sample_trajectories_fused(*env, *env->row_dynamics(), zeros, 4, SamplerOptions{}, g,
                                         nullptr, 0),
               std::invalid_argument);
}

// A policy that hands its logits over in row ranges from several threads (LogitsReady, as the
// saving policy's forward does with engine.split_rows): the sampler computes those rows'
// probabilities there, and the trajectories stay the reference's, on-policy (the hand-over
// path) and exploring (epsilon: the probabilities after the call); a policy handing over only
// some rows gets the rest after the call; every call sees its distinct states in increasing
// key order. Wrong logits handed over are refused.
TEST(FusedSampler, LogitsHandedOverInRowRangesSampleTheSame) {
  const auto env = fast_test::grid(4, 8);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(4);
  GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(false), false);
  SamplerOptions cooled;
  cooled.temperature = 2.0;
  const RowDynamics& keys = *env->row_dynamics();
  int handed_over = 0, unordered = 0;
  for (const bool all_rows : {true, false}) {
    for (const SamplerOptions& options : {SamplerOptions{}, cooled, fast_test::off_policy()}) {
      for (const int threads : {1, 2, 3}) {
        SCOPED_TRACE(std::to_string(threads) + " threads, epsilon " +
                     std::to_string(options.epsilon) + (all_rows ? ", all rows" : ", some rows"));
        const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady& ready) {
          // The contract: distinct states in increasing key order.
          const at::Tensor rows = s.contiguous();
          for (std::int64_t i = 1; i < rows.size(0); ++i) {
            const std::int64_t* row = rows.data_ptr<std::int64_t>() + i * rows.size(1);
            if (!(keys.key(row - rows.size(1)) < keys.key(row))) ++unordered;
          }
          at::Tensor logits = model.pf_logits((*pre)(s)).contiguous();
          auto ranges = row_ranges(s.size(0), threads, 1);
          if (!all_rows && ranges.size() > 1) ranges.pop_back();
          run_row_parts(ranges, [&](std::size_t, RowRange r) { ready(r, logits); });
          handed_over += static_cast<int>(ranges.size());
          return logits;
        };
        at::Generator g_ref = at::detail::createCPUGenerator(9);
        at::Generator g_fused = at::detail::createCPUGenerator(9);
        const Trajectories ref =
            sample_trajectories(*env, model_policy(model, *pre, *env), 1024, options, g_ref);
        expect_same_trajectories(sample_trajectories_fused(*env, *env->row_dynamics(), policy, 1024,
                                                           options, g_fused, nullptr, threads),
                                 ref);
        EXPECT_EQ(at::check_generator<at::CPUGeneratorImpl>(g_fused)->random64(),
                  at::check_generator<at::CPUGeneratorImpl>(g_ref)->random64());
      }
    }
  }
  EXPECT_GT(handed_over, 0);
  EXPECT_EQ(unordered, 0);
  const DistinctPolicy nan_rows = [&](const at::Tensor& s, const LogitsReady& ready) {
    at::Tensor logits = at::full({s.size(0), env->n_actions()}, std::nanf(""));
    run_row_parts(row_ranges(s.size(0), 2, 1), [&](std::size_t, RowRange r) { ready(r, logits); });
    return at::zeros({s.size(0), env->n_actions()});
  };
  const DistinctPolicy narrow_rows = [&](const at::Tensor& s, const LogitsReady& ready) {
    ready(RowRange{0, s.size(0)}, at::zeros({s.size(0), env->n_actions() - 1}));
    return at::zeros({s.size(0), env->n_actions()});
  };
  at::Generator g = at::detail::createCPUGenerator(9);
  EXPECT_THROW(sample_trajectories_fused(*env, *env->row_dynamics(), nan_rows, 64, SamplerOptions{},
                                         g, nullptr, 2),
               std::invalid_argument);
  EXPECT_THROW(
      sample_trajectories_fused(*env, *env->row_dynamics(), narrow_rows, 64, SamplerOptions{}, g),
      std::invalid_argument);
}

// DiscreteEBM: a state space unlike HyperGrid's (s0 cannot exit, 2 * ndim + 1 actions).
TEST(FusedSampler, SameTrajectoriesOnDiscreteEbm) {
  const auto env = fast_test::ebm(6);
  ASSERT_NE(env->row_dynamics(), nullptr);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(6);
  GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(true), false);
  for (const SamplerOptions& options : {SamplerOptions{}, fast_test::off_policy()}) {
    at::Generator g_ref = at::detail::createCPUGenerator(2);
    at::Generator g_fused = at::detail::createCPUGenerator(2);
    const Trajectories ref =
        sample_trajectories(*env, model_policy(model, *pre, *env), 100, options, g_ref);
    const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady&) {
      return model.pf_logits((*pre)(s));
    };
    expect_same_trajectories(
        sample_trajectories_fused(*env, *env->row_dynamics(), policy, 100, options, g_fused), ref);
  }
}

// Trajectories long enough to matter: 8-D h8 from a random network runs tens of steps.
TEST(FusedSampler, TheComparedTrajectoriesRunManySteps) {
  const auto env = fast_test::grid(8, 8);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(3);
  GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(false), false);
  at::Generator g = at::detail::createCPUGenerator(5);
  const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady&) {
    return model.pf_logits((*pre)(s));
  };
  const Trajectories t =
      sample_trajectories_fused(*env, *env->row_dynamics(), policy, 200, SamplerOptions{}, g);
  EXPECT_GE(t.lengths.max().item<std::int64_t>(), 10);
  EXPECT_GT(t.n_transitions(), 1000);
}

TEST(FusedSampler, RefusesBadInput) {
  const auto env = fast_test::grid(3, 5);
  const RowDynamics& rows = *env->row_dynamics();
  at::Generator g = at::detail::createCPUGenerator(5);
  const DistinctPolicy zeros = [](const at::Tensor& s, const LogitsReady&) {
    return at::zeros({s.size(0), 4});
  };
  const DistinctPolicy wrong = [](const at::Tensor& s, const LogitsReady&) {
    return at::zeros({s.size(0), 3});
  };
  const DistinctPolicy nan = [](const at::Tensor& s, const LogitsReady&) {
    return at::full({s.size(0), 4}, std::nanf(""));
  };
  SamplerOptions bad;
  bad.epsilon = 2;
  EXPECT_THROW(sample_trajectories_fused(*env, rows, zeros, -1, SamplerOptions{}, g),
               std::invalid_argument);
  EXPECT_THROW(sample_trajectories_fused(*env, rows, zeros, 4, bad, g), std::invalid_argument);
  EXPECT_THROW(sample_trajectories_fused(*env, rows, wrong, 4, SamplerOptions{}, g),
               std::invalid_argument);
  EXPECT_THROW(sample_trajectories_fused(*env, rows, nan, 4, SamplerOptions{}, g),
               std::invalid_argument);
  SamplerOptions no_record;
  no_record.record_transitions = false;
  std::vector<std::int64_t> distinct;
  EXPECT_THROW(sample_trajectories_fused(*env, rows, zeros, 4, no_record, g, &distinct),
               std::invalid_argument);
  EXPECT_NO_THROW(sample_trajectories_fused(*env, rows, zeros, 4, SamplerOptions{}, g));
}

std::vector<at::Tensor> tb_gradients(GFlowNetModel& model, const Environment& env,
                                     const Preprocessor& pre, const Trajectories& t) {
  const auto loss = make_loss(LossKind::kTB);
  model.zero_grad();
  loss->evaluate(env, t, saved_outputs_evaluator(t, model, pre, env), model.log_z())
      .loss.backward();
  std::vector<at::Tensor> g;
  for (const auto& p : model.parameters()) {
    if (p.grad().defined()) g.push_back(p.grad().clone());
  }
  return g;
}

// sample_trajectories_saving_outputs with fused on and off: the same batch, the same saved
// outputs and the same TB gradients, bit for bit (the same GEMMs on the same rows in the
// same order).
TEST(FusedSampler, SavesTheSameOutputsAsTheReferenceLoop) {
  const auto env = fast_test::grid(4, 8);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  for (const bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    torch::manual_seed(4);
    GFlowNetModel model(pre->output_dim(), env->n_actions(), small_model(tied), false);
    Trajectories batch[2];
    std::vector<at::Tensor> grads[2];
    for (int fused = 0; fused < 2; ++fused) {
      at::Generator g = at::detail::createCPUGenerator(9);
      batch[fused] = sample_trajectories_saving_outputs(
          *env, model_saving_policy(model, *pre, *env, MlpKernels{}), 128, fast_test::off_policy(),
          g, fused == 1);
      grads[fused] = tb_gradients(model, *env, *pre, batch[fused]);
    }
    expect_same_trajectories(batch[1], batch[0]);
    EXPECT_TRUE(torch::equal(batch[1].saved_pf_logits, batch[0].saved_pf_logits));
    EXPECT_EQ(batch[1].saved_pb_logits.defined(), tied);
    if (tied) {
      EXPECT_TRUE(torch::equal(batch[1].saved_pb_logits, batch[0].saved_pb_logits));
    }
    ASSERT_EQ(grads[1].size(), grads[0].size());
    ASSERT_FALSE(grads[0].empty());
    for (std::size_t k = 0; k < grads[0].size(); ++k) {
      EXPECT_TRUE(torch::equal(grads[1][k], grads[0][k])) << "parameter " << k;
    }
  }
}

// The whole path: a Learner on a grid above the state table's limit trains identically with
// the fused sampler on and off (losses and parameters after every step), exploring too.
TEST(FusedSampler, LearnerTrainsIdenticallyWithAndWithoutIt) {
  EnvOptions eo;
  eo.get<HyperGridOptions>().ndim = 3;
  eo.get<HyperGridOptions>().height = 10;
  TrainOptions to;
  to.temperature = 0.75;
  to.epsilon = 0.05;
  std::vector<double> losses[2];
  std::vector<at::Tensor> params[2];
  for (int fused = 0; fused < 2; ++fused) {
    EngineOptions engine;
    engine.fused_sampler = fused == 1;
    Learner learner(eo, small_model(true), to, 7, buffer::ReplayOptions{}, engine);
    EXPECT_EQ(learner.plan().evaluator, EvaluatorKind::kSavedOutputs);
    EXPECT_EQ(learner.plan().report.at("fused_sampler"), fused ? "on" : "off");
    for (int i = 0; i < 5; ++i) losses[fused].push_back(learner.train_iteration(64).loss);
    for (const auto& p : learner.model().parameters()) params[fused].push_back(p.clone());
  }
  EXPECT_EQ(losses[1], losses[0]);
  ASSERT_EQ(params[1].size(), params[0].size());
  for (std::size_t k = 0; k < params[0].size(); ++k) {
    EXPECT_TRUE(torch::equal(params[1][k], params[0][k])) << "parameter " << k;
  }
}

TEST(FusedSampler, EnginePathSaysWhenItIsUnused) {
  EnvOptions small;  // 2-D h8: the state table samples
  small.get<HyperGridOptions>().ndim = 2;
  small.get<HyperGridOptions>().height = 8;
  Learner table(small, small_model(false), TrainOptions{}, 7, buffer::ReplayOptions{},
                EngineOptions{});
  EXPECT_EQ(table.plan().report.at("fused_sampler"), "unused");
  EngineOptions reference;
  reference.reuse_logprobs = false;
  reference.state_table = StateTableMode::kOff;
  Learner recompute(small, small_model(false), TrainOptions{}, 7, buffer::ReplayOptions{},
                    reference);
  EXPECT_EQ(recompute.plan().report.at("fused_sampler"), "unused");
}

}  // namespace
}  // namespace gfn::core
