#pragma once
// Reward baselines of a buffer manager: the log reward below which a
// trainer need not submit an item, reported to trainers in every SCORE and to the
// coordinator in BASELINE_REPORT. Strategies:
//   min        the lowest retained log reward, once the buffer is full (an item
//              below it would not be retained);
//   percentile the q-th percentile of the retained log rewards, once the buffer is full;
//   ema        exponential moving average of the minima of incoming batches:
//              ema <- decay * ema + (1 - decay) * batch_min (first batch: its min).
// Non-finite log rewards are excluded everywhere. A global baseline synced by the
// coordinator (BASELINE_SYNC) overrides the local one for every strategy.
// Thread-compatible.

#include <optional>
#include <string>
#include <vector>

#include "runtime/buffer/options.h"
#include "runtime/buffer/table.h"

namespace gfn::buffer {

/// YAML buffer.baseline; names: kBaselineStrategyNames (options.h).

/// "min" | "percentile" | "ema" (the name table's).
const char* to_string(BaselineStrategy strategy);

struct BaselineOptions {
  BaselineStrategy strategy = BaselineStrategy::kMin;
  double percentile = 10.0;  ///< in [0, 100], for "percentile"
  double ema_decay = 0.9;    ///< in [0, 1), for "ema"
};

class BaselineTracker {
 public:
  /// Throws std::invalid_argument for a percentile outside [0, 100] or ema_decay outside
  /// [0, 1).
  explicit BaselineTracker(const BaselineOptions& options);

  /// Records an incoming batch (before or after it is stored): updates the EMA of
  /// batch minima. Batches without a finite log reward are ignored.
  void observe_batch(const std::vector<float>& log_rewards);
  /// The local baseline from `buffer` and the observed batches, if defined yet.
  std::optional<float> local(const ReplayTable& buffer) const;
  /// The baseline in force: the synced global one if set, else local(buffer).
  std::optional<float> current(const ReplayTable& buffer) const;
  /// Adopts an externally synced global baseline (non-finite values are ignored).
  void set_global(float baseline);
  std::optional<float> global() const { return global_; }
  /// Checkpoints: the EMA of batch minima and the synced global baseline.
  struct State {
    std::optional<double> ema;
    std::optional<float> global;
  };
  State state() const { return {ema_, global_}; }
  void restore(const State& state) {
    ema_ = state.ema;
    global_ = state.global;
  }
  BaselineStrategy strategy() const { return strategy_; }

 private:
  BaselineStrategy strategy_;
  BaselineOptions options_;
  std::optional<double> ema_;
  std::optional<float> global_;
};

}  // namespace gfn::buffer
