// DiffusionSampling (runtime/gfn/env/diffusion.h) and its pinned-Brownian-motion policies
// (diffusion_policies.h): the ContinuousEnvironment contract on gmm2 and on a 3-D funnel with
// the Langevin input; the log-densities against the Normal formula written out here (PF's
// Euler-Maruyama step, PB's Brownian bridge, the forced steps); the exactness of the whole
// path measure: with zero drift PF is the Brownian motion sigma W, whose marginal at time 1 is
// N(0, sigma^2 I) and whose bridge is PB, so for the target R = N(0, sigma^2 I) every
// trajectory's log R + log PB - log PF is 0 (ELBO = IW ELBO = EUBO = log Z = 0); the
// PISGradNet's parameter count (torchgfn's DiffusionPISGradNetForward, counted by hand below)
// and the Langevin term; training through the ContinuousLearner with every continuous loss; the
// refusals.
#include "runtime/gfn/env/diffusion.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/exact_gelu.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/continuous/log_z_bounds.h"
#include "runtime/gfn/continuous/pis_network.h"
#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/trajectory_ops.h"
#include "runtime/gfn/distributions/normal.h"
#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/env/diffusion_options.h"
#include "runtime/gfn/env/diffusion_policies.h"
#include "runtime/gfn/targets/gaussian_mixture.h"
#include "tests/support/continuous_environment_contract.h"
#include "tests/support/error_text.h"

