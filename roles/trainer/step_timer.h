#pragma once
// The trainer's clock and step timings (runtime/timing/timing_table.h): wall seconds since
// a time point, and a step's seconds added to an optional timing table. Header-only;
// thread-safety as the table's (none).

#include <chrono>

#include "runtime/timing/timing_table.h"

namespace gfn::roles {

using TrainerClock = std::chrono::steady_clock;

inline double seconds_since(TrainerClock::time_point t0) {
  return std::chrono::duration<double>(TrainerClock::now() - t0).count();
}

/// Adds `seconds` to `step` of `table` (nothing when `table` is null).
inline void add_time(timing::TimingTable* table, const char* step, double seconds) {
  if (table) table->add(step, seconds);
}

}  // namespace gfn::roles
