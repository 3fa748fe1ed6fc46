#include "runtime/buffer/table_state.h"

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <stdexcept>

#include "runtime/checkpoint/versioned_state.h"

namespace gfn::buffer {
namespace {

constexpr std::uint32_t kFormatVersion = 1;

}  // namespace

bool TableState::operator==(const TableState& o) const {
  return capacity == o.capacity && samplers == o.samplers && remover == o.remover &&
         ndim == o.ndim && next_serial == o.next_serial && states == o.states &&
         log_rewards == o.log_rewards && serials == o.serials && trajectories == o.trajectories &&
         sampler_orders == o.sampler_orders && rng == o.rng;
}

std::string encode_table_state(const TableState& state) {
  return checkpoint::encode_versioned(kFormatVersion, state);
}

TableState decode_table_state(const std::string& bytes, const std::string& what) {
  TableState state;
  checkpoint::decode_versioned(bytes, kFormatVersion, what + ": replay table state", state);
  return state;
}

}  // namespace gfn::buffer
