#pragma once
// The spawn policy of an agent group (docs/spawn.md "Spawn policies"; docs/architecture.md "One
// training iteration", step 6): what the members of a group do after their optimizer steps
// so that they share what they learned. One interface, one class per policy (as Reverb's
// selectors, runtime/buffer/selectors/), built once per trainer by make_spawn_policy
// (roles/trainer/spawn/make_spawn_policy.h) from spawn.* and train.*:
//
//   spawn.policy    class                file               after_step
//   average_all     AverageAllPolicy     average_all.h      all-reduce of the parameters every
//                                                           train.average_every iterations and
//                                                           at the last one (train.average
//                                                           models; nothing for gradients)
//   selective sync  SelectiveSyncPolicy  selective_sync.h   all-gather of the members' metrics
//                                                           every train.average_every
//                                                           iterations, the worst replaced by
//                                                           the best (a barrier)
//   selective async SelectiveAsyncPolicy selective_async.h  the same decisions without a
//                                                           barrier (SPAWN_METRIC /
//                                                           SPAWN_PARAMS, applied later)
//   donor_pull      DonorPullPolicy      donor_pull.h       a dying member reads k donors'
//                                                           parameters from one-sided windows
//
// Sources: torchgfn tutorials/examples/multinode/spawn_policy.py (AverageAllPolicy,
// AsyncSelectiveAveragingPolicy, AsyncSelectiveAveragingPolicympi4pyV2).
//
// The trainer (roles/trainer/trainer.cc) calls after_step after every optimizer step,
// save_state at a checkpoint, restore_state on resume, finish at the end of training and
// events for summary.json. Every member of an agent group makes the same calls for the same
// iterations, so the collectives some of them run match. A policy changes its member's
// parameters in place and reaches the rest of the trainer only through SpawnHooks
// (roles/trainer/spawn/spawn_agent.h).
//
// Thread-safety: none (the trainer's thread). Errors: the agent group's transport errors
// (transport::TransportError, TimeoutError, MessageError), as each method says.

#include <cstdint>
#include <string>
#include <vector>

namespace gfn::roles {

/// One decision point of an agent group, as this member saw it (summary.json "spawn",
/// roles/trainer/spawn_report.h; saved in checkpoints, roles/trainer/spawn/spawn_state.h).
struct SpawnEvent {
  std::int64_t iteration = 0;
  /// Per group rank (donor_pull: its own metric, and the others' exposed ones in worst_ratio
  /// mode; 0 for the others otherwise).
  std::vector<double> metrics;
  bool replaced_any = false;
  std::vector<int> replaced;    ///< global ranks of the replaced agents
  std::vector<int> donors;      ///< global ranks of the donors
  std::vector<double> weights;  ///< the donors' weights, in the order of `donors`
  std::string skipped;          ///< why nothing was replaced ("" when replaced_any)
  /// selective async and donor_pull, on a replaced member: the iteration after which it
  /// applied the donors' parameters (-1: not replaced here, or sync mode, where it is
  /// `iteration`).
  std::int64_t applied_at = -1;
  /// selective async and donor_pull, on a replaced member: the iteration each donor's
  /// parameters (order of `donors`) are from.
  std::vector<std::int64_t> donor_iterations;
};

class SpawnPolicy {
 public:
  virtual ~SpawnPolicy() = default;

  /// After the optimizer step of iteration `iteration` (1, 2, ...; increasing): averages or
  /// replaces when `iteration` is one of the policy's decision points, and does what it does
  /// at every iteration boundary (selective async: takes in the messages that arrived;
  /// donor_pull: refreshes its window). Returns true when it ran this iteration (the trainer
  /// times it as step "average"), false when nothing was due. Blocking only where the class
  /// says (average_all and selective sync: a collective at their decision points).
  virtual bool after_step(std::int64_t iteration) = 0;

  /// A checkpoint after iteration `iteration`: completes every decision up to `iteration`
  /// (selective async waits for the messages in flight, so none is in the saved state), then
  /// returns the member's state as bytes (roles/trainer/spawn/spawn_state.h), or "" for a
  /// policy without state (average_all). Every member calls it for the same iteration.
  virtual std::string save_state(std::int64_t iteration) = 0;

  /// Resume after iteration `iteration` from save_state's bytes, once the Learner's
  /// parameters are restored and before the next after_step. Throws std::runtime_error
  /// naming the spawn policy's state when a policy with state gets "" or unreadable bytes.
  virtual void restore_state(const std::string& bytes, std::int64_t iteration) = 0;

  /// End of training after iteration `iteration` (the same on every member, also after a
  /// stop by signal): completes every decision up to it and frees what the group shares
  /// (donor_pull's window: collective over the agent group).
  virtual void finish(std::int64_t iteration) = 0;

  /// Every decision point so far, in order; empty for average_all.
  virtual const std::vector<SpawnEvent>& events() const = 0;
};

}  // namespace gfn::roles
