#pragma once
// spawn.policy selective, spawn.mode sync (docs/spawn.md "Spawn policies"; the table of
// roles/trainer/spawn/spawn_policy.h): at every train.average_every iteration the members of
// an agent group gather their local metrics (spawn.metric), take the same decision
// (runtime/distributed/spawn/decision.h), and the replaced members take the donors'
// combination (runtime/distributed/spawn/combine.h) or a fresh initialisation
// (reset_weights), then restart their optimizer state. Synchronous: every member waits for
// the others at the gather. torchgfn: tutorials/examples/multinode/spawn_policy.py
// AsyncSelectiveAveragingPolicy, here without its background thread.
//
// Not thread-safe; collective over the agent group at decision points (one all_gather of a
// double per member, then, for a replacement with donors, one all-reduce of the model's
// size). Errors: the group's collective errors (transport::TransportError, TimeoutError).

#include <cstdint>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::roles {

struct SpawnState;  // roles/trainer/spawn/spawn_state.h

class SelectiveSyncPolicy final : public SpawnPolicy {
 public:
  /// Decision points every config.train.average_every iterations, with config.spawn.
  /// Sends and receives nothing.
  SelectiveSyncPolicy(const roles::ExperimentConfig& config, SpawnAgent agent);

  /// At a decision point: step(iteration, metric()), logged on group rank 0 when it
  /// replaced; true then. Otherwise nothing (false).
  bool after_step(std::int64_t iteration) override;
  std::string save_state(std::int64_t iteration) override;
  void restore_state(const std::string& bytes, std::int64_t iteration) override;
  void finish(std::int64_t) override {}
  const std::vector<SpawnEvent>& events() const override { return events_; }

  /// The decision point of iteration `iteration` with this member's `local_metric`
  /// (higher is better): gathers, decides, applies. Returns what happened.
  const SpawnEvent& step(std::int64_t iteration, double local_metric);

  /// Times this member was replaced.
  std::int64_t times_replaced() const { return times_replaced_; }
  /// This member's state (roles/trainer/spawn/spawn_state.h), and its restoration (before
  /// the first step() of a resumed run; the parameters are the Learner's).
  SpawnState state() const;
  void restore(SpawnState state);

 private:
  dist::spawn::SpawnOptions options_;
  std::int64_t every_;
  SpawnAgent agent_;
  std::int64_t last_replacement_ = -1;
  std::int64_t times_replaced_ = 0;
  std::vector<SpawnEvent> events_;
};

}  // namespace gfn::roles
