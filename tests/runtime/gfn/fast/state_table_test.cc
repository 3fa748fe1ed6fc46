#include "runtime/gfn/fast/state_table.h"
#include "runtime/gfn/env/env_options.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/gfn/env/discrete_ebm.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "tests/runtime/gfn/fast/fast_test_support.h"

namespace gfn::core {
namespace {

using fast_test::ebm;
using fast_test::expect_same_trajectories;
using fast_test::grid;
using fast_test::off_policy;

// The table sampler must reproduce sample_trajectories draw for draw when both see the
// same logits (here: a fixed random logits table, gathered per row for the generic one).
TEST(StateTable, SamplerMatchesGenericSamplerDrawForDraw) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(grid(3, 4));
  envs.push_back(ebm(4));
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    torch::manual_seed(3);
    const at::Tensor logits = 2.0 * torch::randn({env.n_states(), env.n_actions()});
    const PolicyFunction policy = [&](const at::Tensor& s) {
      return logits.index_select(0, env.state_indices(s));
    };
    for (const SamplerOptions& opts : {SamplerOptions{}, off_policy()}) {
      at::Generator g1 = at::detail::createCPUGenerator(11);
      at::Generator g2 = at::detail::createCPUGenerator(11);
      const Trajectories generic = sample_trajectories(env, policy, 300, opts, g1);
      const at::Tensor probs =
          action_probabilities(logits, env.forward_masks(env.all_states()), opts);
      const Trajectories table = sample_trajectories_from_table(space, probs, 300, opts, g2);
      SCOPED_TRACE(env.name() + " states " + std::to_string(env.n_states()) + " epsilon " +
                   std::to_string(opts.epsilon));
      expect_same_trajectories(generic, table);
      // Both generators advanced identically.
      EXPECT_TRUE(torch::equal(at::rand({4}, g1), at::rand({4}, g2)));
    }
  }
}

TEST(StateTable, SamplerRejectsBadInput) {
  const auto env_ptr = grid(2, 4);
  const Environment& env = *env_ptr;
  const auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  const StateSpace space(env, *pre, /*plain_loops=*/true);
  at::Generator g = at::detail::createCPUGenerator(1);
  const at::Tensor probs = torch::full({16, 3}, 1.0 / 3);
  EXPECT_THROW(sample_trajectories_from_table(space, probs, -1, {}, g), std::invalid_argument);
  EXPECT_THROW(sample_trajectories_from_table(space, probs.narrow(0, 0, 15), 4, {}, g),
               std::invalid_argument);
  EXPECT_THROW(sample_trajectories_from_table(space, probs.to(torch::kDouble), 4, {}, g),
               std::invalid_argument);
  const Trajectories none = sample_trajectories_from_table(space, probs, 0, {}, g);
  EXPECT_EQ(none.n_transitions(), 0);
}

struct Grads {
  at::Tensor loss;
  std::vector<at::Tensor> grads;
};

// table_log_probs gives transition_log_probs' values and gradients (on-policy batch and
// a "replayed" batch from another policy), checked through the TB loss.
TEST(StateTable, TableLogProbsEqualTransitionLogProbs) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    core::ModelOptions mo;
    mo.hidden_dim = 32;
    torch::manual_seed(6);
    GFlowNetModel model(pre->output_dim(), env.n_actions(), mo, /*with_log_flow=*/true);
    at::Generator gen = at::detail::createCPUGenerator(4);
    const PolicyFunction uniform = [&](const at::Tensor& s) {
      return torch::zeros({s.size(0), env.n_actions()});
    };
    for (int replayed = 0; replayed < 2; ++replayed) {
      SCOPED_TRACE(env.name() + " replayed " + std::to_string(replayed));
      const StateTable table = evaluate_state_table(model, space, {}, true);
      const Trajectories trajs =
          replayed ? sample_trajectories(env, uniform, 48, {}, gen)
                   : sample_trajectories_from_table(space, table.probs, 48, {}, gen);
      const TransitionLogProbs a = table_log_probs(table, space, trajs);
      const TransitionLogProbs b =
          transition_log_probs(env, trajs, model_evaluator(model, *pre, env));
      EXPECT_TRUE(torch::allclose(a.log_pf, b.log_pf, 1e-5, 1e-6));
      EXPECT_TRUE(torch::allclose(a.log_pb, b.log_pb, 1e-5, 1e-6));
      EXPECT_TRUE(torch::allclose(a.log_pf_exit, b.log_pf_exit, 1e-5, 1e-6));
      EXPECT_TRUE(torch::allclose(a.log_flow, b.log_flow, 1e-5, 1e-6));
      std::vector<at::Tensor> grads[2];
      for (int k = 0; k < 2; ++k) {
        model.zero_grad();
        const TransitionLogProbs& lp = k == 0 ? a : b;
        const at::Tensor loss = trajectory_balance(trajs, lp, model.log_z()) + lp.log_flow.sum();
        loss.backward(/*gradient=*/{}, /*retain_graph=*/true);
        for (const auto& p : model.parameters()) grads[k].push_back(p.grad().clone());
      }
      for (std::size_t i = 0; i < grads[0].size(); ++i) {
        EXPECT_TRUE(torch::allclose(grads[0][i], grads[1][i], 1e-4, 1e-6)) << "parameter " << i;
        EXPECT_FALSE(grads[0][i].isnan().any().item<bool>());
      }
    }
  }
}

