// Continuous trajectories (runtime/gfn/continuous/sampler.h) on Box: the step-major layout of
// the sampled batch, determinism, the log-densities of continuous_log_probs against a
// recomputation row by row, and TB, zvar, DB and SubTB (the shared functions of losses.h,
// through continuous/loss.h) against a per-trajectory recomputation.
#include "runtime/gfn/continuous/sampler.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/loss.h"
#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_policies.h"

namespace gfn::core {
namespace {

struct Fixture {
  Box box{BoxOptions{}};
  BoxPolicyOptions po = [] {
    BoxPolicyOptions o;
    o.n_components = 3;
    return o;
  }();
  BoxForwardPolicy pf{box, po};
  BoxBackwardPolicy pb{box, po};
  ContinuousModel model;
  explicit Fixture(const ContinuousModelOptions& o) : model(2, pf.n_outputs(), pb.n_outputs(), o) {
    at::NoGradGuard no_grad;
    model.log_z().fill_(0.4);
  }
  ContinuousGFlowNet gfn() { return {box, model, pf, pb}; }
};

ContinuousModelOptions small(bool with_flow = false, bool uniform_pb = false) {
  ContinuousModelOptions o;
  o.hidden_dim = 32;
  o.with_log_flow = with_flow;
  o.uniform_pb = uniform_pb;
  return o;
}

TEST(ContinuousSampler, StepMajorLayout) {
  Fixture f(small());
  at::Generator gen = at::detail::createCPUGenerator(3);
  const std::int64_t b = 40;
  const ContinuousTrajectories t = sample_continuous_trajectories(f.gfn(), b, {}, gen);
  const std::int64_t n = t.n_transitions();
  ASSERT_EQ(t.n_trajectories, b);
  EXPECT_EQ(t.lengths.sum().item<std::int64_t>(), n);
  EXPECT_TRUE(f.box.is_initial(t.states.narrow(0, 0, b)).all().item<bool>());
  EXPECT_TRUE(at::equal(t.traj_index.narrow(0, 0, b), at::arange(b, at::kLong)));
  EXPECT_TRUE(t.lengths.ge(2).all().item<bool>()) << "no exit from s0";
  EXPECT_NO_THROW(f.box.check_forward_actions(t.states, t.actions(), "test"));
  const TrajectoryLayout layout = trajectory_layout(t);
  const at::Tensor parents = layout.parent_rows;
  EXPECT_TRUE(
      at::equal(t.states.narrow(0, b, n - b), t.states.index_select(0, parents) + t.pb_increments));
  EXPECT_TRUE(at::equal(t.increments.index_select(0, parents), t.pb_increments));
  EXPECT_FALSE(t.is_exit.index_select(0, parents).any().item<bool>());
  // Exactly one exit per trajectory, on its last row, from its terminating state.
  const at::Tensor last = layout.steps.eq(t.lengths.index_select(0, t.traj_index) - 1);
  EXPECT_TRUE(at::equal(last, t.is_exit));
  const at::Tensor exit_rows = at::nonzero(t.is_exit).squeeze(1);
  EXPECT_TRUE(
      at::equal(t.terminating_states.index_select(0, t.traj_index.index_select(0, exit_rows)),
                t.states.index_select(0, exit_rows)));
  EXPECT_TRUE(at::equal(t.log_rewards, f.box.log_reward(t.terminating_states)));
  // Same seed, same batch; another seed, another.
  at::Generator again = at::detail::createCPUGenerator(3);
  EXPECT_TRUE(at::equal(sample_continuous_trajectories(f.gfn(), b, {}, again).states, t.states));
  at::Generator other = at::detail::createCPUGenerator(4);
  EXPECT_FALSE(at::equal(sample_continuous_trajectories(f.gfn(), b, {}, other).terminating_states,
                         t.terminating_states));
  EXPECT_EQ(sample_continuous_trajectories(f.gfn(), 0, {}, gen).n_transitions(), 0);
  ContinuousSamplerOptions bad;
  bad.max_length = 1;
  EXPECT_THROW(sample_continuous_trajectories(f.gfn(), 4, bad, gen), std::runtime_error);
  bad = ContinuousSamplerOptions{};
  bad.temperature = 0;
  EXPECT_THROW(sample_continuous_trajectories(f.gfn(), 4, bad, gen), std::invalid_argument);
}

// Row-by-row recomputation: each row's log PF, log PB and log F from a forward pass on that
// row alone, and the losses from them trajectory by trajectory.
struct RowValues {
  std::vector<double> pf, pb, flow;  // pb[i] for rows i >= B (0 below)
};

RowValues recompute_rows(Fixture& f, const ContinuousTrajectories& t) {
  at::NoGradGuard no_grad;
  RowValues v;
  const std::int64_t b = t.n_trajectories, n = t.n_transitions();
  for (std::int64_t i = 0; i < n; ++i) {
    const at::Tensor s = t.states.narrow(0, i, 1);
    const ContinuousOutputs out = f.model.forward(f.box.policy_inputs(s), 0);
    const ContinuousActions a{t.increments.narrow(0, i, 1), t.is_exit.narrow(0, i, 1)};
    v.pf.push_back(f.pf.log_prob(s, out.pf, a, 1.0).item<double>());
    v.pb.push_back(
        i < b ? 0.0
              : f.pb.log_prob(s, out.pb,
                              {t.pb_increments.narrow(0, i - b, 1), at::zeros({1}, at::kBool)}, 1.0)
                    .item<double>());
    v.flow.push_back(
        f.model.has_log_flow() ? f.model.log_flow(s, f.box.is_initial(s)).item<double>() : 0.0);
  }
  return v;
}

// Rows of trajectory `traj` in step order.
std::vector<std::int64_t> rows_of(const ContinuousTrajectories& t, std::int64_t traj) {
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < t.n_transitions(); ++i) {
    if (t.traj_index[i].item<std::int64_t>() == traj) rows.push_back(i);
  }
  return rows;
}

TEST(ContinuousLogProbs, EqualRowByRowRecomputation) {
  for (bool uniform_pb : {false, true}) {
    Fixture f(small(/*with_flow=*/true, uniform_pb));
    at::Generator gen = at::detail::createCPUGenerator(8);
    const ContinuousTrajectories t = sample_continuous_trajectories(f.gfn(), 12, {}, gen);
    const TransitionLogProbs lp = continuous_log_probs(f.gfn(), t);
    const RowValues v = recompute_rows(f, t);
    const std::int64_t b = t.n_trajectories, n = t.n_transitions();
    ASSERT_EQ(lp.log_pf.size(0), n);
    ASSERT_EQ(lp.log_pb.size(0), n - b);
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(lp.log_pf[i].item<double>(), v.pf[i], 1e-4 * (1 + std::abs(v.pf[i]))) << i;
      EXPECT_NEAR(lp.log_flow[i].item<double>(), v.flow[i], 1e-5) << i;
      if (i >= b) {
        EXPECT_NEAR(lp.log_pb[i - b].item<double>(), v.pb[i], 1e-4 * (1 + std::abs(v.pb[i]))) << i;
      }
    }
    EXPECT_TRUE(lp.log_pf.isfinite().all().item<bool>());
    EXPECT_TRUE(lp.log_pb.isfinite().all().item<bool>());
  }
}

