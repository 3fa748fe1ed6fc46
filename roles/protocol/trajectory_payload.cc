#include "roles/protocol/trajectory_payload.h"

#include <stdexcept>

#include "transport/errors.h"

namespace gfn::protocol {

void check_trajectories(const buffer::PackedTrajectories& trajectories, std::int64_t n,
                        std::int64_t n_actions, bool allow_missing, const std::string& what) {
  try {
    buffer::check_packed_trajectories(trajectories, n, n_actions, allow_missing, what);
  } catch (const std::invalid_argument& e) {
    throw transport::MessageError(e.what());
  }
}

}  // namespace gfn::protocol