// Every element of a within rel * max|b| of b (1e-5 relative to the gradient's scale:
// the hand-written backward sums in another GEMM layout than autograd).
::testing::AssertionResult near_relative(const at::Tensor& a, const at::Tensor& b, double rel) {
  const double scale = b.abs().max().item<double>();
  const double diff = (a - b).abs().max().item<double>();
  if (diff <= rel * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max diff " << diff << " > " << rel << " * " << scale;
}

// The state table's hand-written backward (one RecordedMlp node, gradients written into
// .grad) gives the loss and every parameter gradient of the autograd table
// (model.forward), for all six losses (TB also through table_log_probs), tied and untied
// trunks, learned and uniform PB, with and without NoisyNet layers, on HyperGrid and
// DiscreteEBM; the table values are bit-identical. Gradients accumulate into existing
// ones like autograd's (second backward without zero_grad doubles them).
TEST(StateTable, ManualBackwardEqualsAutograd) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  int checked = 0;
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    for (const auto& [kind, name_text] : kLossKindNames) {
      const std::string name = name_text;
      if (name == "modified_db" && !env.every_state_terminates()) continue;
      const auto loss = make_loss(kind);
      // untied, tied, uniform PB, tied + NoisyNet, untied + NoisyNet
      for (int variant = 0; variant < 5; ++variant) {
        core::ModelOptions mo;
        mo.hidden_dim = 32;
        mo.n_hidden = 3;
        mo.tied = variant == 1 || variant == 3;
        mo.uniform_pb = variant == 2;
        mo.n_noisy_layers = variant >= 3 ? 2 : 0;
        torch::manual_seed(8);
        GFlowNetModel model(pre->output_dim(), env.n_actions(), mo, loss->needs_log_flow());
        {
          torch::NoGradGuard no_grad;
          model.log_z().fill_(0.3);
        }
        if (model.noisy()) {
          at::Generator noise = at::detail::createCPUGenerator(2);
          model.reset_noise(noise);
        }
        at::Generator gen = at::detail::createCPUGenerator(31);
        const Trajectories trajs = sample_trajectories_from_table(
            space, evaluate_state_table(model, space, {}, false).probs, 64, {}, gen);
        SCOPED_TRACE(env.name() + " " + name + " variant " + std::to_string(variant));
        for (int via_log_probs = 0; via_log_probs < (name == "tb" ? 2 : 1); ++via_log_probs) {
          Grads result[2];
          StateTable tables[2];
          for (int manual = 0; manual < 2; ++manual) {
            tables[manual] = evaluate_state_table(model, space, {}, manual == 1);
            const StateTable& t = tables[manual];
            model.zero_grad();
            result[manual].loss =
                via_log_probs
                    ? trajectory_balance(trajs, table_log_probs(t, space, trajs), model.log_z())
                    : loss->evaluate(env, trajs, table_evaluator(t, space), model.log_z()).loss;
            result[manual].loss.backward();
            for (const auto& p : model.parameters()) {
              result[manual].grads.push_back(p.grad().defined() ? p.grad().clone()
                                                                : torch::zeros_like(p));
            }
          }
          EXPECT_TRUE(torch::equal(tables[0].outputs.pf_logits, tables[1].outputs.pf_logits));
          EXPECT_TRUE(torch::equal(tables[0].outputs.pb_logits, tables[1].outputs.pb_logits));
          EXPECT_TRUE(torch::equal(tables[0].probs, tables[1].probs));
          EXPECT_EQ(tables[0].outputs.log_flow.defined(), tables[1].outputs.log_flow.defined());
          if (tables[0].outputs.log_flow.defined()) {
            EXPECT_TRUE(torch::equal(tables[0].outputs.log_flow, tables[1].outputs.log_flow));
          }
          EXPECT_TRUE(near_relative(result[1].loss, result[0].loss, 1e-5));
          ASSERT_EQ(result[0].grads.size(), result[1].grads.size());
          double total = 0;  // the comparison is not vacuous
          for (std::size_t i = 0; i < result[0].grads.size(); ++i) {
            EXPECT_TRUE(near_relative(result[1].grads[i], result[0].grads[i], 1e-5))
                << "parameter " << i;
            total += result[0].grads[i].abs().sum().item<double>();
            ++checked;
          }
          EXPECT_GT(total, 0.0);
        }
        // Undefined gradients are created; a second backward on top of the first one's
        // gradients (no zero_grad) doubles them, as autograd's accumulation.
        for (auto& p : model.parameters()) p.mutable_grad() = at::Tensor();
        std::vector<at::Tensor> once;
        for (int rep = 0; rep < 2; ++rep) {
          const StateTable t = evaluate_state_table(model, space, {}, true);
          loss->evaluate(env, trajs, table_evaluator(t, space), model.log_z()).loss.backward();
          std::size_t i = 0;
          for (const auto& p : model.parameters()) {
            if (rep == 0) {
              once.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
            } else if (p.grad().defined()) {
              EXPECT_TRUE(near_relative(p.grad(), 2 * once[i], 1e-6)) << "parameter " << i;
            }
            ++i;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
}

// The hand-written backward refuses parameters modified in place after the table's
// forward (its stand-in for autograd's saved-variable version check).
TEST(StateTable, ManualBackwardRefusesParametersModifiedInPlace) {
  const auto env = grid(2, 4);
  const auto pre = make_preprocessor(PreprocessorKind::kKHot, *env);
  const StateSpace space(*env, *pre, /*plain_loops=*/true);
  core::ModelOptions mo;
  mo.hidden_dim = 16;
  GFlowNetModel model(pre->output_dim(), env->n_actions(), mo);
  const StateTable table = evaluate_state_table(model, space, {}, true);
  {
    torch::NoGradGuard no_grad;
    model.named_parameters()["pf_trunk.0.weight"].add_(1.0);
  }
  EXPECT_ANY_THROW(table.outputs.pf_logits.sum().backward());
}

// table_trajectory_balance's fused node (TableTrajectoryBalanceNode) gives the loss and
// every parameter gradient (logZ included) of the unfused table path (table_log_probs'
// node + trajectory_balance) and of autograd on the table, within 1e-6 relative, on
// on- and off-policy batches, for untied / tied / uniform-PB / NoisyNet models; a second
// backward accumulates; bad input is refused.
TEST(StateTable, FusedTrajectoryBalanceEqualsUnfused) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  int checked = 0, identical = 0;
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    for (int variant = 0; variant < 5; ++variant) {
      core::ModelOptions mo;
      mo.hidden_dim = 32;
      mo.n_hidden = 2;
      mo.tied = variant == 1 || variant == 3;
      mo.uniform_pb = variant == 2;
      mo.n_noisy_layers = variant >= 3 ? 2 : 0;
      torch::manual_seed(5 + variant);
      GFlowNetModel model(pre->output_dim(), env.n_actions(), mo);
      {
        torch::NoGradGuard no_grad;
        model.log_z().fill_(-0.7);
      }
      if (model.noisy()) {
        at::Generator noise = at::detail::createCPUGenerator(4);
        model.reset_noise(noise);
      }
      for (const bool off : {false, true}) {
        at::Generator gen = at::detail::createCPUGenerator(17 + variant);
        const SamplerOptions so = off ? off_policy() : SamplerOptions{};
        const Trajectories trajs = sample_trajectories_from_table(
            space, evaluate_state_table(model, space, so, false).probs, 48, so, gen);
        SCOPED_TRACE(env.name() + " variant " + std::to_string(variant) +
                     (off ? " off-policy" : " on-policy"));
        // 0: autograd table + trajectory_balance, 1: manual table unfused, 2: fused.
        Grads result[3];
        for (int path = 0; path < 3; ++path) {
          const StateTable t = evaluate_state_table(model, space, so, path > 0);
          model.zero_grad();
          result[path].loss =
              table_trajectory_balance(t, space, trajs, model.log_z(), /*fused=*/path == 2);
          result[path].loss.backward();
          for (const auto& p : model.parameters()) {
            result[path].grads.push_back(p.grad().defined() ? p.grad().clone()
                                                            : torch::zeros_like(p));
          }
        }
        for (int path = 0; path < 2; ++path) {
          EXPECT_TRUE(near_relative(result[2].loss, result[path].loss, 1e-6)) << "path " << path;
          ASSERT_EQ(result[2].grads.size(), result[path].grads.size());
          double total = 0;  // the comparison is not vacuous
          for (std::size_t i = 0; i < result[2].grads.size(); ++i) {
            EXPECT_TRUE(near_relative(result[2].grads[i], result[path].grads[i], 1e-6))
                << "path " << path << " parameter " << i;
            total += result[path].grads[i].abs().sum().item<double>();
            ++checked;
            if (path == 1 && torch::equal(result[2].grads[i], result[1].grads[i])) ++identical;
          }
          EXPECT_GT(total, 0.0);
        }
        // logZ has a gradient.
        EXPECT_TRUE(model.log_z().grad().defined());
        EXPECT_NE(model.log_z().grad().item<float>(), 0.0f);
        // A second backward on top of the first one's gradients doubles them.
        const StateTable t = evaluate_state_table(model, space, so, true);
        table_trajectory_balance(t, space, trajs, model.log_z(), true).backward();
        std::size_t i = 0;
        for (const auto& p : model.parameters()) {
          if (p.grad().defined()) {
            EXPECT_TRUE(near_relative(p.grad(), 2 * result[2].grads[i], 1e-6)) << "parameter " << i;
          }
          ++i;
        }
      }
    }
    // Bad input: trajectories without recorded transitions, a non-scalar logZ.
    GFlowNetModel model(pre->output_dim(), env.n_actions(), core::ModelOptions{});
    const StateTable t = evaluate_state_table(model, space, {}, true);
    at::Generator gen = at::detail::createCPUGenerator(3);
    SamplerOptions no_record;
    no_record.record_transitions = false;
    const Trajectories bare = sample_trajectories_from_table(space, t.probs, 4, no_record, gen);
    EXPECT_THROW(table_trajectory_balance(t, space, bare, model.log_z(), true),
                 std::invalid_argument);
    const Trajectories ok = sample_trajectories_from_table(space, t.probs, 4, {}, gen);
    EXPECT_THROW(table_trajectory_balance(t, space, ok, at::zeros({2}), true),
                 std::invalid_argument);
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(identical, 0);
}

// add_column_sums (the bias gradients of the hand-written backward) is bit-identical to
// acc.add_(dy.sum(0)) for row counts below, at and above ATen's cascade block (16 rows),
// widths with and without vector tails, and values of very different magnitudes (so the
// summation order matters: a plain sequential sum differs somewhere, checked too).
TEST(StateTable, PlainLoopsColumnSumsBitIdenticalToAten) {
  torch::manual_seed(3);
  int order_sensitive = 0;
  for (const auto& shape : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 5},
                                                                              {15, 3},
                                                                              {16, 8},
                                                                              {17, 37},
                                                                              {64, 2},
                                                                              {64, 3},
                                                                              {64, 256},
                                                                              {300, 16},
                                                                              {1026, 9},
                                                                              {70000, 3}}) {
    const std::int64_t m = shape.first, n = shape.second;
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    const at::Tensor dy = torch::randn({m, n}) * torch::exp(4 * torch::randn({m, n}));
    const at::Tensor start = torch::randn({n});
    at::Tensor acc = start.clone();
    if (m * n >= 32768 && at::get_num_threads() > 1) {  // ATen splits it across threads
      EXPECT_FALSE(add_column_sums(acc, dy));
      continue;
    }
    ASSERT_TRUE(add_column_sums(acc, dy));
    const at::Tensor ref = start.clone().add_(dy.sum(0));
    EXPECT_TRUE(torch::equal(acc, ref));
    at::Tensor sequential = torch::zeros({n});
    for (std::int64_t i = 0; i < m; ++i) sequential += dy[i];
    if (!torch::equal(start + sequential, ref)) ++order_sensitive;
  }
  EXPECT_GT(order_sensitive, 0);
  at::Tensor acc = torch::zeros({4});
  EXPECT_FALSE(add_column_sums(acc, torch::ones({3, 4}, torch::kDouble)));
  EXPECT_FALSE(add_column_sums(acc, torch::ones({4, 3}).t()));  // not contiguous
  EXPECT_FALSE(add_column_sums(acc, torch::ones({3, 5})));      // wrong width
  EXPECT_TRUE(torch::equal(acc, torch::zeros({4})));
}

// StateSpace::state_indices (linear formula checked against the state table) equals
// env.state_indices on every state and on a shuffled batch, with and without plain loops
// (engine.plain_loops); a state outside the table gets the environment's own answer.
TEST(StateTable, StateSpaceIndicesEqualEnvironment) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(grid(3, 5));
  envs.push_back(ebm(4));
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    SCOPED_TRACE(env.name());
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    EXPECT_TRUE(space.has_linear_index());
    const at::Tensor all = env.all_states();
    const at::Tensor batch = all.index_select(0, torch::randint(all.size(0), {500}, torch::kLong));
    for (const bool loops : {true, false}) {
      const StateSpace sp(env, *pre, loops);
      EXPECT_TRUE(torch::equal(sp.state_indices(all), env.state_indices(all)));
      EXPECT_TRUE(torch::equal(sp.state_indices(batch), env.state_indices(batch)));
      std::vector<std::int64_t> rows = {3, 0, 7, 3};
      EXPECT_TRUE(torch::equal(sp.gather_states(rows),
                               all.index_select(0, torch::tensor(rows, torch::kLong))));
    }
    // A state outside the table: the environment's own answer (the loop's check fails).
    const at::Tensor outside = torch::full({2, all.size(1)}, 99, torch::kLong);
    EXPECT_TRUE(torch::equal(space.state_indices(outside), env.state_indices(outside)));
  }
}

