// libFuzzer target: the validation of a submission, as a buffer manager runs it on DATA
// (roles/buffer_manager/handlers.cc): decode the payload as a protocol::Submission, then
// protocol::check_states (the state dtype, int64 or float32 rows) and
// protocol::check_trajectories against n_actions. Input: byte 0 picks n_actions
// (0 = unchecked actions, 1 .. 63), byte 1 bit 0 allow_missing (SAMPLE's rule); the rest
// is the DATA payload. Properties: only transport::MessageError is thrown; a submission
// the checks accept holds exactly what check_states and check_packed_trajectories
// promise (state_payload.h, runtime/buffer/packed_trajectories.h), verified here
// independently.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "roles/protocol/codec.h"
#include "roles/protocol/state_payload.h"
#include "roles/protocol/trajectory_payload.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace protocol = gfn::protocol;

void check_accepted(const gfn::buffer::PackedTrajectories& t, std::int64_t n,
                    std::int64_t n_actions, bool allow_missing) {
  FUZZ_CHECK(t.lengths.empty() || static_cast<std::int64_t>(t.lengths.size()) == n);
  std::int64_t total = 0;
  std::size_t at = 0;
  for (std::int32_t length : t.lengths) {
    FUZZ_CHECK(length >= (allow_missing ? 0 : 1));
    total += length;
    FUZZ_CHECK(static_cast<std::size_t>(total) <= t.actions.size());
    for (std::int32_t k = 0; k < length; ++k, ++at) {
      const std::int64_t a = t.actions[at];
      if (n_actions <= 0) continue;
      FUZZ_CHECK(a >= 0 && a < n_actions);
      FUZZ_CHECK((a == n_actions - 1) == (k == length - 1));
    }
  }
  FUZZ_CHECK(static_cast<std::size_t>(total) == t.actions.size());
  const auto offsets = t.offsets();  // every accepted batch can be indexed
  FUZZ_CHECK(offsets.size() == t.lengths.size() + 1);
  FUZZ_CHECK(offsets.back() == t.actions.size());
}

/// What check_states promises: a known dtype, n * ndim rows of it, none of the other, finite
/// float values.
void check_states_accepted(const protocol::Submission& sub) {
  using gfn::buffer::StateDtype;
  const bool floats = sub.state_dtype == StateDtype::kFloat32;
  FUZZ_CHECK(floats || sub.state_dtype == StateDtype::kInt64);
  FUZZ_CHECK(sub.ndim >= 0 && (sub.size() == 0 || sub.ndim >= 1));
  const auto entries = static_cast<std::size_t>(sub.size()) * static_cast<std::size_t>(sub.ndim);
  FUZZ_CHECK((floats ? sub.float_states.size() : sub.states.size()) == entries);
  FUZZ_CHECK((floats ? sub.states.size() : sub.float_states.size()) == 0);
  for (const float v : sub.float_states) FUZZ_CHECK(std::isfinite(v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::int64_t n_actions = data[0] % 64;
  const bool allow_missing = (data[1] & 1) != 0;
  const gfn::transport::Bytes framed = gfn::transport::encode_envelope(
      protocol::envelope_type(protocol::MessageType::kData), data + 2, size - 2);
  protocol::Submission sub;
  try {
    protocol::decode_into(protocol::decode_message_view(framed, std::size_t{256} << 20), sub);
    protocol::check_states(sub.ndim, sub.state_dtype, sub.states, sub.float_states, sub.size(),
                           "DATA of the fuzzer");
    protocol::check_trajectories(sub.trajectories, sub.size(), n_actions, allow_missing,
                                 "DATA of the fuzzer");
  } catch (const gfn::transport::MessageError&) {
    return 0;
  }
  check_states_accepted(sub);
  check_accepted(sub.trajectories, sub.size(), n_actions, allow_missing);
  return 0;
}
