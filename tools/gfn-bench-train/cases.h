#pragma once
// gfn-bench-train's results in the harness's JSON report (tools/common/harness/report.h):
// one case per config with the figures print_report prints, and the goals (goals.h) of
// the configs that have them. Pure functions of a BenchResult; thread-safe.

#include <vector>

#include "tools/common/harness/report.h"
#include "tools/gfn-bench-train/bench.h"

namespace gfn::bench {

/// Case name: the goal's name for a bench config (e.g. "hypergrid_2d_b16"), else the
/// config path. Figures: ms_per_iteration and cpu_ms_per_iteration (statistics, ms), the
/// phase means (sample_ms, loss_ms, backward_ms, optimizer_ms, averaging_ms),
/// trajectories_per_s, mflop_per_iteration, mflop_per_transition, achieved_gflops,
/// same_shapes_gflops, same_shapes_ratio, paired_ratio (statistics over rounds),
/// paired_ms and paired_probe_gflops (statistics over rounds), single_shape_gflops,
/// single_shape_ratio, nominal_gflops, nominal_probe_gflops, nominal_ratio. Parameters:
/// config, batch_size, threads, engine paths, gemm_verified, load_average_at_start.
harness::Case bench_case(const BenchResult& r);

/// For a config with a goal (goal_for(r.label)): "<name>: ms/iteration" (median <=
/// max_ms) and, where min_probe_ratio > 0, "<name>: paired GEMM-rate ratio" (median >=
/// min_probe_ratio); none otherwise.
std::vector<harness::Goal> bench_goals(const BenchResult& r);

}  // namespace gfn::bench
