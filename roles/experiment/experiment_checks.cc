// The rules between sections of an experiment (experiment.h): each names the key its
// message is about; checked after every key's own rule.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <string>

#include "roles/experiment/experiment.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/plugin_loader.h"

namespace gfn::roles {
namespace {

using E = ExperimentConfig;
using dist::spawn::SpawnMetric;
using dist::spawn::SpawnPolicy;
using dist::spawn::SpawnReplacementMode;

/// env.name: a catalogued environment (runtime/gfn/env/env_options.h), or any name with
/// env.plugin (the plugin loader checks it is the plugin's, runtime/gfn/env/plugin_loader.h)
/// or env.python (a Python environment, runtime/python/python_environment.h).
std::string known_environment(const E& c) {
  if (!c.env.plugin.empty() || !c.env.python.empty()) return "";
  std::vector<std::string> names = core::catalogued_environment_names();
  if (std::find(names.begin(), names.end(), c.env.name) != names.end()) return "";
  std::sort(names.begin(), names.end());
  return fmt::format(
      "must be one of: {} (or an environment plugin's, with env.plugin, or a Python "
      "environment's, with env.python)",
      fmt::join(names, ", "));
}

/// env.options: the options of an environment plugin or of a Python environment only.
std::string options_need_plugin(const E& c) {
  if (c.env.options.empty() || !c.env.plugin.empty() || !c.env.python.empty()) return "";
  return "is only for an environment plugin (env.plugin) or a Python environment (env.python); "
         "a built-in environment's options are env.<key>";
}

/// env.python: one environment, so not with env.plugin.
std::string python_or_plugin(const E& c) {
  if (c.env.python.empty() || c.env.plugin.empty()) return "";
  return "names a Python environment and env.plugin a plugin's: set only one of them";
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

/// What the continuous environments (env.name box; runtime/gfn/continuous/learner.h) do not
/// support yet: one entry per key, refused before any communication.
struct ContinuousRefusal {
  const char* key;
  bool (*set)(const E& c);
  const char* what;
};

constexpr ContinuousRefusal kContinuousRefusals[] = {
    {"replay.kind", [](const E& c) { return c.replay.kind != buffer::ReplayKind::kNone; },
     "the trainer-local replay buffer"},
    {"local_search.loops", [](const E& c) { return c.local_search.loops > 0; }, "local search"},
    {"engine.split_batch",
     [](const E& c) { return c.engine.split_batch && c.train.num_threads > 1; },
     "the discrete fast path's batch split"},
    {"engine.precision", [](const E& c) { return c.engine.precision != core::Precision::kFp32; },
     "the discrete fast path's bf16 GEMMs"},
    {"train.loss",
     [](const E& c) {
       return c.train.loss == core::LossKind::kFM || c.train.loss == core::LossKind::kModifiedDB;
     },
     "fm and modified_db (use tb, zvar, db or subtb)"},
    {"train.epsilon", [](const E& c) { return c.train.epsilon != 0.0; },
     "epsilon-greedy exploration"},
    {"train.reward_exponent", [](const E& c) { return c.train.reward_exponent != 1.0; },
     "a reward exponent other than 1"},
    {"model.n_noisy_layers", [](const E& c) { return c.model.n_noisy_layers > 0; },
     "NoisyNet layers"},
    {"model.init_from", [](const E& c) { return !c.model.init_from.empty(); },
     "starting from an exported model"},
    {"spawn.random_strategies", [](const E& c) { return c.spawn.random_strategies; },
     "random exploration strategies"},
    {"env.reward_model", [](const E& c) { return !c.env.reward_model.empty(); }, "reward models"},
    {"env.reward_python", [](const E& c) { return !c.env.reward_python.empty(); },
     "Python rewards"},
    {"output.export",
     [](const E& c) {
       return c.output.export_model && c.env.name != "box" && c.env.name != "box_polar";
     },
     "the model export under torchgfn's names (box and box_polar only; model.pt is written)"},
};

/// A continuous environment: catalogued, or a plugin that loads and is continuous (a plugin
/// that does not load is reported by resolve_environment_plugin, naming the file).
bool continuous_env(const core::EnvOptions& env) {
  try {
    return core::is_continuous(env);
  } catch (const std::exception&) {
    return false;
  }
}

/// What only the continuous learner does yet (refused on a discrete environment).
std::function<std::string(const E&)> continuous_only(bool (*set)(const E& c)) {
  return [set](const E& c) -> std::string {
    if (!set(c) || continuous_env(c.env)) {
      return "";
    }
    return "only the continuous environments' learner supports it yet (env.name box, box_polar)";
  };
}

/// The check of kContinuousRefusals[i]'s key.
std::function<std::string(const E&)> continuous_refusal(const ContinuousRefusal& r) {
  return [r](const E& c) -> std::string {
    if (!r.set(c) || !continuous_env(c.env)) return "";
    return fmt::format("continuous environments (env.name {}) do not support it yet: {}",
                       c.env.name, r.what);
  };
}

/// local_search.mode langevin: a continuous environment whose reward has a gradient
/// (runtime/gfn/continuous/langevin.h): of the catalogued ones diffusion; a continuous plugin
/// is checked by the learner (ContinuousEnvironment::has_reward_gradient) when it is built.
/// (No environment is built here: the config fuzzer runs these checks without LibTorch.)
std::string langevin_needs_gradient(const E& c) {
  if (c.local_search.mode != core::LocalSearchMode::kLangevin) return "";
  if (!continuous_env(c.env)) {
    return fmt::format(
        "langevin is local search in the target space of a continuous target with a gradient "
        "(env.name diffusion), not for env.name {} (use reverse_completion with "
        "local_search.loops)",
        c.env.name);
  }
  if (!c.env.plugin.empty() || c.env.name == "diffusion") return "";
  return fmt::format(
      "langevin needs a reward with a gradient (env.name diffusion); env.name {} "
      "has none",
      c.env.name);
}

/// The discrete local search's keys with local_search.mode langevin.
std::function<std::string(const E&)> not_with_langevin(bool (*set)(const E& c)) {
  return [set](const E& c) -> std::string {
    if (c.local_search.mode != core::LocalSearchMode::kLangevin || !set(c)) return "";
    return "only for local_search.mode reverse_completion (discrete environments), not with "
           "mode langevin";
  };
}

}  // namespace

void add_experiment_checks(config::TypedSchema<ExperimentConfig>& schema) {
  schema.cross_check("env.name", known_environment)
      .cross_check("env.options", options_need_plugin)
      .cross_check("env.python", python_or_plugin)
      .cross_check("spawn.metric", score_needs_replies)
      .cross_check("spawn.policy", replacing_needs_model_averages)
      .cross_check("spawn.policy", donor_pull_needs_mpi)
      .cross_check("buffer.remote_batch_size", one_replay_amount);
  schema
      .cross_check("train.gradient_clamp",
                   continuous_only([](const E& c) { return c.train.gradient_clamp > 0; }))
      .cross_check("train.temperature_start",
                   continuous_only([](const E& c) { return c.train.temperature_start > 0; }))
      .cross_check("train.lr_decay",
                   continuous_only([](const E& c) { return c.train.lr_decay != 1.0; }))
      .cross_check("train.loss_at_sampling_temperature", continuous_only([](const E& c) {
                     return c.train.loss_at_sampling_temperature;
                   }));
  schema.cross_check("local_search.mode", langevin_needs_gradient)
      .cross_check("local_search.back_ratio", not_with_langevin([](const E& c) {
                     return c.local_search.back_ratio != core::LocalSearchOptions{}.back_ratio;
                   }))
      .cross_check("local_search.acceptance", not_with_langevin([](const E& c) {
                     return c.local_search.acceptance != core::LocalSearchOptions{}.acceptance;
                   }));
  for (const auto& refusal : kContinuousRefusals) {
    schema.cross_check(refusal.key, continuous_refusal(refusal));
  }
}

}  // namespace gfn::roles
