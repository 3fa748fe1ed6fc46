#include "tools/gfn-bench-scaling/stats.h"

#include <algorithm>
#include <stdexcept>

namespace gfn::bench_scaling {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::optional<Spread> spread(const std::vector<std::optional<double>>& values) {
  std::vector<double> present;
  for (const auto& v : values) {
    if (v) present.push_back(*v);
  }
  if (present.empty()) return std::nullopt;
  Spread s;
  s.median = median(present);
  s.min = *std::min_element(present.begin(), present.end());
  s.max = *std::max_element(present.begin(), present.end());
  s.n = static_cast<int>(present.size());
  return s;
}

std::vector<std::optional<double>> within_round_ratios(
    const std::vector<std::optional<double>>& num, const std::vector<std::optional<double>>& den) {
  if (num.size() != den.size()) {
    throw std::invalid_argument("within_round_ratios: different numbers of rounds");
  }
  std::vector<std::optional<double>> out(num.size());
  for (std::size_t r = 0; r < num.size(); ++r) {
    if (num[r] && den[r] && *den[r] > 0) out[r] = *num[r] / *den[r];
  }
  return out;
}

}  // namespace gfn::bench_scaling