namespace gfn::core {
namespace {

using testing::what_of;

at::Tensor flags(bool a, bool b) { return at::tensor({a ? 1 : 0, b ? 1 : 0}).to(at::kBool); }

double normal_log_pdf(double a, double loc, double sigma) {
  const double z = (a - loc) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * M_PI);
}

DiffusionEnvOptions options(const std::string& target = "gmm2", int n_steps = 8,
                            double sigma = 2.0) {
  DiffusionEnvOptions o;
  o.target = target;
  o.n_steps = n_steps;
  o.sigma = sigma;
  return o;
}

TEST(Diffusion, Contract) {
  DiffusionEnvOptions funnel = options("funnel", 5, 1.5);
  funnel.target_dim = 3;
  funnel.langevin = true;
  for (const DiffusionEnvOptions& o : {options(), funnel}) {
    const DiffusionSampling env(o);
    gfn::test::check_continuous_generic(env, DiffusionForwardPolicy(env),
                                        DiffusionBackwardPolicy(env));
    gfn::test::check_continuous_target(env);
  }
}

TEST(Diffusion, StatesRewardAndPolicyInputs) {
  DiffusionEnvOptions o = options("funnel", 4, 1.0);
  o.target_dim = 3;
  const DiffusionSampling env(o);
  EXPECT_EQ(env.dim(), 4);
  EXPECT_EQ(env.x_dim(), 3);
  const at::Tensor s = at::tensor({0.5f, -1.0f, 2.0f, 4.0f, 0.1f, 0.2f, 0.3f, 2.0f}).view({2, 4});
  EXPECT_TRUE(at::equal(env.can_exit(s), flags(true, false)));
  const at::Tensor x = s.narrow(1, 0, 3).contiguous();
  EXPECT_TRUE(
      at::allclose(env.log_reward(s.narrow(0, 0, 1)), env.target().log_reward(x.narrow(0, 0, 1))));
  const at::Tensor in = env.policy_inputs(s);
  EXPECT_EQ(in.sizes(), (at::IntArrayRef{2, 4}));  // (x, t / T) without langevin
  EXPECT_TRUE(at::allclose(in.select(1, 3), at::tensor({1.0f, 0.5f})));
  o.langevin = true;
  o.lgv_clip = 1.5;
  const DiffusionSampling lgv(o);
  const at::Tensor g = lgv.policy_inputs(s);
  EXPECT_EQ(g.sizes(), (at::IntArrayRef{2, 7}));
  const at::Tensor expected = lgv.target().grad_log_reward(x).clamp(-1.5, 1.5);
  EXPECT_TRUE(at::allclose(g.narrow(1, 4, 3), expected));
  EXPECT_GT(expected.abs().max().item<float>(), 0.0f);
  // Exact target samples sit at t = T; log_density = log R - log Z.
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor y = env.sample_target(16, gen);
  EXPECT_TRUE(env.can_exit(y).all().item<bool>());
  EXPECT_TRUE(at::allclose(env.log_density(y), env.log_reward(y) - env.log_partition()));
}

TEST(Diffusion, ForwardLogDensityIsTheEulerMaruyamaStep) {
  const DiffusionSampling env(options("gmm2", 4, 3.0));
  const DiffusionForwardPolicy pf(env);
  const at::Tensor s = at::tensor({0.2f, -0.4f, 1.0f, 1.0f, 2.0f, 4.0f}).view({2, 3});
  const at::Tensor drift = at::tensor({1.5f, -2.0f, 0.3f, 0.7f}).view({2, 2});
  const at::Tensor inc = at::tensor({0.9f, -1.2f, 1.0f, 0.0f, 0.0f, 1.0f}).view({2, 3});
  const ContinuousActions a{inc, flags(false, true)};
  for (const double temperature : {1.0, 1.8}) {
    const at::Tensor lp = pf.log_prob(s, drift, a, temperature);
    const double dt = 0.25;
    const double e = temperature - 1.0;
    const double std = std::sqrt(9.0 * dt + e * e);
    const double expected =
        normal_log_pdf(0.9, 1.5 * dt, std) + normal_log_pdf(-1.2, -2.0 * dt, std);
    EXPECT_NEAR(lp[0].item<double>(), expected, 1e-5) << temperature;
    EXPECT_EQ(lp[1].item<double>(), 0.0);  // the forced exit at t = T
  }
  // A move at T, an exit before T: -inf.
  const ContinuousActions wrong{inc, flags(true, false)};
  const at::Tensor lp = pf.log_prob(s, drift, wrong, 1.0);
  EXPECT_TRUE(std::isinf(lp[0].item<double>()) && std::isinf(lp[1].item<double>()));
  EXPECT_THROW(pf.log_prob(s, drift, a, 0.5), std::invalid_argument);
  EXPECT_THROW(pf.log_prob(s, at::zeros({2, 3}), a, 1.0), std::invalid_argument);
}

// The policies' log-densities (the squared distance reduced per row) against the plain path,
// torch's Normal per coordinate (distributions::Normal::log_prob summed over d), on random rows
// of every time 0..T with valid and invalid actions (non-finite, wrong time column, exits
// anywhere, t = 1 rows on and off the origin): the same values (-inf on the same rows) and, for
// PF, the same gradient w.r.t. the drift.
TEST(Diffusion, LogDensitiesEqualThePerCoordinateNormal) {
  const int T = 8;
  const double sigma = 2.0;
  DiffusionEnvOptions o = options("funnel", T, sigma);
  o.target_dim = 5;
  const DiffusionSampling env(o);
  const DiffusionForwardPolicy pf(env);
  const DiffusionBackwardPolicy pb(env);
  const std::int64_t n = 400, d = 5;
  torch::manual_seed(3);
  const at::Tensor t = at::randint(0, T + 1, {n, 1}).to(at::kFloat);
  const at::Tensor x = at::randn({n, d}) * 2;
  const at::Tensor states = at::cat({x, t}, 1);
  at::Tensor a = at::randn({n, d});
  a.narrow(0, 0, 40).copy_(x.narrow(0, 0, 40));  // back to the origin when t = 1
  a[41][2] = std::numeric_limits<float>::quiet_NaN();
  a[42][0] = std::numeric_limits<float>::infinity();
  at::Tensor time_col = at::ones({n, 1});
  time_col.narrow(0, 50, 5).fill_(0.0);
  const at::Tensor inc = at::cat({a, time_col}, 1);
  const at::Tensor is_exit = at::rand({n}).lt(0.1) | t.squeeze(1).eq(T);
  const at::Tensor drift = torch::randn({n, d}, torch::requires_grad());
  const at::Tensor ref_drift = drift.detach().clone().requires_grad_();
  const auto same = [](const at::Tensor& got, const at::Tensor& want, const char* what) {
    EXPECT_TRUE(at::equal(got.isinf(), want.isinf())) << what;
    const at::Tensor fin = want.isfinite();
    EXPECT_TRUE(at::allclose(got.masked_select(fin), want.masked_select(fin), 1e-5, 1e-4)) << what;
  };
  for (const double temperature : {1.0, 1.5}) {
    // Plain PF: the Normal per coordinate where the action is a finite move.
    const double dt = 1.0 / T, e = temperature - 1.0;
    const at::Tensor loc = ref_drift * dt;
    const at::Tensor move_ok = time_col.squeeze(1).eq(1) & a.isfinite().all(1);
    const at::Tensor safe_a = at::where(move_ok.unsqueeze(1), a, loc.detach());
    const at::Tensor plain =
        distributions::Normal(loc, at::full_like(loc, std::sqrt(sigma * sigma * dt + e * e)))
            .log_prob(safe_a)
            .sum(1);
    const at::Tensor at_end = t.squeeze(1).eq(T);
    const at::Tensor want = at::where(
        is_exit, at::where(at_end, at::zeros_like(plain), at::full_like(plain, -INFINITY)),
        at::where(at_end.logical_not() & move_ok, plain, at::full_like(plain, -INFINITY)));
    const at::Tensor got = pf.log_prob(states, drift, {inc, is_exit}, temperature);
    same(got, want, "PF");
    const at::Tensor w = at::rand({n}) * want.isfinite();
    const at::Tensor g = torch::autograd::grad({(got.nan_to_num(0, 0, 0) * w).sum()}, {drift})[0];
    const at::Tensor g_ref =
        torch::autograd::grad({(want.nan_to_num(0, 0, 0) * w).sum()}, {ref_drift})[0];
    EXPECT_TRUE(at::allclose(g, g_ref, 1e-4, 1e-5)) << (g - g_ref).abs().max().item<float>();
  }
  // Plain PB: the bridge's Normal per coordinate from t >= 2, the forced step from t = 1.
  const at::Tensor tt = t.squeeze(1);
  const at::Tensor t_safe = at::where(tt.ge(2), tt, at::full_like(tt, 2.0)).unsqueeze(1);
  const at::Tensor std = (sigma * sigma / T * (t_safe - 1.0) / t_safe).sqrt();
  const at::Tensor ok = time_col.squeeze(1).eq(1) & a.isfinite().all(1);
  const at::Tensor mean = x / t_safe;
  const at::Tensor lp = distributions::Normal(mean, std.expand_as(mean))
                            .log_prob(at::where(ok.unsqueeze(1), a, mean))
                            .sum(1);
  const at::Tensor inf = at::full_like(lp, -INFINITY);
  const at::Tensor first =
      at::where(ok & DiffusionSampling::returns_to_origin(x, a), at::zeros_like(lp), inf);
  const at::Tensor want =
      at::where(tt.gt(1), at::where(ok, lp, inf), at::where(tt.eq(1), first, inf));
  same(pb.log_prob(states, at::zeros({n, d}), {inc, at::zeros({n}, at::kBool)}, 1.0), want, "PB");
  EXPECT_GT(want.isfinite().sum().item<std::int64_t>(), n / 2);
  EXPECT_GT((tt.eq(1) & want.eq(0)).sum().item<std::int64_t>(), 0);
}

TEST(Diffusion, BackwardLogDensityIsTheBrownianBridge) {
  const double sigma = 2.5;
  const DiffusionSampling env(options("gmm2", 8, sigma));
  const DiffusionBackwardPolicy pb(env);
  // (x, t = 5): a ~ N(x / 5, sigma^2 dt 4 / 5); (x, t = 1): a = x, forced.
  const at::Tensor s = at::tensor({1.0f, -2.0f, 5.0f, 0.6f, 0.7f, 1.0f}).view({2, 3});
  const at::Tensor inc = at::tensor({0.3f, -0.1f, 1.0f, 0.6f, 0.7f, 1.0f}).view({2, 3});
  const at::Tensor lp = pb.log_prob(s, at::zeros({2, 2}), {inc, at::zeros({2}, at::kBool)}, 1.0);
  const double std = sigma * std::sqrt(0.125 * 4.0 / 5.0);
  EXPECT_NEAR(lp[0].item<double>(), normal_log_pdf(0.3, 0.2, std) + normal_log_pdf(-0.1, -0.4, std),
              1e-5);
  EXPECT_EQ(lp[1].item<double>(), 0.0);
  // Not back to the origin from t = 1: -inf; the outputs are not read.
  const at::Tensor off = inc.clone();
  off[1][0] = 0.5f;
  const at::Tensor lp2 = pb.log_prob(s, at::randn({2, 2}), {off, at::zeros({2}, at::kBool)}, 1.0);
  EXPECT_NEAR(lp2[0].item<double>(), lp[0].item<double>(), 1e-6);
  EXPECT_TRUE(std::isinf(lp2[1].item<double>()));
  // Sampling: the t = 1 row returns to s0 exactly.
  at::Generator gen = at::detail::createCPUGenerator(1);
  const ContinuousActions b = pb.sample(s, at::zeros({2, 2}), 1.0, gen);
  const at::Tensor parents = env.backward_step(s, b.increments);
  EXPECT_TRUE(env.is_initial(parents.narrow(0, 1, 1)).item<bool>());
  EXPECT_TRUE(at::equal(parents.narrow(0, 1, 1), env.initial_states(1)));
}

// The Brownian motion sigma W and the target N(0, sigma^2 I): PF with zero drift, the bridge
// PB; every trajectory, forward or backward from exact samples, has log w = 0.
// The fused diffusion sampler (ContinuousSamplerOptions::fused_diffusion) against the general
// loop: from the same generator state the same trajectories (the layout exactly; the float
// fields to float32 rounding: without langevin the fused path's drift comes from
// PisNetwork::step_drift, whose GEMMs group the sums differently) and the generator left in the
// same state; on gmm2 and on a 3-D funnel with the Langevin input, at temperature 1 and with
// exploration.
TEST(Diffusion, FusedSamplerEqualsTheGeneralLoop) {
  for (const bool langevin : {false, true}) {
    EnvOptions env_options;
    env_options.name = "diffusion";
    DiffusionEnvOptions o = options(langevin ? "funnel" : "gmm2", 5, 2.0);
    o.target_dim = langevin ? 3 : 0;
    o.langevin = langevin;
    env_options.get<DiffusionEnvOptions>() = o;
    const ContinuousParts parts = make_continuous_environment(env_options, ModelShape{true, 16, 2});
    ContinuousModelOptions mo;
    mo.hidden_dim = 16;
    mo.uniform_pb = true;
    mo.pis_pf = parts.pis_pf;
    mo.pis = parts.pis;
    mo.policy_input_dim = parts.policy_input_dim;
    ContinuousModel model(parts.env->dim(), parts.pf->n_outputs(), parts.pb->n_outputs(), mo);
    const ContinuousGFlowNet gfn{*parts.env, model, *parts.pf, *parts.pb};
    for (const auto& [temperature, save] :
         {std::pair{1.0, false}, {1.3, false}, {1.0, true}, {1.3, true}}) {
      if (save && langevin) continue;  // the saved forward has no Langevin input
      ContinuousSamplerOptions fused, general;
      fused.temperature = general.temperature = temperature;
      fused.save_pf_activations = save;  // PisNetwork::step_drift_saved on raw rows
      general.fused_diffusion = false;
      at::Generator g1 = at::detail::createCPUGenerator(21);
      at::Generator g2 = at::detail::createCPUGenerator(21);
      const ContinuousTrajectories a = sample_continuous_trajectories(gfn, 37, fused, g1);
      const ContinuousTrajectories b = sample_continuous_trajectories(gfn, 37, general, g2);
      const std::string where = std::string(langevin ? "funnel" : "gmm2") + " T " +
                                std::to_string(temperature) + (save ? " saving" : "");
      EXPECT_EQ(a.n_trajectories, b.n_trajectories);
      EXPECT_TRUE(at::allclose(a.states, b.states, 1e-4, 1e-5)) << where;
      EXPECT_TRUE(at::allclose(a.increments, b.increments, 1e-4, 1e-5)) << where;
      EXPECT_TRUE(at::equal(a.is_exit, b.is_exit)) << where;
      EXPECT_TRUE(at::allclose(a.pb_increments, b.pb_increments, 1e-4, 1e-5)) << where;
      EXPECT_TRUE(at::equal(a.traj_index, b.traj_index)) << where;
      EXPECT_TRUE(at::equal(a.lengths, b.lengths)) << where;
      EXPECT_TRUE(at::allclose(a.terminating_states, b.terminating_states, 1e-4, 1e-5)) << where;
      EXPECT_TRUE(at::allclose(a.log_rewards, b.log_rewards, 1e-4, 1e-5)) << where;
      EXPECT_EQ(a.states.size(0), 6 * 37);
      EXPECT_TRUE(at::equal(at::randn({4}, g1), at::randn({4}, g2))) << where;
      EXPECT_EQ(a.pf_activations != nullptr, save) << where;
    }
  }
}

// DiffusionForwardPolicy::draw_step (the fused sampler's one-pass step) against its formula
// a = f dt + s eps, next = x + a, with eps drawn by at::normal from a twin generator (sample's
// draw): the same moves and next states to float32 rounding, on strided views like the
// sampler's, the generators left in the same state; the draw-only call of the exit step;
// refusals of other layouts.
TEST(Diffusion, DrawStepEqualsItsFormula) {
  EnvOptions env_options;
  env_options.name = "diffusion";
  env_options.get<DiffusionEnvOptions>() = options("many_well", 7, 3.0);
  const ContinuousParts parts = make_continuous_environment(env_options, ModelShape{true, 16, 2});
  const auto& pf = dynamic_cast<const DiffusionForwardPolicy&>(*parts.pf);
  const std::int64_t b = 37, d = 32;
  const at::Tensor drift = at::randn({b, d});
  const at::Tensor rows = at::randn({3 * b, d + 1});  // x, a, next: column stride 1, row d + 1
  const at::Tensor x = rows.narrow(0, 0, b).narrow(1, 0, d);
  for (const double temperature : {1.0, 1.7}) {
    at::Generator g1 = at::detail::createCPUGenerator(5);
    at::Generator g2 = at::detail::createCPUGenerator(5);
    const at::Tensor eps = at::empty({b, d}).normal_(0.0, 1.0, g1);
    const at::Tensor a_ref = drift / 7.0 + eps * pf.step_std(temperature);
    at::Tensor noise = at::empty({b, d});
    at::Tensor a = rows.narrow(0, b, b).narrow(1, 0, d);
    at::Tensor next = rows.narrow(0, 2 * b, b).narrow(1, 0, d);
    pf.draw_step(drift, temperature, noise, x, a, next, g2);
    EXPECT_TRUE(at::allclose(a, a_ref, 1e-5, 1e-6)) << temperature;
    EXPECT_TRUE(at::allclose(next, x + a_ref, 1e-5, 1e-6)) << temperature;
    EXPECT_TRUE(at::equal(at::randn({4}, g1), at::randn({4}, g2))) << temperature;
    const at::Tensor before = rows.clone();
    pf.draw_step(at::Tensor(), temperature, noise, at::Tensor(), at::Tensor(), at::Tensor(), g2);
    EXPECT_TRUE(at::equal(noise, at::empty({b, d}).normal_(0.0, 1.0, g1))) << "the draw only";
    EXPECT_TRUE(at::equal(rows, before));
  }
  at::Generator g = at::detail::createCPUGenerator(5);
  at::Tensor noise = at::empty({b, d});
  const at::Tensor column_strided = at::empty({d, b}).t();
  EXPECT_THROW(pf.draw_step(drift, 1.0, noise, x, column_strided, at::empty({b, d}), g),
               std::invalid_argument);
  EXPECT_THROW(pf.draw_step(drift, 1.0, noise, x, at::empty({b, d}), at::empty({b + 1, d}), g),
               std::invalid_argument);
}

TEST(Diffusion, ZeroDriftPathMeasureIsExactForItsOwnMarginal) {
  const double sigma = 1.7;
  const double var = sigma * sigma;
  register_target("test_brownian_marginal", [var](std::int64_t) {
    return std::make_unique<GaussianMixtureTarget>(
        "test_brownian_marginal", at::ones({1}), at::zeros({1, 2}),
        (at::eye(2, at::kDouble) * var).unsqueeze(0), 5.0);
  });
  EnvOptions env_options;
  env_options.name = "diffusion";
  env_options.get<DiffusionEnvOptions>() = options("test_brownian_marginal", 6, sigma);
  const ContinuousParts parts = make_continuous_environment(env_options, ModelShape{true, 16, 2});
  ContinuousModelOptions mo;
  mo.hidden_dim = 16;
  mo.uniform_pb = true;
  mo.pis_pf = parts.pis_pf;
  mo.pis = parts.pis;
  mo.policy_input_dim = parts.policy_input_dim;
  ContinuousModel model(parts.env->dim(), parts.pf->n_outputs(), parts.pb->n_outputs(), mo);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model.named_parameters()) {
      if (p.key().find("drift_head") != std::string::npos) p.value().zero_();
    }
  }
  const ContinuousGFlowNet gfn{*parts.env, model, *parts.pf, *parts.pb};
  at::Generator gen = at::detail::createCPUGenerator(11);
  const ContinuousTrajectories fwd = sample_continuous_trajectories(gfn, 256, {}, gen);
  EXPECT_TRUE(at::equal(fwd.lengths, at::full({256}, 7, at::kLong)));  // T moves + exit
  const at::Tensor w = log_importance_weights(gfn, fwd);
  EXPECT_LT(w.abs().max().item<double>(), 1e-3);
  const LogZBounds b = log_z_bounds(gfn, fwd);
  EXPECT_NEAR(b.elbo, 0.0, 1e-4);
  EXPECT_NEAR(b.iw_elbo, 0.0, 1e-4);
  EXPECT_NEAR(eubo(gfn, parts.env->sample_target(256, gen), gen), 0.0, 1e-4);
  // With a drift the forward bound is below log Z and the backward one above.
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model.named_parameters()) {
      if (p.key().find("drift_head.bias") != std::string::npos) p.value().fill_(2.0);
    }
  }
  const LogZBounds off = log_z_bounds(gfn, sample_continuous_trajectories(gfn, 512, {}, gen));
  EXPECT_LT(off.elbo, -0.1);
  EXPECT_LE(off.elbo, off.iw_elbo);
  EXPECT_GT(eubo(gfn, parts.env->sample_target(512, gen), gen), 0.1);
}

