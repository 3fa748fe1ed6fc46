#include "runtime/distributed/spawn/decision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gfn::dist::spawn {
namespace {

/// NaN counts as the worst metric.
double ordered(double m) { return std::isnan(m) ? -std::numeric_limits<double>::infinity() : m; }

/// Group ranks from worst to best: by (metric, rank).
std::vector<int> worst_first(const std::vector<double>& metrics) {
  std::vector<int> order(metrics.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const double ma = ordered(metrics[a]);
    const double mb = ordered(metrics[b]);
    return ma < mb || (ma == mb && a < b);
  });
  return order;
}

}  // namespace

int replacement_count(int n, double ratio) {
  if (n <= 1) return 0;
  const int count = static_cast<int>(std::floor(n * ratio + 1e-9));
  return std::min(std::max(count, 1), n - 1);
}

std::vector<double> donor_weights(const std::vector<double>& metrics,
                                  const std::vector<int>& donors, SpawnStrategy strategy) {
  std::vector<double> w(metrics.size(), 0.0);
  if (donors.empty() || strategy == SpawnStrategy::kResetWeights) return w;
  if (strategy == SpawnStrategy::kBestOnly) {
    int best = donors.front();
    for (int d : donors) {
      if (ordered(metrics[d]) > ordered(metrics[best])) best = d;  // ties: lower rank stays
    }
    w[best] = 1.0;
    return w;
  }
  if (strategy == SpawnStrategy::kWeightedMean) {
    double floor_metric = std::numeric_limits<double>::infinity();
    for (double m : metrics) {
      if (std::isfinite(m)) floor_metric = std::min(floor_metric, m);
    }
    double sum = 0.0;
    for (int d : donors) {
      const double m = metrics[d];
      w[d] = std::isfinite(m) ? m - floor_metric : 0.0;
      sum += w[d];
    }
    if (sum > 0.0 && std::isfinite(sum)) {
      for (int d : donors) w[d] /= sum;
      return w;
    }
    // Every donor tied with the worst metric (or none finite): the plain mean.
  }
  for (int d : donors) w[d] = 1.0 / static_cast<double>(donors.size());
  return w;
}

Decision decide(const std::vector<double>& metrics, std::int64_t iteration,
                std::int64_t last_replacement, const SpawnOptions& options) {
  if (metrics.empty()) throw std::invalid_argument("spawn decision: no metrics (empty group)");
  if (!(options.replacement_ratio > 0.0 && options.replacement_ratio <= 1.0)) {
    throw std::invalid_argument("spawn.replacement_ratio must be in (0, 1], got " +
                                std::to_string(options.replacement_ratio));
  }
  const int n = static_cast<int>(metrics.size());
  Decision d;
  d.weights.assign(metrics.size(), 0.0);
  if (n == 1) {
    d.skipped = "single agent";
    return d;
  }
  if (last_replacement >= 0 && iteration - last_replacement < options.cooldown) {
    d.skipped = "cooldown";
    return d;
  }
  double lowest = std::numeric_limits<double>::infinity();
  for (double m : metrics) lowest = std::min(lowest, ordered(m));
  if (!(lowest < options.threshold)) {
    d.skipped = "threshold";
    return d;
  }
  const std::vector<int> order = worst_first(metrics);
  const int count = replacement_count(n, options.replacement_ratio);
  d.replaced.assign(order.begin(), order.begin() + count);
  std::sort(d.replaced.begin(), d.replaced.end());
  if (options.strategy != SpawnStrategy::kResetWeights) {
    d.donors.assign(order.begin() + count, order.end());
    std::sort(d.donors.begin(), d.donors.end());
  }
  d.weights = donor_weights(metrics, d.donors, options.strategy);
  if (options.strategy == SpawnStrategy::kBestOnly) {
    d.donors.clear();
    for (int r = 0; r < n; ++r) {
      if (d.weights[r] > 0.0) d.donors.push_back(r);
    }
  }
  d.replace = true;
  return d;
}

}  // namespace gfn::dist::spawn
