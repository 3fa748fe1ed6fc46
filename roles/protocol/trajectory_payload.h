#pragma once
// Checks of the trajectory part of DATA and SAMPLE payloads (messages.h): the packed layout
// of runtime/buffer/packed_trajectories.h, whose checks (check_packed_trajectories) are
// the one definition; this wrapper turns their std::invalid_argument into the protocol's
// transport::MessageError. Pure function; thread-safe.

#include <cstdint>
#include <string>

#include "runtime/buffer/packed_trajectories.h"

namespace gfn::protocol {

/// check_packed_trajectories(trajectories, n, n_actions, allow_missing, what): `lengths`
/// empty (no trajectories) or n entries, each >= 1 (0 allowed when `allow_missing`, SAMPLE
/// only), Σ lengths == actions.size(), and for n_actions > 0 every action in
/// [0, n_actions) with the exit action n_actions - 1 last and only there. Throws
/// transport::MessageError whose message starts with `what` and names the offending item.
void check_trajectories(const buffer::PackedTrajectories& trajectories, std::int64_t n,
                        std::int64_t n_actions, bool allow_missing, const std::string& what);

}  // namespace gfn::protocol
