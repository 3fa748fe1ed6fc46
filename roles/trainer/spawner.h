#pragma once
// The trainer's spawn policy step (README "Spawn policies"; docs/architecture.md "One
// training iteration", step 6): with spawn.policy selective, at every train.average_every
// iteration the members of an agent group gather their local metrics (spawn.metric), take
// the same decision (runtime/distributed/spawn/decision.h), and the replaced members take
// the donors' combination (runtime/distributed/spawn/combine.h) or a fresh initialisation
// (reset_weights), then restart their optimizer state. Synchronous: every member waits
// for the others at the gather. torchgfn: tutorials/examples/multinode/spawn_policy.py
// AsyncSelectiveAveragingPolicy, here without its background thread.
//
// Not thread-safe; collective over the agent group (one all_gather of a double per
// member, then, for a replacement with donors, one all-reduce of the model's size).
// Errors: the group's collective errors (transport::TransportError, TimeoutError).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/distributed/spawn/options.h"

namespace gfn::core {
class Learner;
}
namespace gfn::transport {
class Group;
}

namespace gfn::roles {

struct SpawnState;  // roles/trainer/spawn_state.h

/// One decision point of an agent group, as every member saw it.
struct SpawnEvent {
  std::int64_t iteration = 0;
  std::vector<double> metrics;  ///< per group rank
  bool replaced_any = false;
  std::vector<int> replaced;    ///< global ranks of the replaced agents
  std::vector<int> donors;      ///< global ranks of the donors
  std::vector<double> weights;  ///< the donors' weights, in the order of `donors`
  std::string skipped;          ///< why nothing was replaced ("" when replaced_any)
  /// spawn.mode async, on a replaced member: the iteration after which it applied the
  /// donors' parameters (-1: not replaced here, or sync mode, where it is `iteration`).
  std::int64_t applied_at = -1;
  /// spawn.mode async, on a replaced member: the iteration at which each donor (order of
  /// `donors`) took the parameters it sent.
  std::vector<std::int64_t> donor_iterations;
};

class Spawner {
 public:
  /// `seed`: this rank's base seed (train.seed + global rank); a reset_weights respawn
  /// at iteration t initialises from seed + 1000003 * t.
  /// `on_respawn` (optional) is called on a replaced member with its replacement count
  /// (1, 2, ...) before its parameters change, e.g. to draw a new exploration strategy.
  Spawner(const dist::spawn::SpawnOptions& options, core::Learner& learner, transport::Group& agents,
          std::uint64_t seed, std::function<void(std::int64_t)> on_respawn = {});

  /// The decision point of iteration `iteration` with this member's `local_metric`
  /// (higher is better): gathers, decides, applies. Returns what happened.
  const SpawnEvent& step(std::int64_t iteration, double local_metric);

  /// Every decision point so far, in order.
  const std::vector<SpawnEvent>& events() const { return events_; }
  /// Times this member was replaced.
  std::int64_t times_replaced() const { return times_replaced_; }

  /// Checkpoints (roles/trainer/spawn_state.h): this member's state, and its restoration
  /// (before the first step() of a resumed run; the parameters are the Learner's).
  SpawnState save_state() const;
  void restore_state(SpawnState state);

 private:
  dist::spawn::SpawnOptions options_;
  core::Learner& learner_;
  transport::Group& agents_;
  std::uint64_t seed_;
  std::function<void(std::int64_t)> on_respawn_;
  std::int64_t last_replacement_ = -1;
  std::int64_t times_replaced_ = 0;
  std::vector<SpawnEvent> events_;
};

}  // namespace gfn::roles
