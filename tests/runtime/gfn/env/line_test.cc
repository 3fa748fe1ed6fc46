// Line (runtime/gfn/env/line.h) and its Gaussian policies (line_policies.h): the
// ContinuousEnvironment contract, the quadrature log Z against the closed form (a mixture of
// Gaussians integrates to the sum of its weights), the reward against the mixture density
// computed here, the target samples' moments, the fixed number of steps and the forced exit,
// the policies' log-densities against torch.distributions.Normal's formula with
// GaussianStepMLP's scale mapping, the exploration scale, and the refusals.
#include "runtime/gfn/env/line.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/env/line_options.h"
#include "runtime/gfn/env/line_policies.h"
#include "tests/support/continuous_environment_contract.h"
#include "tests/support/error_text.h"

namespace gfn::core {
namespace {

using testing::what_of;

at::Tensor rows(std::vector<float> v) {
  const auto n = static_cast<std::int64_t>(v.size()) / 2;
  return at::tensor(v, at::kFloat).view({n, 2});
}

// log N(a; loc, sigma^2), torch.distributions.Normal.log_prob, in double.
double normal_log_pdf(double a, double loc, double sigma) {
  const double z = (a - loc) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * M_PI);
}

// GaussianStepMLP's scale: sigmoid(raw) * (max - min) + min.
double scale_of(double raw, double lo = 0.1, double hi = 1.0) {
  return lo + (hi - lo) / (1 + std::exp(-raw));
}

LineOptions three_components() {
  LineOptions o;
  o.mus = {-3.0, 0.5, 4.0};
  o.sigmas = {0.2, 1.5, 0.7};
  o.weights = {0.3, 2.0, 5.0};
  o.init_value = 1.0;
  o.n_steps = 3;
  return o;
}

TEST(Line, Contract) {
  for (const LineOptions& o : {LineOptions{}, three_components()}) {
    const Line line(o);
    const LinePolicyOptions po;
    gfn::test::check_continuous_generic(line, LineForwardPolicy(line, po),
                                        LineBackwardPolicy(line, po));
    gfn::test::check_continuous_target(line);
  }
}

TEST(Line, QuadratureLogZIsTheSumOfTheWeights) {
  // torchgfn's Line: two unit-weight modes, log Z = log 2 (its log_partition).
  EXPECT_NEAR(Line(LineOptions{}).log_partition(), std::log(2.0), 1e-9);
  EXPECT_NEAR(Line(three_components()).log_partition(), std::log(0.3 + 2.0 + 5.0), 1e-9);
  LineOptions narrow;
  narrow.mus = {0.0, 100.0};
  narrow.sigmas = {0.01, 3.0};
  narrow.weights = {1e-3, 4.0};
  narrow.init_value = 50.0;
  EXPECT_NEAR(Line(narrow).log_partition(), std::log(4.001), 1e-9);
}

TEST(Line, QuadratureOfClosedForms) {
  // int_0^1 e^x dx = e - 1; int_{-1}^{2} x^2 dx = 3 (Simpson is exact on cubics).
  EXPECT_NEAR(quadrature_log_integral([](const at::Tensor& x) { return x; }, 0, 1, 200),
              std::log(std::exp(1.0) - 1), 1e-10);
  EXPECT_NEAR(
      quadrature_log_integral([](const at::Tensor& x) { return 2 * x.abs().log(); }, -1, 2, 6),
      std::log(3.0), 1e-12);
  // Far below float64's smallest value in linear space: log e^-2000 (b - a).
  EXPECT_NEAR(quadrature_log_integral([](const at::Tensor& x) { return x * 0 - 2000; }, 0, 2, 2),
              -2000 + std::log(2.0), 1e-9);
  EXPECT_THROW(quadrature_log_integral([](const at::Tensor& x) { return x; }, 0, 1, 3),
               std::invalid_argument);
}

TEST(Line, RewardIsTheMixtureDensity) {
  const LineOptions o = three_components();
  const Line line(o);
  const at::Tensor x = rows({-3.1f, 3, 0.0f, 3, 4.4f, 3, 9.0f, 3});
  const at::Tensor lr = line.log_reward(x);
  for (std::int64_t i = 0; i < x.size(0); ++i) {
    const double xi = x[i][0].item<double>();
    double r = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      r += o.weights[k] * std::exp(normal_log_pdf(xi, o.mus[k], o.sigmas[k]));
    }
    EXPECT_NEAR(lr[i].item<double>(), std::log(r), 1e-5) << xi;
  }
  EXPECT_TRUE(at::allclose(line.log_density(x), lr - line.log_partition()));
}

