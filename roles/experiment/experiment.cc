#include "roles/experiment/experiment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/config/resume.h"
#include "runtime/gfn/env/catalog.h"

namespace gfn::roles {

void add_experiment_checks(config::TypedSchema<ExperimentConfig>& schema);  // experiment_checks.cc

namespace {

using E = ExperimentConfig;

/// env: EnvOptions' own keys, then every catalogued environment's, validated only when
/// env.name selects it.
void add_env_section(config::TypedSchema<E>& schema) {
  schema.section("env",
                 "The environment (runtime/gfn/env/): its name, the preprocessor, and the keys of "
                 "each environment (marked with the environments that read them).",
                 &E::env, core::env_fields());
  for (const auto* catalog :
       {&core::environment_catalog(), &core::continuous_environment_catalog()}) {
    for (const auto& entry : *catalog) {
      const std::string name = entry.name;
      schema.extend_fields(
          "env", entry.fields, entry.renamed, [name](E& c) -> void* { return c.env.object(name); },
          [name](const E& c) { return c.env.name == name; }, name);
    }
  }
}

config::TypedSchema<E> make_schema() {
  config::TypedSchema<E> s;
  s.section("layout", "How the world of ranks splits into roles (roles/planner/).", &E::layout,
            layout_fields());
  s.section("transport", "How ranks talk (transport/).", &E::transport, transport_fields());
  s.section("launch",
            "Explicit launch values; each set one takes precedence over the launcher's "
            "environment variables (runtime/launch/).",
            &E::launch, launch::launch_fields());
  add_env_section(s);
  s.section("model", "The estimators PF, PB, logF (runtime/gfn/estimators.h).", &E::model,
            core::model_fields());
  s.section("train", "The loss, the optimizer, sampling and the budget (runtime/gfn/).", &E::train,
            core::train_fields());
  s.section("local_search",
            "Local search: on discrete environments Local Search GFlowNets (Kim et al. 2024; "
            "mode reverse_completion, runtime/gfn/local_search.h), on continuous targets with a "
            "gradient Metropolis-adjusted Langevin steps from replayed states (Sendera et al. "
            "2024; mode langevin, runtime/gfn/continuous/langevin.h).",
            &E::local_search, core::local_search_fields());
  s.section("buffer",
            "The replay-buffer managers and how trainers talk to them (roles/buffer_manager/, "
            "docs/protocol.md).",
            &E::buffer, buffer_fields());
  s.section("replay", "The trainer-local replay buffer (runtime/buffer/).", &E::replay,
            buffer::replay_fields());
  s.section("validation", "Validation by trainer rank 0 (runtime/gfn/validation.h).",
            &E::validation, core::validation_fields());
  s.section("spawn", "The agent groups' spawn policy (docs/spawn.md).", &E::spawn,
            dist::spawn::spawn_fields());
  s.section("output", "The run directory and what trainer rank 0 shows (runtime/output/).",
            &E::output, output::output_fields());
  s.section("checkpoint", "Checkpoints (docs/checkpoints.md).", &E::checkpoint,
            checkpoint::checkpoint_fields());
  s.section("engine",
            "The numerical paths of the trainer's engine: each option turns a fast path off "
            "for its reference (runtime/gfn/fast/).",
            &E::engine, core::engine_fields());
  add_experiment_checks(s);
  return s;
}

}  // namespace

const config::TypedSchema<ExperimentConfig>& experiment_schema() {
  static const config::TypedSchema<ExperimentConfig> schema = make_schema();
  return schema;
}

ExperimentConfig default_config() {
  ExperimentConfig config;
  validate_config(config, "defaults");
  return config;
}

ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  ExperimentConfig config = experiment_schema().load(path, overrides);
  config.source_file = path;
  return config;
}

void validate_config(const ExperimentConfig& config, const std::string& source) {
  experiment_schema().validate(config, source.empty() ? config.source_file : source);
}

std::string to_yaml(const ExperimentConfig& config) { return experiment_schema().to_yaml(config); }

std::vector<std::string> config_keys() { return experiment_schema().keys(); }

ExperimentConfig resume_config(const std::string& checkpoint_config_path,
                               const std::vector<std::string>& overrides) {
  ExperimentConfig config =
      config::load_for_resume(experiment_schema(), checkpoint_config_path, overrides);
  config.source_file = checkpoint_config_path;
  return config;
}

void check_same_experiment(const ExperimentConfig& config,
                           const std::string& checkpoint_config_path) {
  const auto& schema = experiment_schema();
  const ExperimentConfig saved = schema.load(checkpoint_config_path);
  config::refuse_non_resumable(schema.differing_keys(saved, config), schema.resumable_keys(),
                               checkpoint_config_path);
}

std::string configuration_reference() {
  std::vector<std::string> resumable;
  for (const auto& key : experiment_schema().resumable_keys()) resumable.push_back("`" + key + "`");
  return fmt::format(
      "# Configuration reference\n\n"
      "Every key of an experiment file, generated from the schema by `gfn-train "
      "--print-schema` (do not edit: a test fails when this file differs from the schema). A "
      "file sets any subset of the keys, section by section; `--set section.key=value` "
      "overrides one key on the command line (the last one wins). Defaults are the demo's. "
      "Unknown keys, wrong types and values outside \"allowed\" are refused with a message "
      "naming the key and the file; an unknown key with the nearest keys (\"did you mean "
      "train.batch_size?\"). A resumed run (`--resume`) may change only {}.\n\n{}",
      fmt::join(resumable, ", "), experiment_schema().reference());
}

}  // namespace gfn::roles
