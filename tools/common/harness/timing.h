#pragma once
// Timing of repeated measurements for the benchmark tools (tools/common/harness/): a
// warm-up, then measured calls each timed with std::chrono::steady_clock (wall) and
// CLOCK_THREAD_CPUTIME_ID (CPU time of the calling thread, less sensitive than wall time
// to other processes on a shared machine); and the time per call of a fast operation,
// repeated in blocks (the median over blocks). Blocking; each call times the calling
// thread only. The statistics of the times: stats.h.

#include <chrono>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "tools/common/harness/stats.h"

namespace gfn::harness {

/// Seconds since construction (or the last restart()), steady_clock.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// CPU time consumed by the calling thread so far, in seconds (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

/// How many calls: `warmup` untimed ones (>= 0), then `iterations` timed ones (>= 1).
struct Repetitions {
  int warmup = 0;
  int iterations = 1;
};

/// The times of the measured calls, in call order, in seconds.
struct Timings {
  std::vector<double> wall_s;  ///< steady_clock around each call
  std::vector<double> cpu_s;   ///< CLOCK_THREAD_CPUTIME_ID around each call
};

/// Calls fn(i) for i = -warmup .. -1 (the warm-up, untimed), then before_measuring()
/// once (untimed: e.g. starting a profiler), then fn(i) for i = 0 .. iterations - 1, each
/// of these timed; fn may use i to store per-call figures of the measured calls (i >= 0).
/// What fn returns, if anything, is destroyed after the call's timing has stopped. Throws
/// std::invalid_argument for warmup < 0 or iterations < 1; what fn throws propagates.
template <class Fn, class Before>
Timings time_calls(const Repetitions& reps, Fn&& fn, Before&& before_measuring);
/// The same without anything between the warm-up and the measured calls.
template <class Fn>
Timings time_calls(const Repetitions& reps, Fn&& fn) {
  return time_calls(reps, std::forward<Fn>(fn), [] {});
}

/// Seconds per call of fn: `n_blocks` (>= 1) blocks, each calling fn in groups of 8 until
/// at least min_block_s (> 0) seconds have passed; the median over blocks of
/// block time / calls. For operations too fast to time one by one (a GEMM of a few
/// microseconds). Throws std::invalid_argument for bad arguments.
template <class Fn>
double seconds_per_call(Fn&& fn, int n_blocks, double min_block_s);

// --- implementation ---------------------------------------------------------------------

/// Throws std::invalid_argument naming `what` for warmup < 0 or iterations < 1.
void check_repetitions(const Repetitions& reps, const char* what);
/// Throws std::invalid_argument for n_blocks < 1 or min_block_s <= 0.
void check_blocks(int n_blocks, double min_block_s);

template <class Fn, class Before>
Timings time_calls(const Repetitions& reps, Fn&& fn, Before&& before_measuring) {
  check_repetitions(reps, "time_calls");
  for (int i = -reps.warmup; i < 0; ++i) fn(i);
  before_measuring();
  Timings t;
  t.wall_s.reserve(static_cast<std::size_t>(reps.iterations));
  t.cpu_s.reserve(static_cast<std::size_t>(reps.iterations));
  for (int i = 0; i < reps.iterations; ++i) {
    const Stopwatch wall;
    const double cpu0 = thread_cpu_seconds();
    const auto stop = [&] {
      t.cpu_s.push_back(thread_cpu_seconds() - cpu0);
      t.wall_s.push_back(wall.seconds());
    };
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&, int>>) {
      fn(i);
      stop();
    } else {
      const auto result = fn(i);  // destroyed after the timing
      stop();
    }
  }
  return t;
}

template <class Fn>
double seconds_per_call(Fn&& fn, int n_blocks, double min_block_s) {
  check_blocks(n_blocks, min_block_s);
  std::vector<double> per_call;
  for (int block = 0; block < n_blocks; ++block) {
    std::int64_t calls = 0;
    const Stopwatch watch;
    double elapsed = 0;
    do {
      for (int k = 0; k < 8; ++k) fn();
      calls += 8;
      elapsed = watch.seconds();
    } while (elapsed < min_block_s);
    per_call.push_back(elapsed / static_cast<double>(calls));
  }
  return median(std::move(per_call));
}

}  // namespace gfn::harness
