#include "runtime/buffer/table_state.h"

#include <fmt/format.h>
#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <sstream>
#include <stdexcept>

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
  std::ostringstream os(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive ar(os);
    ar(kFormatVersion, state);
  }
  return std::move(os).str();
}

TableState decode_table_state(const std::string& bytes, const std::string& what) {
  std::istringstream is(bytes, std::ios::binary);
  TableState state;
  std::uint32_t version = 0;
  try {
    cereal::PortableBinaryInputArchive ar(is);
    ar(version);
    if (version != kFormatVersion) {
      throw std::runtime_error(
          fmt::format("{}: replay table state of format version {} (this "
                      "build reads version {})",
                      what, version, kFormatVersion));
    }
    ar(state);
  } catch (const cereal::Exception& e) {
    throw std::runtime_error(fmt::format("{}: cannot decode the replay table state ({} bytes): {}",
                                         what, bytes.size(), e.what()));
  }
  if (is.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(fmt::format(
        "{}: bytes left over after the replay table state ({} bytes)", what, bytes.size()));
  }
  return state;
}

}  // namespace gfn::buffer
