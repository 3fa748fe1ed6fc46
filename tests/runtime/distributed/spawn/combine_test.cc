// runtime/distributed/spawn/combine.h under mpirun (both backends, 1 / 2 / 4 ranks): after
// a replacement, each replaced member's parameters equal the expected combination of the
// donors' parameters (mean, weighted_mean, best_only, with and without momentum), the
// donors and other members keep theirs, and a decision without donors communicates nothing.

#include "runtime/distributed/spawn/combine.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <vector>

#include "runtime/distributed/spawn/decision.h"
#include "tests/runtime/compat/dist_test_env.h"
#include "transport/transport.h"

namespace gfn::dist::testing {

// The process group of runtime/compat/ is the harness (tests/runtime/compat/dist_test_main.cc).
using compat::world_group;
using compat::testing::DistTest;
namespace {

using dist::spawn::SpawnStrategy;
using spawn::combine_donors;
using spawn::decide;
using spawn::Decision;

/// Exactly representable value of element i of parameter p on group rank g.
float value(int g, int p, int i) { return static_cast<float>(g * 8 + p * 2) + 0.5f * i; }

void fill(torch::nn::Linear& model, int g) {
  torch::NoGradGuard no_grad;
  int p = 0;
  for (auto& param : model->parameters()) {
    auto flat = param.view({-1});
    for (int i = 0; i < flat.numel(); ++i) flat[i] = value(g, p, i);
    ++p;
  }
}

/// Metrics of group ranks 0..3: rank 0 worst, 1 and 2 tied, 3 best (dyadic weights).
std::vector<double> metrics_of(int n) {
  const std::vector<double> all = {0.0, 1.0, 1.0, 3.0};
  return std::vector<double>(all.begin(), all.begin() + n);
}

/// Checks every parameter of this member against the decision applied by hand.
void expect_combination(torch::nn::Linear& model, const Decision& d, double momentum, int me) {
  const bool replaced = spawn::is_replaced(d, me);
  int p = 0;
  for (auto& param : model->parameters()) {
    auto flat = param.view({-1});
    for (int i = 0; i < flat.numel(); ++i) {
      const float own = value(me, p, i);
      float expected = own;
      if (replaced) {
        double combined = 0.0;
        for (int r : d.donors) combined += d.weights[r] * value(r, p, i);
        expected = static_cast<float>(momentum) * own +
                   static_cast<float>(1.0 - momentum) * static_cast<float>(combined);
      }
      EXPECT_NEAR(flat[i].item<float>(), expected, 1e-5f)
          << "rank " << me << " parameter " << p << " element " << i
          << (replaced ? " (replaced)" : " (kept)");
    }
    ++p;
  }
}

class SpawnCombine : public DistTest,
                     public ::testing::WithParamInterface<std::tuple<SpawnStrategy, double>> {};

TEST_P(SpawnCombine, ReplacedMembersTakeTheDonorsCombination) {
  const auto [strategy, momentum] = GetParam();
  auto& group = world_group();
  dist::spawn::SpawnOptions options;
  options.policy = dist::spawn::SpawnPolicy::kSelective;
  options.replacement_ratio = 0.5;
  options.strategy = strategy;
  options.momentum = momentum;
  const auto d = decide(metrics_of(group.size()), 10, -1, options);
  torch::nn::Linear model(torch::nn::LinearOptions(3, 4));
  fill(model, group.rank());
  combine_donors(model->parameters(), d, momentum, group);
  if (group.size() == 1) {
    EXPECT_FALSE(d.replace) << "a single agent is never replaced";
  } else {
    ASSERT_TRUE(d.replace);
    EXPECT_EQ(d.replaced.front(), 0) << "the worst metric";
  }
  expect_combination(model, d, momentum, group.rank());
  if (group.size() == 4 && strategy == SpawnStrategy::kWeightedMean) {
    // Group minimum 0: donors 2 and 3 weigh 1 and 3.
    EXPECT_EQ(d.weights, (std::vector<double>{0.0, 0.0, 0.25, 0.75}));
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, SpawnCombine,
                         ::testing::Combine(::testing::Values(SpawnStrategy::kMean,
                                                              SpawnStrategy::kWeightedMean,
                                                              SpawnStrategy::kBestOnly),
                                            ::testing::Values(0.0, 0.5)));

/// Forwards to a real group and fails on any collective.
class NoCollectiveGroup final : public transport::Group {
 public:
  explicit NoCollectiveGroup(transport::Group& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  const std::vector<int>& global_ranks() const override { return inner_.global_ranks(); }
  void barrier() override { ADD_FAILURE() << "barrier"; }
  void broadcast(void*, std::size_t, transport::DType, int) override { ADD_FAILURE(); }
  void all_reduce(void*, std::size_t, transport::DType, transport::ReduceOp) override {
    ADD_FAILURE() << "all_reduce without donors";
  }
  void all_gather(const void*, std::size_t, transport::DType, void*) override { ADD_FAILURE(); }

 private:
  transport::Group& inner_;
};

TEST_F(DistTest, ResetWeightsAndSkippedDecisionsCommunicateNothing) {
  NoCollectiveGroup group(world_group());
  torch::nn::Linear model(torch::nn::LinearOptions(3, 4));
  fill(model, group.rank());
  dist::spawn::SpawnOptions options;
  options.policy = dist::spawn::SpawnPolicy::kSelective;
  options.strategy = SpawnStrategy::kResetWeights;
  combine_donors(model->parameters(), decide(metrics_of(group.size()), 1, -1, options), 0.0, group);
  options.strategy = SpawnStrategy::kMean;
  options.threshold = -1.0;  // no metric below it
  combine_donors(model->parameters(), decide(metrics_of(group.size()), 1, -1, options), 0.0, group);
  EXPECT_EQ(model->weight.view({-1})[2].item<float>(), value(group.rank(), 0, 2));
}

}  // namespace
}  // namespace gfn::dist::testing
