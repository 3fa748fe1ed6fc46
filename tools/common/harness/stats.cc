#include "tools/common/harness/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gfn::harness {
namespace {

// The statistics of values already sorted in increasing order (n >= 1).
double sorted_median(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double sorted_percentile(const std::vector<double>& v, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q / 100.0 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

void require_values(const std::vector<double>& values, const char* what) {
  if (values.empty()) throw std::invalid_argument(std::string(what) + ": no values");
}

}  // namespace

Summary Summary::scaled(double factor) const {
  if (!(factor >= 0)) throw std::invalid_argument("Summary::scaled: factor must be >= 0");
  Summary s = *this;
  for (double* f : {&s.median, &s.p90, &s.p99, &s.min, &s.max, &s.mean, &s.stddev}) *f *= factor;
  return s;
}

Summary summarize(std::vector<double> values) {
  require_values(values, "summarize");
  Summary s;
  s.n = values.size();
  // Sums in the given order (before sorting), as a plain mean of the values would.
  s.mean = mean(values);
  if (s.n > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  }
  std::sort(values.begin(), values.end());
  s.median = sorted_median(values);
  s.p90 = sorted_percentile(values, 90);
  s.p99 = sorted_percentile(values, 99);
  s.min = values.front();
  s.max = values.back();
  return s;
}

double median(std::vector<double> values) {
  require_values(values, "median");
  std::sort(values.begin(), values.end());
  return sorted_median(values);
}

double percentile(std::vector<double> values, double q) {
  require_values(values, "percentile");
  if (!(q >= 0 && q <= 100)) throw std::invalid_argument("percentile: q must be in [0, 100]");
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, q);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace gfn::harness
