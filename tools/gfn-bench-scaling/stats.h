#pragma once
// Medians over rounds and ratios within a round (gfn-bench-scaling alternates the layouts
// round-robin, so a ratio of two runs of one round compares runs close in time).

#include <optional>
#include <vector>

namespace gfn::bench_scaling {

/// Median of `v` (mean of the two middle values for an even count). Throws
/// std::invalid_argument when v is empty.
double median(std::vector<double> v);

/// Median, min and max of the values present; n = how many.
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
  int n = 0;
};

/// The spread of the present values (a failed run is nullopt); nullopt when none is.
std::optional<Spread> spread(const std::vector<std::optional<double>>& values);

/// num[r] / den[r] for each round r; nullopt where either is missing or den[r] <= 0.
/// Throws std::invalid_argument when the sizes differ.
std::vector<std::optional<double>> within_round_ratios(
    const std::vector<std::optional<double>>& num, const std::vector<std::optional<double>>& den);

}  // namespace gfn::bench_scaling
