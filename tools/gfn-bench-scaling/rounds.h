#pragma once
// Figures over rounds and ratios within a round (gfn-bench-scaling alternates the layouts
// round-robin, so a ratio of two runs of one round compares runs close in time). The
// statistics themselves are the harness's (tools/common/harness/stats.h).

#include <optional>
#include <vector>

#include "tools/common/harness/stats.h"

namespace gfn::bench_scaling {

/// The statistics (median, min, max, n = how many) of the values present (a failed run is
/// nullopt); nullopt when none is.
std::optional<harness::Summary> spread(const std::vector<std::optional<double>>& values);

/// num[r] / den[r] for each round r; nullopt where either is missing or den[r] <= 0.
/// Throws std::invalid_argument when the sizes differ.
std::vector<std::optional<double>> within_round_ratios(
    const std::vector<std::optional<double>>& num, const std::vector<std::optional<double>>& den);

}  // namespace gfn::bench_scaling
