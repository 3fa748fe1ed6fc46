#pragma once
// The measurement loop of gfn-transport-bench (as nccl-tests' common.cu runs one size):
// warm-up round trips, then timed round trips, every received payload checked.
// Collective: both ranks call with the same arguments in the same order.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tools/common/harness/stats.h"
#include "tools/gfn-transport-bench/method.h"

namespace gfn::tbench {

struct LoopOptions {
  int warmup = 5;     ///< untimed round trips before the measured ones (payloads still checked)
  int iters = 100;    ///< timed round trips
  bool check = true;  ///< verify every received payload
};

/// Outcome of one (method, size) measurement.
struct Measurement {
  std::size_t ping_bytes = 0;
  std::size_t pong_bytes = 0;
  /// Round trips seen by rank 0, in microseconds (meaningful on rank 0 only).
  harness::Summary rtt;
  std::int64_t wrong = 0;    ///< bad payloads, summed over both ranks (every rank)
  std::int64_t checked = 0;  ///< payloads checked, summed over both ranks
};

/// Send and receive buffers of the sweep, allocated and touched once (`bytes` each).
struct Buffers {
  explicit Buffers(std::size_t bytes);
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> in;
};

/// A method and its id (part of its payload pattern, so methods never accept each
/// other's messages).
struct MethodSlot {
  int id = 0;
  PingPongMethod* method = nullptr;
};

/// Runs warmup + iters round trips of every method, interleaved in chunks: after the
/// warm-up of each method, every method in turn runs one untimed round trip (it lets the
/// previous method's background threads settle) and then up to 10 timed ones, until each
/// has `iters` timed round trips. A burst of load from other processes thus hits all
/// methods alike, and their ratios stay meaningful on a shared machine. A ping of
/// `ping_bytes` goes from rank 0, a pong of `pong_bytes` comes back. Each rank fills its
/// outgoing payload with the pattern of (size, sequence number, direction, method id)
/// before the round trip; rank 0 times from just before its send to just after its
/// receive (steady_clock); each rank checks every payload it received (warm-up and
/// settling ones included) after its part of the round trip. `wrong` is all-reduced over
/// MPI_COMM_WORLD. Returns one Measurement per method, in order. Throws what the methods
/// throw.
std::vector<Measurement> measure(const std::vector<MethodSlot>& methods, std::size_t ping_bytes,
                                 std::size_t pong_bytes, const LoopOptions& options,
                                 Buffers& buffers);

/// One method alone (see above).
Measurement measure(PingPongMethod& method, int method_id, std::size_t ping_bytes,
                    std::size_t pong_bytes, const LoopOptions& options, Buffers& buffers);

}  // namespace gfn::tbench
