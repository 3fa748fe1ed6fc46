#include "runtime/gfn/fast/flat_adam.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace gfn::core {
namespace {

// Two small nets (2 Linear layers) plus a scalar, like GFlowNetModel's groups.
struct Net : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::Tensor z;
  Net() {
    a = register_module("a", torch::nn::Linear(5, 7));
    b = register_module("b", torch::nn::Linear(7, 3));
    z = register_parameter("z", torch::zeros({}));
  }
  torch::Tensor loss(const torch::Tensor& x) {
    return (b->forward(torch::relu(a->forward(x))).sum(1) + z - 1.0).pow(2).mean();
  }
  std::vector<torch::Tensor> net() { return {a->weight, a->bias, b->weight, b->bias}; }
};

// Runs `steps` AdamW steps on two copies of a net, one with torch::optim::AdamW and one
// with FlatAdamW (same groups: the Linear layers at lr 0.01 with weight decay, the scalar
// at lr 0.1 without), and returns the largest difference in ulps over all parameters
// (0 = bit-identical).
template <typename NetT>
std::int64_t max_ulp_after(int steps, FlatAdamW::Kernel* kernel = nullptr,
                           FlatAdamPaths paths = {}) {
  torch::manual_seed(1);
  NetT ref, flat;
  {
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < ref.parameters().size(); ++i)
      flat.parameters()[i].copy_(ref.parameters()[i]);
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(ref.net(), std::make_unique<torch::optim::AdamWOptions>(
                                     torch::optim::AdamWOptions(0.01).weight_decay(0.05)));
  groups.emplace_back(std::vector<torch::Tensor>{ref.z},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(0.1).weight_decay(0.0)));
  torch::optim::AdamW torch_adam(std::move(groups));
  FlatAdamW flat_adam({{flat.net(), 0.01, 0.05}, {{flat.z}, 0.1, 0.0}}, paths);
  if (kernel != nullptr) *kernel = flat_adam.kernel();

  for (int step = 0; step < steps; ++step) {
    const torch::Tensor x = torch::randn({16, ref.a->weight.size(1)});
    torch_adam.zero_grad();
    ref.loss(x).backward();
    torch_adam.step();
    flat_adam.zero_grad();
    flat.loss(x).backward();
    flat_adam.step();
  }
  EXPECT_EQ(flat_adam.steps_done(), steps);
  const torch::Tensor z = flat.z;
  EXPECT_GT(z.abs().item<double>(), 0.01);  // the updates did something (lr 0.1)
  std::int64_t worst = 0;
  const std::vector<torch::Tensor> ref_params = ref.parameters();
  const std::vector<torch::Tensor> flat_params = flat.parameters();
  for (std::size_t i = 0; i < ref_params.size(); ++i) {
    // float32 bit patterns as int32: for same-sign values the difference counts ulps.
    const torch::Tensor r = ref_params[i].detach().contiguous().view(torch::kInt32);
    const torch::Tensor f = flat_params[i].detach().contiguous().view(torch::kInt32);
    worst =
        std::max(worst, (r.to(torch::kInt64) - f.to(torch::kInt64)).abs().max().item<int64_t>());
  }
  return worst;
}

// A wider net: ~13 k parameters, so the fused loop runs its vectorized body and a tail.
struct WideNet : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::Tensor z;
  WideNet() {
    a = register_module("a", torch::nn::Linear(37, 301));
    b = register_module("b", torch::nn::Linear(301, 5));
    z = register_parameter("z", torch::zeros({}));
  }
  torch::Tensor loss(const torch::Tensor& x) {
    return (b->forward(torch::relu(a->forward(x))).sum(1) + z - 1.0).pow(2).mean();
  }
  std::vector<torch::Tensor> net() { return {a->weight, a->bias, b->weight, b->bias}; }
};

TEST(FlatAdamW, BitIdenticalToTorchAdamW) {
  FlatAdamW::Kernel kernel{};
  EXPECT_EQ(max_ulp_after<Net>(20, &kernel), 0);
  EXPECT_EQ(max_ulp_after<WideNet>(30), 0);
  // The rounding probe found ATen's roundings (a fused loop, not the fallback).
  EXPECT_NE(kernel, FlatAdamW::Kernel::kAtenOps) << FlatAdamW::kernel_name(kernel);
}

