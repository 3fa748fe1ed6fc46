#pragma once
// Trainer rank 0's progress display (`output.progress`, docs/outputs.md "Progress"): iteration /
// total, iterations/s, trajectories/s of the whole job (all trainers), ETA, latest loss and
// modes found. `bar`: one line on stderr updated in place (carriage return, at most 5
// redraws per second); `lines`: one log line (spdlog) every `output.progress_every_s`
// seconds; `auto`: bar when stderr is a terminal, else lines (files, launchers, mpirun);
// `off`: nothing. No library: Debian 12 packages no C++ progress-bar library.
// The format_* functions are pure and thread-safe; ProgressReporter is not thread-safe
// (one trainer thread calls it) and never blocks beyond writing one line.

#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/output/output_options.h"

namespace gfn::output {

/// One reading of the trainer's state. Rates are over the whole run so far.
struct ProgressSnapshot {
  std::int64_t iteration = 0;     ///< completed iterations
  std::int64_t total = 0;         ///< iterations to run
  std::int64_t trajectories = 0;  ///< trajectories trained on so far, all trainers
  double elapsed_s = 0;           ///< since the training loop started
  double loss = 0;                ///< latest loss
  std::int64_t modes_found = 0;   ///< modes found so far (trainer rank 0's tracker)
  std::int64_t n_modes = 0;       ///< modes of the environment; 0: no modes, not shown
};

/// "45s", "3m07s", "2h05m"; "--" for a negative or non-finite value.
std::string format_duration(double seconds);

/// A rate with an SI suffix and three significant digits: 950 -> "950", 12345 -> "12.3k",
/// 2.5e6 -> "2.50M"; "--" for a negative or non-finite value.
std::string format_rate(double per_second);

/// "iteration 120/250 (48%) | 95.1 it/s | 12.2k traj/s | ETA 1s | loss 0.1234 | modes 4/4"
/// (the modes part only when n_modes > 0; ETA "--" before the first iteration).
std::string format_progress(const ProgressSnapshot& s);

/// A `width`-character bar, e.g. width 10 at 48 %: "[####      ]" (2 + width chars).
std::string format_bar(std::int64_t done, std::int64_t total, int width);

/// `auto` and `bar` resolved: bar when `stderr_is_terminal`, else lines (the bar's escape
/// codes never go into a file or a pipe); lines and off unchanged.
ProgressMode resolve_progress_mode(ProgressMode mode, bool stderr_is_terminal);

class ProgressReporter {
 public:
  /// `mode` must be resolved (not auto). `out` is where the bar is drawn (stderr).
  ProgressReporter(ProgressMode mode, double every_s, std::FILE* out = stderr);
  /// Shows `s` if due: bar every 0.2 s, lines every every_s seconds (both on the last
  /// iteration). Returns true if something was written.
  bool update(const ProgressSnapshot& s);
  /// Bar mode: clears the bar line so a log line can be written (the next update redraws).
  void clear_line();
  /// Bar mode: ends the bar's line. Idempotent.
  void finish();

 private:
  ProgressMode mode_;
  double every_s_;
  std::FILE* out_;
  double last_shown_s_ = -1e300;
  bool bar_drawn_ = false;
};

}  // namespace gfn::output
