// A single-process training check on Box 2-D (the field's tb_box_2d scenario: torchgfn
// benchmark/benchmark_libraries.py and lib_runners/torchgfn_runner.py: delta 0.1, 5 Beta
// components with concentrations in [0.1, 100], hidden 256 x 2, tied learned PB, batch 16,
// Adam with lr 1e-3 and 0.1 for logZ): TB through the shared loss code for 1000 iterations,
// after which the loss has fallen and the KDE Jensen-Shannon divergence to exact samples of R
// (validation.h, train_box.py's metric, 4000 samples each) has improved. It runs with the
// learned tied PB (tb_box_2d) and with the fixed uniform PB (tb_box_2d_uniform_pb), which
// learns more slowly (its JSD bound is looser); the output line also gives the metric's floor,
// the JSD between two sets of exact samples.
//
// BoxPolarTraining: the polar Box (box_polar.h) with torchgfn's train_box.py / test_scripts.py
// BoxArgs settings at delta 0.25 (hidden 128 x 4, untied learned PB, batch 128, K0 = 4, K = 2,
// concentrations in [0.1, 5.1], Adam lr 1e-3, lr_Z 1e-3, lr_F 1e-2 for log F, gradients
// clamped to [-10, 10], the learning rates halved every 2500 iterations), TB and DB, sampling
// at a temperature annealed from 2 to 1 over the first half, for test_scripts.py's budget
// (CommonArgs n_trajectories 32000: 250 iterations): the loss and the JSD must fall. The
// figures it prints are for comparison with test_box's targets (0.09 / 0.10 +- 0.02), which
// are not asserted here (4000 validation samples against torchgfn's 200000).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/optim/schedulers/step_lr.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/loss.h"
#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/validation.h"
#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_polar.h"
#include "runtime/gfn/env/box_polar_policies.h"
#include "runtime/gfn/env/box_policies.h"
#include "runtime/process/threads.h"

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
  // One intra-op and one OpenBLAS thread: the float reductions, and so the trained model, are
  // then the same on every machine (with 2 BLAS threads the fixed-PB run below ended at JSD
  // 0.052, with 1 at 0.150).
  runtime::ThreadCounts threads_before = runtime::current_thread_counts();
  threads_before.blas = std::max(threads_before.blas, 1);  // 0: not OpenBLAS
  runtime::set_thread_counts({1, 1});
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
  runtime::set_thread_counts(threads_before);
  EXPECT_LT(last, 0.2 * first);
  // With the fixed uniform PB and batch 16 a run may still under-sample a corner after 1000
  // iterations: seeds 0-3 (one thread) ended at JSD 0.150, 0.104, 0.013 and 0.003 from ~0.19,
  // seed 0 with logZ 1.2 below the truth, and still at 0.139 after 2000. The learned PB reached
  // 0.003-0.023 on the same seeds.
  EXPECT_LT(jsd_after, (options.uniform_pb ? 0.9 : 0.5) * jsd_before);
}

INSTANTIATE_TEST_SUITE_P(BackwardPolicy, BoxTraining, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("UniformPb") : std::string("LearnedPb");
                         });

constexpr int kPolarIterations = 250;  // test_scripts.py: 32000 trajectories / 128

// train_box.py's optimizer: the networks at lr, log F at lr_F, logZ at lr_Z.
torch::optim::Adam polar_optimizer(ContinuousModel& model) {
  std::vector<at::Tensor> networks, flow;
  for (const auto& p : model.named_parameters()) {
    if (p.key() == "logZ") continue;
    (p.key().rfind("logF", 0) == 0 ? flow : networks).push_back(p.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(networks);
  if (!flow.empty()) {
    groups.emplace_back(flow, std::make_unique<torch::optim::AdamOptions>(1e-2));
  }
  groups.emplace_back(std::vector<at::Tensor>{model.log_z()},
                      std::make_unique<torch::optim::AdamOptions>(1e-3));
  return torch::optim::Adam(std::move(groups), torch::optim::AdamOptions(1e-3));
}

class BoxPolarTraining : public ::testing::TestWithParam<LossKind> {};

TEST_P(BoxPolarTraining, LossAndJsdFall) {
  torch::manual_seed(0);
  BoxOptions bo;
  bo.delta = 0.25;
  const BoxPolar box(bo);
  const BoxPolarForwardPolicy pf(box, {});
  const BoxPolarBackwardPolicy pb(box, {});
  TrainOptions train;
  train.loss = GetParam();
  ContinuousModelOptions options;
  options.hidden_dim = 128;
  options.n_hidden = 4;
  options.tied = false;
  options.with_log_flow = continuous_loss_needs_log_flow(train.loss);
  options.pf_constant_outputs = static_cast<int>(pf.constant_outputs());
  ContinuousModel model(box.dim(), pf.n_outputs(), pb.n_outputs(), options);
  const ContinuousGFlowNet gfn{box, model, pf, pb};
  torch::optim::Adam adam = polar_optimizer(model);
  torch::optim::StepLR scheduler(adam, 2500, 0.5);
  at::Generator gen = at::detail::createCPUGenerator(0);
  const at::Tensor target = box.sample_target(kValidationSamples, gen);
  const double jsd_floor = kde_jensen_shannon(box.sample_target(kValidationSamples, gen), target);
  const double jsd_before = jsd_to_target(gfn, target, gen);
  std::vector<double> losses;
  const auto start = std::chrono::steady_clock::now();
  for (int it = 0; it < kPolarIterations; ++it) {
    ContinuousSamplerOptions sampling;
    sampling.temperature = std::max(1.0, 2.0 - 2.0 * it / kPolarIterations);
    const ContinuousTrajectories t = sample_continuous_trajectories(gfn, 128, sampling, gen);
    adam.zero_grad();
    const at::Tensor loss =
        continuous_loss(train, t, continuous_log_probs(gfn, t), model.log_z()).loss;
    loss.backward();
    for (const at::Tensor& p : model.parameters()) {
      if (p.dim() > 0 && p.grad().defined()) p.grad().clamp_(-10, 10).nan_to_num_(0.0);
    }
    adam.step();
    scheduler.step();
    losses.push_back(loss.item<double>());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double jsd_after = jsd_to_target(gfn, target, gen);
  const std::size_t w = losses.size() / 8;
  const double first = mean(losses, 0, w), last = mean(losses, losses.size() - w, losses.size());
  std::cout << "box_polar " << (GetParam() == LossKind::kTB ? "tb" : "db") << ": "
            << kPolarIterations << " iterations of 128 in " << seconds << " s, loss " << first
            << " -> " << last << " (mean of " << w << "), logZ " << model.log_z().item<double>()
            << " (true " << box.log_partition() << "), JSD " << jsd_before << " -> " << jsd_after
            << " (floor " << jsd_floor << ")\n";
  EXPECT_LT(last, 0.6 * first);
  EXPECT_LT(jsd_after, 0.8 * jsd_before);
}

INSTANTIATE_TEST_SUITE_P(Loss, BoxPolarTraining, ::testing::Values(LossKind::kTB, LossKind::kDB),
                         [](const ::testing::TestParamInfo<LossKind>& info) {
                           return info.param == LossKind::kTB ? std::string("TB")
                                                              : std::string("DB");
                         });

}  // namespace
}  // namespace gfn::core
