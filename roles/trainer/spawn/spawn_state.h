#pragma once
// What a spawn policy carries across a checkpoint (docs/checkpoints.md "Checkpoint and resume",
// "Spawn policies"; roles/trainer/trainer_checkpoint.h; SpawnPolicy::save_state,
// roles/trainer/spawn/spawn_policy.h): the member's replacement count, the
// iteration of its group's last replacement (selective: the cooldown's clock) or of its own
// last respawn (donor_pull: the age's clock), and every decision point so far (the spawn
// report of summary.json continues across the resume). Everything else is derived: the
// exploration strategy and donor_pull's maximum age are draws numbered by the replacement
// count (runtime/distributed/spawn/strategy.h, donor_pull.h), the decisions are pure
// functions of the gathered metrics (decision.h). The asynchronous policy is drained
// (SelectiveAsyncPolicy::save_state) before its state is taken, so no message is in flight.
//
// Bytes: a format version, then the state, in cereal's portable binary archive
// (runtime/checkpoint/versioned_state.h). Thread-compatible. Errors: decode_spawn_state
// throws std::runtime_error naming the spawn state for no bytes (a checkpoint without the
// policy's state), bytes of another format, truncated or corrupted bytes. Cost: O(decision points).

#include <cstdint>
#include <string>
#include <vector>

#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::roles {

struct SpawnState {
  std::int64_t times_replaced = 0;
  /// selective (sync and async): iteration of the group's last replacement (-1: none);
  /// donor_pull: iteration of this agent's last respawn (0: the start).
  std::int64_t last_replacement = -1;
  std::vector<SpawnEvent> events;  ///< every decision point so far, in order
};

std::string encode_spawn_state(const SpawnState& state);
SpawnState decode_spawn_state(const std::string& bytes);

}  // namespace gfn::roles
