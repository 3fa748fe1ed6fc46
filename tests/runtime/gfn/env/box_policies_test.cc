// Box's policies (runtime/gfn/env/box_policies.h): log-densities against the closed form of
// one Beta component (Jacobian of the rescaling included), the densities integrating to the
// probability of not exiting, exit and back-to-source frequencies of the draws, temperature,
// and torchgfn's fixed ("uniform") backward policy.
#include "runtime/gfn/env/box_policies.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/box.h"

namespace gfn::core {
namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double log_beta(double x, double a, double b) {
  return (a - 1) * std::log(x) + (b - 1) * std::log1p(-x) + std::lgamma(a + b) - std::lgamma(a) -
         std::lgamma(b);
}
double concentration(double raw) { return 0.1 + 99.9 * sigmoid(raw); }

// Outputs [n, 1 + 3 d K] of one row repeated: the logit, then per coordinate i and component
// k the mixture logit mix[i][k], alpha raw a[i][k] and beta raw b[i][k].
at::Tensor outputs(std::int64_t n, double logit, const std::vector<std::vector<double>>& mix,
                   const std::vector<std::vector<double>>& a,
                   const std::vector<std::vector<double>>& b) {
  std::vector<float> row = {static_cast<float>(logit)};
  for (const auto* block : {&mix, &a, &b}) {
    for (const auto& coordinate : *block) {
      for (double v : coordinate) row.push_back(static_cast<float>(v));
    }
  }
  return at::tensor(row, at::kFloat).view({1, -1}).expand({n, -1}).contiguous();
}

BoxPolicyOptions components(int k) {
  BoxPolicyOptions o;
  o.n_components = k;
  return o;
}

const Box& box2() {
  static const Box box{BoxOptions{}};
  return box;
}

TEST(BoxForwardPolicy, OneComponentClosedForm) {
  const BoxForwardPolicy pf(box2(), components(1));
  const double logit = 0.3, ra0 = -3.7, rb0 = -3.2, ra1 = 0.4, rb1 = -1.0;
  const at::Tensor out = outputs(4, logit, {{0}, {0}}, {{ra0}, {ra1}}, {{rb0}, {rb1}});
  // Rows: a move from s, exit from s, a move from s0, exit from s0.
  const at::Tensor s = at::tensor({0.2f, 0.35f, 0.2f, 0.35f, 0.0f, 0.0f, 0.0f, 0.0f}).view({4, 2});
  const at::Tensor inc = at::tensor({0.3f, 0.25f, 0.0f, 0.0f, 0.6f, 0.1f, 0.0f, 0.0f}).view({4, 2});
  const at::Tensor is_exit = at::tensor({0, 1, 0, 1}).to(at::kBool);
  const at::Tensor lp = pf.log_prob(s, out, {inc, is_exit}, 1.0);
  const double w0 = 1 - 0.2f - 0.1, w1 = 1 - 0.35f - 0.1;  // max_range, float32 states
  const double move =
      std::log(1 - sigmoid(logit)) +
      log_beta((0.3f - 0.1) / w0, concentration(ra0), concentration(rb0)) - std::log(w0) +
      log_beta((0.25f - 0.1) / w1, concentration(ra1), concentration(rb1)) - std::log(w1);
  EXPECT_NEAR(lp[0].item<double>(), move, 1e-4);
  EXPECT_NEAR(lp[1].item<double>(), std::log(sigmoid(logit)), 1e-6);
  // From s0: no exit term, increments in [0, 1] (no rescaling).
  const double first = log_beta(0.6f, concentration(ra0), concentration(rb0)) +
                       log_beta(0.1f, concentration(ra1), concentration(rb1));
  EXPECT_NEAR(lp[2].item<double>(), first, 1e-4);
  EXPECT_EQ(lp[3].item<double>(), -INFINITY);
  // At the boundary only exit; out of range and small increments have no density.
  const at::Tensor edge = at::tensor({0.95f, 0.2f, 0.2f, 0.2f, 0.2f, 0.2f}).view({3, 2});
  const at::Tensor lp2 = pf.log_prob(
      edge, outputs(3, logit, {{0}, {0}}, {{ra0}, {ra1}}, {{rb0}, {rb1}}),
      {at::tensor({0.02f, 0.2f, 0.05f, 0.2f, 0.2f, 0.9f}).view({3, 2}), at::zeros({3}, at::kBool)},
      1.0);
  EXPECT_EQ(lp2[0].item<double>(), -INFINITY);
  EXPECT_EQ(lp2[1].item<double>(), -INFINITY);
  EXPECT_EQ(lp2[2].item<double>(), -INFINITY);
  // Temperature divides the exit logit.
  EXPECT_NEAR(pf.log_prob(s, out, {inc, is_exit}, 2.0)[1].item<double>(),
              std::log(sigmoid(logit / 2)), 1e-6);
}

// The density of the increments integrates to 1 - P(exit) (midpoint rule, 400 x 400).
double integrate(const ContinuousPolicy& p, const at::Tensor& state, const at::Tensor& out,
                 double lo0, double hi0, double lo1, double hi1) {
  const int m = 400;
  const at::Tensor u = (at::arange(m, at::kDouble) + 0.5) / m;
  const at::Tensor x0 = (lo0 + (hi0 - lo0) * u).to(at::kFloat);
  const at::Tensor x1 = (lo1 + (hi1 - lo1) * u).to(at::kFloat);
  const std::vector<at::Tensor> mesh = at::meshgrid({x0, x1}, "ij");
  const at::Tensor inc = at::stack({mesh[0].reshape(-1), mesh[1].reshape(-1)}, 1);
  const std::int64_t n = inc.size(0);
  const at::Tensor lp =
      p.log_prob(state.expand({n, 2}).contiguous(), out.expand({n, -1}).contiguous(),
                 {inc, at::zeros({n}, at::kBool)}, 1.0);
  return lp.to(at::kDouble).exp().sum().item<double>() * (hi0 - lo0) * (hi1 - lo1) / (m * m);
}

TEST(BoxForwardPolicy, DensityIntegratesToNotExiting) {
  const BoxForwardPolicy pf(box2(), components(2));
  const double logit = -0.4;
  const at::Tensor out = outputs(1, logit, {{0.2, -0.5}, {1.0, 0.0}}, {{-3.7, -2.0}, {-3.0, -4.0}},
                                 {{-3.2, -2.5}, {-2.2, -3.5}});
  const at::Tensor s = at::tensor({0.2f, 0.35f}).view({1, 2});
  EXPECT_NEAR(integrate(pf, s, out, 0.1, 0.8f, 0.1, 0.65f), 1 - sigmoid(logit), 2e-3);
  EXPECT_NEAR(integrate(pf, at::zeros({1, 2}), out, 0, 1, 0, 1), 1.0, 2e-3);
}

TEST(BoxBackwardPolicy, ClosedFormAndIntegral) {
  const BoxBackwardPolicy pb(box2(), components(1));
  // Concentrations (2.5, 10) and (2.5, 10): no mass near r = 1, where increments within
  // delta / 2 of the state count as back to source (torchgfn's rule).
  const double logit = 0.7, ra0 = -3.7, rb0 = -2.2, ra1 = -3.7, rb1 = -2.2;
  const at::Tensor out = outputs(3, logit, {{0}, {0}}, {{ra0}, {ra1}}, {{rb0}, {rb1}});
  // A move from (0.6, 0.5), back to source from it, back to source forced from (0.08, 0.5).
  const at::Tensor s = at::tensor({0.6f, 0.5f, 0.6f, 0.5f, 0.08f, 0.5f}).view({3, 2});
  const at::Tensor inc = at::tensor({0.3f, 0.2f, 0.6f, 0.5f, 0.08f, 0.5f}).view({3, 2});
  const at::Tensor lp = pb.log_prob(s, out, {inc, at::zeros({3}, at::kBool)}, 1.0);
  const double w0 = 0.6f - 0.1, w1 = 0.5 - 0.1;
  const double move =
      std::log(1 - sigmoid(logit)) +
      log_beta((0.3f - 0.1) / w0, concentration(ra0), concentration(rb0)) - std::log(w0) +
      log_beta((0.2f - 0.1) / w1, concentration(ra1), concentration(rb1)) - std::log(w1);
  EXPECT_NEAR(lp[0].item<double>(), move, 1e-4);
  EXPECT_NEAR(lp[1].item<double>(), std::log(sigmoid(logit)), 1e-6);
  EXPECT_EQ(lp[2].item<double>(), 0.0);
  EXPECT_NEAR(integrate(pb, s.narrow(0, 0, 1), out.narrow(0, 0, 1), 0.1, 0.55, 0.1, 0.45),
              1 - sigmoid(logit), 2e-3);
}

// torchgfn's fixed backward policy: constant raw outputs 1.
TEST(BoxBackwardPolicy, FixedOutputsOfTheUniformModule) {
  const BoxBackwardPolicy pb(box2(), components(5));
  const at::Tensor s = at::tensor({0.6f, 0.5f, 0.6f, 0.5f}).view({2, 2});
  const at::Tensor out = at::full({2, pb.n_outputs()}, kFixedBackwardOutput, at::kFloat);
  ASSERT_EQ(pb.n_outputs(), 31);
  const at::Tensor inc = at::tensor({0.6f, 0.5f, 0.3f, 0.3f}).view({2, 2});
  const at::Tensor lp = pb.log_prob(s, out, {inc, at::zeros({2}, at::kBool)}, 1.0);
  const double a = concentration(1.0);  // 73.1: Beta(a, a), equal weights
  EXPECT_NEAR(a, 73.1328, 1e-3);
  EXPECT_NEAR(lp[0].item<double>(), std::log(sigmoid(1.0)), 1e-6);
  const double move = std::log(1 - sigmoid(1.0)) + log_beta(0.2f / 0.5f, a, a) - std::log(0.5f) +
                      log_beta(0.2f / 0.4f, a, a) - std::log(0.4f);
  EXPECT_NEAR(lp[1].item<double>(), move, 1e-3);
}

// Draws: exit with probability sigmoid(logit / T) (5 standard errors), always at the
// boundary, never from s0; back to source with probability sigmoid(logit), always when forced.
TEST(BoxPolicies, DrawFrequencies) {
  const BoxForwardPolicy pf(box2(), components(3));
  const BoxBackwardPolicy pb(box2(), components(3));
  at::Generator gen = at::detail::createCPUGenerator(9);
  const std::int64_t n = 20000;
  const double logit = 0.8;
  const at::Tensor out = at::randn({1, pf.n_outputs()}, gen)
                             .index_fill_(1, at::zeros({1}, at::kLong), logit)
                             .expand({n, -1})
                             .contiguous();
  for (double t : {1.0, 2.5}) {
    const at::Tensor s = at::full({n, 2}, 0.3f);
    const double p = sigmoid(logit / t);
    const double share = pf.sample(s, out, t, gen).is_exit.to(at::kDouble).mean().item<double>();
    EXPECT_NEAR(share, p, 5 * std::sqrt(p * (1 - p) / n)) << "T = " << t;
  }
  EXPECT_TRUE(pf.sample(at::full({n, 2}, 0.9f), out, 1.0, gen).is_exit.all().item<bool>());
  const ContinuousActions first = pf.sample(at::zeros({n, 2}), out, 1.0, gen);
  EXPECT_FALSE(first.is_exit.any().item<bool>());
  EXPECT_TRUE(box2().forward_valid(at::zeros({n, 2}), first.increments).all().item<bool>());

  const at::Tensor c = at::full({n, 2}, 0.7f);
  const ContinuousActions back = pb.sample(c, out, 1.0, gen);
  const double bts = back.increments.eq(c).all(1).to(at::kDouble).mean().item<double>();
  const double p = sigmoid(logit);
  EXPECT_NEAR(bts, p, 5 * std::sqrt(p * (1 - p) / n));
  EXPECT_TRUE(box2().backward_valid(c, back.increments).all().item<bool>());
  const at::Tensor near = at::tensor({0.05f, 0.7f}).view({1, 2}).expand({n, 2}).contiguous();
  EXPECT_TRUE(pb.sample(near, out, 1.0, gen).increments.eq(near).all().item<bool>());
}

TEST(BoxPolicies, Refusals) {
  BoxPolicyOptions bad;
  bad.n_components = 0;
  EXPECT_THROW(BoxForwardPolicy(box2(), bad), std::invalid_argument);
  bad = BoxPolicyOptions{};
  bad.numerical_epsilon = 0;
  EXPECT_THROW(BoxBackwardPolicy(box2(), bad), std::invalid_argument);
  const BoxForwardPolicy pf(box2(), components(2));
  at::Generator gen = at::detail::createCPUGenerator(1);
  EXPECT_THROW(pf.sample(at::zeros({2, 2}), at::zeros({2, 12}), 1.0, gen), std::invalid_argument);
  EXPECT_THROW(pf.sample(at::zeros({2, 2}), at::zeros({2, 13}), 0.0, gen), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
