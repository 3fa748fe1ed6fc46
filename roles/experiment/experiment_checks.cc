// The rules between sections of an experiment (experiment.h): each names the key its
// message is about; checked after every key's own rule.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "roles/experiment/experiment.h"
#include "runtime/gfn/env/catalog.h"

namespace gfn::roles {
namespace {

using E = ExperimentConfig;
using dist::spawn::SpawnMetric;
using dist::spawn::SpawnPolicy;
using dist::spawn::SpawnReplacementMode;

/// env.name: a catalogued environment (runtime/gfn/env/env_options.h), or any name with
/// env.plugin (the plugin loader checks it is the plugin's, runtime/gfn/env/plugin_loader.h).
std::string known_environment(const E& c) {
  if (!c.env.plugin.empty()) return "";
  std::vector<std::string> names = core::catalogued_environment_names();
  if (std::find(names.begin(), names.end(), c.env.name) != names.end()) return "";
  std::sort(names.begin(), names.end());
  return fmt::format("must be one of: {} (or an environment plugin's, with env.plugin)",
                     fmt::join(names, ", "));
}

/// env.options: the options of an environment plugin only.
std::string options_need_plugin(const E& c) {
  if (c.env.options.empty() || !c.env.plugin.empty()) return "";
  return "is only for an environment plugin (env.plugin); a built-in environment's options "
         "are env.<key>";
}

/// spawn.metric score: used by selective, and by donor_pull unless it replaces by age;
/// needs SCORE replies.
std::string score_needs_replies(const E& c) {
  const bool uses_metric = c.spawn.policy == SpawnPolicy::kSelective ||
                           (c.spawn.policy == SpawnPolicy::kDonorPull &&
                            c.spawn.replacement_mode != SpawnReplacementMode::kAge);
  if (!uses_metric || c.spawn.metric != SpawnMetric::kScore) return "";
  const char* policy = config::enum_name(c.spawn.policy);
  if (c.layout.num_buffers == 0) {
    return fmt::format(
        "spawn.policy = {} with metric score needs a buffer manager (layout.num_buffers > 0); "
        "use metric neg_loss or modes_found without one",
        policy);
  }
  if (c.buffer.submit_mode == SubmitMode::kFireAndForget) {
    return fmt::format(
        "spawn.policy = {} with metric score needs SCORE replies (buffer.submit_mode sync or "
        "async, not fire_and_forget)",
        policy);
  }
  return "";
}

/// A policy that replaces agents needs them to differ: averaged gradients keep them equal.
std::string replacing_needs_model_averages(const E& c) {
  if (c.spawn.policy == SpawnPolicy::kAverageAll ||
      c.train.average == core::TrainAverage::kModels) {
    return "";
  }
  return "needs train.average = models (averaged gradients keep every agent identical)";
}

/// donor_pull reads MPI one-sided windows.
std::string donor_pull_needs_mpi(const E& c) {
  if (c.spawn.policy != SpawnPolicy::kDonorPull ||
      c.transport.backend == transport::Backend::kMpi) {
    return "";
  }
  return fmt::format(
      "needs transport.backend = mpi, got transport.backend = {}: donor_pull reads the donors' "
      "parameters from MPI one-sided windows (MPI_Win_create, MPI_Get), which the torch "
      "backend does not have; use spawn.policy = selective with spawn.mode = async there",
      config::enum_name(c.transport.backend));
}

/// buffer.remote_batch_size: replaces remote_sample_fraction, and needs a manager to ask.
std::string one_replay_amount(const E& c) {
  if (c.buffer.remote_batch_size == 0) return "";
  if (c.buffer.remote_sample_fraction > 0) {
    return fmt::format(
        "and buffer.remote_sample_fraction = {} both set the replayed items of an iteration: "
        "set one of them (the other to 0)",
        c.buffer.remote_sample_fraction);
  }
  if (c.layout.num_buffers == 0) {
    return "needs a buffer manager to replay from (layout.num_buffers > 0)";
  }
  return "";
}

}  // namespace

void add_experiment_checks(config::TypedSchema<ExperimentConfig>& schema) {
  schema.cross_check("env.name", known_environment)
      .cross_check("env.options", options_need_plugin)
      .cross_check("spawn.metric", score_needs_replies)
      .cross_check("spawn.policy", replacing_needs_model_averages)
      .cross_check("spawn.policy", donor_pull_needs_mpi)
      .cross_check("buffer.remote_batch_size", one_replay_amount);
}

}  // namespace gfn::roles
