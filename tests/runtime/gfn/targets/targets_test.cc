// The targets of amortised samplers (runtime/gfn/targets/): log densities against
// torch.distributions (targets_reference.py), log Z by quadrature, exact samples by their
// moments, gradients against closed forms, the registry's refusals.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/gfn/targets/funnel_many_well.h"
#include "runtime/gfn/targets/gaussian_mixture.h"
#include "runtime/gfn/targets/target.h"

namespace gfn::core {
namespace {

struct ReferencePoints {
  std::vector<std::vector<double>> x;
  std::vector<double> log_reward;
};

std::map<std::string, ReferencePoints> read_reference() {
  std::ifstream in(GFN_TARGETS_REFERENCE);
  EXPECT_TRUE(in.good()) << "no reference file " << GFN_TARGETS_REFERENCE;
  std::map<std::string, ReferencePoints> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind, name;
    fields >> kind >> name;
    if (kind != "point") continue;
    int dim = 0;
    fields >> dim;
    std::vector<double> x(dim);
    for (auto& v : x) fields >> v;
    double lr = 0;
    fields >> lr;
    out[name].x.push_back(x);
    out[name].log_reward.push_back(lr);
  }
  return out;
}

at::Tensor rows(const std::vector<std::vector<double>>& x) {
  std::vector<float> flat;
  for (const auto& r : x) flat.insert(flat.end(), r.begin(), r.end());
  return at::tensor(flat, at::kFloat).view({static_cast<std::int64_t>(x.size()), -1});
}

TEST(TargetsTest, LogRewardsEqualTorchDistributions) {
  const auto reference = read_reference();
  for (const std::string name : {"gmm2", "grid25", "funnel"}) {
    ASSERT_TRUE(reference.count(name)) << name;
    const auto& ref = reference.at(name);
    const auto target = make_target(name, static_cast<std::int64_t>(ref.x[0].size()));
    const at::Tensor lr = target->log_reward(rows(ref.x));
    ASSERT_EQ(lr.sizes(), (at::IntArrayRef{static_cast<std::int64_t>(ref.x.size())}));
    for (std::size_t i = 0; i < ref.x.size(); ++i) {
      const double want = ref.log_reward[i];
      EXPECT_NEAR(lr[i].item<double>(), want, 1e-5 * std::abs(want) + 1e-4) << name << " " << i;
    }
  }
}

// ∫∫ exp(log R) over a grid of the square [-half, half]^2 with spacing h.
double integrate_2d(const Target& t, double half, double h) {
  const at::Tensor axis = at::arange(-half, half, h, at::kFloat);
  const auto grids = at::meshgrid({axis, axis}, "ij");
  const at::Tensor x = at::stack({grids[0].reshape(-1), grids[1].reshape(-1)}, 1);
  return t.log_reward(x).to(at::kDouble).exp().sum().item<double>() * h * h;
}

TEST(TargetsTest, TwoDimensionalMixturesIntegrateToOne) {
  EXPECT_NEAR(integrate_2d(*make_target("gmm2"), 35.0, 0.05), 1.0, 1e-3);
  EXPECT_NEAR(integrate_2d(*make_target("grid25"), 15.0, 0.02), 1.0, 1e-3);
  EXPECT_EQ(make_target("gmm2")->log_partition(), 0.0);
}

TEST(TargetsTest, ManyWellLogPartitionByQuadrature) {
  // 1-D: ∫ exp(-x^4 + 6 x^2 + 0.5 x) dx in double, independently of the target.
  const at::Tensor z = at::arange(-6.0, 6.0, 1e-4, at::kDouble);
  const double z_x1 = (-z.pow(4) + 6.0 * z.pow(2) + 0.5 * z).exp().sum().item<double>() * 1e-4;
  EXPECT_NEAR(z_x1 / ManyWellTarget::kZx1, 1.0, 1e-7);
  // 2-D, through the target's log reward (one block).
  const ManyWellTarget t(2);
  const at::Tensor x1 = at::arange(-4.0, 4.0, 0.002, at::kFloat);
  const at::Tensor x2 = at::arange(-8.0, 8.0, 0.01, at::kFloat);
  const auto g = at::meshgrid({x1, x2}, "ij");
  const at::Tensor x = at::stack({g[0].reshape(-1), g[1].reshape(-1)}, 1);
  const double z2 = t.log_reward(x).to(at::kDouble).exp().sum().item<double>() * 0.002 * 0.01;
  EXPECT_NEAR(std::log(z2), t.log_partition(), 1e-4);
  EXPECT_NEAR(ManyWellTarget(32).log_partition(), 16 * t.log_partition(), 1e-9);
}

TEST(TargetsTest, GaussianMixtureSamplesHaveItsMoments) {
  at::Generator gen = at::detail::createCPUGenerator(7);
  const auto t = make_target("gmm2");
  const at::Tensor s = t->sample(200000, gen).to(at::kDouble);
  ASSERT_EQ(s.sizes(), (at::IntArrayRef{200000, 2}));
  // E[x] = sum_k w_k mu_k with gmm2's torchgfn parameters (targets_reference.py).
  const double w0 = 0.4658074069789519, w1 = 0.5341925930210482;
  const double m0 = w0 * -8.287016657127513 + w1 * 6.025489304127937;
  const double m1 = w0 * -5.263789868078006 + w1 * 1.6432407212873557;
  EXPECT_NEAR(s.select(1, 0).mean().item<double>(), m0, 0.05);  // SE ~ 0.016
  EXPECT_NEAR(s.select(1, 1).mean().item<double>(), m1, 0.05);
  const auto grid = make_target("grid25");
  const at::Tensor g = grid->sample(200000, gen).to(at::kDouble);
  EXPECT_NEAR(g.mean().item<double>(), 0.0, 0.06);
  EXPECT_NEAR(g.select(1, 0).var().item<double>(), 50.3, 0.6);  // 0.3 + mean of {0,25,100}
  // Every draw within 3 standard deviations of a grid point.
  const at::Tensor off = (g - (g / 5.0).round() * 5.0).abs();
  EXPECT_LT(off.max().item<double>(), 6 * std::sqrt(0.3));
}

TEST(TargetsTest, FunnelSamplesHaveItsMoments) {
  at::Generator gen = at::detail::createCPUGenerator(8);
  const auto t = make_target("funnel", 4);
  const at::Tensor s = t->sample(200000, gen).to(at::kDouble);
  EXPECT_NEAR(s.select(1, 0).mean().item<double>(), 0.0, 0.015);
  EXPECT_NEAR(s.select(1, 0).var().item<double>(), 1.0, 0.02);
  // E[x_i^2] = E[exp(x0)] = exp(1/2); Var(x_i^2) = 3 e^2 - e: SE 0.01.
  EXPECT_NEAR(s.select(1, 2).pow(2).mean().item<double>(), std::exp(0.5), 0.06);
}

TEST(TargetsTest, HardFunnelIsGfnDiffusionsFunnel) {
  at::Generator gen = at::detail::createCPUGenerator(10);
  const auto t = make_target("hard_funnel");
  EXPECT_EQ(t->dim(), 10);
  const at::Tensor s = t->sample(200000, gen).to(at::kDouble);
  EXPECT_NEAR(s.select(1, 0).mean().item<double>(), 0.0, 0.05);
  EXPECT_NEAR(s.select(1, 0).var().item<double>(), 9.0, 0.15);
  // log R at a point against the closed form: log N(x0; 0, 9) + sum_i log N(x_i; 0, e^x0).
  const at::Tensor x =
      at::tensor({1.5f, 0.3f, -0.2f, 0.1f, 0.0f, 0.4f, -0.6f, 0.2f, 0.9f, -1.0f}).view({1, 10});
  const at::Tensor xd = x.to(at::kDouble);
  const double x0 = 1.5, half_log_2pi = 0.5 * std::log(2 * M_PI);
  double expect = -x0 * x0 / 18.0 - std::log(3.0) - half_log_2pi;
  const at::Tensor rest = xd.slice(1, 1);
  expect += (-rest.pow(2) / (2 * std::exp(x0))).sum().item<double>() - 9 * (x0 / 2 + half_log_2pi);
  EXPECT_NEAR(t->log_reward(x)[0].item<double>(), expect, 1e-4);
}

TEST(TargetsTest, ManyWellSamplesFollowTheWells) {
  at::Generator gen = at::detail::createCPUGenerator(9);
  const ManyWellTarget t(4);
  const at::Tensor s = t.sample(100000, gen).to(at::kDouble);
  // P(x1 > 0) and E[x1] by quadrature of the block's density.
  const at::Tensor z = at::arange(-6.0, 6.0, 1e-4, at::kDouble);
  const at::Tensor p = (-z.pow(4) + 6.0 * z.pow(2) + 0.5 * z).exp() / ManyWellTarget::kZx1 * 1e-4;
  const double right = p.masked_select(z.gt(0)).sum().item<double>();
  const double mean = (p * z).sum().item<double>();
  for (int c : {0, 2}) {
    EXPECT_NEAR(s.select(1, c).gt(0).to(at::kDouble).mean().item<double>(), right, 0.01);
    EXPECT_NEAR(s.select(1, c).mean().item<double>(), mean, 0.03);
  }
  EXPECT_NEAR(s.select(1, 3).var().item<double>(), 1.0, 0.02);
}

TEST(TargetsTest, GradientsEqualClosedForms) {
  const ManyWellTarget well(2);
  const at::Tensor x = at::tensor({1.3f, -0.4f, -1.7f, 2.0f}, at::kFloat).view({2, 2});
  const at::Tensor g = well.grad_log_reward(x);
  const at::Tensor x1 = x.select(1, 0), x2 = x.select(1, 1);
  EXPECT_TRUE(at::allclose(g.select(1, 0), -4 * x1.pow(3) + 12 * x1 + 0.5, 1e-5, 1e-4));
  EXPECT_TRUE(at::allclose(g.select(1, 1), -x2, 1e-6, 1e-6));
  EXPECT_FALSE(g.requires_grad());
  // grid25 near (5, -5): the one component there dominates: ∇ = -(x - mu) / 0.3.
  const at::Tensor y = at::tensor({5.2f, -5.1f}, at::kFloat).view({1, 2});
  const at::Tensor gy = make_target("grid25")->grad_log_reward(y);
  EXPECT_NEAR(gy[0][0].item<double>(), -0.2 / 0.3, 1e-4);
  EXPECT_NEAR(gy[0][1].item<double>(), 0.1 / 0.3, 1e-4);
}

TEST(TargetsTest, RegistryRefusesWhatCannotBeBuilt) {
  try {
    make_target("funel");
    FAIL() << "an unknown target was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("funnel, gmm2, grid25, hard_funnel, many_well"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_target("many_well", 3), std::invalid_argument);
  EXPECT_THROW(make_target("grid25", 3), std::invalid_argument);
  EXPECT_THROW(make_target("funnel", 1), std::invalid_argument);
  EXPECT_EQ(make_target("many_well")->dim(), 32);
  EXPECT_EQ(make_target("funnel")->dim(), 10);
  const auto t = make_target("funnel", 3);
  EXPECT_THROW(t->log_reward(at::zeros({4, 2}, at::kFloat)), std::invalid_argument);
  EXPECT_THROW(t->log_reward(at::zeros({4, 3}, at::kDouble)), std::invalid_argument);
}

TEST(TargetsTest, APluginRegistersItsOwnTarget) {
  register_target("plugin_gaussian", [](std::int64_t d) {
    const std::int64_t dim = d ? d : 3;
    return std::make_unique<GaussianMixtureTarget>(
        "plugin_gaussian", at::ones({1}), at::zeros({1, dim}), at::eye(dim).unsqueeze(0), 5.0);
  });
  const auto t = make_target("plugin_gaussian");
  EXPECT_EQ(t->dim(), 3);
  // Standard normal in 3-D at 0: -3/2 log(2 pi).
  EXPECT_NEAR(t->log_reward(at::zeros({1, 3}))[0].item<double>(), -1.5 * std::log(2 * M_PI), 1e-5);
  EXPECT_THROW(
      GaussianMixtureTarget("bad", at::ones({1}), at::zeros({1, 2}), -at::eye(2).unsqueeze(0), 5.0),
      std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