// The plain-loop fast paths (engine.plain_loops, runtime/gfn/fast/plain_loops.h) against the ATen
// ops they replace, on the fused TB path of the table: the MLP forward (bias rows +
// addmm_out, ReLU loop) gives bit-identical tables, the bias-gradient loops bit-identical
// gradients; the fused TB node's mean (double accumulation) the loss within float rounding. A
// hidden width of 37 exercises the vector loops' tails; tied, uniform-PB and NoisyNet models the
// other layouts.
TEST(StateTable, PlainLoopsEqualAtenOps) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  int checked = 0;
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = make_preprocessor(
        env.name() == "hypergrid" ? PreprocessorKind::kKHot : PreprocessorKind::kIdentity, env);
    const StateSpace space(env, *pre, /*plain_loops=*/true);
    const StateSpace aten_space(env, *pre, /*plain_loops=*/false);
    for (int variant = 0; variant < 4; ++variant) {
      core::ModelOptions mo;
      mo.hidden_dim = 37;
      mo.n_hidden = 3;
      mo.tied = variant == 1;
      mo.uniform_pb = variant == 2;
      mo.n_noisy_layers = variant == 3 ? 2 : 0;
      torch::manual_seed(21 + variant);
      GFlowNetModel model(pre->output_dim(), env.n_actions(), mo);
      {
        torch::NoGradGuard no_grad;
        model.log_z().fill_(0.4);
      }
      if (model.noisy()) {
        at::Generator noise = at::detail::createCPUGenerator(6);
        model.reset_noise(noise);
      }
      at::Generator gen = at::detail::createCPUGenerator(41 + variant);
      const Trajectories trajs = sample_trajectories_from_table(
          space, evaluate_state_table(model, space, {}, true).probs, 96, {}, gen);
      SCOPED_TRACE(env.name() + " variant " + std::to_string(variant));
      Grads result[2];
      StateTable tables[2];
      for (int loops = 0; loops < 2; ++loops) {
        const StateSpace& sp = loops ? space : aten_space;
        tables[loops] = evaluate_state_table(model, sp, {}, true);
        model.zero_grad();
        result[loops].loss =
            table_trajectory_balance(tables[loops], sp, trajs, model.log_z(), true);
        result[loops].loss.backward();
        for (const auto& p : model.parameters()) {
          result[loops].grads.push_back(p.grad().defined() ? p.grad().clone()
                                                           : torch::zeros_like(p));
        }
      }
      EXPECT_TRUE(torch::equal(tables[0].outputs.pf_logits, tables[1].outputs.pf_logits));
      EXPECT_TRUE(torch::equal(tables[0].outputs.pb_logits, tables[1].outputs.pb_logits));
      EXPECT_TRUE(torch::equal(tables[0].probs, tables[1].probs));
      EXPECT_TRUE(near_relative(result[1].loss, result[0].loss, 1e-6));
      ASSERT_EQ(result[0].grads.size(), result[1].grads.size());
      double total = 0;  // the comparison is not vacuous
      for (std::size_t i = 0; i < result[0].grads.size(); ++i) {
        EXPECT_TRUE(torch::equal(result[1].grads[i], result[0].grads[i])) << "parameter " << i;
        total += result[0].grads[i].abs().sum().item<double>();
        ++checked;
      }
      EXPECT_GT(total, 0.0);
    }
  }
  EXPECT_GT(checked, 40);
}

