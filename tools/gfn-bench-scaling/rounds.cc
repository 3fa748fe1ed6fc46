#include "tools/gfn-bench-scaling/rounds.h"

#include <stdexcept>

namespace gfn::bench_scaling {

std::optional<harness::Summary> spread(const std::vector<std::optional<double>>& values) {
  std::vector<double> present;
  for (const auto& v : values) {
    if (v) present.push_back(*v);
  }
  if (present.empty()) return std::nullopt;
  return harness::summarize(std::move(present));
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
