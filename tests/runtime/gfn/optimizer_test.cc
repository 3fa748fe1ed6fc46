// The Learner's optimizer interface (runtime/gfn/optimizer.h): both implementations, built
// by make_optimizer from the engine plan (runtime/gfn/fast/make_optimizer.h), apply the same
// AdamW update to the two groups, save and restore their state through the interface
// (continuing bit-identically), and forget it on reset_state.
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <torch/torch.h>

#include <memory>
#include <sstream>
#include <vector>

#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/fast/make_optimizer.h"
#include "runtime/gfn/optimizer.h"

namespace gfn::core {
namespace {

// Two network tensors and a logZ, with fresh leaves each time (seeded).
struct Params {
  std::vector<at::Tensor> network;
  at::Tensor log_z;
  Params() {
    torch::manual_seed(11);
    network = {torch::randn({4, 3}).requires_grad_(), torch::randn({3}).requires_grad_()};
    log_z = torch::zeros({}).requires_grad_();
  }
  AdamWGroups groups() const { return {network, log_z, 1e-2, 0.1, 0.01}; }
  // A loss whose gradients differ per step.
  void backward(int step) const {
    const double s = 1.0 + step;
    ((network[0] * s).pow(2).sum() + network[1].sin().sum() * s + (log_z - s).pow(2)).backward();
  }
};

std::unique_ptr<Optimizer> make(OptimizerKind kind, const Params& p) {
  EngineOptions engine;
  engine.optimizer = kind;
  return make_optimizer(plan_engine(engine, EngineFacts{}), p.groups());
}

void run(Optimizer& o, const Params& p, int from, int to) {
  for (int i = from; i < to; ++i) {
    o.zero_grad();
    p.backward(i);
    o.step();
  }
}

void expect_equal(const Params& a, const Params& b) {
  for (std::size_t i = 0; i < a.network.size(); ++i) {
    EXPECT_TRUE(torch::equal(a.network[i], b.network[i])) << "network tensor " << i;
  }
  EXPECT_TRUE(torch::equal(a.log_z, b.log_z));
}

TEST(Optimizer, FlatAndTorchApplyTheSameUpdate) {
  Params flat_params, torch_params;
  auto flat = make(OptimizerKind::kFlat, flat_params);
  auto reference = make(OptimizerKind::kTorch, torch_params);
  run(*flat, flat_params, 0, 5);
  run(*reference, torch_params, 0, 5);
  expect_equal(flat_params, torch_params);
  EXPECT_FALSE(torch::equal(flat_params.log_z, torch::zeros({}))) << "logZ moved";
}

// train.lr_logf: a third group (here the second network tensor as "log F") at its own rate;
// both optimizers agree, and a rate of 0 freezes the group while the network moves.
TEST(Optimizer, LogFlowGroupHasItsOwnRate) {
  for (const double lr_log_flow : {0.0, 0.05}) {
    Params flat_params, torch_params;
    auto groups = [lr_log_flow](const Params& p) {
      AdamWGroups g{{p.network[0]}, p.log_z, 1e-2, 0.1, 0.01};
      g.log_flow = {p.network[1]};
      g.lr_log_flow = lr_log_flow;
      return g;
    };
    const at::Tensor before = flat_params.network[1].detach().clone();
    EngineOptions engine;
    engine.optimizer = OptimizerKind::kFlat;
    auto flat = make_optimizer(plan_engine(engine, EngineFacts{}), groups(flat_params));
    engine.optimizer = OptimizerKind::kTorch;
    auto reference = make_optimizer(plan_engine(engine, EngineFacts{}), groups(torch_params));
    run(*flat, flat_params, 0, 5);
    run(*reference, torch_params, 0, 5);
    expect_equal(flat_params, torch_params);
    EXPECT_EQ(torch::equal(flat_params.network[1], before), lr_log_flow == 0.0)
        << "lr_log_flow " << lr_log_flow;
  }
}

// set_learning_rate_scale: every group's rate is the built one times the scale (both
// implementations), so a step at scale 0.5 equals a step of an optimizer built at half the
// rates, and scale 1 restores the built rates.
TEST(Optimizer, LearningRateScaleMultipliesEveryGroupsRate) {
  for (const OptimizerKind kind : {OptimizerKind::kFlat, OptimizerKind::kTorch}) {
    Params scaled_params, half_params;
    auto scaled = make(kind, scaled_params);
    AdamWGroups g = half_params.groups();
    g.lr /= 2;
    g.lr_log_z /= 2;
    EngineOptions engine;
    engine.optimizer = kind;
    auto half = make_optimizer(plan_engine(engine, EngineFacts{}), g);
    scaled->set_learning_rate_scale(0.5);
    run(*scaled, scaled_params, 0, 3);
    run(*half, half_params, 0, 3);
    expect_equal(scaled_params, half_params);
    Params unscaled_params;
    auto unscaled = make(kind, unscaled_params);
    scaled->set_learning_rate_scale(1.0);
    run(*scaled, scaled_params, 3, 4);
    run(*unscaled, unscaled_params, 0, 4);
    EXPECT_FALSE(torch::equal(scaled_params.network[0], half_params.network[0]));
    EXPECT_FALSE(torch::equal(scaled_params.network[0], unscaled_params.network[0]))
        << "three steps at half the rate are not undone";
  }
}

std::string saved(const Optimizer& o) {
  torch::serialize::OutputArchive out;
  o.save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  return bytes.str();
}

void load(Optimizer& o, const std::string& bytes) {
  torch::serialize::InputArchive in;
  std::istringstream is(bytes);
  in.load_from(is);
  o.load_state(in);
}

TEST(Optimizer, StateRoundTripContinuesBitIdentically) {
  for (const OptimizerKind kind : {OptimizerKind::kFlat, OptimizerKind::kTorch}) {
    Params straight, resumed;
    auto a = make(kind, straight);
    run(*a, straight, 0, 3);
    const std::string bytes = saved(*a);
    run(*a, straight, 3, 6);
    // The resumed side: parameters as after 3 steps, the moments from the bytes.
    auto b = make(kind, resumed);
    run(*b, resumed, 0, 3);
    auto c = make(kind, resumed);  // a fresh optimizer over the same parameters
    load(*c, bytes);
    run(*c, resumed, 3, 6);
    expect_equal(straight, resumed);
  }
}

TEST(Optimizer, ResetStateForgetsTheMoments) {
  for (const OptimizerKind kind : {OptimizerKind::kFlat, OptimizerKind::kTorch}) {
    Params with_history, fresh;
    auto a = make(kind, with_history);
    run(*a, with_history, 0, 3);
    a->reset_state();
    // From the same parameters, a reset optimizer steps like a newly built one.
    for (std::size_t i = 0; i < fresh.network.size(); ++i) {
      torch::NoGradGuard no_grad;
      fresh.network[i].copy_(with_history.network[i]);
    }
    {
      torch::NoGradGuard no_grad;
      fresh.log_z.copy_(with_history.log_z);
    }
    auto b = make(kind, fresh);
    run(*a, with_history, 3, 4);
    run(*b, fresh, 3, 4);
    expect_equal(with_history, fresh);
  }
}

TEST(Optimizer, LoadRefusesAnotherModel) {
  Params small;
  auto a = make(OptimizerKind::kFlat, small);
  run(*a, small, 0, 1);
  const std::string bytes = saved(*a);
  torch::manual_seed(1);
  Params other;
  other.network = {torch::randn({5, 4}).requires_grad_()};  // 20 values, not 15
  auto b = make(OptimizerKind::kFlat, other);
  EXPECT_ANY_THROW(load(*b, bytes));
}

}  // namespace
}  // namespace gfn::core