// The Learner (FlatAdamW: gradients written into its flat buffer) trains alike with the
// hand-written table backward and with autograd (engine.table_backward): same
// sampled batches, losses and logZ up to float rounding over a few iterations.
TEST(StateTable, LearnerManualBackwardMatchesAutograd) {
  for (const bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    core::EnvOptions eo;
    eo.get<core::HyperGridOptions>().ndim = 2;
    eo.get<core::HyperGridOptions>().height = 8;
    core::ModelOptions mo;
    mo.hidden_dim = 64;
    mo.tied = tied;
    core::TrainOptions to;
    std::vector<double> losses[2], log_z[2];
    for (int manual = 0; manual < 2; ++manual) {
      core::EngineOptions engine;
      engine.table_backward =
          manual == 1 ? core::TableBackward::kManual : core::TableBackward::kAutograd;
      Learner learner(eo, mo, to, 9, buffer::ReplayOptions{}, engine);
      EXPECT_EQ(learner.plan().report.at("table_backward"), manual == 1 ? "manual" : "autograd");
      ASSERT_EQ(learner.plan().evaluator, EvaluatorKind::kStateTable);
      for (int i = 0; i < 6; ++i) {
        const IterationResult r = learner.train_iteration(64);
        losses[manual].push_back(r.loss);
        log_z[manual].push_back(r.log_z);
      }
    }
    for (int i = 0; i < 6; ++i) {
      EXPECT_NEAR(losses[1][i], losses[0][i], 1e-5 * (1 + std::abs(losses[0][i]))) << i;
      EXPECT_NEAR(log_z[1][i], log_z[0][i], 1e-6) << i;
    }
  }
}

TEST(StateTable, EnabledOnlyForSmallEnumerableEnvironments) {
  constexpr auto kAuto = core::StateTableMode::kAuto;
  EXPECT_TRUE(state_table_enabled(*grid(2, 8), kAuto));   // 64 states
  EXPECT_FALSE(state_table_enabled(*grid(4, 8), kAuto));  // 4096 states
  EXPECT_TRUE(state_table_enabled(*ebm(5), kAuto));       // 243 states
  EXPECT_FALSE(state_table_enabled(*ebm(6), kAuto));      // 729 states
  EXPECT_FALSE(state_table_enabled(*grid(2, 8), core::StateTableMode::kOff));
}

}  // namespace
}  // namespace gfn::core
