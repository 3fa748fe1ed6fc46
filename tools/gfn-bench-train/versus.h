#pragma once
// gfn-bench-train --versus (docs/performance.md "Trainer throughput"): two configurations
// timed side by side in ONE process, iteration for iteration, so that the swings of a shared
// machine's speed (this VM moves ~20 % between minutes) hit both sides of the ratio. Side A is
// the configuration as given, side B the same with the --versus overrides (e.g.
// train.num_threads=2 against one thread). Both Learners are built
// from the same seed; after `warmup` iterations of each, `iters` pairs run in alternating order
// (A then B, B then A, ...), each train_iteration timed with steady_clock. Figures: each side's
// ms per iteration, and per pair the ratio A / B (how many times faster B is), whose median is
// robust to a slow minute; also the ratio of the means. Blocking, single-threaded caller.

#include <map>
#include <ostream>
#include <string>

#include "roles/experiment/experiment_config.h"
#include "tools/common/harness/report.h"
#include "tools/common/harness/stats.h"

namespace gfn::bench {

struct VersusResult {
  std::string label;  ///< the config file
  roles::ExperimentConfig a, b;
  std::map<std::string, std::string> engine_a, engine_b;  ///< EnginePlan::report
  harness::Summary a_ms, b_ms;  ///< wall ms per measured iteration of each side
  harness::Summary ratio;       ///< per pair: A's ms / B's ms
  double ratio_of_means = 0;    ///< a_ms.mean / b_ms.mean
};

/// Builds both Learners (a world of one, no replay buffer) and times them interleaved, each
/// iteration under its own Learner's thread counts (runtime::switch_thread_counts: the process has
/// one setting, applied again before each side's iteration, outside the clock; e.g. one thread
/// against train.num_threads 2). Throws std::invalid_argument for warmup < 0 or iters < 1,
/// and whatever the Learner's constructor throws. Cost: (warmup + iters) iterations of each
/// side.
VersusResult run_versus(const roles::ExperimentConfig& a, const roles::ExperimentConfig& b,
                        const std::string& label, int warmup, int iters);

/// The report: both sides' engine paths, ms per iteration (median, mean, p90) and the ratios.
void print_versus(const VersusResult& r, std::ostream& out);

/// The report's JSON case ("versus"): both sides' ms per iteration and the per-pair ratio.
harness::Case versus_case(const VersusResult& r);

}  // namespace gfn::bench
