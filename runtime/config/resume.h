#pragma once
// The configuration of a resumed run (README "Checkpoint and resume"): the experiment comes
// from the checkpoint (its config.yaml, the text its manifest hashes), and `--set` may change
// only the options that do not alter what the next iterations compute.
// Thread-safe (pure); throws ConfigError (config.h).

#include <string>
#include <vector>

#include "runtime/config/options.h"

namespace gfn::config {

/// Keys a resumed run may change with --set: the budget (train.n_trajectories), logging
/// (output.log_every, output.progress, output.progress_every_s), validation.interval and
/// the checkpoint section.
const std::vector<std::string>& resumable_keys();

/// The keys whose values differ between `a` and `b` (registry order).
std::vector<std::string> differing_keys(const ExperimentConfig& a, const ExperimentConfig& b);

/// load_config(checkpoint_config_path, overrides), refusing overrides of keys outside
/// resumable_keys(): ConfigError naming each key that differs and the checkpoint's config.
ExperimentConfig resume_config(const std::string& checkpoint_config_path,
                               const std::vector<std::string>& overrides);

}  // namespace gfn::config
