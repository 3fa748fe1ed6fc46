#include "roles/trainer/spawn/spawn_state.h"

#include <stdexcept>

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "runtime/checkpoint/versioned_state.h"

namespace gfn::roles {

constexpr std::uint32_t kSpawnStateVersion = 1;

// The field order is the byte format.
template <class Archive>
void serialize(Archive& ar, SpawnEvent& e) {
  ar(e.iteration, e.metrics, e.replaced_any, e.replaced, e.donors, e.weights, e.skipped,
     e.applied_at, e.donor_iterations);
}

template <class Archive>
void serialize(Archive& ar, SpawnState& s) {
  ar(s.times_replaced, s.last_replacement, s.events);
}

std::string encode_spawn_state(const SpawnState& state) {
  return checkpoint::encode_versioned(kSpawnStateVersion, state);
}

SpawnState decode_spawn_state(const std::string& bytes) {
  if (bytes.empty()) {
    throw std::runtime_error("checkpoint: the trainer's state has no spawn policy state");
  }
  SpawnState state;
  checkpoint::decode_versioned(bytes, kSpawnStateVersion, "checkpoint: the spawn policy's state",
                               state);
  return state;
}

}  // namespace gfn::roles
