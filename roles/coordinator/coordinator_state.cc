// encode_coordinator_state / decode_coordinator_state (coordinator_state.h).
#include "roles/coordinator/coordinator_state.h"

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/vector.hpp>

#include <sstream>
#include <stdexcept>

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
  std::ostringstream os(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive ar(os);
    ar(kFormatVersion, state);
  }
  return std::move(os).str();
}

CoordinatorState decode_coordinator_state(const std::string& bytes, int rank) {
  const std::string what = "coordinator rank " + std::to_string(rank) + " state";
  CoordinatorState s;
  std::istringstream is(bytes, std::ios::binary);
  std::uint32_t version = 0;
  try {
    cereal::PortableBinaryInputArchive ar(is);
    ar(version);
    if (version != kFormatVersion) {
      throw std::runtime_error(what + ": format version " + std::to_string(version) +
                               " (this build reads version " + std::to_string(kFormatVersion) +
                               ")");
    }
    ar(s);
  } catch (const cereal::Exception& e) {
    throw std::runtime_error(what + ": cannot decode " + std::to_string(bytes.size()) +
                             " bytes: " + e.what());
  }
  if (is.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(what + ": bytes left over after the state");
  }
  return s;
}

}  // namespace gfn::roles
