// runtime/distributed/model_averaging.h, buffer_averaging.h and concat_averaging.h (both
// backends, 1 / 2 / 4 ranks): model and gradient averaging within a group, divided by the
// GROUP size, in one all-reduce; in place on the flat buffer of
// runtime/gfn/fast/flat_adam.h FlatAdamW, bit-identical to the reference (concatenating)
// path; broadcast_model copies the first member's parameters.

#include "runtime/distributed/model_averaging.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <algorithm>
#include <vector>

#include "runtime/distributed/buffer_averaging.h"
#include "runtime/distributed/concat_averaging.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "tests/runtime/compat/dist_test_env.h"
#include "transport/transport.h"

namespace gfn::dist::testing {

// The process group of runtime/compat/ is the harness (tests/runtime/compat/dist_test_main.cc).
using compat::default_transport;
using compat::world_group;
using compat::testing::DistTest;
namespace {

using transport::DType;
using transport::Group;
using transport::ReduceOp;
using transport::TransportError;

/// Forwards to a real group, counts the all-reduces and records the last buffer.
class CountingGroup final : public Group {
 public:
  explicit CountingGroup(Group& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  const std::vector<int>& global_ranks() const override { return inner_.global_ranks(); }
  void barrier() override { inner_.barrier(); }
  void broadcast(void* d, std::size_t c, DType t, int root) override {
    inner_.broadcast(d, c, t, root);
  }
  void all_reduce(void* d, std::size_t c, DType t, ReduceOp op) override {
    ++all_reduces;
    last_buffer = d;
    inner_.all_reduce(d, c, t, op);
  }
  void all_gather(const void* in, std::size_t c, DType t, void* out) override {
    inner_.all_gather(in, c, t, out);
  }
  int all_reduces = 0;
  const void* last_buffer = nullptr;

 private:
  Group& inner_;
};

/// Deterministic, exactly representable value of element i of parameter p on rank g.
float value(int g, int p, int i) { return static_cast<float>(g * 8 + p * 2) + 0.5f * i; }

void fill(torch::nn::Linear& model, int g, bool grads) {
  torch::NoGradGuard no_grad;
  int p = 0;
  for (auto& param : model->parameters()) {
    auto flat = param.view({-1});
    for (int i = 0; i < flat.numel(); ++i) flat[i] = value(g, p, i);
    if (grads) {
      param.mutable_grad() = torch::full_like(param, static_cast<float>(-10 * g - p));
    }
    ++p;
  }
}

/// Members {0, 2} (or {0, 1} with 2 ranks): the other ranks — say a buffer manager
/// and a coordinator — take no part.
std::vector<int> trainers(int world) {
  return world >= 3 ? std::vector<int>{0, 2} : std::vector<int>{0, 1};
}

class Averaging : public DistTest {};

TEST_F(Averaging, ModelsAreAveragedOverTheGroupOnly) {
  if (world() < 2) GTEST_SKIP() << "needs 2 ranks";
  const auto members = trainers(world());
  auto group = default_transport().new_group(members);
  torch::nn::Linear model(torch::nn::LinearOptions(3, 5));
  fill(model, rank(), /*grads=*/true);
  if (!group->is_member()) {
    EXPECT_THROW(average_models(*model, *group), TransportError);
    EXPECT_THROW(average_gradients(*model, *group), TransportError);
    // Untouched.
    EXPECT_EQ(model->weight.view({-1})[1].item<float>(), value(rank(), 0, 1));
    return;
  }
  CountingGroup counting(*group);
  average_models(*model, counting);
  EXPECT_EQ(counting.all_reduces, 1) << "one fused all-reduce for all parameters";
  int p = 0;
  for (auto& param : model->parameters()) {
    auto flat = param.view({-1});
    for (int i = 0; i < flat.numel(); ++i) {
      float sum = 0.f;
      for (int m : members) sum += value(m, p, i);
      // Divided by the group size (2), not the world size.
      EXPECT_EQ(flat[i].item<float>(), sum / 2.f) << "parameter " << p << " element " << i;
    }
    EXPECT_TRUE(param.requires_grad());
    ++p;
  }
  EXPECT_EQ(p, 2);

  counting.all_reduces = 0;
  average_gradients(*model, counting);
  EXPECT_EQ(counting.all_reduces, 1);
  p = 0;
  for (auto& param : model->parameters()) {
    float sum = 0.f;
    for (int m : members) sum += static_cast<float>(-10 * m - p);
    EXPECT_TRUE(torch::equal(param.grad(), torch::full_like(param, sum / 2.f))) << "grad " << p;
    ++p;
  }
}

// train.average gradients' start: every member gets the group's first member's parameters
// (not their mean); non-members are refused and untouched.
TEST_F(Averaging, BroadcastModelCopiesTheFirstMembersParameters) {
  if (world() < 2) GTEST_SKIP() << "needs 2 ranks";
  const auto members = trainers(world());
  auto group = default_transport().new_group(members);
  torch::nn::Linear model(torch::nn::LinearOptions(3, 5));
  fill(model, rank(), /*grads=*/false);
  if (!group->is_member()) {
    EXPECT_THROW(broadcast_model(*model, *group), TransportError);
    EXPECT_EQ(model->weight.view({-1})[1].item<float>(), value(rank(), 0, 1));
    return;
  }
  broadcast_model(*model, *group);
  int p = 0;
  for (auto& param : model->parameters()) {
    auto flat = param.view({-1});
    for (int i = 0; i < flat.numel(); ++i) {
      EXPECT_EQ(flat[i].item<float>(), value(members.front(), p, i)) << p << " " << i;
    }
    EXPECT_TRUE(param.requires_grad());
    ++p;
  }
}

TEST_F(Averaging, TensorListsOfBothFloatTypes) {
  auto& w = world_group();
  std::vector<at::Tensor> tensors = {
      torch::full({2, 3}, static_cast<float>(rank())),
      torch::full({4}, static_cast<double>(rank()) * 3.0, torch::kFloat64),
      torch::arange(6, torch::kFloat32) * (rank() + 1)};
  average_models(tensors, w);
  double mean_rank = 0;
  for (int r = 0; r < world(); ++r) mean_rank += r;
  mean_rank /= world();
  EXPECT_TRUE(torch::allclose(tensors[0], torch::full({2, 3}, static_cast<float>(mean_rank))));
  EXPECT_TRUE(torch::allclose(tensors[1], torch::full({4}, mean_rank * 3.0, torch::kFloat64)));
  EXPECT_TRUE(torch::allclose(
      tensors[2], torch::arange(6, torch::kFloat32) * static_cast<float>(mean_rank + 1)));
  std::vector<at::Tensor> ints = {torch::zeros({2}, torch::kInt64)};
  EXPECT_THROW(average_models(ints, w), TransportError);
}

// A model whose parameters live in FlatAdamW's flat buffer (two groups, as the Learner's
// network and logZ): averaging all-reduces that buffer in place, once, and gives the same
// bits as the reference path (runtime/distributed/concat_averaging.h) on separate copies
// of the same values (as torch::optim::AdamW's parameters): bit-identical because both
// all-reduce the same values in the same layout on the same backend and divide alike.
TEST_F(Averaging, FlatOptimizerBufferIsAveragedInPlaceBitIdentically) {
  // Up to three members: with 4 ranks a group of 3, whose division is inexact.
  std::vector<int> members;
  for (int r = 0; r < std::min(world(), 3); ++r) members.push_back(r);
  auto group = default_transport().new_group(members);
  if (!group->is_member()) return;
  Group& w = *group;
  torch::manual_seed(7 + rank());  // different values on every rank
  torch::nn::Linear model(torch::nn::LinearOptions(5, 7));
  at::Tensor log_z = torch::randn({}, torch::requires_grad());
  std::vector<at::Tensor> params = model->parameters();
  params.push_back(log_z);
  core::FlatAdamW adam({{model->parameters(), 1e-3, 0.0}, {{log_z}, 0.1, 0.0}});
  {
    torch::NoGradGuard no_grad;
    for (auto& p : params) p.grad().copy_(torch::randn_like(p) * 0.37);
  }
  // The reference path on separate tensors with the same values.
  std::vector<at::Tensor> copies, grad_copies;
  for (const auto& p : params) {
    copies.push_back(p.detach().clone());
    grad_copies.push_back(p.grad().detach().clone());
  }
  CountingGroup reference(w);
  average_by_concatenation(copies, reference);
  average_by_concatenation(grad_copies, reference);
  EXPECT_EQ(reference.all_reduces, 2);
  EXPECT_NE(reference.last_buffer, grad_copies.front().data_ptr()) << "a concatenated copy";
  const auto version = params.front()._version();

  CountingGroup counting(w);
  average_models(params, counting);
  EXPECT_EQ(counting.all_reduces, 1);
  EXPECT_EQ(counting.last_buffer, adam.all_parameters().data_ptr()) << "not in place";
  average_gradients(params, counting);
  EXPECT_EQ(counting.all_reduces, 2);
  EXPECT_EQ(counting.last_buffer, adam.all_gradients().data_ptr()) << "not in place";
  EXPECT_GT(params.front()._version(), version) << "an in-place write autograd can see";
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(torch::equal(params[i], copies[i])) << "parameter " << i;
    EXPECT_TRUE(torch::equal(params[i].grad(), grad_copies[i])) << "gradient " << i;
  }
  adam.step();  // the parameters still view the flat buffer
}

// Slices of one buffer out of order are not a tiling: the concatenating path runs.
TEST_F(Averaging, OutOfOrderSlicesTakeTheCopyingPath) {
  auto& w = world_group();
  at::Tensor buffer = torch::arange(6, torch::kFloat32) * (rank() + 1);
  std::vector<at::Tensor> slices = {buffer.narrow(0, 3, 3), buffer.narrow(0, 0, 3)};
  CountingGroup counting(w);
  average_tensors(slices, counting);
  EXPECT_EQ(counting.all_reduces, 1);
  EXPECT_NE(counting.last_buffer, buffer.data_ptr());
  double mean = 0;
  for (int r = 0; r < world(); ++r) mean += r + 1;
  mean /= world();
  EXPECT_TRUE(torch::allclose(buffer, torch::arange(6, torch::kFloat32) * mean));
}

// The raw-buffer primitive: float32 and float64 buffers averaged in place over the group
// (exactly representable values, so the expected mean is exact whatever the sum order);
// other dtypes and non-members refused before any communication.
TEST_F(Averaging, RawBuffersAreAveragedInPlace) {
  auto& w = world_group();
  std::vector<float> f(5);
  std::vector<double> d(3);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(rank() * 4 + i);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = -0.5 * rank() + static_cast<double>(i);
  CountingGroup counting(w);
  average_buffer(f.data(), f.size(), DType::kFloat32, counting);
  average_buffer(d.data(), d.size(), DType::kFloat64, counting);
  EXPECT_EQ(counting.all_reduces, 2);
  EXPECT_EQ(counting.last_buffer, d.data());
  double mean_rank = 0;
  for (int r = 0; r < world(); ++r) mean_rank += r;
  mean_rank /= world();
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i], static_cast<float>(4 * mean_rank + static_cast<double>(i))) << i;
  }
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(d[i], -0.5 * mean_rank + static_cast<double>(i)) << i;
  }
  std::vector<std::int64_t> ints(2);
  EXPECT_THROW(average_buffer(ints.data(), ints.size(), DType::kInt64, counting), TransportError);
  EXPECT_EQ(counting.all_reduces, 2) << "refused before any communication";
  if (world() >= 2) {
    auto outsiders = default_transport().new_group({world() - 1});
    if (!outsiders->is_member()) {
      EXPECT_THROW(average_buffer(f.data(), f.size(), DType::kFloat32, *outsiders), TransportError);
    }
  }
}

// The reference path refuses a list mixing dtypes (model_averaging.cc buckets by dtype).
TEST_F(Averaging, ReferencePathTakesOneDtype) {
  auto& w = world_group();
  std::vector<at::Tensor> mixed = {torch::zeros({2}), torch::zeros({2}, torch::kFloat64)};
  CountingGroup counting(w);
  EXPECT_THROW(average_by_concatenation(mixed, counting), TransportError);
  EXPECT_EQ(counting.all_reduces, 0);
}

}  // namespace
}  // namespace gfn::dist::testing
