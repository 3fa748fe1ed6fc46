#pragma once
// Checks of the state part of DATA and SAMPLE payloads (messages.h Submission, SampleBatch):
// int64 rows in `states` or float32 rows in `float_states`, as the explicit state dtype
// says. The one definition of what a receiver accepts; pure function, thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/buffer/options.h"

namespace gfn::protocol {

/// The states of a payload of `n` items: `dtype` is a buffer::StateDtype enumerator (a
/// decoded byte may be anything), ndim >= 0 and >= 1 when n > 0, the rows of that dtype
/// hold n * ndim entries and the other vector none, and every float32 value is finite.
/// Throws transport::MessageError whose message starts with `what` and says which rule
/// failed. O(n · ndim) for float rows (the finiteness scan), O(1) for int64 rows.
void check_states(std::int32_t ndim, buffer::StateDtype dtype,
                  const std::vector<std::int64_t>& states, const std::vector<float>& float_states,
                  std::int64_t n, const std::string& what);

}  // namespace gfn::protocol
