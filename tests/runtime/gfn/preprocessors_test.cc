#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/env/env_options.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "runtime/gfn/env/hypergrid.h"

namespace gfn::core {
namespace {

HyperGrid grid_2d_h4() {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = 2;
  o.get<core::HyperGridOptions>().height = 4;
  return HyperGrid(o.get<core::HyperGridOptions>());
}

TEST(Preprocessors, KHotOneHotIdentity) {
  const HyperGrid env = grid_2d_h4();
  const at::Tensor s = at::tensor({1, 2, 3, 0}, at::kLong).view({2, 2});

  const auto khot = make_preprocessor(PreprocessorKind::kKHot, env);
  EXPECT_EQ(khot->output_dim(), 8);
  EXPECT_TRUE(at::equal(
      (*khot)(s),
      at::tensor({0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0}, at::kFloat).view({2, 8})));

  const auto onehot = make_preprocessor(PreprocessorKind::kOneHot, env);
  EXPECT_EQ(onehot->output_dim(), 16);
  const at::Tensor oh = (*onehot)(s);
  EXPECT_EQ(oh.sum().item<float>(), 2.f);
  EXPECT_EQ(oh[0][6].item<float>(), 1.f);   // (1, 2) -> 1*4 + 2
  EXPECT_EQ(oh[1][12].item<float>(), 1.f);  // (3, 0) -> 12

  const auto id = make_preprocessor(PreprocessorKind::kIdentity, env);
  EXPECT_EQ(id->output_dim(), 2);
  EXPECT_TRUE(at::equal((*id)(s), s.to(at::kFloat)));
  EXPECT_EQ((*id)(s).scalar_type(), at::kFloat);

  EXPECT_THROW(make_preprocessor(static_cast<PreprocessorKind>(99), env), std::invalid_argument);
}

// The K-hot loop against its reference, one scatter of ones at column j * height + s_j - min,
// with a min_value (DiscreteEBM's -1); a value outside the range is refused by name; other
// dtypes take the scatter.
TEST(Preprocessors, KHotLoopEqualsTheScatter) {
  at::Generator g = at::detail::createCPUGenerator(8);
  for (const std::int64_t min_value : {0, -1}) {
    const KHotPreprocessor khot(5, 3, min_value);
    const at::Tensor s = at::randint(min_value, min_value + 3, {300, 5}, g, at::kLong);
    const at::Tensor columns = at::arange(5, at::kLong) * 3 - min_value;
    const at::Tensor ref = at::zeros({300, 15}, at::kFloat).scatter_(1, s + columns, 1.0);
    EXPECT_TRUE(at::equal(khot(s), ref)) << min_value;
    EXPECT_TRUE(at::equal(khot(s.to(at::kInt)), ref)) << min_value;
    at::Tensor bad = s.clone();
    bad[7][0] = min_value + 3;  // would land in coordinate 1's columns
    EXPECT_THROW(khot(bad), std::invalid_argument);
  }
}

}  // namespace
}  // namespace gfn::core
