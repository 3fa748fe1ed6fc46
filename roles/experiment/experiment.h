#pragma once
// Loading an experiment, the YAML file every rank of a job reads (configs/*.yaml), into
// its configuration (experiment_config.h), with the schema assembled from the modules' own
// fields (docs/configuration.md is its reference, generated from experiment_schema()).
// Loading (runtime/config/schema.h): defaults < file < `--set section.key=value` overrides
// (in command-line order); then each field's rule, then the rules between sections
// (experiment_checks.cc). Thread-safe once built (the schema is a function-local static).
// No LibTorch: the fuzz target of the loader (tests/fuzz/) compiles this without it.

#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "runtime/config/schema.h"

namespace gfn::roles {

/// The schema of an experiment: every section, key, rule and cross-check.
const config::TypedSchema<ExperimentConfig>& experiment_schema();

/// The defaults (the demo's), validated.
ExperimentConfig default_config();

/// Reads `path` ("" = defaults only), applies `overrides` ("section.key=value", each value
/// read as a YAML scalar of the key's type), validates, sets source_file = path. Throws
/// config::ConfigError naming the key, where it came from and the value.
ExperimentConfig load_config(const std::string& path,
                             const std::vector<std::string>& overrides = {});

/// Checks every rule; throws config::ConfigError naming the first bad key and `source`
/// (default: config.source_file).
void validate_config(const ExperimentConfig& config, const std::string& source = "");

/// The effective configuration as YAML (every key), for config.yaml of a run; load_config
/// of it gives back an equal configuration.
std::string to_yaml(const ExperimentConfig& config);

/// Every key ("layout.num_buffers", ...), in schema order.
std::vector<std::string> config_keys();

/// The configuration of a resumed run: the checkpoint's config.yaml with `overrides`, which
/// may change only resumable keys (FieldTraits::resumable: train.n_trajectories, logging,
/// validation.interval, checkpoint.*). Throws config::ConfigError.
ExperimentConfig resume_config(const std::string& checkpoint_config_path,
                               const std::vector<std::string>& overrides);

/// An automatic restart (roles/job/restart.h) runs the experiment it was given (--config,
/// --set): throws config::ConfigError naming every key in which `config` differs from the
/// checkpoint's config.yaml that a resumed run may not change.
void check_same_experiment(const ExperimentConfig& config,
                           const std::string& checkpoint_config_path);

/// docs/configuration.md: a title and how to read it, then the schema's reference.
std::string configuration_reference();

}  // namespace gfn::roles
