#pragma once
// Per-iteration step timings of one rank: the C++ form of
// torchgfn's timing dictionary `{"step_name": [iter0_time, iter1_time, ...]}`,
// consumed by report_time_info / report_load_imbalance (runtime/timing/reports.h).

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gfn::timing {

/// Ordered map step name -> one duration (seconds) per iteration. Steps keep the
/// order in which they were first added. Every step has exactly num_iterations()
/// entries: begin_iteration() appends a 0.0 for every known step, and a step first
/// added in iteration k gets 0.0 for iterations 0..k-1 (it did not run then).
/// Not thread-safe: one table per thread, or external locking.
class TimingTable {
 public:
  /// Starts a new iteration (the first call starts iteration 0).
  void begin_iteration();
  /// Adds `seconds` (>= 0) to `step` in the current iteration (accumulates when a
  /// step runs several times per iteration). Starts iteration 0 if none was begun.
  /// Throws std::invalid_argument for a negative or non-finite duration.
  void add(const std::string& step, double seconds);

  int num_iterations() const { return num_iterations_; }
  const std::vector<std::string>& steps() const { return steps_; }
  bool has_step(const std::string& step) const { return index_.count(step) > 0; }
  /// Durations (seconds) of `step`, one per iteration. Throws std::out_of_range for
  /// an unknown step.
  const std::vector<double>& durations(const std::string& step) const;
  /// Sum over iterations (seconds). Throws std::out_of_range for an unknown step.
  double total(const std::string& step) const;

  bool operator==(const TimingTable& other) const {
    return steps_ == other.steps_ && durations_ == other.durations_ &&
           num_iterations_ == other.num_iterations_;
  }

  template <class Archive>
  void save(Archive& ar) const {
    ar(num_iterations_, steps_, durations_);
  }
  /// Checks the loaded table's shape; throws std::runtime_error if inconsistent.
  template <class Archive>
  void load(Archive& ar) {
    ar(num_iterations_, steps_, durations_);
    rebuild_index();
  }

 private:
  void rebuild_index();

  int num_iterations_ = 0;
  std::vector<std::string> steps_;
  std::vector<std::vector<double>> durations_;  // parallel to steps_
  std::unordered_map<std::string, std::size_t> index_;
};

/// RAII timer (std::chrono::steady_clock): adds the elapsed seconds to
/// `table.add(step, ...)` on destruction, or at stop(). The table must outlive it.
class ScopedTimer {
 public:
  ScopedTimer(TimingTable& table, std::string step);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

  /// Records now (once) and returns the elapsed seconds; later calls and the
  /// destructor do nothing more.
  double stop();

 private:
  TimingTable& table_;
  std::string step_;
  std::chrono::steady_clock::time_point start_;
  bool stopped_ = false;
};

/// cereal portable-binary bytes of `table`, for the timing gather.
std::vector<std::uint8_t> serialize_timing_table(const TimingTable& table);
/// Inverse of serialize_timing_table. Throws std::runtime_error (naming the
/// problem) for truncated or inconsistent bytes. Bytes are trusted (they come from
/// ranks of the same job): sizes inside are not bounded beyond the input length.
TimingTable deserialize_timing_table(const std::vector<std::uint8_t>& bytes);

}  // namespace gfn::timing
