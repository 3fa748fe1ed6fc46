#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/env/env_options.h"

#include <ATen/ATen.h>
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

}  // namespace
}  // namespace gfn::core
