#pragma once
// gfn-bench-scaling's text output: the method at the top (nccl-tests style), one line per
// run, the table of medians over rounds, and the goal lines.

#include <map>
#include <string>
#include <vector>

#include "tools/gfn-bench-scaling/aggregate.h"
#include "tools/gfn-bench-scaling/layouts.h"

namespace gfn::bench_scaling {

/// 65200.4 -> "65,200" (rounded to an integer, thousands separated by commas).
std::string thousands(double value);

/// What the benchmark runs and how the figures are computed; every line starts with "# ".
struct MethodInfo {
  RunSettings settings;
  int rounds = 1;
  std::vector<int> order;  ///< run_order of the selection
  std::string binary;
  std::string mpirun;
  std::string out_dir;
};
std::string method_text(const MethodInfo& m);

/// One run's progress line: "# round 1/3  layout 3 (2t+1m sync, np 3): ...".
std::string run_line(int round, int rounds, const Layout& layout, const RunFigures& f);

/// The table: one row per layout of `order` (header lines start with "#").
std::string table_text(const std::vector<int>& order, const std::map<int, LayoutSummary>& rows,
                       int rounds);

}  // namespace gfn::bench_scaling
