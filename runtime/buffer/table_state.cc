#include "runtime/buffer/table_state.h"

#include <cereal/types/common.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "runtime/checkpoint/versioned_state.h"

namespace gfn::buffer {
namespace {

constexpr std::uint32_t kIntRowsVersion = 1;
constexpr std::uint32_t kFloatRowsVersion = 2;

/// Format version 2: version 1's fields, then the state dtype and the float32 rows.
template <class State>
struct WithFloatRows {
  State& state;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(state, state.state_dtype, state.float_states);
  }
};

/// The format version `bytes` start with (0 if there are not 4 bytes).
std::uint32_t version_of(const std::string& bytes) {
  std::istringstream is(bytes, std::ios::binary);
  std::uint32_t version = 0;
  try {
    cereal::PortableBinaryInputArchive ar(is);
    ar(version);
  } catch (const cereal::Exception&) {
    return 0;
  }
  return version;
}

}  // namespace

bool TableState::operator==(const TableState& o) const {
  return capacity == o.capacity && samplers == o.samplers && remover == o.remover &&
         ndim == o.ndim && next_serial == o.next_serial && states == o.states &&
         log_rewards == o.log_rewards && serials == o.serials && trajectories == o.trajectories &&
         sampler_orders == o.sampler_orders && rng == o.rng && state_dtype == o.state_dtype &&
         float_states == o.float_states;
}

std::string encode_table_state(const TableState& state) {
  if (state.state_dtype == StateDtype::kInt64 && state.float_states.empty()) {
    return checkpoint::encode_versioned(kIntRowsVersion, state);
  }
  return checkpoint::encode_versioned(kFloatRowsVersion, WithFloatRows<const TableState>{state});
}

TableState decode_table_state(const std::string& bytes, const std::string& what) {
  TableState state;
  const std::string context = what + ": replay table state";
  if (version_of(bytes) == kIntRowsVersion) {
    checkpoint::decode_versioned(bytes, kIntRowsVersion, context, state);
    return state;
  }
  WithFloatRows<TableState> rows{state};
  checkpoint::decode_versioned(bytes, kFloatRowsVersion, context, rows);
  if (state.state_dtype != StateDtype::kInt64 && state.state_dtype != StateDtype::kFloat32) {
    throw std::runtime_error(fmt::format("{}: state dtype {} (known: 0 int64, 1 float32)", context,
                                         static_cast<int>(state.state_dtype)));
  }
  return state;
}

}  // namespace gfn::buffer
