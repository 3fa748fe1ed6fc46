// The dispatch-free helpers of runtime/gfn/fast/plain_loops.h (transposed_view, masked_fill_copy,
// zeros_float, scalar_value) against the ATen ops they replace, with loops on and off, and
// the Learner's iteration with engine.plain_loops on and off (the seed gradient and scalar
// reads of learner.cc).
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/env/env_options.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/state_table.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const at::Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.data_ptr(), bc.data_ptr(), ac.numel() * ac.element_size()) == 0;
}

TEST(PlainLoopsHelpers, TransposedViewIsTheTransposeView) {
  torch::manual_seed(3);
  const at::Tensor base = torch::randn({7, 13});
  // Contiguous, a column slice (storage offset, non-unit row stride) and an already
  // transposed tensor.
  const std::vector<at::Tensor> inputs = {base, base.narrow(1, 2, 9), base.t()};
  for (const bool on : {true, false}) {
    for (const auto& m : inputs) {
      const at::Tensor v = transposed_view(m, on);
      const at::Tensor ref = m.t();
      EXPECT_EQ(v.sizes(), ref.sizes());
      EXPECT_EQ(v.strides(), ref.strides());
      EXPECT_EQ(v.storage_offset(), ref.storage_offset());
      EXPECT_EQ(v.data_ptr(), ref.data_ptr());  // a view, no copy
      EXPECT_TRUE(torch::equal(v, ref));
      // The same GEMM on both operands gives the same bits.
      const at::Tensor x = torch::randn({5, m.size(1)});
      const at::Tensor y = torch::randn({m.size(0), 4});
      EXPECT_TRUE(same_bits(at::mm(x, v), at::mm(x, ref)));
      EXPECT_TRUE(same_bits(at::mm(v, y), at::mm(ref, y)));
    }
  }
  // Writes through the original are seen through the view (shared storage).
  at::Tensor w = torch::zeros({2, 3});
  const at::Tensor wt = transposed_view(w, true);
  w[1][2] = 5.0f;
  EXPECT_EQ(wt[2][1].item<float>(), 5.0f);
}

TEST(PlainLoopsHelpers, MaskedFillCopyMatchesMaskedFill) {
  torch::manual_seed(4);
  at::Tensor x = torch::randn({9, 5});
  x[0][0] = std::numeric_limits<float>::quiet_NaN();
  x[1][1] = -0.0f;
  x[2][2] = std::numeric_limits<float>::infinity();
  const at::Tensor mask = torch::rand({9, 5}) < 0.4;
  ASSERT_GT(mask.sum().item<int64_t>(), 0);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const at::Tensor ref = x.masked_fill(mask, neg_inf);
  for (const bool on : {true, false}) {
    const at::Tensor out = masked_fill_copy(x, mask, neg_inf, on);
    EXPECT_TRUE(same_bits(out, ref)) << "plain loops " << on;  // NaN and -0.0 included
    EXPECT_NE(out.data_ptr(), x.data_ptr());                   // a new tensor
    EXPECT_TRUE(out.is_contiguous());
    // Its log-softmax (the state table's use) is bit-identical too.
    EXPECT_TRUE(same_bits(out.log_softmax(1), ref.log_softmax(1)));
  }
  // A non-contiguous input or a broadcast mask take ATen's path: same values.
  const at::Tensor xt = torch::randn({5, 9}).t();
  const at::Tensor row_mask = torch::rand({5}) < 0.5;
  EXPECT_TRUE(same_bits(masked_fill_copy(xt, mask, 2.0f, true), xt.masked_fill(mask, 2.0f)));
  EXPECT_TRUE(same_bits(masked_fill_copy(x, row_mask, 2.0f, true), x.masked_fill(row_mask, 2.0f)));
  // An input with autograd: the result is detached, the values those of masked_fill.
  const at::Tensor leaf = torch::randn({9, 5}).requires_grad_(true);
  const at::Tensor out = masked_fill_copy(leaf, mask, neg_inf, true);
  EXPECT_FALSE(out.requires_grad());
  EXPECT_TRUE(same_bits(out, leaf.detach().masked_fill(mask, neg_inf)));
}

TEST(PlainLoopsHelpers, ZerosAndScalarValue) {
  for (const bool on : {true, false}) {
    const at::Tensor z = zeros_float(6, 7, on);
    EXPECT_TRUE(same_bits(z, torch::zeros({6, 7})));
    EXPECT_EQ(zeros_float(0, 3, on).numel(), 0);
    const at::Tensor f = torch::full({}, 0.1f);
    EXPECT_EQ(scalar_value(f, on), f.item<double>());
    EXPECT_EQ(scalar_value(f, on), static_cast<double>(0.1f));
    const at::Tensor d = torch::full({1}, 0.3, torch::kDouble);
    EXPECT_EQ(scalar_value(d, on), 0.3);
    const at::Tensor i = torch::full({}, 7, torch::kLong);
    EXPECT_EQ(scalar_value(i, on), 7.0);
    // One element of a larger tensor (storage offset) and a leaf with autograd.
    const at::Tensor v = torch::arange(5, torch::kFloat).narrow(0, 3, 1);
    EXPECT_EQ(scalar_value(v, on), 3.0);
    EXPECT_EQ(scalar_value(torch::full({}, -2.5f).requires_grad_(true), on), -2.5);
    EXPECT_THROW(scalar_value(torch::ones({2}), on), c10::Error);
  }
}

// The Learner's iteration with plain loops (constant seed gradient, scalar reads, the
// helpers above inside the state table) and without: parameters stay bit-identical over
// several iterations (same gradients, same AdamW steps); the reported losses agree to float
// rounding (the fused TB node's mean accumulates in double with loops) and logZ exactly.
TEST(PlainLoopsHelpers, LearnerIterationsBitIdenticalWithAndWithoutLoops) {
  core::EnvOptions eo;
  eo.get<core::HyperGridOptions>().ndim = 2;
  eo.get<core::HyperGridOptions>().height = 8;
  core::ModelOptions mo;
  mo.hidden_dim = 48;
  core::TrainOptions to;
  std::vector<double> losses[2], log_z[2];
  std::vector<at::Tensor> params[2];
  for (int on = 0; on < 2; ++on) {
    core::EngineOptions engine;
    engine.plain_loops = on == 1;
    Learner learner(eo, mo, to, 17, buffer::ReplayOptions{}, engine);
    ASSERT_EQ(learner.plan().evaluator, EvaluatorKind::kStateTable);
    for (int i = 0; i < 8; ++i) {
      const IterationResult r = learner.train_iteration(64);
      losses[on].push_back(r.loss);
      log_z[on].push_back(r.log_z);
    }
    for (const auto& p : learner.model().parameters()) params[on].push_back(p.detach().clone());
  }
  for (std::size_t i = 0; i < losses[0].size(); ++i) {
    EXPECT_NEAR(losses[1][i], losses[0][i], 1e-6 * (1 + std::abs(losses[0][i]))) << i;
    EXPECT_EQ(log_z[1][i], log_z[0][i]) << i;
  }
  EXPECT_NE(log_z[1].back(), 0.0);  // logZ moved: the iterations trained
  ASSERT_EQ(params[0].size(), params[1].size());
  ASSERT_FALSE(params[0].empty());
  for (std::size_t i = 0; i < params[0].size(); ++i) {
    EXPECT_TRUE(same_bits(params[1][i], params[0][i])) << "parameter " << i;
  }
}

}  // namespace
}  // namespace gfn::core