TEST(Line, TargetSamplesHaveTheMixtureMoments) {
  const LineOptions o = three_components();
  const Line line(o);
  at::Generator gen = at::detail::createCPUGenerator(5);
  const at::Tensor s = line.sample_target(200000, gen);
  EXPECT_TRUE(s.select(1, 1).eq(3).all().item<bool>());
  const double w = 7.3;
  double mean = 0, second = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    mean += o.weights[k] / w * o.mus[k];
    second += o.weights[k] / w * (o.sigmas[k] * o.sigmas[k] + o.mus[k] * o.mus[k]);
  }
  const double sd = std::sqrt(second - mean * mean);  // 2.23
  EXPECT_NEAR(s.select(1, 0).mean().item<double>(), mean, 5 * sd / std::sqrt(200000.0));
  EXPECT_NEAR(s.select(1, 0).std().item<double>(), sd, 0.02);
  // Mode hits: a hit of mode j per row within sigma_j of mu_j; expected count per row
  // sum_j P(|x - mu_j| <= sigma_j) under the mixture (Normal CDFs by erf).
  double expected_hits = 0;
  const auto cdf = [](double z) { return 0.5 * (1 + std::erf(z / std::sqrt(2.0))); };
  for (std::size_t j = 0; j < 3; ++j) {
    for (std::size_t k = 0; k < 3; ++k) {
      const double hi = (o.mus[j] + o.sigmas[j] - o.mus[k]) / o.sigmas[k];
      const double lo = (o.mus[j] - o.sigmas[j] - o.mus[k]) / o.sigmas[k];
      expected_hits += o.weights[k] / w * (cdf(hi) - cdf(lo));
    }
  }
  const double hit = static_cast<double>(line.mode_hits(s).size(0)) / 200000;
  EXPECT_NEAR(hit, expected_hits, 0.005);  // standard error 0.001
}

TEST(Line, FixedStepsAndForcedExit) {
  const Line line(LineOptions{});
  const LineForwardPolicy pf(line, {});
  at::Generator gen = at::detail::createCPUGenerator(1);
  at::Tensor s = line.initial_states(4);
  EXPECT_TRUE(at::equal(s, rows({0, 0, 0, 0, 0, 0, 0, 0})));
  for (int t = 0; t < 5; ++t) {
    EXPECT_FALSE(line.can_exit(s).any().item<bool>());
    const ContinuousActions a = pf.sample(s, at::randn({4, 2}, gen), 1.0, gen);
    EXPECT_FALSE(a.is_exit.any().item<bool>());
    s = line.step(s, a);
  }
  EXPECT_TRUE(line.can_exit(s).all().item<bool>());
  const at::Tensor out = at::randn({4, 2}, gen);
  const ContinuousActions exit = pf.sample(s, out, 1.0, gen);
  EXPECT_TRUE(exit.is_exit.all().item<bool>());
  EXPECT_TRUE(pf.log_prob(s, out, exit, 1.0).eq(0).all().item<bool>());
  // Exit before the last step, a move after it: -inf; a move from t = 5 is refused.
  const at::Tensor s0 = line.initial_states(1);
  const ContinuousActions early{rows({0, 1}), at::ones({1}, at::kBool)};
  EXPECT_TRUE(std::isinf(pf.log_prob(s0, at::zeros({1, 2}), early, 1.0).item<double>()));
  const at::Tensor end = s.narrow(0, 0, 1);
  const ContinuousActions late{rows({0.5f, 1}), at::zeros({1}, at::kBool)};
  EXPECT_TRUE(std::isinf(pf.log_prob(end, at::zeros({1, 2}), late, 1.0).item<double>()));
  EXPECT_NE(what_of([&] { line.step(end, late); }).find("line"), std::string::npos);
  // A step counter other than 1 is refused.
  EXPECT_THROW(line.step(s0, {rows({0.5f, 2}), at::zeros({1}, at::kBool)}), std::invalid_argument);
}

