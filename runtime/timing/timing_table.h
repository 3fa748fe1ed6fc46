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

/// Ordered map step name -> durations (seconds), one per row. A row is one iteration until
/// the table holds max_rows rows; then adjacent rows are summed pairwise (compaction) and
/// each later row covers twice as many iterations (iterations_per_row() = 1, 2, 4, ...), so
/// memory stays below max_rows x steps x 8 bytes however long the run (a rank's table
/// otherwise grows 8 bytes per step and iteration: tools/soak.sh). Ranks that run the same
/// number of iterations with the same max_rows compact identically, so their rows stay
/// aligned for report_load_imbalance (which then sees blocks of iterations). Every step has
/// exactly num_rows() entries: begin_iteration() opens a row when the current one is full,
/// and a step first added in iteration k gets 0.0 for the rows before (it did not run then).
/// Not thread-safe: one table per thread, or external locking.
class TimingTable {
 public:
  /// Rows kept before a compaction (16,384 rows: 128 KiB per step).
  static constexpr std::size_t kDefaultMaxRows = std::size_t{1} << 14;
  /// `max_rows`: an even number >= 2, or 0 for one row per iteration without bound (a
  /// benchmark that needs every iteration's duration). Throws std::invalid_argument else.
  explicit TimingTable(std::size_t max_rows = kDefaultMaxRows);

  /// Starts a new iteration (the first call starts iteration 0). Cost: O(steps), and
  /// O(steps x max_rows) at a compaction (once per max_rows / 2 rows).
  void begin_iteration();
  /// Adds `seconds` (>= 0) to `step` in the current iteration (accumulates when a
  /// step runs several times per iteration). Starts iteration 0 if none was begun.
  /// Throws std::invalid_argument for a negative or non-finite duration.
  void add(const std::string& step, double seconds);

  int num_iterations() const { return num_iterations_; }
  std::size_t num_rows() const { return rows_; }
  std::int64_t iterations_per_row() const { return iterations_per_row_; }
  std::size_t max_rows() const { return max_rows_; }
  const std::vector<std::string>& steps() const { return steps_; }
  bool has_step(const std::string& step) const { return index_.count(step) > 0; }
  /// Durations (seconds) of `step`, one per row (per iteration while
  /// iterations_per_row() == 1; the last row may hold fewer iterations). Throws
  /// std::out_of_range for an unknown step.
  const std::vector<double>& durations(const std::string& step) const;
  /// Sum over iterations (seconds). Throws std::out_of_range for an unknown step.
  double total(const std::string& step) const;

  bool operator==(const TimingTable& other) const {
    return steps_ == other.steps_ && durations_ == other.durations_ &&
           num_iterations_ == other.num_iterations_ && max_rows_ == other.max_rows_ &&
           iterations_per_row_ == other.iterations_per_row_;
  }

  /// The layout of save / load, for a checkpoint's versioned state
  /// (runtime/checkpoint/versioned_state.h): a restarted rank continues its table.
  static constexpr std::uint32_t kFormatVersion = 1;
  template <class Archive>
  void save(Archive& ar) const {
    ar(num_iterations_, max_rows_, iterations_per_row_, steps_, durations_);
  }
  /// Checks the loaded table's shape; throws std::runtime_error if inconsistent.
  template <class Archive>
  void load(Archive& ar) {
    ar(num_iterations_, max_rows_, iterations_per_row_, steps_, durations_);
    rebuild_index();
  }

 private:
  void rebuild_index();
  /// Sums rows 2i and 2i + 1 into row i of every step and doubles iterations_per_row_.
  void compact();

  int num_iterations_ = 0;
  std::size_t max_rows_ = kDefaultMaxRows;
  std::int64_t iterations_per_row_ = 1;
  std::size_t rows_ = 0;
  std::vector<std::string> steps_;
  std::vector<std::vector<double>> durations_;  // parallel to steps_, rows_ each
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
