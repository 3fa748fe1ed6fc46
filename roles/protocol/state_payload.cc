#include "roles/protocol/state_payload.h"

#include <fmt/format.h>

#include <cmath>

#include "transport/errors.h"

namespace gfn::protocol {

void check_states(std::int32_t ndim, buffer::StateDtype dtype,
                  const std::vector<std::int64_t>& states, const std::vector<float>& float_states,
                  std::int64_t n, const std::string& what) {
  const auto fail = [&what](const std::string& why) {
    throw transport::MessageError(what + ": " + why);
  };
  if (dtype != buffer::StateDtype::kInt64 && dtype != buffer::StateDtype::kFloat32) {
    fail(
        fmt::format("unknown state dtype {} (known: 0 int64, 1 float32)", static_cast<int>(dtype)));
  }
  if (ndim < 0 || (n > 0 && ndim < 1)) fail(fmt::format("ndim {} for {} items", ndim, n));
  const bool floats = dtype == buffer::StateDtype::kFloat32;
  const std::size_t rows = floats ? float_states.size() : states.size();
  const std::size_t other = floats ? states.size() : float_states.size();
  const auto expected = static_cast<std::size_t>(n) * static_cast<std::size_t>(ndim);
  if (rows != expected || other != 0) {
    fail(fmt::format("{} {} state entries and {} of the other dtype for {} items of ndim {}", rows,
                     config::enum_name(dtype), other, n, ndim));
  }
  for (std::size_t i = 0; i < float_states.size(); ++i) {
    if (!std::isfinite(float_states[i])) {
      fail(fmt::format("item {} has a non-finite float32 state value",
                       i / static_cast<std::size_t>(ndim)));
    }
  }
}

}  // namespace gfn::protocol
