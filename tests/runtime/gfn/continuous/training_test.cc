// A single-process training check on Box 2-D (the field's tb_box_2d scenario: torchgfn
// benchmark/benchmark_libraries.py and lib_runners/torchgfn_runner.py: delta 0.1, 5 Beta
// components with concentrations in [0.1, 100], hidden 256 x 2, tied learned PB, batch 16,
// Adam with lr 1e-3 and 0.1 for logZ): TB through the shared loss code for 1000 iterations,
// after which the loss has fallen and the KDE Jensen-Shannon divergence to exact samples of R
// (validation.h, train_box.py's metric, 4000 samples each) has improved. It runs with the
// learned tied PB (tb_box_2d) and with the fixed uniform PB (tb_box_2d_uniform_pb); the
// output line also gives the metric's floor, the JSD between two sets of exact samples.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/loss.h"
#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/validation.h"
#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_policies.h"

namespace gfn::core {
namespace {

constexpr std::int64_t kValidationSamples = 4000;

double jsd_to_target(const ContinuousGFlowNet& gfn, const at::Tensor& target, at::Generator& gen) {
  const ContinuousTrajectories t = sample_continuous_trajectories(gfn, kValidationSamples, {}, gen);
  return kde_jensen_shannon(t.terminating_states, target);
}

double mean(const std::vector<double>& v, std::size_t begin, std::size_t end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, 0.0) /
         static_cast<double>(end - begin);
}

constexpr int kIterations = 1000;

class BoxTraining : public ::testing::TestWithParam<bool> {};

TEST_P(BoxTraining, TrajectoryBalanceLowersLossAndJsd) {
  const int iterations = kIterations;
  ContinuousModelOptions options;
  options.uniform_pb = GetParam();
  torch::manual_seed(0);
  const Box box{BoxOptions{}};
  const BoxPolicyOptions po;
  const BoxForwardPolicy pf(box, po);
  const BoxBackwardPolicy pb(box, po);
  ContinuousModel model(box.dim(), pf.n_outputs(), pb.n_outputs(), options);
  const ContinuousGFlowNet gfn{box, model, pf, pb};
  std::vector<at::Tensor> networks;
  for (const auto& p : model.named_parameters()) {
    if (p.key() != "logZ") networks.push_back(p.value());
  }
  torch::optim::Adam adam({torch::optim::OptimizerParamGroup(networks),
                           torch::optim::OptimizerParamGroup(
                               {model.log_z()}, std::make_unique<torch::optim::AdamOptions>(0.1))},
                          torch::optim::AdamOptions(1e-3));
  at::Generator gen = at::detail::createCPUGenerator(0);
  const at::Tensor target = box.sample_target(kValidationSamples, gen);
  const double jsd_floor = kde_jensen_shannon(box.sample_target(kValidationSamples, gen), target);
  const double jsd_before = jsd_to_target(gfn, target, gen);
  TrainOptions train;  // tb
  std::vector<double> losses;
  for (int it = 0; it < iterations; ++it) {
    const ContinuousTrajectories t = sample_continuous_trajectories(gfn, 16, {}, gen);
    adam.zero_grad();
    const at::Tensor loss =
        continuous_loss(train, t, continuous_log_probs(gfn, t), model.log_z()).loss;
    loss.backward();
    adam.step();
    losses.push_back(loss.item<double>());
  }
  const double jsd_after = jsd_to_target(gfn, target, gen);
  const std::size_t w = losses.size() / 6;
  const double first = mean(losses, 0, w), last = mean(losses, losses.size() - w, losses.size());
  std::cout << "box tb" << (options.uniform_pb ? " (fixed PB)" : "") << ": " << iterations
            << " iterations, loss " << first << " -> " << last << " (mean of " << w << "), logZ "
            << model.log_z().item<double>() << " (true " << box.log_partition() << "), JSD "
            << jsd_before << " -> " << jsd_after << " (floor " << jsd_floor << ")\n";
  EXPECT_LT(last, 0.2 * first);
  EXPECT_LT(jsd_after, 0.5 * jsd_before);
}

INSTANTIATE_TEST_SUITE_P(BackwardPolicy, BoxTraining, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("UniformPb") : std::string("LearnedPb");
                         });

}  // namespace
}  // namespace gfn::core
