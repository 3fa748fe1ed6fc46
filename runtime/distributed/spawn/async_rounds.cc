#include "runtime/distributed/spawn/async_rounds.h"

#include <stdexcept>
#include <string>

namespace gfn::dist::spawn {

MetricRounds::MetricRounds(int group_size) : group_size_(group_size) {
  if (group_size < 1) {
    throw std::invalid_argument("spawn rounds: group size must be >= 1, got " +
                                std::to_string(group_size));
  }
}

void MetricRounds::add(std::int64_t iteration, int group_rank, double metric) {
  if (group_rank < 0 || group_rank >= group_size_) {
    throw std::invalid_argument("spawn rounds: group rank " + std::to_string(group_rank) +
                                " outside a group of " + std::to_string(group_size_));
  }
  if (iteration <= last_popped_) {
    throw std::invalid_argument("spawn rounds: metric of group rank " + std::to_string(group_rank) +
                                " for decision point " + std::to_string(iteration) +
                                ", already decided");
  }
  auto [it, fresh] = pending_.try_emplace(iteration);
  Pending& p = it->second;
  if (fresh) {
    p.metrics.assign(static_cast<std::size_t>(group_size_), 0.0);
    p.seen.assign(static_cast<std::size_t>(group_size_), false);
  }
  const auto r = static_cast<std::size_t>(group_rank);
  if (p.seen[r]) {
    throw std::invalid_argument("spawn rounds: two metrics of group rank " +
                                std::to_string(group_rank) + " for decision point " +
                                std::to_string(iteration));
  }
  p.seen[r] = true;
  p.metrics[r] = metric;
  ++p.count;
}

std::optional<MetricRound> MetricRounds::pop_complete() {
  if (pending_.empty() || pending_.begin()->second.count < group_size_) return std::nullopt;
  auto node = pending_.extract(pending_.begin());
  last_popped_ = node.key();
  return MetricRound{node.key(), std::move(node.mapped().metrics)};
}

void weighted_sum(const std::vector<const float*>& sources, const std::vector<double>& weights,
                  std::int64_t n, float* out) {
  if (sources.size() != weights.size()) {
    throw std::invalid_argument("spawn weighted_sum: " + std::to_string(sources.size()) +
                                " sources but " + std::to_string(weights.size()) + " weights");
  }
  for (std::int64_t i = 0; i < n; ++i) {
    double acc = 0.0;
    for (std::size_t k = 0; k < sources.size(); ++k) acc += weights[k] * sources[k][i];
    out[i] = static_cast<float>(acc);
  }
}

}  // namespace gfn::dist::spawn
