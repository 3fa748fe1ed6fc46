// Local Search GFlowNets (runtime/gfn/local_search.h): forward completion against the
// sampler, a search round against a hand computation with deterministic policies, the
// Metropolis-Hastings ratio against its formula and losses.h's log-probabilities, and the
// Learner's batch composition with every evaluator.
#include "runtime/gfn/local_search.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

HyperGrid grid(int ndim, int height, double r0 = 0.1) {
  EnvOptions o;
  auto& g = o.get<HyperGridOptions>();
  g.ndim = ndim;
  g.height = height;
  g.R0 = r0;
  return HyperGrid(g);
}

/// A fixed, state-dependent policy (not uniform), for draws that depend on the state.
PolicyFunction wavy_policy(std::int64_t n_out) {
  return [n_out](const at::Tensor& s) {
    const at::Tensor x = s.to(at::kFloat).sum(1, true);
    return torch::sin(x * torch::arange(1, n_out + 1, torch::kFloat) * 0.7);
  };
}

/// Logits that choose `preferred` whenever it is allowed (log-softmax ~ 0 for it).
PolicyFunction prefer(std::int64_t n_out, std::int64_t preferred) {
  return [n_out, preferred](const at::Tensor& s) {
    at::Tensor l = torch::zeros({s.size(0), n_out});
    l.select(1, preferred).fill_(1000.0);
    return l;
  };
}

TEST(LocalSearch, ForwardActionsFromS0DrawWhatTheSamplerDraws) {
  const HyperGrid env = grid(3, 5);
  SamplerOptions o;
  o.epsilon = 0.2;
  o.temperature = 1.5;
  at::Generator g1 = at::detail::createCPUGenerator(11), g2 = at::detail::createCPUGenerator(11);
  const Trajectories t = sample_trajectories(env, wavy_policy(env.n_actions()), 300, o, g1);
  const buffer::PackedTrajectories f =
      sample_forward_actions(env, wavy_policy(env.n_actions()), env.initial_states(300), o, g2);
  EXPECT_EQ(pack_trajectories(t), f);
}

TEST(LocalSearch, ForwardActionsFromGivenStatesEndWhereTheyLead) {
  const HyperGrid env = grid(2, 6);
  at::Generator g = at::detail::createCPUGenerator(3);
  const at::Tensor starts = torch::tensor({0, 0, 5, 5, 2, 3, 5, 0}, torch::kLong).view({4, 2});
  const auto f = sample_forward_actions(env, wavy_policy(env.n_actions()), starts, {}, g);
  ASSERT_EQ(f.size(), 4);
  for (std::int64_t i = 0; i < 4; ++i) {
    const auto seq = f.sequence(i);
    ASSERT_FALSE(seq.empty());
    EXPECT_EQ(seq.back(), env.exit_action());
    at::Tensor s = starts.narrow(0, i, 1);
    for (std::size_t k = 0; k + 1 < seq.size(); ++k) {
      s = env.step(s, torch::tensor({seq[k]}, torch::kLong));  // throws if not allowed
    }
  }
  // (5, 5) is the top corner: only exit is allowed.
  EXPECT_EQ(f.sequence(1), std::vector<std::int64_t>{env.exit_action()});
}