// torchgfn's DiffusionPISGradNetForward(s_dim 2) with train_diffusion_sampler.py's defaults:
// t_phase 64, t_model Linear(128, 64) + Linear(64, 64), s_model Linear(2, 64), joint
// Linear(64, 64) x 2, head Linear(64, 2).
TEST(Diffusion, PisNetworkHasTorchgfnsParameterCount) {
  PisNetworkOptions o;
  PisNetwork net(o);
  std::int64_t n = 0;
  for (const auto& p : net.parameters()) n += p.numel();
  EXPECT_EQ(
      n, 64 + (128 * 64 + 64) + (64 * 64 + 64) + (2 * 64 + 64) + 2 * (64 * 64 + 64) + (64 * 2 + 2));
  EXPECT_EQ(net.forward(at::randn({5, 3})).sizes(), (at::IntArrayRef{5, 2}));
  // Langevin: the drift moves with g by s(tau) * g (zero_init: s = 0.01 at first).
  o.langevin = true;
  o.zero_init = true;
  PisNetwork lgv(o);
  at::Tensor in = at::randn({4, 5});
  at::Tensor other = in.clone();
  other.narrow(1, 3, 2).add_(1.0);
  const at::Tensor diff = lgv.forward(other) - lgv.forward(in);
  EXPECT_TRUE(at::allclose(diff, at::full({4, 2}, 0.01f), 1e-5, 1e-6));
}

