#pragma once
// gfn-bench-train --suite DIR: torchgfn's cross-library benchmark (GFNOrg/torchgfn,
// benchmark/benchmark_libraries.py) as this runtime runs it. Every `<scenario>.yaml` of DIR
// (configs/bench/torchgfn/: one per scenario, torchgfn's settings and parameter counts) is
// timed at each batch size: `warmup` untimed iterations, then `iters` timed calls of
// Agent::train_iteration (runtime/gfn/agent.h: the discrete Learner, or the ContinuousLearner
// of the continuous scenarios tb_box_2d*) (torchgfn's n_warmup 50 and n_iterations 100 by default),
// and the table gives, per scenario and batch, the mean ± standard deviation of the milliseconds
// per iteration and the mean of the four phases torchgfn's runner times (sample, loss, backward,
// optimizer), as its print_summary does (its summary's standard deviation is
// statistics.stdev, the sample standard deviation, as here).
//
// The configs' train.batch_size is replaced by each batch size; everything else is the
// config's (train.num_threads 1 in the torchgfn configs, as the comparison pins one thread).
// A scenario may be an environment written in Python (env.python, load_bench_config):
// configs/bench/torchgfn_python/ holds torchgfn's HyperGrid scenarios on
// examples/python_env/hypergrid.py, with the same file names and parameter counts.
// Blocking, single-threaded caller. Cost: (warmup + iters) iterations per scenario and batch.

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "tools/common/harness/report.h"
#include "tools/gfn-bench-train/bench.h"

namespace gfn::bench {

struct SuiteOptions {
  std::string dir;                             ///< directory of <scenario>.yaml files
  std::vector<std::string> scenarios;          ///< names to run (file stems); empty: all of dir
  std::vector<int> batch_sizes{32, 128, 512};  ///< each > 0
  int warmup = 50;                             ///< >= 0
  int iters = 100;                             ///< >= 1
  std::vector<std::string> overrides;          ///< --set section.key=value, applied to every config
  /// --profile: if not empty, each case's measured iterations run under LibTorch's autograd
  /// profiler (time_iterations, bench.h), written to <profile_path>.<scenario>.b<batch>.json.
  std::string profile_path;
};

/// A scenario of the suite: its name (the file's stem) and its file.
struct SuiteScenario {
  std::string name;
  std::string path;
};

/// The scenarios of options.dir, sorted by name; only those named in options.scenarios
/// when it is not empty. Throws std::invalid_argument when the directory is missing or
/// holds no .yaml file, or a named scenario has no file (naming the ones there are).
std::vector<SuiteScenario> suite_scenarios(const SuiteOptions& options);

struct SuiteCase {
  std::string scenario;
  int batch_size = 0;
  std::int64_t n_params = 0;                  ///< trainable parameters, logZ included
  std::map<std::string, std::string> engine;  ///< core::EnginePlan::report
  IterationTimes times;
};

/// Times one scenario at config.train.batch_size (see the file comment); with a non-empty
/// profile_path under the profiler, its trace at <profile_path>.<scenario>.b<batch>.json.
/// Throws std::invalid_argument for warmup < 0 or iters < 1, and whatever the Learner throws.
SuiteCase run_suite_case(const roles::ExperimentConfig& config, const std::string& scenario,
                         int warmup, int iters, const std::string& profile_path = "");

/// Every scenario at every batch size, in batch-major order, printing each row to `out` as
/// it is measured; throws what suite_scenarios, roles::load_config and run_suite_case throw.
std::vector<SuiteCase> run_suite(const SuiteOptions& options, std::ostream& out);

/// torchgfn's summary columns: scenario, batch, parameters, ms/iteration mean ± sd, phases.
void print_suite_header(std::ostream& out);
void print_suite_row(const SuiteCase& c, std::ostream& out);

/// The case of the JSON report ("<scenario>/b<batch>"): parameters and the figures.
harness::Case suite_report_case(const SuiteCase& c);

}  // namespace gfn::bench