TEST(FlatAdamW, AtenOpsFallbackIsBitIdenticalToo) {  // engine.fused_adam: false
  FlatAdamW::Kernel kernel{};
  const std::int64_t ulps = max_ulp_after<WideNet>(10, &kernel, FlatAdamPaths{false, true});
  EXPECT_EQ(kernel, FlatAdamW::Kernel::kAtenOps);
  EXPECT_EQ(ulps, 0);
}

TEST(FlatAdamW, WithoutPlainLoopsIsBitIdenticalToo) {  // engine.plain_loops: false
  FlatAdamW::Kernel kernel{};
  EXPECT_EQ(max_ulp_after<WideNet>(10, &kernel, FlatAdamPaths{true, false}), 0);
  EXPECT_NE(kernel, FlatAdamW::Kernel::kAtenOps);
}

// The check itself can fail: a different update rule (Adam without the decoupled decay
// on one side) is many ulps away.
TEST(FlatAdamW, UlpCheckSeesADifferentUpdate) {
  torch::manual_seed(3);
  WideNet ref, flat;
  {
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < ref.parameters().size(); ++i)
      flat.parameters()[i].copy_(ref.parameters()[i]);
  }
  torch::optim::AdamW torch_adam(ref.net(), torch::optim::AdamWOptions(0.01).weight_decay(0.0));
  FlatAdamW flat_adam({{flat.net(), 0.01, 0.05}});
  for (int step = 0; step < 3; ++step) {
    const torch::Tensor x = torch::randn({16, 37});
    torch_adam.zero_grad();
    ref.loss(x).backward();
    torch_adam.step();
    flat_adam.zero_grad();
    flat.loss(x).backward();
    flat_adam.step();
  }
  EXPECT_FALSE(torch::equal(ref.a->weight, flat.a->weight));
}

// After the Linear layers stop getting gradients their first moments decay by 0.9 per
// step and underflow into the subnormal range after ~800 steps. The fused loop flushes
// them to 0 (flat_adam.h); the parameters must still match torch AdamW bit for bit.
TEST(FlatAdamW, SubnormalMomentsAreFlushedParametersStayIdentical) {
  torch::manual_seed(4);
  Net ref, flat;
  {
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < ref.parameters().size(); ++i)
      flat.parameters()[i].copy_(ref.parameters()[i]);
  }
  torch::optim::AdamW torch_adam(ref.parameters(),
                                 torch::optim::AdamWOptions(0.01).weight_decay(0.05));
  FlatAdamW flat_adam({{flat.parameters(), 0.01, 0.05}});
  auto run = [&](int steps, bool full) {
    for (int step = 0; step < steps; ++step) {
      const torch::Tensor x = torch::randn({16, 5});
      torch_adam.zero_grad();
      (full ? ref.loss(x) : (ref.z - 1.0).pow(2)).backward();
      torch_adam.step();
      flat_adam.zero_grad();
      (full ? flat.loss(x) : (flat.z - 1.0).pow(2)).backward();
      flat_adam.step();
    }
  };
  run(5, true);
  run(1000, false);  // Linear layers: zero gradients from here on
  for (std::size_t i = 0; i < ref.parameters().size(); ++i) {
    EXPECT_TRUE(torch::equal(ref.parameters()[i], flat.parameters()[i])) << "parameter " << i;
  }
  ASSERT_NE(flat_adam.kernel(), FlatAdamW::Kernel::kAtenOps);  // the fused loop flushes
#if defined(__x86_64__)
  const torch::Tensor m = flat_adam.flat_exp_avg(0).abs();
  const torch::Tensor subnormal = (m > 0) & (m < std::numeric_limits<float>::min());
  EXPECT_EQ(subnormal.sum().item<int64_t>(), 0);
  EXPECT_GT((m == 0).sum().item<int64_t>(), 0);  // flushed, not merely small
