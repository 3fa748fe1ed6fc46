// The KDE Jensen-Shannon divergence (runtime/gfn/continuous/validation.h): 0 for identical
// sample sets, log 2 for disjoint ones, symmetric, equal to a direct loop recomputation, and
// on Box smaller between two target sample sets than between target and uniform samples; the
// 1-D Wasserstein-1 distance against hand-computed values.
#include "runtime/gfn/continuous/validation.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/box.h"

namespace gfn::core {
namespace {

TEST(KdeJensenShannon, GridOfTrainBox) {
  const at::Tensor g = kde_grid(2, {});
  ASSERT_EQ(g.sizes(), (std::vector<std::int64_t>{10000, 2}));
  EXPECT_DOUBLE_EQ(g[0][0].item<double>(), 0.001);
  EXPECT_DOUBLE_EQ(g[99][0].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(g[99][1].item<double>(), 0.001);
  EXPECT_NEAR(g[1][0].item<double>(), 0.001 + 0.999 / 99, 1e-15);
  EXPECT_DOUBLE_EQ(g[100][1].item<double>(), g[1][0].item<double>());
}

TEST(KdeJensenShannon, IdenticalAndDisjointSets) {
  at::Generator gen = at::detail::createCPUGenerator(2);
  const at::Tensor a = at::rand({300, 2}, gen) * 0.099 + 0.001;  // [0.001, 0.1]^2
  const at::Tensor b = at::rand({300, 2}, gen) * 0.1 + 0.9;      // [0.9, 1]^2
  EXPECT_NEAR(kde_jensen_shannon(a, a), 0.0, 1e-12);
  // Narrow kernels: the two densities do not overlap on the grid.
  KdeJsdOptions narrow;
  narrow.bandwidth = 0.02;
  EXPECT_NEAR(kde_jensen_shannon(a, b, narrow), std::log(2.0), 1e-6);
  // train_box.py's bandwidth: the exponential kernel's tails overlap a little.
  const double jsd = kde_jensen_shannon(a, b);
  EXPECT_LT(jsd, std::log(2.0));
  EXPECT_GT(jsd, std::log(2.0) - 0.05);
  EXPECT_DOUBLE_EQ(jsd, kde_jensen_shannon(b, a));
}

// The definition in loops over a small grid: KDEs normalised on the grid, then
// (KL(p || m) + KL(q || m)) / 2.
TEST(KdeJensenShannon, EqualsDirectRecomputation) {
  at::Generator gen = at::detail::createCPUGenerator(6);
  const at::Tensor a = at::rand({30, 2}, gen, at::kDouble);
  const at::Tensor b = at::rand({40, 2}, gen, at::kDouble).pow(2);
  KdeJsdOptions o;
  o.grid_points = 12;
  o.bandwidth = 0.15;
  const at::Tensor grid = kde_grid(2, o);
  auto density = [&](const at::Tensor& x) {
    std::vector<double> p(static_cast<std::size_t>(grid.size(0)));
    double total = 0;
    for (std::int64_t g = 0; g < grid.size(0); ++g) {
      double sum = 0;
      for (std::int64_t i = 0; i < x.size(0); ++i) {
        const double dx = grid[g][0].item<double>() - x[i][0].item<double>();
        const double dy = grid[g][1].item<double>() - x[i][1].item<double>();
        sum += std::exp(-std::sqrt(dx * dx + dy * dy) / o.bandwidth);
      }
      p[static_cast<std::size_t>(g)] = sum;
      total += sum;
    }
    for (double& v : p) v /= total;
    return p;
  };
  const std::vector<double> p = density(a), q = density(b);
  double jsd = 0;
  for (std::size_t g = 0; g < p.size(); ++g) {
    const double m = (p[g] + q[g]) / 2;
    jsd += (p[g] * std::log(p[g] / m) + q[g] * std::log(q[g] / m)) / 2;
  }
  EXPECT_NEAR(kde_jensen_shannon(a, b, o), jsd, 1e-12);
}

TEST(KdeJensenShannon, BoxTargetAgainstUniform) {
  const Box box{BoxOptions{}};
  at::Generator gen = at::detail::createCPUGenerator(12);
  const at::Tensor t1 = box.sample_target(2000, gen), t2 = box.sample_target(2000, gen);
  const at::Tensor u = at::rand({2000, 2}, gen);
  const double same = kde_jensen_shannon(t1, t2), far = kde_jensen_shannon(t1, u);
  EXPECT_LT(same, 0.01);
  EXPECT_GT(far, 5 * same);
}

TEST(KdeJensenShannon, Refusals) {
  const at::Tensor a = at::rand({5, 2});
  EXPECT_THROW(kde_jensen_shannon(a, at::rand({5, 3})), std::invalid_argument);
  EXPECT_THROW(kde_jensen_shannon(a, at::rand({0, 2})), std::invalid_argument);
  KdeJsdOptions o;
  o.bandwidth = 0;
  EXPECT_THROW(kde_jensen_shannon(a, a, o), std::invalid_argument);
  o = KdeJsdOptions{};
  o.grid_points = 1;
  EXPECT_THROW(kde_jensen_shannon(a, a, o), std::invalid_argument);
}

// W1 = integral of |F_a - F_b|: hand-computed step functions, a shift, symmetry.
TEST(Wasserstein1d, ClosedForms) {
  const auto col = [](std::vector<double> v) { return at::tensor(v, at::kDouble).view({-1, 1}); };
  EXPECT_NEAR(wasserstein_1d(col({0}), col({1})), 1.0, 1e-12);
  EXPECT_NEAR(wasserstein_1d(col({0, 1}), col({0.5})), 0.5, 1e-12);
  // F_a = 2/3 on [0, 3); F_b = 0, 1/2, 1 from 1 and 2: 2/3 + 1/6 + 1/3.
  EXPECT_NEAR(wasserstein_1d(col({3, 0, 0}), col({2, 1})), 7.0 / 6, 1e-12);
  EXPECT_NEAR(wasserstein_1d(col({2, 1}), col({3, 0, 0})), 7.0 / 6, 1e-12);
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor x = at::randn({1000, 1}, gen);
  EXPECT_NEAR(wasserstein_1d(x, x + 0.25f), 0.25, 1e-6);
  EXPECT_EQ(wasserstein_1d(x, x), 0.0);
  EXPECT_THROW(wasserstein_1d(x, at::zeros({0, 1})), std::invalid_argument);
  EXPECT_THROW(wasserstein_1d(x, at::zeros({3, 2})), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
