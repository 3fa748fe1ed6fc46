// The fused isotropic Normal rows (runtime/gfn/distributions/isotropic_normal_rows.h) against
// the plain ATen formula: values and the drift's gradient under a random upstream gradient,
// on strided move rows as diffusion's trajectories hold them; the plain fallback for double
// and for an a that requires grad; the closed form at a = f dt; refusals.
#include "runtime/gfn/distributions/isotropic_normal_rows.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace gfn::distributions {
namespace {

TEST(IsotropicNormalRows, FusedNodeEqualsThePlainFormula) {
  torch::manual_seed(3);
  for (const std::int64_t d : {1, 2, 32}) {
    const at::Tensor rows = at::randn({53, d + 1});
    const at::Tensor a = rows.narrow(1, 0, d);  // row stride d + 1
    const at::Tensor f0 = at::randn({53, d}) * 3;
    const at::Tensor upstream = at::randn({53});
    const double dt = 0.03, scale = 0.7;
    const at::Tensor f1 = f0.clone().requires_grad_(true);
    const at::Tensor f2 = f0.clone().requires_grad_(true);
    const at::Tensor fused = isotropic_normal_rows(a, f1, dt, scale);
    const at::Tensor plain = isotropic_normal_rows_plain(a, f2, dt, scale);
    EXPECT_EQ(fused.sizes(), (at::IntArrayRef{53}));
    EXPECT_TRUE(at::allclose(fused, plain, 1e-5, 1e-5)) << d;
    (fused * upstream).sum().backward();
    (plain * upstream).sum().backward();
    EXPECT_TRUE(at::allclose(f1.grad(), f2.grad(), 1e-5, 1e-6)) << d;
    EXPECT_GT(f1.grad().abs().sum().item<double>(), 0.0);
  }
}

TEST(IsotropicNormalRows, ClosedFormAtTheMeanAndPlainFallbacks) {
  const at::Tensor f = at::randn({4, 3});
  const double dt = 0.25, scale = 2.0;
  const at::Tensor at_mean = isotropic_normal_rows(f * dt, f, dt, scale);
  const double expected = -3.0 * (std::log(scale) + 0.5 * std::log(2.0 * M_PI));
  EXPECT_TRUE(at::allclose(at_mean, at::full({4}, expected), 1e-6, 1e-6));
  const at::Tensor a = at::randn({4, 3});
  const at::Tensor in_double =
      isotropic_normal_rows(a.to(at::kDouble), f.to(at::kDouble), dt, scale);
  EXPECT_EQ(in_double.scalar_type(), at::kDouble);
  EXPECT_TRUE(
      at::allclose(in_double.to(at::kFloat), isotropic_normal_rows(a, f, dt, scale), 1e-5, 1e-5));
  const at::Tensor a_grad = a.clone().requires_grad_(true);
  isotropic_normal_rows(a_grad, f, dt, scale).sum().backward();
  EXPECT_TRUE(at::allclose(a_grad.grad(), -(a - f * dt) / (scale * scale), 1e-5, 1e-6));
  EXPECT_THROW(isotropic_normal_rows(a, at::randn({4, 2}), dt, scale), std::invalid_argument);
  EXPECT_THROW(isotropic_normal_rows(at::randn({4}), at::randn({4}), dt, scale),
               std::invalid_argument);
}

}  // namespace
}  // namespace gfn::distributions
