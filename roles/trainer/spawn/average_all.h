#pragma once
// spawn.policy average_all, the default (docs/spawn.md "Spawn policies"; the table of
// roles/trainer/spawn/spawn_policy.h; torchgfn tutorials/examples/multinode/spawn_policy.py
// AverageAllPolicy, gfn.utils.distributed.average_models): with train.average models, every
// member's parameters are replaced by their mean over the agent group every
// train.average_every iterations and after the last iteration of the run
// (runtime/distributed/model_averaging.h: one fused all-reduce, divided by the group size).
// Nothing to do with train.average gradients (the gradients are averaged inside every
// training step: the trainer sets the Learner's gradient hook) or in a group of one.
// No state in checkpoints, no decision points in the report.
//
// Not thread-safe. Collective over the agent group at averaging iterations; errors: the
// group's all-reduce errors (transport::TransportError, TimeoutError).

#include <cstdint>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::roles {

class AverageAllPolicy final : public SpawnPolicy {
 public:
  /// Averages every config.train.average_every iterations and at config.iterations(), with
  /// train.average models and more than one member; never otherwise. Sends nothing.
  AverageAllPolicy(const roles::ExperimentConfig& config, SpawnAgent agent);

  /// Averages the parameters when `iteration` is an averaging iteration (true), else
  /// nothing (false).
  bool after_step(std::int64_t iteration) override;
  /// "" (no state).
  std::string save_state(std::int64_t) override { return {}; }
  /// Nothing to restore: `bytes` are not read.
  void restore_state(const std::string&, std::int64_t) override {}
  void finish(std::int64_t) override {}
  const std::vector<SpawnEvent>& events() const override { return events_; }

  /// Whether this member averages at all (train.average models, a group of more than one).
  bool averaging() const { return averaging_; }

 private:
  SpawnAgent agent_;
  std::int64_t every_;
  std::int64_t last_;
  bool averaging_;
  std::vector<SpawnEvent> events_;  // always empty
};

}  // namespace gfn::roles
