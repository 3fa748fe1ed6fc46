// zvar, db, modified_db, subtb (every weighting) and fm on hand-computed cases, and
// every loss on an exactly balanced GFlowNet (flows from a dynamic programme).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/sampler.h"

namespace gfn::core {
namespace {

// Two trajectories on a 2D grid, step-major:
//   trajectory 0: (0,0) --inc 0--> (1,0) --exit      rows 0, 2
//   trajectory 1: (0,0) --exit                       row 1
Trajectories two_trajectories() {
  Trajectories t;
  t.n_trajectories = 2;
  t.states = torch::tensor({0, 0, 0, 0, 1, 0}, torch::kLong).view({3, 2});
  t.actions = torch::tensor({0, 2, 2}, torch::kLong);
  t.traj_index = torch::tensor({0, 1, 0}, torch::kLong);
  t.pb_actions = torch::tensor({0}, torch::kLong);
  t.lengths = torch::tensor({2, 1}, torch::kLong);
  t.terminating_states = torch::tensor({1, 0, 0, 0}, torch::kLong).view({2, 2});
  t.log_rewards = torch::tensor({-1.0f, 0.5f});
  return t;
}

TransitionLogProbs hand_log_probs() {
  TransitionLogProbs lp;
  lp.log_pf = torch::tensor({-0.1f, -0.2f, -0.3f});
  lp.log_pb = torch::tensor({-0.4f});
  lp.log_pf_exit = torch::tensor({-0.5f, -0.2f, -0.3f});
  lp.log_flow = torch::tensor({1.0f, 1.0f, 0.2f});
  return lp;
}

TEST(TrajectoryLayout, StepsAndParents) {
  const TrajectoryLayout l = trajectory_layout(two_trajectories());
  EXPECT_TRUE(torch::equal(l.steps, torch::tensor({0, 0, 1}, torch::kLong)));
  EXPECT_TRUE(torch::equal(l.parent_rows, torch::tensor({0}, torch::kLong)));
  EXPECT_EQ(l.max_length, 2);

  // On sampled trajectories: each child differs from its parent by the one-hot of its
  // backward action, within the same trajectory, one step later.
  core::EnvOptions eo;
  eo.get<core::HyperGridOptions>().ndim = 3;
  eo.get<core::HyperGridOptions>().height = 5;
  HyperGrid env(eo.get<core::HyperGridOptions>());
  at::Generator gen = at::detail::createCPUGenerator(7);
  const PolicyFunction uniform = [](const at::Tensor& s) { return torch::zeros({s.size(0), 4}); };
  const Trajectories t = sample_trajectories(env, uniform, 50, SamplerOptions{}, gen);
  const TrajectoryLayout s = trajectory_layout(t);
  const std::int64_t b = 50, n = t.n_transitions();
  const at::Tensor children = t.states.narrow(0, b, n - b);
  const at::Tensor parents = t.states.index_select(0, s.parent_rows);
  EXPECT_TRUE(torch::equal(children - parents, torch::one_hot(t.pb_actions, 3).to(torch::kLong)));
  EXPECT_TRUE(
      torch::equal(t.traj_index.narrow(0, b, n - b), t.traj_index.index_select(0, s.parent_rows)));
  EXPECT_TRUE(
      torch::equal(s.steps.narrow(0, b, n - b), s.steps.index_select(0, s.parent_rows) + 1));
  EXPECT_EQ(s.max_length, t.lengths.max().item<std::int64_t>());

  Trajectories bad = two_trajectories();
  bad.lengths = torch::tensor({1, 1}, torch::kLong);
  EXPECT_THROW(trajectory_layout(bad), std::invalid_argument);
}

TEST(BalanceLosses, HandComputedValues) {
  const Trajectories t = two_trajectories();
  const TransitionLogProbs lp = hand_log_probs();

  // zvar: z = log R + sum log PB - sum log PF = -1 - 0.4 + 0.4 = -1.0 and 0.5 + 0.2 = 0.7.
  const LossValue zvar = log_partition_variance(t, lp);
  EXPECT_NEAR(zvar.loss.item<float>(), 0.85 * 0.85, 1e-5);
  EXPECT_NEAR(zvar.log_z.item<float>(), -0.15, 1e-6);

  // db residuals: inner 1.0 - 0.1 - 0.2 + 0.4 = 1.1; exits 1.0 - 0.2 - 0.5 = 0.3 and
  // 0.2 - 0.3 + 1.0 = 0.9.
  const LossValue db = detailed_balance(t, lp);
  EXPECT_NEAR(db.loss.item<float>(), (1.21 + 0.09 + 0.81) / 3, 1e-5);
  EXPECT_NEAR(db.log_z.item<float>(), 1.0, 1e-6);
  TransitionLogProbs no_flow = lp;
  no_flow.log_flow = at::Tensor();
  EXPECT_THROW(detailed_balance(t, no_flow), std::invalid_argument);

  // modified_db, one transition (0,0) -> (1,0) with log R = 0.1 and -1.0:
  // 0.1 - 0.1 - 0.3 + 1.0 + 0.4 + 0.5 = 1.6.
  const at::Tensor row_log_r = torch::tensor({0.1f, 0.1f, -1.0f});
  const LossValue mdb = modified_detailed_balance(t, lp, row_log_r);
  EXPECT_NEAR(mdb.loss.item<float>(), 1.6 * 1.6, 1e-5);
  EXPECT_NEAR(mdb.log_z.item<float>(), 0.1 + 0.5, 1e-6);

  // subtb: trajectory 0 has sub-trajectories (0,1): 1.1, (1,2): 0.9, (0,2):
  // 1.0 - 0.4 + 1.0 + 0.4 = 2.0; trajectory 1 has (0,1): 0.3.
  const double a = 1.21, b = 0.81, c = 4.0, d = 0.09, lam = 0.9;
  struct Case {
    SubTrajectoryWeighting w;
    double expected;
  };
  const std::vector<Case> cases = {
      {SubTrajectoryWeighting::kGeometricWithin, ((a + b + lam * c) / (2 + lam) + d) / 2},
      {SubTrajectoryWeighting::kGeometric, ((a + b + d) / 3 + lam * c) / (1 + lam)},
      {SubTrajectoryWeighting::kEqual, (a + b + c + d) / 4},
      {SubTrajectoryWeighting::kEqualWithin, ((a + b + c) / 3 + d) / 2},
      {SubTrajectoryWeighting::kTB, (c + d) / 2},
      {SubTrajectoryWeighting::kDB, (a + b + d) / 3},
      {SubTrajectoryWeighting::kModifiedDB, ((a + b) / 2 + d) / 2},
  };
  for (const Case& k : cases) {
    const LossValue v = sub_trajectory_balance(t, lp, k.w, lam);
    EXPECT_NEAR(v.loss.item<float>(), k.expected, 1e-5) << static_cast<int>(k.w);
  }
  EXPECT_THROW(SubTrajectoryBalanceLoss(static_cast<SubTrajectoryWeighting>(99), lam),
               std::invalid_argument);
  EXPECT_THROW(sub_trajectory_balance(t, lp, SubTrajectoryWeighting::kTB, 0.0),
               std::invalid_argument);
}

TEST(BalanceLosses, FlowMatchingHandComputed) {
  core::EnvOptions eo;  // 2D h8
  HyperGrid env(eo.get<core::HyperGridOptions>());
  // log F(s -> action a) = 0.1 (a + 1) + 0.2 s_0 + 0.3 s_1.
  const StateEvaluator flows = [](const at::Tensor& s, bool) {
    StateOutputs o;
    o.pf_logits = (torch::arange(3, torch::kFloat) + 1).mul(0.1).view({1, 3}) +
                  s.to(torch::kFloat).matmul(torch::tensor({0.2f, 0.3f})).view({-1, 1});
    return o;
  };
  const Trajectories t = two_trajectories();
  // The only non-initial state (1,0): in-flow from (0,0) by action 0 = 0.1; out-flows
  // 0.3, 0.4, 0.5. Reward matching: exit flows 0.5 at (1,0), 0.3 at (0,0).
  const double out = std::log(std::exp(0.3) + std::exp(0.4) + std::exp(0.5));
  const double fm = (0.1 - out) * (0.1 - out);
  const double rm = ((0.5 + 1.0) * (0.5 + 1.0) + (0.3 - 0.5) * (0.3 - 0.5)) / 2;
  const LossValue v = flow_matching(env, t, flows, 0.5);
  EXPECT_NEAR(v.loss.item<float>(), fm + 0.5 * rm, 1e-5);
  EXPECT_NEAR(v.log_z.item<float>(), std::log(std::exp(0.1) + std::exp(0.2) + std::exp(0.3)), 1e-5);
  EXPECT_THROW(FlowMatchingLoss(-1.0), std::invalid_argument);
}

// An exactly balanced GFlowNet on 2D h4 with the original reward and a uniform PB:
// F(s) = R(s) + sum_children F(s') PB(s|s'), PF(s'|s) = F(s') PB(s|s') / F(s),
// PF(exit|s) = R(s) / F(s), F(s0) = Z.
struct ExactFlows {
  HyperGrid env;
  at::Tensor log_flow;  // float32 [n_states]
  at::Tensor log_pf;    // float32 [n_states, ndim+1] (-inf where masked)
  explicit ExactFlows(const core::EnvOptions& eo) : env(eo.get<core::HyperGridOptions>()) {
    const std::int64_t n = env.n_states(), d = env.ndim();
    const at::Tensor all = env.all_states();
    const at::Tensor reward = env.reward(all).to(torch::kDouble);
    std::vector<double> f(n), pf(n * (d + 1), 0.0);
    auto parents = [&](std::int64_t idx) { return all[idx].gt(0).sum().item<double>(); };
    std::vector<std::int64_t> stride(d);
    for (std::int64_t j = d - 1, s = 1; j >= 0; --j, s *= env.height()) stride[j] = s;
    for (std::int64_t idx = n - 1; idx >= 0; --idx) {  // children have larger indices
      f[idx] = reward[idx].item<double>();
      for (std::int64_t i = 0; i < d; ++i) {
        if (all[idx][i].item<std::int64_t>() < env.height() - 1) {
          const std::int64_t child = idx + stride[i];
          f[idx] += f[child] / parents(child);
        }
      }
      for (std::int64_t i = 0; i < d; ++i) {
        if (all[idx][i].item<std::int64_t>() < env.height() - 1) {
          const std::int64_t child = idx + stride[i];
          pf[idx * (d + 1) + i] = f[child] / parents(child) / f[idx];
        }
      }
      pf[idx * (d + 1) + d] = reward[idx].item<double>() / f[idx];
    }
    log_flow = torch::tensor(f, torch::kDouble).log().to(torch::kFloat);
    log_pf = torch::tensor(pf, torch::kDouble).view({n, d + 1}).log().to(torch::kFloat);
  }
  StateEvaluator evaluator(bool edge_flows) const {
    return [this, edge_flows](const at::Tensor& s, bool) {
      const at::Tensor idx = env.state_indices(s);
      StateOutputs o;
      o.pf_logits = log_pf.index_select(0, idx);
      if (edge_flows) o.pf_logits = o.pf_logits + log_flow.index_select(0, idx).view({-1, 1});
      o.pb_logits = torch::zeros({s.size(0), env.ndim()});
      o.log_flow = log_flow.index_select(0, idx);
      return o;
    };
  }
};

TEST(BalanceLosses, ExactlyBalancedModelHasZeroLoss) {
  core::EnvOptions eo;
  eo.get<core::HyperGridOptions>().ndim = 2;
  eo.get<core::HyperGridOptions>().height = 4;
  const ExactFlows ex(eo);
  EXPECT_NEAR(ex.log_flow[0].item<float>(), ex.env.log_partition(), 1e-5);
  at::Generator gen = at::detail::createCPUGenerator(11);
  const at::Tensor& table = ex.log_pf;
  const HyperGrid& env = ex.env;
  const PolicyFunction policy = [&](const at::Tensor& s) {
    return table.index_select(0, env.state_indices(s));
  };
  const Trajectories t = sample_trajectories(env, policy, 64, SamplerOptions{}, gen);
  const at::Tensor log_z = torch::tensor(static_cast<float>(env.log_partition()));

  for (const auto& [kind, name] : kLossKindNames) {
    if (kind == LossKind::kSubTB) continue;  // every weighting below
    const auto loss = make_loss(kind);
    const LossValue v = loss->evaluate(env, t, ex.evaluator(kind == LossKind::kFM), log_z);
    EXPECT_NEAR(v.loss.item<float>(), 0.0, 1e-9) << name;
    if (kind != LossKind::kTB) {
      EXPECT_NEAR(v.log_z.item<float>(), env.log_partition(), 1e-5) << name;
    }
  }
  for (const auto& [weighting, w] : kSubTrajectoryWeightingNames) {
    core::TrainOptions o;
    o.loss = LossKind::kSubTB;
    o.subtb_weighting = weighting;
    const LossValue v = make_loss(o)->evaluate(env, t, ex.evaluator(false), log_z);
    EXPECT_NEAR(v.loss.item<float>(), 0.0, 1e-9) << w;
    EXPECT_NEAR(v.log_z.item<float>(), env.log_partition(), 1e-5) << w;
  }

  // Off balance by a known amount: log F + c moves only the residuals that end in a
  // terminating state (by c), so each loss becomes c^2 times the weight those carry.
  const double c = 0.5;
  const TransitionLogProbs exact = transition_log_probs(env, t, ex.evaluator(false));
  TransitionLogProbs shifted = exact;
  shifted.log_flow = exact.log_flow + c;
  const std::int64_t b = 64, n = t.n_transitions();
  EXPECT_NEAR(detailed_balance(t, shifted).loss.item<float>(), c * c * b / n, 1e-5);
  std::vector<double> len(b);
  for (std::int64_t i = 0; i < b; ++i) len[i] = t.lengths[i].item<double>();
  double tb = 0, within = 0, equal_end = 0, equal_all = 0, eq_within = 0, mdb = 0;
  const double lam = 0.9;
  for (double L : len) {
    double end = 0, all = 0;  // lambda-weights of sub-trajectories ending at x / all
    for (int i = 1; i <= L; ++i) {
      end += std::pow(lam, i - 1);
      all += (L - i + 1) * std::pow(lam, i - 1);
    }
    within += end / all / b;
    tb += 1.0 / b;
    equal_end += L;
    equal_all += L * (L + 1) / 2;
    eq_within += 2.0 / (L + 1) / b;
    mdb += 1.0 / L / b;
  }
  // geometric: per length i, the fraction of length-i sub-trajectories ending at x.
  const double max_len = t.lengths.max().item<double>();
  double geo = 0, geo_norm = 0;
  for (int i = 1; i <= max_len; ++i) geo_norm += std::pow(lam, i - 1);
  for (int i = 1; i <= max_len; ++i) {
    double ending = 0, count = 0;
    for (double L : len) {
      if (L >= i) {
        ending += 1;
        count += L - i + 1;
      }
    }
    geo += std::pow(lam, i - 1) / geo_norm * ending / count;
  }
  const std::vector<std::pair<SubTrajectoryWeighting, double>> expected = {
      {SubTrajectoryWeighting::kGeometricWithin, within},
      {SubTrajectoryWeighting::kGeometric, geo},
      {SubTrajectoryWeighting::kEqual, equal_end / equal_all},
      {SubTrajectoryWeighting::kEqualWithin, eq_within},
      {SubTrajectoryWeighting::kTB, tb},
      {SubTrajectoryWeighting::kDB, static_cast<double>(b) / n},
      {SubTrajectoryWeighting::kModifiedDB, mdb},
  };
  for (const auto& [w, fraction] : expected) {
    EXPECT_NEAR(sub_trajectory_balance(t, shifted, w, lam).loss.item<float>(), c * c * fraction,
                1e-5)
        << static_cast<int>(w);
  }
  // TB with logZ off by c, zvar with one trajectory's PF shifted.
  EXPECT_NEAR(trajectory_balance(t, exact, log_z + c).item<float>(), c * c, 1e-5);
  EXPECT_NEAR(log_partition_variance(t, shifted).loss.item<float>(), 0.0, 1e-9);
  TransitionLogProbs pf_off = exact;
  pf_off.log_pf = exact.log_pf.clone();
  pf_off.log_pf[0] += c;  // row 0 is s0 of trajectory 0: its z moves by -c
  EXPECT_NEAR(log_partition_variance(t, pf_off).loss.item<float>(),
              c * c * (1.0 / b) * (1.0 - 1.0 / b), 1e-5);
  // modified_db: a PF(exit) change at s0 alone (log F(s0) = log R - log PF(exit)).
  TransitionLogProbs exit_off = exact;
  exit_off.log_pf_exit = exact.log_pf_exit.clone();
  const at::Tensor s0_rows = t.states.abs().sum(1).eq(0);
  exit_off.log_pf_exit.masked_fill_(s0_rows, 0.0);
  EXPECT_GT(modified_detailed_balance(t, exit_off, env.log_reward(t.states)).loss.item<float>(),
            1e-3);
}

}  // namespace
}  // namespace gfn::core
