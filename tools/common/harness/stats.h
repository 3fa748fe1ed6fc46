#pragma once
// Statistics of repeated measurements, shared by every benchmark tool (tools/common/harness/,
// docs/performance.md "Benchmark harness"): the median, nearest-rank percentiles, min, max,
// mean and sample standard deviation of a set of values. Pure functions, thread-safe;
// O(n log n) (one sort of a copy).

#include <cstddef>
#include <vector>

namespace gfn::harness {

/// What summarize() reports about n >= 1 values, in the unit of the values.
struct Summary {
  std::size_t n = 0;
  double median = 0;  ///< the middle value; the mean of the two middle values for an even n
  double p90 = 0;     ///< 90th percentile, nearest rank (percentile(values, 90))
  double p99 = 0;     ///< 99th percentile, nearest rank (percentile(values, 99))
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1 in the denominator); 0 for n = 1

  /// The same statistics in another unit: every figure but n multiplied by `factor`
  /// (e.g. 1e3 for seconds to milliseconds; a factor < 0 is refused with
  /// std::invalid_argument, since it would swap min and max).
  Summary scaled(double factor) const;
};

/// Summarizes `values`. Throws std::invalid_argument when it is empty.
Summary summarize(std::vector<double> values);

/// The median (mean of the two middle values for an even count). Throws
/// std::invalid_argument when `values` is empty.
double median(std::vector<double> values);

/// Nearest-rank percentile q in [0, 100]: sorted[ceil(q / 100 * n) - 1] (sorted[0] for
/// q = 0), always one of the values. Throws std::invalid_argument when `values` is empty
/// or q is outside [0, 100].
double percentile(std::vector<double> values, double q);

/// The arithmetic mean; 0 for no values.
double mean(const std::vector<double>& values);

}  // namespace gfn::harness
