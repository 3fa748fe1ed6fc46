// encode_coordinator_state / decode_coordinator_state (coordinator_state.h).
#include "roles/coordinator/coordinator_state.h"

#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/vector.hpp>

#include <stdexcept>

#include "runtime/checkpoint/versioned_state.h"

namespace gfn::roles {

// cereal finds these by argument-dependent lookup (namespace of the types).
template <class Archive>
void serialize(Archive& ar, ModeDiscovery& d) {
  ar(d.t_s, d.manager, d.trainer);
}

template <class Archive>
void serialize(Archive& ar, CoordinatorResult& r) {
  ar(r.modes_found, r.mode_reports, r.modes_by_manager, r.modes_by_trainer, r.discoveries,
     r.manager_baselines, r.baseline_reports, r.baseline_syncs_sent, r.has_global_baseline,
     r.global_baseline, r.population_queries, r.rejected_messages, r.alive_messages);
}

template <class Archive>
void serialize(Archive& ar, CoordinatorState& s) {
  ar(s.modes, s.result, s.last_synced, s.syncs_to);
}

namespace {
constexpr std::uint32_t kFormatVersion = 1;
}  // namespace

std::string encode_coordinator_state(const CoordinatorState& state) {
  return checkpoint::encode_versioned(kFormatVersion, state);
}

CoordinatorState decode_coordinator_state(const std::string& bytes, int rank) {
  CoordinatorState s;
  checkpoint::decode_versioned(bytes, kFormatVersion,
                               "coordinator rank " + std::to_string(rank) + " state", s);
  return s;
}

}  // namespace gfn::roles