// TB, zvar, DB and SubTB (geometric_within, lambda 0.9) per trajectory from the row values.
struct ManualLosses {
  double tb = 0, zvar = 0, db = 0, subtb = 0;
};

ManualLosses manual_losses(const ContinuousTrajectories& t, const RowValues& v, double log_z,
                           double lambda) {
  ManualLosses m;
  const std::int64_t b = t.n_trajectories;
  std::vector<double> z;
  std::int64_t transitions = 0;
  for (std::int64_t traj = 0; traj < b; ++traj) {
    const std::vector<std::int64_t> rows = rows_of(t, traj);
    const auto len = static_cast<std::int64_t>(rows.size());
    const double log_r = t.log_rewards[traj].item<double>();
    double sum_pf = 0, sum_pb = 0;
    for (std::int64_t r : rows) sum_pf += v.pf[r], sum_pb += v.pb[r];
    m.tb += std::pow(log_z + sum_pf - log_r - sum_pb, 2) / b;
    z.push_back(log_r + sum_pb - sum_pf);
    // DB: s_t -> s_{t+1} for t < len - 1, then the exit.
    for (std::int64_t s = 0; s + 1 < len; ++s) {
      m.db +=
          std::pow(v.flow[rows[s]] + v.pf[rows[s]] - v.flow[rows[s + 1]] - v.pb[rows[s + 1]], 2);
    }
    m.db += std::pow(v.flow[rows[len - 1]] + v.pf[rows[len - 1]] - log_r, 2);
    transitions += len;
    // SubTB: every 0 <= j < k <= len, weight lambda^(k - j - 1), normalised per trajectory.
    double num = 0, den = 0;
    for (std::int64_t j = 0; j < len; ++j) {
      for (std::int64_t k = j + 1; k <= len; ++k) {
        double res = v.flow[rows[j]];
        for (std::int64_t s = j; s < k; ++s) {
          res += v.pf[rows[s]];
          if (s + 1 < len) res -= v.pb[rows[s + 1]];
        }
        res -= k < len ? v.flow[rows[k]] : log_r;
        const double w = std::pow(lambda, static_cast<double>(k - j - 1));
        num += w * res * res;
        den += w;
      }
    }
    m.subtb += num / den / b;
  }
  double mean = 0;
  for (double x : z) mean += x / b;
  for (double x : z) m.zvar += (x - mean) * (x - mean) / b;
  m.db /= static_cast<double>(transitions);
  return m;
}

