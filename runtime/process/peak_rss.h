#pragma once
// This process's peak resident set size, for the job's memory report (summary.json
// "peak_rss_mb", timing.json; docs/outputs.md). Thread-safe, no allocation beyond the call.

#include <cstdint>

namespace gfn::runtime {

/// Peak resident set size of this process so far, in bytes (getrusage ru_maxrss; Linux
/// reports KiB). 0 when the kernel does not say.
std::int64_t peak_rss_bytes();

}  // namespace gfn::runtime