#endif
}

TEST(FlatAdamW, ParametersAndGradientsViewFlatBuffers) {
  torch::manual_seed(2);
  Net net;
  const torch::Tensor before = net.a->weight.detach().clone();
  FlatAdamW adam({{net.net(), 0.01, 0.0}});
  EXPECT_TRUE(torch::equal(net.a->weight, before));  // values kept
  EXPECT_EQ(adam.flat_params(0).numel(), 5 * 7 + 7 + 7 * 3 + 3);
  // The module's own parameter list sees the re-homed tensors (own "z" first, then a.*).
  EXPECT_EQ(net.named_parameters()["a.weight"].data_ptr(), adam.flat_params(0).data_ptr());
  net.loss(torch::randn({4, 5})).backward();
  const void* grad_ptr = net.a->weight.grad().data_ptr();
  net.loss(torch::randn({4, 5})).backward();  // accumulates in place
  EXPECT_EQ(net.a->weight.grad().data_ptr(), grad_ptr);
  EXPECT_GT(net.a->weight.grad().abs().sum().item<double>(), 0.0);
  adam.zero_grad();
  EXPECT_EQ(net.a->weight.grad().abs().sum().item<double>(), 0.0);
  // In-place writes through the flat buffer reach the parameter (model averaging).
  adam.flat_params(0).fill_(0.5);
  EXPECT_EQ(net.b->bias[0].item<float>(), 0.5f);
}

// The fused loop divides by sqrt(1 - beta2^t) without a division instruction (Newton
// corrections + Markstein's theorem, flat_adam.cc divide_exact): still bit-identical to
// torch AdamW on ~10^7 updates of one large parameter whose gradients span ~30 orders of
// magnitude (so the second moments and their square roots do too), over steps with
// different bias corrections, and with an infinite gradient entry (denominator +inf).
TEST(FlatAdamW, BitIdenticalOnWidelySpreadMoments) {
  torch::manual_seed(9);
  constexpr std::int64_t n = (1 << 20) + 3;  // vector body and tail
  torch::Tensor ref = torch::randn({n}).requires_grad_(true);
  torch::Tensor flat = ref.detach().clone().requires_grad_(true);
  torch::optim::AdamW torch_adam({ref}, torch::optim::AdamWOptions(0.01).weight_decay(0.01));
  FlatAdamW flat_adam({{{flat}, 0.01, 0.01}});
  for (int step = 0; step < 10; ++step) {
    torch::Tensor g = torch::randn({n}) * torch::exp(8 * torch::randn({n}));
    if (step == 4) g[7] = std::numeric_limits<float>::infinity();
    ref.mutable_grad() = g.clone();
    torch_adam.step();
    flat_adam.zero_grad();
    flat.mutable_grad().copy_(g);
    flat_adam.step();
    SCOPED_TRACE("step " + std::to_string(step));
    ASSERT_TRUE(torch::equal(ref.detach().view(torch::kInt32), flat.detach().view(torch::kInt32)));
  }
  // The fused loop ran (the FMA kernel uses divide_exact).
  EXPECT_NE(flat_adam.kernel(), FlatAdamW::Kernel::kAtenOps);
}

TEST(FlatAdamW, RefusesBadInputAndReplacedGradients) {
  Net net;
  EXPECT_THROW(FlatAdamW({{{}, 0.01, 0.0}}), std::invalid_argument);
  EXPECT_THROW(FlatAdamW({{net.net(), -1.0, 0.0}}), std::invalid_argument);
  EXPECT_THROW(FlatAdamW({{{net.z, net.z}, 0.01, 0.0}}), std::invalid_argument);
  EXPECT_THROW(FlatAdamW({{{torch::zeros({2})}, 0.01, 0.0}}), std::invalid_argument);
  FlatAdamW adam({{net.net(), 0.01, 0.0}});
  net.a->weight.mutable_grad() = torch::Tensor();  // e.g. zero_grad(set_to_none)
  EXPECT_THROW(adam.step(), std::logic_error);
}

}  // namespace
}  // namespace gfn::core