TEST(LocalSearch, KeptActionsUndoCeilOfTheRatio) {
  const auto p = buffer::PackedTrajectories::from_sequences(
      {{2}, {0, 2}, {0, 1, 0, 1, 2}, {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2}});
  EXPECT_EQ(kept_actions(p, 0.5), (std::vector<std::int64_t>{0, 0, 2, 5}));
  EXPECT_EQ(kept_actions(p, 1.0), (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(kept_actions(p, 0.01), (std::vector<std::int64_t>{0, 0, 3, 9}));  // at least one
  const HyperGrid env = grid(2, 8);
  EXPECT_TRUE(torch::equal(states_after_prefixes(env, p, kept_actions(p, 0.5)),
                           torch::tensor({0, 0, 0, 0, 1, 1, 5, 0}, torch::kLong).view({4, 2})));
}

// PB always undoes dimension 0 first, PF always exits: from x = (a, b) the backward path is
// s0 -> (0, b) -> (a, b) (forward: b times action 1, then a times action 0), the junction keeps
// n - ceil(n / 2) of its n = a + b actions, and the proposal ends at the junction.
TEST(LocalSearch, RoundWithDeterministicPoliciesFollowsTheHandComputation) {
  const HyperGrid env = grid(2, 8);
  const std::vector<std::vector<std::int64_t>> xs = {{7, 7}, {3, 4}, {0, 5}, {2, 0}, {1, 6}};
  at::Tensor x = torch::empty({5, 2}, torch::kLong);
  std::vector<std::int64_t> ja, jb;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::int64_t a = xs[i][0], b = xs[i][1], n = a + b;
    x[static_cast<std::int64_t>(i)][0] = a;
    x[static_cast<std::int64_t>(i)][1] = b;
    const std::int64_t keep = n - (n + 1) / 2;
    jb.push_back(std::min(keep, b));
    ja.push_back(std::max<std::int64_t>(0, keep - b));
  }
  const at::Tensor junction =
      torch::stack({torch::tensor(ja, torch::kLong), torch::tensor(jb, torch::kLong)}, 1);
  LocalSearchOptions o;
  o.loops = 1;
  o.back_ratio = 0.5;
  at::Generator g = at::detail::createCPUGenerator(5);
  const at::Tensor log_r = env.log_reward(x);
  const LocalSearchRound r =
      local_search_round(env, prefer(3, 2), prefer(2, 0), x, log_r, o, {}, g);
  EXPECT_TRUE(torch::equal(r.proposals.terminating_states, junction));
  EXPECT_TRUE(torch::equal(r.proposals.lengths, junction.sum(1) + 1));
  const at::Tensor expect_accept = env.log_reward(junction) >= log_r;
  EXPECT_TRUE(torch::equal(r.accepted, expect_accept));
  EXPECT_TRUE(torch::equal(r.next_states, torch::where(expect_accept.unsqueeze(1), junction, x)));
  // Every proposal is a trajectory from s0 the environment accepts.
  EXPECT_TRUE(torch::equal(trajectories_from_actions(env, pack_trajectories(r.proposals)).states,
                           r.proposals.states));
}

TEST(LocalSearch, TrajectoryLogProbsEqualTheLossLogProbs) {
  EnvOptions e;
  e.get<HyperGridOptions>().ndim = 3;
  e.get<HyperGridOptions>().height = 5;
  ModelOptions m;
  m.hidden_dim = 32;
  Learner learner(e, m, TrainOptions{}, 4);
  const Environment& env = learner.env();
  at::Generator g = at::detail::createCPUGenerator(9);
  const PolicyFunction pf = model_policy(learner.model(), learner.preprocessor(), env);
  const PolicyFunction pb = model_backward_policy(learner.model(), learner.preprocessor(), env);
  const Trajectories t = sample_trajectories(env, pf, 64, {}, g);
  const TrajectoryLogProbs mine = trajectory_log_probs(env, pf, pb, t);
  torch::NoGradGuard no_grad;
  const TransitionLogProbs ref =
      transition_log_probs(learner.model(), learner.preprocessor(), env, t);
  const std::int64_t b = t.n_trajectories, n = t.n_transitions();
  const at::Tensor ref_pf = torch::zeros({b}).index_add_(0, t.traj_index, ref.log_pf);
  const at::Tensor ref_pb =
      torch::zeros({b}).index_add_(0, t.traj_index.narrow(0, b, n - b), ref.log_pb);
  EXPECT_TRUE(torch::allclose(mine.log_pf, ref_pf, 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(mine.log_pb, ref_pb, 1e-5, 1e-5));

  const at::Tensor lr = torch::tensor({0.5f, -1.0f, 2.0f}),
                   lr2 = torch::tensor({1.0f, -3.0f, 2.0f});
  const TrajectoryLogProbs a{torch::tensor({-2.0f, -1.0f, -4.0f}),
                             torch::tensor({-1.0f, 0.0f, -2.0f})};
  const TrajectoryLogProbs c{torch::tensor({-3.0f, -0.5f, -1.0f}),
                             torch::tensor({-0.5f, -1.0f, -3.0f})};
  // log R(x') + log PB(tau|x) + log PF(tau') - log R(x) - log PB(tau'|x') - log PF(tau), <= 0
  const at::Tensor expect =
      torch::tensor({std::min(0.0f, 1.0f - 1.0f - 3.0f - 0.5f + 0.5f + 2.0f),
                     std::min(0.0f, -3.0f + 0.0f - 0.5f + 1.0f + 1.0f + 1.0f),
                     std::min(0.0f, 2.0f - 2.0f - 1.0f - 2.0f + 3.0f + 4.0f)});
  EXPECT_TRUE(torch::allclose(log_acceptance_ratio(lr, a, lr2, c), expect));
}

// PB undoes dimension 0 first, so from x = (1, 6) the backward trajectory tau is known
// (forward: six times action 1, action 0, exit) and the junction is (0, 3); PF is uniform, so
// the proposals tau' vary. Each is accepted with probability exp(log_acceptance_ratio): the
// count of acceptances must match the sum of those probabilities. R0 = 0.5 makes x (a mode,
// R = 3) about six times likelier than most proposals.
TEST(LocalSearch, MetropolisHastingsAcceptsAtTheRatio) {
  const HyperGrid env = grid(2, 8, 0.5);
  const std::int64_t m = 3000;
  const at::Tensor x = torch::tensor({1, 6}, torch::kLong).repeat({m, 1});
  const at::Tensor log_r = env.log_reward(x);
  const PolicyFunction pf = [](const at::Tensor& s) { return torch::zeros({s.size(0), 3}); };
  const PolicyFunction pb = prefer(2, 0);
  LocalSearchOptions o;
  o.loops = 1;
  o.acceptance = LocalSearchAcceptance::kMetropolisHastings;
  at::Generator g = at::detail::createCPUGenerator(21);
  const LocalSearchRound r = local_search_round(env, pf, pb, x, log_r, o, {}, g);
  const Trajectories tau = trajectories_from_actions(
      env, buffer::PackedTrajectories::from_sequences(
               std::vector<std::vector<std::int64_t>>(m, {1, 1, 1, 1, 1, 1, 0, 2})));
  ASSERT_TRUE(torch::equal(r.proposals.states.narrow(0, 0, m), torch::zeros({m, 2}, torch::kLong)));
  const at::Tensor p =
      log_acceptance_ratio(log_r, trajectory_log_probs(env, pf, pb, tau), r.proposals.log_rewards,
                           trajectory_log_probs(env, pf, pb, r.proposals))
          .exp()
          .to(torch::kDouble);
  const double expect = p.sum().item<double>();
  const double sd = std::sqrt((p * (1 - p)).sum().item<double>());
  ASSERT_GT(sd, 5.0);  // the proposals are mixed: neither all accepted nor all refused
  EXPECT_NEAR(r.accepted.sum().item<double>(), expect, 5 * sd);
  // x' where accepted, x elsewhere.
  EXPECT_TRUE(torch::equal(
      r.next_states, torch::where(r.accepted.unsqueeze(1), r.proposals.terminating_states, x)));
  o.acceptance = LocalSearchAcceptance::kFilter;  // the filter accepts exactly R(x') >= R(x)
  const LocalSearchRound f = local_search_round(env, pf, pb, x, log_r, o, {}, g);
  EXPECT_TRUE(torch::equal(f.accepted, f.proposals.log_rewards >= log_r));
}

TEST(LocalSearch, RejectsBadInputs) {
  const HyperGrid env = grid(2, 4);
  at::Generator g = at::detail::createCPUGenerator(1);
  const at::Tensor x = torch::tensor({{1, 2}}, torch::kLong);
  LocalSearchOptions o;
  o.back_ratio = 0.0;
  EXPECT_THROW(local_search_round(env, prefer(3, 2), prefer(2, 0), x, env.log_reward(x), o, {}, g),
               std::invalid_argument);
  o.back_ratio = 0.5;
  EXPECT_THROW(local_search_round(env, prefer(3, 2), prefer(2, 0), x, torch::zeros({2}), o, {}, g),
               std::invalid_argument);
}

struct SearchGrid {
  EnvOptions env;
  ModelOptions model;
  TrainOptions train;
  EngineOptions engine;
  LocalSearchOptions search;
  SearchGrid() {
    env.get<HyperGridOptions>().ndim = 2;
    env.get<HyperGridOptions>().height = 6;
    model.hidden_dim = 64;
    search.loops = 3;
  }
  Learner make(std::uint64_t seed) const {
    return Learner(env, model, train, seed, {}, engine, search);
  }
};

TEST(LocalSearch, LearnerBatchHoldsTheSearchedAndTheProposals) {
  SearchGrid s;
  Learner l = s.make(2);
  // B = 10, loops 3: M = 2 searched, 10 - 2 * 4 = 2 more from s0, 3 rounds of 2 proposals.
  const IterationResult r = l.train_iteration(10);
  EXPECT_EQ(r.n_fresh, 10);
  EXPECT_EQ(r.terminating_states.size(0), 10);
  EXPECT_EQ(r.batch.n_trajectories, 10);
  EXPECT_EQ(l.batches().counts().local_search_proposals, 6);
  EXPECT_LE(l.batches().counts().local_search_accepted, 6);
  // A batch smaller than 1 + loops: as many rounds as fit, one point searched.
  l.train_iteration(3);
  EXPECT_EQ(l.batches().counts().local_search_proposals, 8);
  l.train_iteration(1);  // nothing to search
  EXPECT_EQ(l.batches().counts().local_search_proposals, 8);
}

TEST(LocalSearch, EveryEvaluatorTrainsTheSameSearchedBatches) {
  SearchGrid s;
  s.search.acceptance = LocalSearchAcceptance::kMetropolisHastings;
  SearchGrid ref = s, saved = s;
  ref.engine.state_table = StateTableMode::kOff;
  ref.engine.reuse_logprobs = false;
  saved.engine.state_table = StateTableMode::kOff;
  Learner a = ref.make(6), b = saved.make(6), c = s.make(6);
  ASSERT_EQ(a.plan().evaluator, EvaluatorKind::kReference);
  ASSERT_EQ(b.plan().evaluator, EvaluatorKind::kSavedOutputs);
  ASSERT_EQ(c.plan().evaluator, EvaluatorKind::kStateTable);
  for (int i = 0; i < 4; ++i) {
    const IterationResult ra = a.train_iteration(32), rb = b.train_iteration(32),
                          rc = c.train_iteration(32);
    EXPECT_TRUE(torch::equal(ra.terminating_states, rb.terminating_states)) << i;
    EXPECT_TRUE(torch::equal(ra.terminating_states, rc.terminating_states)) << i;
    EXPECT_NEAR(ra.loss, rb.loss, 1e-4 * (1 + std::abs(ra.loss)));
    EXPECT_NEAR(ra.loss, rc.loss, 1e-4 * (1 + std::abs(ra.loss)));
  }
  EXPECT_EQ(a.batches().counts().local_search_accepted, c.batches().counts().local_search_accepted);
}

TEST(LocalSearch, LearnerWithSearchStillLearnsTheDistribution) {
  SearchGrid s;
  s.search.loops = 1;
  Learner l = s.make(3);
  ValidationOptions v;
  v.n_samples = 20000;
  const double before = l.validate(v).l1_exact;
  for (int i = 0; i < 150; ++i) l.train_iteration(64);
  const double after = l.validate(v).l1_exact;
  EXPECT_LT(after, 0.3 * before) << before << " -> " << after;
}

}  // namespace
}  // namespace gfn::core
