// torchshard.distributed scatter / gather / reduce / copy (seed 002) on 1, 2 and 4 ranks and
// both backends: the seed document's shape examples, values, errors, and gradients checked
// against a single-process reference computed with plain LibTorch ops.

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "runtime/compat/model_parallel.h"
#include "runtime/compat/model_parallel_ops.h"
#include "runtime/compat/process_group.h"
#include "runtime/compat/topology_errors.h"
#include "tests/runtime/compat/topology_test_env.h"

namespace gfn::compat {
namespace {

using topology_testing::TopologyTest;

// The seed's examples assume 2 model-parallel processes: groups of min(2, world) ranks.
class ModelParallelOpsTest : public TopologyTest {
 protected:
  void SetUp() override {
    model_parallel::init_process_group(2);
    g = model_parallel::get_world_size();
    r = model_parallel::get_rank();
  }
  void TearDown() override {
    model_parallel::destroy_process_group();
    TopologyTest::TearDown();
  }
  int g = 0;  // model-parallel group size
  int r = 0;  // model-parallel rank
};

at::Tensor seed_input() { return at::arange(48, at::kFloat).view({6, 8}); }

TEST_F(ModelParallelOpsTest, SeedShapeExamples) {
  const at::Tensor input = seed_input();
  EXPECT_EQ(model_parallel::scatter(input, 0).sizes(), (std::vector<int64_t>{6 / g, 8}));
  EXPECT_EQ(model_parallel::scatter(input, 1).sizes(), (std::vector<int64_t>{6, 8 / g}));
  EXPECT_EQ(model_parallel::scatter(input).sizes(), (std::vector<int64_t>{6, 8 / g}));
  EXPECT_EQ(model_parallel::gather(input, 0).sizes(), (std::vector<int64_t>{6 * g, 8}));
  EXPECT_EQ(model_parallel::gather(input, 1).sizes(), (std::vector<int64_t>{6, 8 * g}));
  if (g == 2) {  // the document's numbers
    EXPECT_EQ(model_parallel::scatter(input, 0).sizes(), (std::vector<int64_t>{3, 8}));
    EXPECT_EQ(model_parallel::scatter(input, 1).sizes(), (std::vector<int64_t>{6, 4}));
    EXPECT_EQ(model_parallel::gather(input, 0).sizes(), (std::vector<int64_t>{12, 8}));
    EXPECT_EQ(model_parallel::gather(input, 1).sizes(), (std::vector<int64_t>{6, 16}));
  }
  // And back: gather(scatter(x)) == x.
  for (int64_t dim : {0, 1, -1}) {
    EXPECT_TRUE(at::equal(model_parallel::gather(model_parallel::scatter(input, dim), dim), input))
        << "dim " << dim;
  }
}

TEST_F(ModelParallelOpsTest, ScatterKeepsThisRanksSlice) {
  const at::Tensor input = seed_input();
  EXPECT_TRUE(at::equal(model_parallel::scatter(input, 0), input.narrow(0, r * 6 / g, 6 / g)));
  EXPECT_TRUE(at::equal(model_parallel::scatter(input, 1), input.narrow(1, r * 8 / g, 8 / g)));
  EXPECT_TRUE(model_parallel::scatter(input, -1).is_contiguous());
  const at::Tensor ints = at::arange(24, at::kLong).view({2, 3, 4});
  EXPECT_TRUE(at::equal(model_parallel::scatter(ints, -1), ints.narrow(2, r * 4 / g, 4 / g)));
}

TEST_F(ModelParallelOpsTest, GatherConcatenatesInGroupRankOrder) {
  const at::Tensor mine = at::full({2, 3}, static_cast<double>(rank()), at::kDouble);
  const at::Tensor out0 = model_parallel::gather(mine, 0);
  const at::Tensor out1 = model_parallel::gather(mine, -1);
  const int base = rank() / g * g;  // first global rank of this group
  for (int i = 0; i < g; ++i) {
    EXPECT_TRUE(
        at::equal(out0.narrow(0, 2 * i, 2), at::full({2, 3}, double(base + i), at::kDouble)));
    EXPECT_TRUE(
        at::equal(out1.narrow(1, 3 * i, 3), at::full({2, 3}, double(base + i), at::kDouble)));
  }
}

TEST_F(ModelParallelOpsTest, ReduceSumsInPlace) {
  // The seed's example: [1, 2] + 2 * rank -> [4, 6] with 2 ranks.
  at::Tensor t = at::arange(2, at::kLong) + 1 + 2 * r;
  const at::Tensor out = model_parallel::reduce(t);
  EXPECT_TRUE(out.is_same(t));
  const int64_t s = g * (g - 1);  // sum of 2 * r over the group
  EXPECT_TRUE(at::equal(t, at::tensor({int64_t{1} * g + s, int64_t{2} * g + s}, at::kLong)));
  if (g == 2) {
    EXPECT_TRUE(at::equal(t, at::tensor({4, 6}, at::kLong)));
  }
  // Non-contiguous tensors are reduced in place too.
  at::Tensor m = at::full({3, 2}, static_cast<float>(r + 1));
  at::Tensor mt = m.t();
  model_parallel::reduce(mt);
  EXPECT_TRUE(at::allclose(m, at::full({3, 2}, g * (g + 1) / 2.0f)));
  // Complex tensors.
  at::Tensor c = at::complex(at::full({2}, 1.0), at::full({2}, static_cast<double>(r)));
  model_parallel::reduce(c);
  EXPECT_TRUE(at::allclose(at::real(c), at::full({2}, static_cast<double>(g))));
  EXPECT_TRUE(at::allclose(at::imag(c), at::full({2}, g * (g - 1) / 2.0)));
}

TEST_F(ModelParallelOpsTest, CopyIsTheIdentityForward) {
  const at::Tensor x = seed_input();
  EXPECT_TRUE(model_parallel::copy(x).is_same(x));
  const at::Tensor y = x.clone().requires_grad_(true);
  EXPECT_TRUE(at::equal(model_parallel::copy(y), y));
}

TEST_F(ModelParallelOpsTest, Errors) {
  EXPECT_THROW(model_parallel::scatter(seed_input(), 2), ModelParallelError);
  EXPECT_THROW(model_parallel::scatter(seed_input(), -3), ModelParallelError);
  EXPECT_THROW(model_parallel::gather(at::ones({}), 0), ModelParallelError);
  if (g > 1) {
    EXPECT_THROW(model_parallel::scatter(at::ones({5, 8}), 0), ModelParallelError);
    // Different shapes on different members: every member gets the error.
    EXPECT_THROW(model_parallel::gather(at::ones({2 + r, 3}), 0), ModelParallelError);
    EXPECT_THROW(
        model_parallel::gather(r == 0 ? at::ones({2}, at::kFloat) : at::ones({2}, at::kDouble), 0),
        ModelParallelError);
  }
  EXPECT_THROW(model_parallel::reduce(at::ones({2}, at::kHalf)), ModelParallelError);
  EXPECT_THROW(model_parallel::scatter(at::ones({2}, at::kBool), 0), ModelParallelError);
  EXPECT_THROW(model_parallel::gather(at::ones({2}, at::kComplexFloat), 0), ModelParallelError);
}

// Per-rank weights: deterministic, different for each rank.
at::Tensor weights(at::IntArrayRef shape, int who) {
  const int64_t n = c10::multiply_integers(shape);
  return (at::arange(n, at::kDouble).view(shape) * 0.1 + 1.0) * (who + 1);
}

// Full-size input shared by every rank.
at::Tensor shared_input() { return at::linspace(-1.0, 1.0, 32, at::kDouble).view({8, 4}); }

// Both the model-parallel group and the world group, so 1, 2 and 4 members are covered.
std::vector<transport::Group*> groups() { return {&model_parallel::get_group(), &world_group()}; }

TEST_F(ModelParallelOpsTest, ScatterGradientIsTheGatheredGradient) {
  for (transport::Group* group : groups()) {
    const int n = group->size(), me = group->rank();
    for (int64_t dim : {0, 1, -1}) {
      SCOPED_TRACE(testing::Message() << "group of " << n << ", dim " << dim);
      at::Tensor x = shared_input().requires_grad_(true);
      at::Tensor y = model_parallel::scatter(x, dim, *group);
      ((y * weights(y.sizes(), me)).sum() + 0.5 * (y * y).sum()).backward();
      // Reference: one process, the sum of every member's loss on its slice.
      at::Tensor xr = shared_input().requires_grad_(true);
      const int64_t d = dim < 0 ? dim + 2 : dim;
      const int64_t k = xr.size(d) / n;
      at::Tensor loss = at::zeros({}, at::kDouble);
      for (int i = 0; i < n; ++i) {
        at::Tensor yi = xr.narrow(d, i * k, k);
        loss = loss + (yi * weights(yi.sizes(), i)).sum() + 0.5 * (yi * yi).sum();
      }
      loss.backward();
      EXPECT_TRUE(at::allclose(x.grad(), xr.grad())) << x.grad() << xr.grad();
    }
  }
}

TEST_F(ModelParallelOpsTest, GatherGradientIsThisRanksSlice) {
  for (transport::Group* group : groups()) {
    const int n = group->size(), me = group->rank();
    for (int64_t dim : {0, 1, -1}) {
      SCOPED_TRACE(testing::Message() << "group of " << n << ", dim " << dim);
      auto part = [](int i) {
        return at::linspace(-1.0, 1.0, 6, at::kDouble).view({2, 3}) * (i + 1);
      };
      at::Tensor x = part(me).requires_grad_(true);
      at::Tensor y = model_parallel::gather(x, dim, *group);
      // The same (replicated) loss on every member, as after a torchshard gather.
      const at::Tensor w = weights(y.sizes(), 7);
      ((y * w).sum() + 0.5 * (y * y * y).sum()).backward();
      // Reference: one process holding every member's part.
      std::vector<at::Tensor> parts;
      for (int i = 0; i < n; ++i) parts.push_back(part(i).requires_grad_(true));
      at::Tensor yr = at::cat(parts, dim);
      ((yr * w).sum() + 0.5 * (yr * yr * yr).sum()).backward();
      EXPECT_TRUE(at::allclose(x.grad(), parts[me].grad())) << x.grad() << parts[me].grad();
    }
  }
}

TEST_F(ModelParallelOpsTest, CopyGradientIsTheSumOverMembers) {
  for (transport::Group* group : groups()) {
    const int n = group->size(), me = group->rank();
    SCOPED_TRACE(testing::Message() << "group of " << n);
    at::Tensor x = shared_input().requires_grad_(true);
    at::Tensor y = model_parallel::copy(x, *group);
    EXPECT_TRUE(at::equal(y, x));
    ((y * weights(y.sizes(), me)).sum() + 0.5 * (y * y).sum()).backward();
    at::Tensor xr = shared_input().requires_grad_(true);
    at::Tensor loss = at::zeros({}, at::kDouble);
    for (int i = 0; i < n; ++i) {
      loss = loss + (xr * weights(xr.sizes(), i)).sum() + 0.5 * (xr * xr).sum();
    }
    loss.backward();
    EXPECT_TRUE(at::allclose(x.grad(), xr.grad())) << x.grad() << xr.grad();
  }
}

TEST_F(ModelParallelOpsTest, ReduceForwardSumsAndPassesTheGradient) {
  for (transport::Group* group : groups()) {
    const int n = group->size(), me = group->rank();
    SCOPED_TRACE(testing::Message() << "group of " << n);
    auto part = [](int i) { return at::linspace(0.0, 1.0, 4, at::kDouble) * (i + 1); };
    at::Tensor x = part(me).requires_grad_(true);
    at::Tensor y = model_parallel::reduce(x, *group);
    EXPECT_FALSE(y.is_same(x));
    EXPECT_TRUE(at::allclose(x.detach(), part(me)));  // the input is not modified
    const at::Tensor w = weights({4}, 3);
    (y * w).sum().backward();
    std::vector<at::Tensor> parts;
    at::Tensor yr = at::zeros({4}, at::kDouble);
    for (int i = 0; i < n; ++i) {
      parts.push_back(part(i).requires_grad_(true));
      yr = yr + parts.back();
    }
    (yr * w).sum().backward();
    EXPECT_TRUE(at::allclose(y.detach(), yr.detach()));
    EXPECT_TRUE(at::allclose(x.grad(), parts[me].grad()));
  }
}

TEST_F(ModelParallelOpsTest, NumericalGradientOfScatterThenGather) {
  // Finite differences of L(x) = sum(gather(scatter(x) ^ 2) * w): every member computes the
  // same L, and the autograd gradient of x must match the central difference.
  at::Tensor x = shared_input().requires_grad_(true);
  const at::Tensor w = weights({8, 4}, 2);
  auto L = [&](const at::Tensor& in) {
    at::Tensor s = model_parallel::scatter(in, 0);
    return (model_parallel::gather(s * s, 0) * w).sum();
  };
  L(x).backward();
  const double eps = 1e-6;
  for (int64_t i : {0, 5, 17, 31}) {
    at::Tensor xp = shared_input().clone(), xm = shared_input().clone();
    xp.view({-1})[i] += eps;
    xm.view({-1})[i] -= eps;
    const double numeric = (L(xp).item<double>() - L(xm).item<double>()) / (2 * eps);
    // Each member's gradient covers its slice; the gather in backward assembles all slices.
    EXPECT_NEAR(x.grad().view({-1})[i].item<double>(), numeric, 1e-5) << "element " << i;
  }
}

}  // namespace
}  // namespace gfn::compat
