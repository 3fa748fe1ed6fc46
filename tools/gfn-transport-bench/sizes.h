#pragma once
// The size sweep and the bandwidth formula of gfn-transport-bench (nccl-tests style). The
// statistics of the round trips: tools/common/harness/stats.h. Pure functions,
// thread-safe.

#include <cstddef>
#include <vector>

namespace gfn::tbench {

/// One-way bandwidth in GB/s (1 GB = 1e9 bytes) of a symmetric round trip:
/// bytes / (round_trip_us / 2). Returns 0 when round_trip_us <= 0.
double one_way_gbps(std::size_t bytes, double round_trip_us);

/// The sizes of an nccl-tests style sweep: min, min*factor, ... while <= max.
/// Throws std::invalid_argument if min < 1, max < min or factor < 2.
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes,
                                     std::size_t factor);

}  // namespace gfn::tbench
