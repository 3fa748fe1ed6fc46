#pragma once
// gfn-bench-scaling's output: the method at the top (nccl-tests style), one line per run,
// the table of medians over rounds, the goal lines, and the cases of the JSON report.

#include <map>
#include <string>
#include <vector>

#include "tools/common/harness/report.h"
#include "tools/gfn-bench-scaling/aggregate.h"
#include "tools/gfn-bench-scaling/layouts.h"

namespace gfn::bench_scaling {

/// 65200.4 -> "65,200" (rounded to an integer, thousands separated by commas).
std::string thousands(double value);

/// What the benchmark runs (command, settings, layouts, order, run directories); every
/// line starts with "# ". The figures' definitions are in scaling_method's notes.
struct MethodInfo {
  RunSettings settings;
  int rounds = 1;
  std::vector<int> order;  ///< run_order of the selection
  std::string binary;
  std::string mpirun;
  std::string out_dir;
};
std::string method_text(const MethodInfo& m);

/// The harness's method statement (tools/common/harness/report.h) on top of `base`
/// (command line, machine): what a run measures, the rounds, the figures' definitions.
harness::Method scaling_method(harness::Method base, int rounds);

/// The JSON cases: one per layout of `order` (name = its slug), each figure of
/// LayoutSummary as statistics over rounds (median, min, max, n; JSON null when no run
/// gave it).
std::vector<harness::Case> layout_cases(const std::vector<int>& order,
                                        const std::map<int, LayoutSummary>& rows);

/// One run's progress line: "# round 1/3  layout 3 (2t+1m sync, np 3): ...".
std::string run_line(int round, int rounds, const Layout& layout, const RunFigures& f);

/// The table: one row per layout of `order` (header lines start with "#").
std::string table_text(const std::vector<int>& order, const std::map<int, LayoutSummary>& rows,
                       int rounds);

}  // namespace gfn::bench_scaling