TEST(ContinuousLosses, EqualPerTrajectoryRecomputation) {
  Fixture f(small(/*with_flow=*/true));
  at::Generator gen = at::detail::createCPUGenerator(21);
  const ContinuousTrajectories t = sample_continuous_trajectories(f.gfn(), 10, {}, gen);
  const TransitionLogProbs lp = continuous_log_probs(f.gfn(), t);
  const RowValues v = recompute_rows(f, t);
  const ManualLosses m = manual_losses(t, v, 0.4, 0.9);
  TrainOptions train;
  auto loss = [&](LossKind kind) {
    train.loss = kind;
    return continuous_loss(train, t, lp, f.model.log_z()).loss.item<double>();
  };
  EXPECT_NEAR(loss(LossKind::kTB), m.tb, 1e-4 * (1 + m.tb));
  EXPECT_NEAR(loss(LossKind::kZVar), m.zvar, 1e-4 * (1 + m.zvar));
  EXPECT_NEAR(loss(LossKind::kDB), m.db, 1e-4 * (1 + m.db));
  EXPECT_NEAR(loss(LossKind::kSubTB), m.subtb, 1e-4 * (1 + m.subtb));
  // DB's and SubTB's log Z estimate is log F(s0) = logZ.
  train.loss = LossKind::kDB;
  EXPECT_FLOAT_EQ(continuous_loss(train, t, lp, f.model.log_z()).log_z.item<float>(), 0.4f);
  // Gradients reach PF, PB and logZ.
  train.loss = LossKind::kTB;
  f.model.zero_grad();
  continuous_loss(train, t, continuous_log_probs(f.gfn(), t), f.model.log_z()).loss.backward();
  for (const auto& p : f.model.named_parameters()) {
    if (p.key().rfind("logF", 0) == 0) continue;
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  }
  for (LossKind kind : {LossKind::kFM, LossKind::kModifiedDB}) {
    train.loss = kind;
    EXPECT_THROW(continuous_loss(train, t, lp, f.model.log_z()), std::invalid_argument);
  }
}

}  // namespace
}  // namespace gfn::core
