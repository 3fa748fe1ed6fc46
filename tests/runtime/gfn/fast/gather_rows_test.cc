// gather_rows (runtime/gfn/fast/gather_rows.h) against index_select: the same rows forward,
// and the same gradient bit for bit backward (index_add_'s additions in its order) on one,
// two and three threads, for [M, C] and [M] values, with rows repeated and rows never gathered.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "runtime/gfn/fast/gather_rows.h"

namespace gfn::core {
namespace {

// Gradients of sum(w * gathered) w.r.t. values, by gather_rows on `threads` and by index_select.
void expect_same_gradient(const at::Tensor& values, const at::Tensor& rows, int threads) {
  const at::Tensor a = values.detach().clone().requires_grad_(true);
  const at::Tensor b = values.detach().clone().requires_grad_(true);
  const at::Tensor fast = gather_rows(a, rows, threads);
  const at::Tensor ref = b.index_select(0, rows);
  ASSERT_TRUE(at::equal(fast, ref));
  // Weights with many decimals: additions in another order would round differently.
  const at::Tensor w = at::rand(ref.sizes(), at::kFloat) * 3.7f - 1.3f;
  (fast * w).sum().backward();
  (ref * w).sum().backward();
  EXPECT_TRUE(at::equal(a.grad(), b.grad()));
}

TEST(GatherRows, GradientIsIndexSelectsBitForBit) {
  torch::manual_seed(2);
  // 20,000 rows of 17 values: enough gradient values to split over the threads.
  const at::Tensor values = at::randn({3000, 17}, at::kFloat);
  at::Tensor rows = at::randint(2000, {20000}, at::kLong);  // rows 2000..2999 never gathered
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    expect_same_gradient(values, rows, threads);
    expect_same_gradient(values.select(1, 0).contiguous(), rows, threads);  // [M]
    expect_same_gradient(values, rows.slice(0, 0, 10), threads);            // one thread: small
  }
}

TEST(GatherRows, RefusesBadInput) {
  const at::Tensor values = at::zeros({4, 3}, at::kFloat);
  EXPECT_THROW(gather_rows(values, at::zeros({2}, at::kLong), 0), std::invalid_argument);
  EXPECT_ANY_THROW(gather_rows(values, at::full({2}, 9, at::kLong), 2));
}

}  // namespace
}  // namespace gfn::core
