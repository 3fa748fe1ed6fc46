// write_final_files and global_modes_found (roles/trainer/final_outputs.h).
#include "roles/trainer/final_outputs.h"

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <set>
#include <vector>

#include "roles/trainer/final_model.h"
#include "roles/trainer/model_export.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/validation.h"
#include "runtime/output/density_csv.h"
#include "runtime/output/distribution_csv.h"
#include "transport/gather.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

/// distribution.csv: the exact terminating-state distribution of `learner`'s model (the
/// mean policy: NoisyNet layers in eval mode, as validation uses) against the true one.
void write_distribution(core::Learner& learner, const std::string& path) {
  at::NoGradGuard no_grad;
  const auto& env = learner.env();
  auto& module = learner.model();
  const bool was_training = module.is_training();
  module.eval();
  const auto learned =
      core::exact_terminating_distribution(learner.model(), learner.preprocessor(), env);
  module.train(was_training);
  output::write_distribution_csv(path, env.terminating_states(), learned, env.true_distribution());
}

/// density.csv: the learned density of a continuous run beside the true one (DensityGrid,
/// runtime/gfn/continuous/validation.h), from validation.n_samples samples of each, at most
/// 10,000 (train_box.py's count; the KDE's cost grows with it).
void write_density(core::ContinuousLearner& learner, std::int64_t n, const std::string& path) {
  const core::DensityGrid g = learner.density(std::min<std::int64_t>(n, 10000));
  output::write_density_csv(path, g.points, g.learned, g.target, g.true_density);
}

}  // namespace

void write_final_files(const roles::ExperimentConfig& config, core::Agent& agent) {
  core::Learner* learner = agent.discrete();  // distribution.csv and the export: discrete only
  if (learner && config.validation.enabled && learner->env().enumerable()) {
    write_distribution(*learner, config.output.dir + "/distribution.csv");
  }
  core::ContinuousLearner* continuous = agent.continuous();
  if (continuous && config.validation.enabled && config.validation.n_samples > 0 &&
      continuous->env().has_target()) {
    write_density(*continuous, config.validation.n_samples, config.output.dir + "/density.csv");
  }
  write_final_model(agent, config.output.dir + "/" + kFinalModelFile);
  if (learner && config.output.export_model) export_model(*learner, config);
  if (continuous && config.output.export_model) export_model(*continuous, config);
}

std::set<std::int64_t> global_modes_found(transport::Group& trainers,
                                          const core::ModeTracker* tracker) {
  return global_mode_union(trainers, tracker ? tracker->found() : std::vector<std::int64_t>{});
}

std::int64_t fresh_sample_share(std::int64_t n, int rank, int size) {
  return n / size + (rank < n % size ? 1 : 0);
}

std::set<std::int64_t> global_mode_union(transport::Group& trainers,
                                         const std::vector<std::int64_t>& mine) {
  transport::Bytes bytes(mine.size() * sizeof(std::int64_t));
  std::copy_n(reinterpret_cast<const std::uint8_t*>(mine.data()), bytes.size(), bytes.data());
  std::set<std::int64_t> all;
  for (const auto& b : transport::all_gather_bytes(trainers, bytes)) {
    const auto* p = reinterpret_cast<const std::int64_t*>(b.data());
    all.insert(p, p + b.size() / sizeof(std::int64_t));
  }
  return all;
}

}  // namespace gfn::roles
