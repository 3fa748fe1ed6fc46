#pragma once
// The coordinator's part of a checkpoint (docs/checkpoints.md "Checkpoint and resume"): everything
// its later answers depend on, as bytes (cereal portable binary, format version first), written by
// run_coordinator at MANAGER_CHECKPOINT and read back on --resume (roles/run_job.cc). Not saved:
// who is still running, the liveness clocks, pending sends (a checkpoint is taken while every
// manager waits for its answer). Thread-safe (pure functions). O(modes + discoveries).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "roles/coordinator/coordinator.h"

namespace gfn::roles {

struct CoordinatorState {
  std::set<std::vector<std::int64_t>> modes;  ///< every distinct mode reported
  CoordinatorResult result;                   ///< counters, credits, baselines, timeline
  std::optional<float> last_synced;           ///< the global baseline last sent as BASELINE_SYNC
  std::map<int, std::int64_t> syncs_to;       ///< BASELINE_SYNCs sent, per manager rank
};

/// The bytes of `state`.
std::string encode_coordinator_state(const CoordinatorState& state);
/// The state of encode_coordinator_state's bytes. Throws std::runtime_error naming the
/// coordinator's rank for unreadable bytes, another format version or bytes left over.
CoordinatorState decode_coordinator_state(const std::string& bytes, int rank);

}  // namespace gfn::roles