// The shared time embedding (PisNetworkOptions::shared_time_embedding, the default: the time
// networks once per distinct tau) against the plain path (every row) with the same parameters:
// the same drift and the same gradient of every parameter, to float32 rounding, on the rows of
// a sampling step (one time), of a trajectory batch (T + 1 times, shuffled) and of all-distinct
// times; with and without the Langevin term.
TEST(Diffusion, PisNetworkSharedTimeEmbeddingEqualsEveryRow) {
  for (const bool langevin : {false, true}) {
    PisNetworkOptions o;
    o.x_dim = 3;
    o.langevin = langevin;
    o.shared_time_embedding = false;
    torch::manual_seed(11);
    PisNetwork plain(o);
    o.shared_time_embedding = true;
    PisNetwork shared(o);
    {
      torch::NoGradGuard no_grad;
      const auto from = plain.parameters();
      const auto to = shared.parameters();
      ASSERT_EQ(from.size(), to.size());
      for (std::size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
    }
    const std::int64_t n = 5 * 9;
    const at::Tensor one_step = at::full({7, 1}, 3.0 / 8);
    const at::Tensor steps =
        (at::arange(n) % 9).to(at::kFloat).index_select(0, at::randperm(n)) / 8;
    for (const at::Tensor& tau : {one_step, steps.unsqueeze(1), at::rand({n, 1})}) {
      const std::int64_t rows = tau.size(0);
      at::Tensor in = at::cat({at::randn({rows, 3}), tau}, 1);
      if (langevin) in = at::cat({in, at::randn({rows, 3})}, 1);
      const at::Tensor weights = at::randn({rows, 3});
      const at::Tensor a = plain.forward(in);
      const at::Tensor b = shared.forward(in);
      EXPECT_TRUE(at::allclose(a, b, 1e-4, 1e-5)) << "langevin " << langevin << ", rows " << rows;
      plain.zero_grad();
      shared.zero_grad();
      (a * weights).sum().backward();
      (b * weights).sum().backward();
      const auto ga = plain.named_parameters();
      const auto gb = shared.named_parameters();
      for (const auto& p : ga) {
        const at::Tensor other = gb[p.key()].grad();
        ASSERT_TRUE(p.value().grad().defined() && other.defined()) << p.key();
        EXPECT_TRUE(at::allclose(p.value().grad(), other, 1e-3, 1e-4))
            << p.key() << ", langevin " << langevin << ", rows " << rows << ": max difference "
            << (p.value().grad() - other).abs().max().item<float>();
      }
    }
  }
}

// PisNetwork::step_drift with a row of step_biases (the fused sampler's forward pass) against
// forward on (x, tau) for every step time, x strided as in the sampler's state rows.
TEST(Diffusion, PisNetworkStepDriftEqualsForward) {
  PisNetworkOptions o;
  o.x_dim = 4;
  torch::manual_seed(5);
  PisNetwork net(o);
  torch::NoGradGuard no_grad;
  const int T = 6;
  const at::Tensor tau = at::arange(T, at::kFloat).div(static_cast<double>(T)).unsqueeze(1);
  const at::Tensor biases = net.step_biases(tau);
  EXPECT_EQ(biases.sizes(), (at::IntArrayRef{T, 64}));
  for (int t = 0; t < T; ++t) {
    const at::Tensor states = at::cat({at::randn({9, 4}) * 3, at::full({9, 1}, t)}, 1);
    const at::Tensor input = at::cat({states.narrow(1, 0, 4), at::full({9, 1}, t / 6.0)}, 1);
    const at::Tensor got = net.step_drift(states.narrow(1, 0, 4), biases.narrow(0, t, 1));
    EXPECT_TRUE(at::allclose(got, net.forward(input), 1e-4, 1e-5)) << "t " << t;
  }
  o.langevin = true;
  PisNetwork lgv(o);
  EXPECT_THROW(lgv.step_biases(tau), std::logic_error);
}

// continuous_log_probs' trusted path (the learner's own fresh samples: no re-check, PF's
// network step-major on the move rows only, PF's Normal and PB's bridge without their masks)
// against the plain path (trusted_path false): log PF, log PB, log F and every parameter's
// gradient, on gmm2 (d = 2) and many_well (d = 32), from the fused sampler and the general
// loop, at temperature 1 and 1.3. Batches that are not trusted (PB's backward walks, a
// concatenation with them) keep every check.
TEST(Diffusion, TrustedLogProbsEqualThePlainPath) {
  for (const std::string target : {"gmm2", "many_well"}) {
    EnvOptions env_options;
    env_options.name = "diffusion";
    env_options.get<DiffusionEnvOptions>() = options(target, 6, 5.0);
    const ContinuousParts parts = make_continuous_environment(env_options, ModelShape{true, 16, 2});
    ContinuousModelOptions mo;
    mo.hidden_dim = 16;
    mo.uniform_pb = true;
    mo.with_log_flow = target == "gmm2";
    mo.pis_pf = parts.pis_pf;
    mo.pis = parts.pis;
    mo.policy_input_dim = parts.policy_input_dim;
    torch::manual_seed(3);
    ContinuousModel model(parts.env->dim(), parts.pf->n_outputs(), parts.pb->n_outputs(), mo);
    const ContinuousGFlowNet gfn{*parts.env, model, *parts.pf, *parts.pb};
    // (fused sampler, sampling forward saved): the general loop saves nothing.
    for (const auto& [fused, save] : {std::pair{true, false}, {true, true}, {false, false}}) {
      for (const double temperature : {1.0, 1.3}) {
        ContinuousSamplerOptions so;
        so.fused_diffusion = fused;
        so.save_pf_activations = save;
        so.temperature = temperature;
        at::Generator g = at::detail::createCPUGenerator(8);
        const ContinuousTrajectories trajs = sample_continuous_trajectories(gfn, 11, so, g);
        EXPECT_EQ(trajs.pf_activations != nullptr, save);
        if (save) {  // saving changes nothing in the trajectories
          ContinuousSamplerOptions plain_options = so;
          plain_options.save_pf_activations = false;
          at::Generator g2 = at::detail::createCPUGenerator(8);
          const ContinuousTrajectories again =
              sample_continuous_trajectories(gfn, 11, plain_options, g2);
          EXPECT_TRUE(at::allclose(trajs.states, again.states, 1e-5, 1e-6)) << target;
        }
        ASSERT_TRUE(trajs.trusted);
        const std::string where =
            target + (fused ? " fused" : " general") + " T " + std::to_string(temperature);
        const TransitionLogProbs plain = continuous_log_probs(gfn, trajs, temperature, false);
        const TransitionLogProbs fast = continuous_log_probs(gfn, trajs, temperature, true);
        ASSERT_EQ(fast.log_pf.sizes(), plain.log_pf.sizes()) << where;
        ASSERT_EQ(fast.log_pb.sizes(), plain.log_pb.sizes()) << where;
        EXPECT_TRUE(at::allclose(fast.log_pf, plain.log_pf, 1e-4, 1e-3)) << where;
        EXPECT_TRUE(at::allclose(fast.log_pb, plain.log_pb, 1e-4, 1e-3)) << where;
        // Not trivially equal: finite, and the bridge's rows differ from the forced 0.
        EXPECT_TRUE(plain.log_pf.isfinite().all().item<bool>()) << where;
        EXPECT_GT(plain.log_pb.abs().sum().item<double>(), 1.0) << where;
        if (mo.with_log_flow) {
          EXPECT_TRUE(at::allclose(fast.log_flow, plain.log_flow)) << where;
        }
        const at::Tensor w_pf = at::randn(plain.log_pf.sizes());
        auto gradients = [&](const TransitionLogProbs& lp) {
          model.zero_grad();
          at::Tensor objective = (lp.log_pf * w_pf).sum();
          if (lp.log_flow.defined()) objective = objective + lp.log_flow.sum();
          objective.backward();
          std::vector<at::Tensor> out;
          for (const auto& p : model.parameters()) {
            out.push_back(p.grad().defined() ? p.grad().clone() : at::zeros_like(p));
          }
          return out;
        };
        const auto ga = gradients(plain);
        const auto gb = gradients(fast);
        const auto names = model.named_parameters();
        ASSERT_EQ(ga.size(), gb.size());
        double total = 0;
        for (std::size_t i = 0; i < ga.size(); ++i) {
          total += ga[i].abs().sum().item<double>();
          EXPECT_TRUE(at::allclose(ga[i], gb[i], 1e-3, 1e-4))
              << where << ", " << names[i].key() << ": max difference "
              << (ga[i] - gb[i]).abs().max().item<float>();
        }
        EXPECT_GT(total, 0.0) << where;
      }
    }
    // Replayed states walk back with PB: not trusted, checked (a non-finite row is refused).
    at::Generator g = at::detail::createCPUGenerator(9);
    const ContinuousTrajectories fresh = sample_continuous_trajectories(gfn, 4, {}, g);
    const ContinuousTrajectories back =
        sample_backward_continuous_trajectories(gfn, fresh.terminating_states, {}, g);
    EXPECT_FALSE(back.trusted);
    ContinuousTrajectories mixed = concat_continuous_trajectories(fresh, back);
    EXPECT_FALSE(mixed.trusted);
    mixed.states[5][0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(what_of([&] { continuous_log_probs(gfn, mixed); }).find("not finite"),
              std::string::npos)
        << target;
  }
}

// engine.reuse_logprobs on diffusion (the loss differentiates the sampling forward's saved
// activations, PisNetwork::saved_forward) against false (the loss recomputes the forward):
// the same losses, logZ and parameters over iterations of TB and of SubTB (log F network).
TEST(Diffusion, ReusedSamplingForwardTrainsAsTheRecomputedOne) {
  EnvOptions env;
  env.name = "diffusion";
  env.get<DiffusionEnvOptions>() = options("many_well", 6, 5.0);
  env.get<DiffusionEnvOptions>().harmonics_dim = 16;
  env.get<DiffusionEnvOptions>().emb_dim = 16;
  ModelOptions model;
  model.hidden_dim = 16;
  model.n_hidden = 2;
  model.uniform_pb = true;
  for (const LossKind loss : {LossKind::kTB, LossKind::kSubTB}) {
    TrainOptions train;
    train.loss = loss;
    train.lr = 1e-2;
    EngineOptions reuse, recompute;
    reuse.reuse_logprobs = true;
    recompute.reuse_logprobs = false;
    ContinuousLearner a(env, model, train, 4, reuse);
    ContinuousLearner b(env, model, train, 4, recompute);
    for (int i = 0; i < 4; ++i) {
      const IterationResult ra = a.train_iteration(24);
      const IterationResult rb = b.train_iteration(24);
      EXPECT_NEAR(ra.loss, rb.loss, 1e-3 * (1 + std::abs(rb.loss)))
          << config::enum_name(loss) << " iteration " << i;
      EXPECT_NEAR(ra.log_z, rb.log_z, 1e-4) << config::enum_name(loss) << " iteration " << i;
    }
    const auto pa = a.module().named_parameters();
    const auto pb = b.module().named_parameters();
    for (const auto& p : pa) {
      EXPECT_TRUE(at::allclose(p.value(), pb[p.key()], 1e-3, 1e-4))
          << config::enum_name(loss) << " " << p.key();
    }
  }
}

// exact_gelu.h's loops (the saved sampling forward's GELU) against LibTorch's exact GELU and
// its derivative, on a grid over [-12, 12] and random values, contiguous slices of odd length
// (the 8-wide loop's tail) and in place; refusals of strided or mismatched tensors.
// Within float32 rounding of a reference: |a - ref| <= 1e-6 (1 + |ref|) everywhere.
void expect_close_to(const at::Tensor& a, const at::Tensor& ref, const std::string& what) {
  const double excess = (a - ref).abs().sub(ref.abs().add(1.0).mul(1e-6)).max().item<double>();
  EXPECT_LE(excess, 0.0) << what << ", " << a.numel() << " values";
}

TEST(Diffusion, ExactGeluLoopsEqualLibTorchsGelu) {
  const at::Tensor grid = at::linspace(-12.0, 12.0, 24001, at::kFloat);
  const at::Tensor random = at::randn({413, 64}) * 3;
  int loops_run = 0;
  for (const GeluLoop loop :
       {GeluLoop::kBest, GeluLoop::kBaseline, GeluLoop::kAvx2, GeluLoop::kAvx512}) {
    if (!exact_gelu_loop_available(loop)) {
      at::Tensor out = at::empty_like(random);
      EXPECT_THROW(exact_gelu_out(random, out, loop), std::invalid_argument);
      continue;
    }
    ++loops_run;
    const std::string name = "loop " + std::to_string(static_cast<int>(loop));
    for (const at::Tensor& x : {grid, random, random.narrow(0, 7, 100), grid.narrow(0, 3, 13)}) {
      at::Tensor out = at::empty_like(x);
      exact_gelu_out(x, out, loop);
      expect_close_to(out, at::gelu(x), name + " forward");
      at::Tensor out2 = at::full_like(x, 7.0), slope = at::full_like(x, 7.0);
      exact_gelu_slope_out(x, out2, slope, loop);
      EXPECT_TRUE(at::equal(out2, out)) << name;
      expect_close_to(slope, at::gelu_backward(at::ones_like(x), x), name + " slope");
    }
  }
  EXPECT_GE(loops_run, 2);  // kBest and the baseline run everywhere
  at::Tensor in_place = random.clone();
  exact_gelu_out(in_place, in_place);
  EXPECT_TRUE(at::allclose(in_place, at::gelu(random), 1e-5, 1e-6));
  at::Tensor out = at::empty({64, 413});
  EXPECT_THROW(exact_gelu_out(random.t(), out), std::invalid_argument);
  at::Tensor short_slope = at::empty({10});
  at::Tensor full = at::empty_like(random);
  EXPECT_THROW(exact_gelu_out(grid, full), std::invalid_argument);
  EXPECT_THROW(exact_gelu_slope_out(random, full, short_slope), std::invalid_argument);
}

TEST(Diffusion, EveryContinuousLossTrainsThroughTheLearner) {
  EnvOptions env;
  env.name = "diffusion";
  env.get<DiffusionEnvOptions>() = options("gmm2", 8, 5.0);
  ModelOptions model;
  model.hidden_dim = 32;
  model.n_hidden = 2;
  for (const LossKind loss : {LossKind::kTB, LossKind::kZVar, LossKind::kSubTB}) {
    TrainOptions train;
    train.loss = loss;
    ContinuousLearner learner(env, model, train, 5);
    for (int i = 0; i < 3; ++i) {
      const IterationResult r = learner.train_iteration(16);
      EXPECT_TRUE(std::isfinite(r.loss)) << config::enum_name(loss);
      EXPECT_EQ(r.terminating_states.sizes(), (at::IntArrayRef{16, 3}));
    }
    ValidationOptions v;
    v.n_samples = 200;
    const ValidationResult result = learner.validate(v);
    EXPECT_TRUE(std::isfinite(result.elbo) && std::isfinite(result.iw_elbo) &&
                std::isfinite(result.eubo))
        << config::enum_name(loss);
    EXPECT_LE(result.elbo, result.iw_elbo);
    EXPECT_EQ(result.log_z_true, 0.0);
    EXPECT_TRUE(std::isfinite(result.jsd));
    // The samples samples/validation_<iteration>.npy holds: x without t, float32.
    ASSERT_TRUE(result.learned_points.defined() && result.target_points.defined());
    EXPECT_EQ(result.learned_points.sizes(), (at::IntArrayRef{200, 2}));
    EXPECT_EQ(result.target_points.sizes(), (at::IntArrayRef{200, 2}));
    EXPECT_EQ(result.learned_points.scalar_type(), at::kFloat);
    EXPECT_TRUE(result.learned_points.isfinite().all().item<bool>());
    EXPECT_TRUE(result.target_points.isfinite().all().item<bool>());
  }
}

TEST(Diffusion, Refusals) {
  EXPECT_NE(what_of([] { (void)DiffusionSampling(options("nope")); }).find("env.target"),
            std::string::npos);
  DiffusionEnvOptions o = options("gmm2");
  o.target_dim = 3;
  EXPECT_NE(what_of([&] { (void)DiffusionSampling(o); }).find("env.target"), std::string::npos);
  o = options("gmm2", 0);
  EXPECT_NE(what_of([&] { (void)DiffusionSampling(o); }).find("env.n_steps"), std::string::npos);
  o = options("gmm2", 4, 0.0);
  EXPECT_NE(what_of([&] { (void)DiffusionSampling(o); }).find("env.sigma"), std::string::npos);
  const DiffusionSampling env(options("gmm2", 4));
  const at::Tensor half_step = at::tensor({0.0f, 0.0f, 1.5f}).view({1, 3});
  EXPECT_NE(what_of([&] { env.check_states(half_step, "who"); }).find("step counter"),
            std::string::npos);
}

}  // namespace
}  // namespace gfn::core