TEST(Line, PolicyLogDensitiesAreTorchsNormal) {
  const Line line(three_components());
  const LinePolicyOptions po{0.2, 1.4};
  const LineForwardPolicy pf(line, po);
  const LineBackwardPolicy pb(line, po);
  const at::Tensor states = rows({1.0f, 0, 2.5f, 1, -1.0f, 2, 3.0f, 3});
  const at::Tensor out = rows({0.3f, -1.0f, -2.0f, 0.5f, 1.5f, 2.0f, 0.0f, 0.0f});
  const at::Tensor inc = rows({0.7f, 1, -0.4f, 1, 2.0f, 1, 0.0f, 0});
  const ContinuousActions a{inc, at::tensor({0, 0, 0, 1}).to(at::kBool)};
  for (double temperature : {1.0, 1.75}) {
    const at::Tensor lp = pf.log_prob(states, out, a, temperature);
    for (std::int64_t i = 0; i < 3; ++i) {
      const double sigma = scale_of(out[i][1].item<double>(), 0.2, 1.4) + (temperature - 1);
      EXPECT_NEAR(lp[i].item<double>(),
                  normal_log_pdf(inc[i][0].item<double>(), out[i][0].item<double>(), sigma), 1e-5);
    }
    EXPECT_EQ(lp[3].item<double>(), 0.0);  // the forced exit
  }
  // Backward: t = 1 back to s0 is forced (a = x - init_value = 1.5), t >= 2 the Normal.
  const at::Tensor children = states.narrow(0, 1, 3);
  const at::Tensor back = rows({1.5f, 1, -0.3f, 1, 0.9f, 1});
  const at::Tensor lpb =
      pb.log_prob(children, out.narrow(0, 1, 3), {back, at::zeros({3}, at::kBool)}, 1.0);
  EXPECT_EQ(lpb[0].item<double>(), 0.0);
  for (std::int64_t i = 1; i < 3; ++i) {
    const double sigma = scale_of(out[i + 1][1].item<double>(), 0.2, 1.4);
    EXPECT_NEAR(lpb[i].item<double>(),
                normal_log_pdf(back[i][0].item<double>(), out[i + 1][0].item<double>(), sigma),
                1e-5);
  }
  // Not back to s0 from t = 1: -inf.
  const at::Tensor wrong = pb.log_prob(children.narrow(0, 0, 1), out.narrow(0, 0, 1),
                                       {rows({1.0f, 1}), at::zeros({1}, at::kBool)}, 1.0);
  EXPECT_TRUE(std::isinf(wrong.item<double>()));
}

TEST(Line, ExplorationWidensTheDraws) {
  const Line line(LineOptions{});
  const LineForwardPolicy pf(line, {});
  const std::int64_t n = 100000;
  const at::Tensor s = line.initial_states(n);
  const at::Tensor out = at::zeros({n, 2});  // loc 0, scale 0.1 + 0.9 / 2 = 0.55
  at::Generator gen = at::detail::createCPUGenerator(2);
  EXPECT_NEAR(pf.sample(s, out, 1.0, gen).increments.select(1, 0).std().item<double>(), 0.55, 0.01);
  EXPECT_NEAR(pf.sample(s, out, 3.0, gen).increments.select(1, 0).std().item<double>(), 2.55, 0.03);
  EXPECT_NE(what_of([&] { pf.sample(s, out, 0.5, gen); }).find("temperature"), std::string::npos);
}

TEST(Line, BackwardWalkEndsInS0Exactly) {
  LineOptions o;
  o.init_value = 0.37;
  const Line line(o);
  const LineBackwardPolicy pb(line, {});
  at::Generator gen = at::detail::createCPUGenerator(4);
  at::Tensor s = line.sample_target(64, gen);
  for (int t = 0; t < 5; ++t) {
    const ContinuousActions a = pb.sample(s, at::randn({64, 2}, gen), 1.0, gen);
    s = line.backward_step(s, a.increments);
  }
  EXPECT_TRUE(at::equal(s, line.initial_states(64)));
}

TEST(Line, OptionsAndRefusals) {
  EnvOptions env;
  env.name = "line";
  const ContinuousParts parts = make_continuous_environment(env);
  EXPECT_EQ(parts.env->name(), "line");
  EXPECT_EQ(parts.pf->n_outputs(), 2);
  EXPECT_NEAR(parts.env->log_partition(), std::log(2.0), 1e-9);
  EXPECT_NE(what_of([&] { make_continuous_environment(env, true); }).find("model.uniform_pb"),
            std::string::npos);
  EXPECT_EQ(parse_number_list(" 2, -5.5,1e1", "mus"), (std::vector<double>{2, -5.5, 10}));
  EXPECT_TRUE(parse_number_list("", "weights").empty());
  EXPECT_NE(what_of([] { parse_number_list("2, x", "mus"); }).find("env.mus"), std::string::npos);
  EXPECT_THROW(parse_number_list("2,", "mus"), std::invalid_argument);
  EXPECT_THROW(parse_number_list("nan", "mus"), std::invalid_argument);
  LineOptions o;
  o.sigmas = {0.5};
  EXPECT_NE(what_of([&] { (void)Line{o}; }).find("env.sigmas"), std::string::npos);
  o = LineOptions{};
  o.weights = {1.0, 0.0};
  EXPECT_NE(what_of([&] { (void)Line{o}; }).find("env.weights"), std::string::npos);
  o = LineOptions{};
  o.init_value = 20;
  EXPECT_NE(what_of([&] { (void)Line{o}; }).find("env.init_value"), std::string::npos);
  EXPECT_NE(what_of([] {
              Line(LineOptions{}).check_states(rows({0, 0.5f}), "t");
            }).find("line"),
            std::string::npos);
  EXPECT_THROW(Line(LineOptions{}).log_reward(rows({0, 6})), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
