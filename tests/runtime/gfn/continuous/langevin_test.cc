// Local search for continuous targets (runtime/gfn/continuous/langevin.h, local_search.mode
// langevin of the ContinuousLearner): MALA on a 2-D Gaussian with known moments reaches them
// (sample mean and variance within tolerances, acceptance near the target); the MH log
// acceptance against a float64 recomputation written out here; the step-size schedule moves
// toward the target rate from both sides; the same generator gives the same chain. Through the
// learner on diffusion gmm2: the remote states and langevin_fresh fresh ones are searched,
// raise log R on average, are submitted and trained on; target evaluations are counted; the
// local search's state survives a checkpoint bit-identically; and the refusals (Box has no
// gradient, the discrete keys with mode langevin, a discrete environment).
#include "runtime/gfn/continuous/langevin.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/diffusion_options.h"

namespace gfn::core {
namespace {

// log R(x) = -0.5 sum_i (x_i - mu_i)^2 / s_i^2 and its gradient, exactly.
struct Gaussian {
  at::Tensor mu = at::tensor({1.0f, -2.0f});
  at::Tensor s = at::tensor({0.5f, 2.0f});
  LangevinTarget target() const {
    return [m = mu, sd = s](const at::Tensor& x) {
      const at::Tensor z = (x - m) / sd;
      return std::make_pair(-0.5 * z.pow(2).sum(1), -z / sd);
    };
  }
};

TEST(Langevin, MalaReachesTheMomentsOfAGaussianAtTheTargetAcceptance) {
  const Gaussian g;
  at::Generator gen = at::detail::createCPUGenerator(7);
  LangevinOptions o;
  o.steps = 400;
  LangevinState state;
  state.step = 0.5;  // far too large for s = 0.5: the schedule must shrink it
  const at::Tensor x0 = at::zeros({4000, 2});
  const LangevinResult burn = langevin_search(g.target(), x0, o, state, gen);
  EXPECT_EQ(burn.proposals, 4000 * 400);
  EXPECT_EQ(burn.evaluations, 4000 * 401);
  const LangevinResult r = langevin_search(g.target(), burn.x, o, state, gen);
  const at::Tensor mean = r.x.mean(0), var = r.x.var(0);
  for (int i = 0; i < 2; ++i) {
    const double s2 = std::pow(g.s[i].item<double>(), 2);
    EXPECT_NEAR(mean[i].item<double>(), g.mu[i].item<double>(), 0.08 * std::sqrt(s2)) << i;
    EXPECT_NEAR(var[i].item<double>(), s2, 0.1 * s2) << i;
  }
  const double rate = static_cast<double>(r.accepted) / static_cast<double>(r.proposals);
  EXPECT_NEAR(rate, o.target_acceptance, 0.08);
  EXPECT_LT(state.step, 0.5);
  // log_reward is log R at the returned points.
  EXPECT_TRUE(at::allclose(r.log_reward, g.target()(r.x).first, 1e-5, 1e-5));
}

TEST(Langevin, LogAcceptanceMatchesAFloat64Recomputation) {
  at::manual_seed(3);
  const std::int64_t b = 16, k = 3;
  const at::Tensor x = at::randn({b, k}), x_new = at::randn({b, k});
  const at::Tensor g = at::randn({b, k}), g_new = at::randn({b, k});
  const at::Tensor lr = at::randn({b}), lr_new = at::randn({b});
  const double eta = 0.037;
  const at::Tensor got = mala_log_acceptance(x, x_new, lr, lr_new, g, g_new, eta);
  ASSERT_EQ(got.sizes(), (at::IntArrayRef{b}));
  auto X = x.accessor<float, 2>(), Y = x_new.accessor<float, 2>();
  auto G = g.accessor<float, 2>(), H = g_new.accessor<float, 2>();
  for (std::int64_t i = 0; i < b; ++i) {
    double fwd = 0, bwd = 0;  // |y - x - eta g(x)|^2, |x - y - eta g(y)|^2
    for (std::int64_t j = 0; j < k; ++j) {
      const double f = double(Y[i][j]) - X[i][j] - eta * G[i][j];
      const double r = double(X[i][j]) - Y[i][j] - eta * H[i][j];
      fwd += f * f;
      bwd += r * r;
    }
    const double want =
        (lr_new[i].item<double>() - lr[i].item<double>()) - bwd / (4 * eta) + fwd / (4 * eta);
    EXPECT_NEAR(got[i].item<double>(), want, 1e-5 * (1 + std::abs(want))) << i;
  }
}

TEST(Langevin, StepScheduleMovesTowardTheTargetRate) {
  EXPECT_DOUBLE_EQ(adapt_langevin_step(0.1, 0.9, 0.574), 0.101);
  EXPECT_DOUBLE_EQ(adapt_langevin_step(0.1, 0.2, 0.574), 0.099);
  const Gaussian g;
  LangevinOptions o;
  o.steps = 50;
  for (const double start : {1e-4, 3.0}) {  // acceptance ~1 grows eta, ~0 shrinks it
    at::Generator gen = at::detail::createCPUGenerator(1);
    LangevinState state;
    state.step = start;
    langevin_search(g.target(), at::zeros({200, 2}), o, state, gen);
    if (start < 0.01) {
      EXPECT_GT(state.step, start * 1.2) << "from " << start;
      EXPECT_GT(state.rate, 0.574);
    } else {
      EXPECT_LT(state.step, start * 0.8) << "from " << start;
      EXPECT_LT(state.rate, 0.574);
    }
  }
  // Without adaptation eta stays.
  at::Generator gen = at::detail::createCPUGenerator(1);
  LangevinState fixed;
  fixed.step = 0.2;
  o.adapt = false;
  langevin_search(g.target(), at::zeros({10, 2}), o, fixed, gen);
  EXPECT_EQ(fixed.step, 0.2);
}

TEST(Langevin, SameGeneratorSameChainAndBadInputRefused) {
  const Gaussian g;
  LangevinOptions o;
  o.steps = 20;
  at::Generator a = at::detail::createCPUGenerator(5), b = at::detail::createCPUGenerator(5);
  LangevinState sa, sb;
  const LangevinResult ra = langevin_search(g.target(), at::zeros({30, 2}), o, sa, a);
  const LangevinResult rb = langevin_search(g.target(), at::zeros({30, 2}), o, sb, b);
  EXPECT_TRUE(at::equal(ra.x, rb.x));
  EXPECT_EQ(sa.step, sb.step);
  EXPECT_EQ(ra.accepted, rb.accepted);
  EXPECT_EQ(langevin_search(g.target(), at::zeros({0, 2}), o, sa, a).proposals, 0);
  EXPECT_THROW(langevin_search(g.target(), at::zeros({3, 2}, at::kDouble), o, sa, a),
               std::invalid_argument);
  o.steps = 0;
  EXPECT_THROW(langevin_search(g.target(), at::zeros({3, 2}), o, sa, a), std::invalid_argument);
}

// ---- through the ContinuousLearner (diffusion gmm2) --------------------------------------

EnvOptions diffusion_env(const std::string& name = "diffusion") {
  EnvOptions env;
  env.name = name;
  if (name == "diffusion") {
    DiffusionEnvOptions& d = env.get<DiffusionEnvOptions>();
    d.target = "gmm2";
    d.n_steps = 6;
    d.sigma = 5.0;
  }
  return env;
}

ModelOptions small_model() {
  ModelOptions m;
  m.hidden_dim = 16;
  m.n_hidden = 2;
  return m;
}

LocalSearchOptions langevin(int steps = 10, int fresh = 0) {
  LocalSearchOptions o;
  o.mode = LocalSearchMode::kLangevin;
  o.langevin_steps = steps;
  o.langevin_step = 0.05;
  o.langevin_fresh = fresh;
  return o;
}

at::Tensor terminating(const at::Tensor& x, int n_steps = 6) {
  return at::cat({x, at::full({x.size(0), 1}, double(n_steps))}, 1);
}

TEST(LangevinLearner, SearchesRemoteAndFreshStatesAndSubmitsThem) {
  ContinuousLearner l(diffusion_env(), small_model(), TrainOptions{}, 4, {}, langevin(30, 3));
  at::manual_seed(0);
  const at::Tensor remote = terminating(at::randn({5, 2}) * 6);
  const at::Tensor before = l.env().log_reward(remote);
  l.queue_states(remote);
  const IterationResult r = l.train_iteration(8, 5);
  EXPECT_EQ(r.n_fresh, 8);
  EXPECT_EQ(r.n_remote, 5);
  EXPECT_EQ(r.n_local_search, 8);  // 5 remote + 3 fresh
  EXPECT_EQ(r.batch_size, 16);
  EXPECT_EQ(r.local_search_proposals, 8 * 30);
  EXPECT_GT(r.local_search_accepted, 0);
  ASSERT_EQ(r.terminating_states.size(0), 16) << "8 fresh + 8 searched are submitted";
  const at::Tensor searched = r.terminating_states.narrow(0, 8, 8);
  EXPECT_TRUE(at::allclose(r.log_rewards.narrow(0, 8, 8), l.env().log_reward(searched)));
  // MALA from far-out points climbs toward the modes: log R rises on average.
  EXPECT_GT(r.log_rewards.narrow(0, 8, 5).mean().item<double>(), before.mean().item<double>());
  EXPECT_TRUE(std::isfinite(r.loss));
  // log R of 16 trajectories, MALA's 8 x 31 evaluations at least.
  EXPECT_GE(r.target_evaluations, 16 + 8 * 31);
  EXPECT_EQ(l.batch_counts().target_evaluations, r.target_evaluations);
  EXPECT_EQ(l.batch_counts().local_search_proposals, 240);
  EXPECT_NE(l.langevin_state().step, 0.05) << "adapted";
}

TEST(LangevinLearner, LangevinEveryAndOffLeaveTheOtherIterationsAlone) {
  LocalSearchOptions o = langevin(5, 2);
  o.langevin_every = 2;
  ContinuousLearner with(diffusion_env(), small_model(), TrainOptions{}, 9, {}, o);
  ContinuousLearner without(diffusion_env(), small_model(), TrainOptions{}, 9);
  EXPECT_EQ(with.train_iteration(4).n_local_search, 2);  // iteration 1
  EXPECT_EQ(without.train_iteration(4).n_local_search, 0);
  const IterationResult a = with.train_iteration(4), b = without.train_iteration(4);
  EXPECT_EQ(a.n_local_search, 0);  // iteration 2
  EXPECT_EQ(a.terminating_states.size(0), 4);
  EXPECT_GT(b.target_evaluations, 0);
  EXPECT_EQ(with.train_iteration(4).n_local_search, 2);  // iteration 3
}

TEST(LangevinLearner, CheckpointContinuesBitIdentically) {
  const LocalSearchOptions o = langevin(8, 2);
  ContinuousLearner straight(diffusion_env(), small_model(), TrainOptions{}, 21, {}, o);
  for (int i = 0; i < 3; ++i) straight.train_iteration(6);
  straight.queue_states(terminating(at::randn({4, 2}) * 3));
  torch::serialize::OutputArchive out;
  straight.save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  std::vector<double> after;
  at::Tensor last_states;
  for (int i = 0; i < 3; ++i) {
    const IterationResult r = straight.train_iteration(6, 4);
    after.push_back(r.loss);
    last_states = r.terminating_states;
  }

  ContinuousLearner resumed(diffusion_env(), small_model(), TrainOptions{}, 21, {}, o);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  resumed.load_state(in);
  std::vector<double> again;
  at::Tensor states;
  for (int i = 0; i < 3; ++i) {
    const IterationResult r = resumed.train_iteration(6, 4);
    again.push_back(r.loss);
    states = r.terminating_states;
  }
  EXPECT_EQ(again, after);
  EXPECT_TRUE(at::equal(states, last_states));
  EXPECT_EQ(resumed.langevin_state().step, straight.langevin_state().step);
  EXPECT_EQ(resumed.langevin_state().window_steps, straight.langevin_state().window_steps);
  EXPECT_EQ(resumed.batch_counts().local_search_accepted,
            straight.batch_counts().local_search_accepted);
  EXPECT_EQ(resumed.batch_counts().target_evaluations, straight.batch_counts().target_evaluations);
}

std::string refusal(const std::function<void()>& make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(LangevinLearner, RefusesEnvironmentsWithoutAGradientAndTheDiscreteKeys) {
  const std::string box = refusal([] {
    ContinuousLearner(diffusion_env("box"), small_model(), TrainOptions{}, 1, {}, langevin());
  });
  EXPECT_NE(box.find("local_search.mode"), std::string::npos) << box;
  EXPECT_NE(box.find("\"box\""), std::string::npos) << box;
  LocalSearchOptions o = langevin();
  o.back_ratio = 0.25;
  EXPECT_NE(refusal([&] {
              ContinuousLearner(diffusion_env(), small_model(), TrainOptions{}, 1, {}, o);
            }).find("local_search.back_ratio"),
            std::string::npos);
  o = langevin();
  o.acceptance = LocalSearchAcceptance::kMetropolisHastings;
  EXPECT_NE(refusal([&] {
              ContinuousLearner(diffusion_env(), small_model(), TrainOptions{}, 1, {}, o);
            }).find("local_search.acceptance"),
            std::string::npos);
  o = langevin();
  o.loops = 1;
  EXPECT_NE(refusal([&] {
              ContinuousLearner(diffusion_env(), small_model(), TrainOptions{}, 1, {}, o);
            }).find("local_search.loops"),
            std::string::npos);
  EnvOptions grid;
  grid.name = "hypergrid";
  EXPECT_NE(refusal([&] {
              make_agent(grid, small_model(), TrainOptions{}, 1, {}, {}, langevin());
            }).find("local_search.mode"),
            std::string::npos)
      << "the discrete learner refuses mode langevin";
  o = langevin();
  o.target_acceptance = 1.0;
  EXPECT_NE(refusal([&] {
              ContinuousLearner(diffusion_env(), small_model(), TrainOptions{}, 1, {}, o);
            }).find("local_search.target_acceptance"),
            std::string::npos);
}

}  // namespace
}  // namespace gfn::core
