// The Normal distribution (runtime/gfn/distributions/normal.h): log_prob against the closed
// form of torch.distributions.Normal.log_prob computed here in double precision, its
// gradients against the closed-form derivatives, and its draws: the same generator state
// gives the same draws, and 200,000 of them match the mean and standard deviation.
#include "runtime/gfn/distributions/normal.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gfn::distributions {
namespace {

TEST(Normal, LogProbIsTorchsClosedForm) {
  const std::vector<float> loc{0.0f, -1.5f, 2.0f, 10.0f};
  const std::vector<float> scale{1.0f, 0.3f, 2.5f, 0.1f};
  const std::vector<float> x{0.7f, -1.0f, -3.0f, 10.05f};
  const Normal n(at::tensor(loc), at::tensor(scale));
  const at::Tensor lp = n.log_prob(at::tensor(x));
  ASSERT_EQ(lp.sizes(), (std::vector<std::int64_t>{4}));
  for (std::size_t i = 0; i < loc.size(); ++i) {
    const double z = (double{x[i]} - loc[i]) / scale[i];
    const double expected = -0.5 * z * z - std::log(double{scale[i]}) - 0.5 * std::log(2 * M_PI);
    EXPECT_NEAR(lp[static_cast<std::int64_t>(i)].item<double>(), expected, 1e-5) << i;
  }
}

TEST(Normal, LogProbGradientsAreTheClosedForm) {
  const at::Tensor loc = at::tensor(std::vector<float>{0.5f, -2.0f}).requires_grad_();
  const at::Tensor scale = at::tensor(std::vector<float>{0.8f, 1.7f}).requires_grad_();
  const at::Tensor x = at::tensor(std::vector<float>{1.0f, -4.0f});
  Normal(loc, scale).log_prob(x).sum().backward();
  for (std::int64_t i = 0; i < 2; ++i) {
    const double m = loc[i].item<double>(), s = scale[i].item<double>(), v = x[i].item<double>();
    // d/dm = (x - m) / s^2; d/ds = (x - m)^2 / s^3 - 1 / s.
    EXPECT_NEAR(loc.grad()[i].item<double>(), (v - m) / (s * s), 1e-5);
    EXPECT_NEAR(scale.grad()[i].item<double>(), (v - m) * (v - m) / (s * s * s) - 1 / s, 1e-5);
  }
}

TEST(Normal, DrawsFollowTheGeneratorAndTheMoments) {
  const std::int64_t n = 200000;
  const Normal d(at::full({n}, 3.0f), at::full({n}, 0.5f));
  at::Generator a = at::detail::createCPUGenerator(11);
  at::Generator b = at::detail::createCPUGenerator(11);
  const at::Tensor x = d.sample(a);
  EXPECT_TRUE(at::equal(x, d.sample(b)));
  EXPECT_EQ(x.scalar_type(), at::kFloat);
  EXPECT_FALSE(x.requires_grad());
  // Standard errors: 0.5 / sqrt(n) = 0.0011 for the mean, about 0.0008 for the sd.
  EXPECT_NEAR(x.mean().item<double>(), 3.0, 0.006);
  EXPECT_NEAR(x.std().item<double>(), 0.5, 0.005);
  at::Generator c = at::detail::createCPUGenerator(12);
  EXPECT_FALSE(at::equal(x, d.sample(c)));
}

TEST(Normal, RefusesMismatchedParameters) {
  EXPECT_THROW(Normal(at::zeros({3}), at::ones({2})), std::invalid_argument);
  EXPECT_THROW(Normal(at::zeros({3}, at::kDouble), at::ones({3}, at::kDouble)),
               std::invalid_argument);
}

}  // namespace
}  // namespace gfn::distributions
