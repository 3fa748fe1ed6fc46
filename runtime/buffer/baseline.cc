#include "runtime/buffer/baseline.h"

#include <cmath>
#include <stdexcept>

namespace gfn::buffer {

const char* to_string(BaselineStrategy strategy) { return config::enum_name(strategy); }

BaselineTracker::BaselineTracker(const BaselineOptions& options)
    : strategy_(options.strategy), options_(options) {
  if (!(options.percentile >= 0.0 && options.percentile <= 100.0)) {
    throw std::invalid_argument("baseline percentile must be in [0, 100], got " +
                                std::to_string(options.percentile));
  }
  if (!(options.ema_decay >= 0.0 && options.ema_decay < 1.0)) {
    throw std::invalid_argument("baseline ema_decay must be in [0, 1), got " +
                                std::to_string(options.ema_decay));
  }
}

void BaselineTracker::observe_batch(const std::vector<float>& log_rewards) {
  std::optional<float> batch_min;
  for (float lr : log_rewards) {
    if (!std::isfinite(lr)) continue;
    if (!batch_min || lr < *batch_min) batch_min = lr;
  }
  if (!batch_min) return;
  if (!ema_) {
    ema_ = *batch_min;
  } else {
    ema_ = options_.ema_decay * *ema_ + (1.0 - options_.ema_decay) * *batch_min;
  }
}

std::optional<float> BaselineTracker::local(const ReplayTable& buffer) const {
  switch (strategy_) {
    case BaselineStrategy::kMin:
      if (buffer.full()) return buffer.min_log_reward();
      return std::nullopt;
    case BaselineStrategy::kPercentile:
      if (buffer.full()) return buffer.percentile_log_reward(options_.percentile);
      return std::nullopt;
    case BaselineStrategy::kEma:
      if (ema_) return static_cast<float>(*ema_);
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<float> BaselineTracker::current(const ReplayTable& buffer) const {
  if (global_) return global_;
  return local(buffer);
}

void BaselineTracker::set_global(float baseline) {
  if (std::isfinite(baseline)) global_ = baseline;
}

}  // namespace gfn::buffer
