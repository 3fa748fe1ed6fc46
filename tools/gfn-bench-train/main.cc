// gfn-bench-train: trainer throughput benchmark (docs/performance.md "Trainer throughput").
//
//   build/bin/gfn-bench-train --config configs/bench/hypergrid_2d_b128.yaml
//   build/bin/gfn-bench-train --all                      # the three configs/bench configs
//   ... --set train.num_threads=2 --warmup 20 --iters 200
//   build/bin/gfn-bench-train --suite configs/bench/torchgfn   # torchgfn's benchmark scenarios
//
// Prints the method statement (timing, counts, machine, loaded BLAS, date, commit), then
// per config ms/iteration (median, p90), the split by phase, trajectories/s, the GEMM
// FLOPs per iteration and achieved GFLOP/s, the thread count and two GEMM probes (the
// iteration's own GEMM calls -- the goal's basis -- and the single hidden-layer shape);
// with --all also a side-by-side table with the goals and torchgfn's figures. Shared
// benchmark flags (tools/common/harness/front.h): --json FILE (every figure, the method
// statement and the goals), --quick, and --repeats for --iters. Exit codes: 0 success,
// 2 bad command line or configuration, 1 failure while running. --versus KEY=VALUE...: the
// config against the same with those overrides, interleaved in one process (versus.h).
// --suite DIR [--scenario NAME...] [--batch-sizes 32 128 512]: every scenario of DIR at every
// batch size, mean ± sd ms per iteration and the phases as torchgfn's summary prints them
// (suite.h; warm-up 50 and 100 iterations unless --warmup / --iters say otherwise).
// Environments written in Python (env.python, env.reward_python) run as under gfn-train: this
// tool links gfn_python (runtime/python/python_environment.h), an empty env.python_path is the
// config file's directory, and a module that does not load is refused (exit 2) before timing:
//   build/bin/gfn-bench-train --suite configs/bench/torchgfn_python   # the Python HyperGrid

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "roles/experiment/experiment.h"
#include "runtime/config/cli.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/process/blas_kernels.h"
#include "runtime/process/malloc_tuning.h"
#include "runtime/python/python_environment.h"
#include "tools/common/harness/front.h"
#include "tools/gfn-bench-train/bench.h"
#include "tools/gfn-bench-train/cases.h"
#include "tools/gfn-bench-train/goals.h"
#include "tools/gfn-bench-train/suite.h"
#include "tools/gfn-bench-train/versus.h"

namespace {

using gfn::bench::BenchResult;

void print_table(const std::vector<BenchResult>& results) {
  std::cout << "#\n# Summary (ms/iteration = median of the measured iterations; torchgfn / ours = "
               "speed-up)\n";
  fmt::print(std::cout,
             "#  {:<20} {:>6} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>9} {:>7} {:>7} {:>10} "
             "{:>8} {:>7} {:>9}\n",
             "config", "batch", "ours ms", "goal ms", "time met", "torchgfn", "speedup", "traj/s",
             "GFLOP/s", "same-shp", "ratio", "paired", "ratio goal", "1-shape", "ratio1",
             "nominal");
  for (const auto& r : results) {
    const auto g = gfn::bench::goal_for(r.label);
    const bool ratio_goal = g && g->min_probe_ratio > 0;
    const bool met = g && r.ms.median <= g->max_ms;
    const bool ratio_met = ratio_goal && r.paired_ratio.median >= g->min_probe_ratio;
    fmt::print(
        std::cout,
        "   {:<20} {:>6} {:>9.2f} {:>8} {:>8} {:>9} {:>8} {:>8.0f} {:>8.3f} {:>9.2f} {:>6.1f}% "
        "{:>6.1f}% {:>10} {:>8.2f} {:>6.1f}% {:>8.1f}%\n",
        g ? g->name : r.label, r.config.train.batch_size, r.ms.median,
        g ? fmt::format("{:.1f}", g->max_ms) : "-", g ? (met ? "yes" : "NO") : "-",
        g ? fmt::format("{:.1f}", g->torchgfn_ms) : "-",
        g ? fmt::format("{:.1f}x", g->torchgfn_ms / r.ms.median) : "-", r.trajectories_per_s,
        r.achieved_gflops, r.same_shapes.gflops, 100.0 * r.same_shapes_ratio,
        100.0 * r.paired_ratio.median,
        ratio_goal
            ? fmt::format(">={:.0f}% {}", 100.0 * g->min_probe_ratio, ratio_met ? "yes" : "NO")
            : "-",
        r.probe.gflops, 100.0 * r.probe_ratio, 100.0 * r.nominal_ratio);
  }
  std::cout << "#  ratio = executed GEMM FLOPs (distinct states the network evaluates) / median / "
               "same-shapes GEMM rate (the iteration's own GEMM calls), whole run;\n"
               "#  paired = median over rounds of the same ratio, each round's iterations timed "
               "back to back with a same-shapes probe pass (the ratio goal's basis);\n"
               "#  ratio1 = the same / single-shape probe (hidden-layer forward); nominal = "
               "torchgfn-equivalent FLOPs (every transition) / median / single-shape probe at N "
               "rows\n";
}

// The command line.
struct Cli {
  gfn::config::CommandLine cl;
  gfn::bench::BenchOptions options;
  bool all = false;
  std::string bench_dir = "configs/bench";
  std::vector<std::string> versus;
  gfn::bench::SuiteOptions suite;  ///< suite.dir set: --suite
};

// --suite and the options that only it reads; it excludes `others`.
void add_suite_options(CLI::App& app, Cli& c, const std::vector<CLI::Option*>& others) {
  auto* suite = app.add_option("--suite", c.suite.dir,
                               "Time every <scenario>.yaml of this directory (e.g. "
                               "configs/bench/torchgfn, torchgfn's benchmark scenarios) at each "
                               "--batch-sizes; prints torchgfn's summary columns");
  for (auto* o : others) suite->excludes(o);
  app.add_option("--scenario", c.suite.scenarios,
                 "With --suite: only these scenarios (file stems), in this order")
      ->needs(suite);
  app.add_option("--batch-sizes", c.suite.batch_sizes, "With --suite: the batch sizes")
      ->needs(suite)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

// gfn-bench-train's options after the configuration's and the Front's.
void add_options(CLI::App& app, gfn::harness::Front& front, Cli& c) {
  front.add_warmup(c.options.warmup, "--warmup", "Warm-up iterations (not measured)");
  front.add_repetitions(c.options.iters, "--iters", "Measured iterations");
  app.add_option("--row-batches", c.options.row_batches,
                 "Extra batches sampled to count the rows the network evaluates")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--record-iters", c.options.record_iters,
                 "Extra iterations whose GEMM calls are recorded for the same-shapes probe")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--paired-rounds", c.options.paired_rounds,
                 "Rounds of the paired ratio (each: --paired-iters iterations, then one "
                 "same-shapes probe pass)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--paired-iters", c.options.paired_iters, "Iterations per paired round")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--profile", c.options.profile_path,
                 "Run the measured iterations under LibTorch's autograd profiler and write a "
                 "chrome://tracing file (one run only; slows the run down); with --suite one "
                 "file per case, <path>.<scenario>.b<batch>.json");
  auto* all_flag = app.add_flag("--all", c.all,
                                "Run the three bench configs (<bench-dir>/hypergrid_2d_b16, "
                                "_2d_b128, _4d_b128) and print a table with the goals");
  app.add_option("--bench-dir", c.bench_dir, "Directory of the bench configs for --all")
      ->capture_default_str();
  auto* versus_opt = app.add_option(
      "--versus", c.versus,
      "section.key=value overrides of a side B timed against the config (side A) iteration "
      "for iteration in this process, e.g. --versus train.num_threads=2 engine.split_batch=true; "
      "prints both sides and the per-pair ratio A / B");
  versus_opt->excludes(all_flag);
  all_flag->excludes(app.get_option("--config"));
  all_flag->excludes(app.get_option("--profile"));
  add_suite_options(app, c, {all_flag, versus_opt, app.get_option("--config")});
}

void apply_quick_defaults(const gfn::harness::Front& front, gfn::bench::BenchOptions& options) {
  front.quick_default("--warmup", options.warmup, 2);
  front.quick_default("--iters", options.iters, 20);
  front.quick_default("--row-batches", options.row_batches, 2);
  front.quick_default("--record-iters", options.record_iters, 1);
  front.quick_default("--paired-rounds", options.paired_rounds, 3);
  front.quick_default("--paired-iters", options.paired_iters, 5);
}

// --suite's counts: torchgfn's warm-up 50 and 100 iterations unless given (--quick: 2, 10).
void set_suite_counts(const CLI::App& app, const gfn::harness::Front& front, Cli& c) {
  const bool quick = front.quick();
  c.suite.warmup = app.count("--warmup") ? c.options.warmup : (quick ? 2 : 50);
  c.suite.iters =
      app.count("--iters") + app.count("--repeats") ? c.options.iters : (quick ? 10 : 100);
  c.suite.overrides = c.cl.overrides;
  c.suite.profile_path = c.options.profile_path;
}

// --suite: the method statement, the table row by row, the JSON report.
void run_suite_command(const Cli& c, const gfn::harness::Front& front, int argc, char** argv) {
  using namespace gfn;
  harness::Report report{
      front.tool(),
      front.method(argc, argv)
          .describe("Learner::train_iteration(batch) of each scenario at each batch "
                    "size, each call timed with steady_clock (wall)",
                    c.suite.warmup, c.suite.iters, "iterations per scenario and batch",
                    {"scenarios: " + c.suite.dir +
                         " (torchgfn's "
                         "benchmark/benchmark_libraries.py settings)",
                     "ms/iter = mean ± sample standard deviation; phases = means"}),
      {},
      {}};
  std::cout << harness::method_statement(report.method)
            << bench::blas_kernel_warning(report.method.machine) << "#\n";
  for (const auto& s : bench::run_suite(c.suite, std::cout))
    report.cases.push_back(bench::suite_report_case(s));
  front.write_json(report);
}

// (label, configuration) of each run: the config (or --all's three), then --versus's side B.
using Runs = std::vector<std::pair<std::string, gfn::roles::ExperimentConfig>>;

Runs load_runs(const Cli& c) {
  using namespace gfn;
  Runs runs;
  if (c.all) {
    for (const auto& g : bench::goals()) {
      const std::string path = c.bench_dir + "/" + g.name + ".yaml";
      runs.emplace_back(path, bench::load_bench_config(path, c.cl.overrides));
    }
  } else {
    runs.emplace_back(c.cl.config_path.empty() ? "defaults" : c.cl.config_path,
                      bench::load_bench_config(c.cl.config_path, c.cl.overrides));
  }
  if (!c.versus.empty()) {
    std::vector<std::string> b_overrides = c.cl.overrides;
    b_overrides.insert(b_overrides.end(), c.versus.begin(), c.versus.end());
    runs.emplace_back("versus", bench::load_bench_config(c.cl.config_path, b_overrides));
  }
  return runs;
}

// env.python and env.reward_python are loaded and checked before any timing, after the process
// set-up (whose re-exec would load them twice), as gfn-train does: a module that does not load,
// a class that raises or a reward that fails on its probe batch throws config::ConfigError.
void check_python_environments(const Runs& runs) {
  for (const auto& run : runs) {
    const gfn::core::EnvOptions& env = run.second.env;
    if (!env.python.empty() || !env.reward_python.empty()) gfn::core::make_environment(env);
  }
}

// Process set-up from the (first) config's `engine:` (engine_options.h): OpenBLAS's
// kernel set and, if a run uses several threads, OpenMP's passive wait policy (may
// re-exec with OPENBLAS_CORETYPE / OMP_WAIT_POLICY set), then malloc thresholds.
void set_up_process(const Runs& runs, int argc, char** argv) {
  using namespace gfn;
  const core::EngineOptions& engine = runs.front().second.engine;
  int threads = 1;
  bool openmp_gemms = false;
  for (const auto& run : runs) {
    threads = std::max(threads, run.second.train.num_threads);
    openmp_gemms = openmp_gemms ||
                   core::gemms_on_openmp_threads(run.second.engine, run.second.train.num_threads);
  }
  runtime::set_library_environment(engine.blas_kernels == core::BlasKernels::kAuto, threads,
                                   openmp_gemms, argc, argv);
  runtime::tune_malloc_for_training(engine.malloc_tune);
}

// The method statement, then --versus's pair or every run's report (and the table with
// the goals), then the JSON report.
void run_benchmarks(const Cli& c, const Runs& runs, const gfn::harness::Front& front, int argc,
                    char** argv) {
  using namespace gfn;
  harness::Report report{
      front.tool(), bench::bench_method(front.method(argc, argv), c.options), {}, {}};
  std::cout << harness::method_statement(report.method)
            << bench::blas_kernel_warning(report.method.machine) << "#\n";
  if (!c.versus.empty()) {
    const std::string label = runs[0].first;
    const auto v =
        bench::run_versus(runs[0].second, runs[1].second, label, c.options.warmup, c.options.iters);
    bench::print_versus(v, std::cout);
    report.cases.push_back(bench::versus_case(v));
    front.write_json(report);
    return;
  }
  std::vector<BenchResult> results;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) std::cout << "#\n";
    results.push_back(bench::run_bench(runs[i].second, runs[i].first, c.options));
    bench::print_report(results.back(), std::cout);
    std::cout.flush();
    report.cases.push_back(bench::bench_case(results.back()));
    for (auto& g : bench::bench_goals(results.back())) report.goals.push_back(std::move(g));
  }
  if (c.all || bench::goal_for(runs.front().first)) print_table(results);
  front.write_json(report);
}

}  // namespace

// --suite's process set-up (from its first scenario's config) and run; exit codes as main's.
int run_suite_main(const CLI::App& app, const gfn::harness::Front& front, Cli& c, int argc,
                   char** argv) {
  using namespace gfn;
  set_suite_counts(app, front, c);
  try {
    const auto scenarios = bench::suite_scenarios(c.suite);
    Runs all;
    for (const auto& s : scenarios)
      all.emplace_back(s.path, bench::load_bench_config(s.path, c.suite.overrides));
    if (c.cl.print_config) {
      for (const auto& [path, cfg] : all)
        std::printf("# %s\n%s\n", path.c_str(), roles::to_yaml(cfg).c_str());
      return 0;
    }
    set_up_process({all.front()}, argc, argv);
    check_python_environments(all);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-train: error: %s\n", e.what());
    return 2;
  }
  try {
    run_suite_command(c, front, argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-train: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  using namespace gfn;
  python::install();  // env.python, env.reward_python (runtime/python/python_environment.h)
  CLI::App app("Trainer throughput benchmark: times Learner::train_iteration.", "gfn-bench-train");
  app.footer("Method and figures: docs/performance.md \"Trainer throughput\".");
  Cli c;
  config::add_config_options(app, c.cl);
  harness::Front front(app, "gfn-bench-train",
                       "--warmup 2 --iters 20 --row-batches 2 --record-iters 1 --paired-rounds 3 "
                       "--paired-iters 5");
  add_options(app, front, c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  apply_quick_defaults(front, c.options);
  if (!c.suite.dir.empty()) return run_suite_main(app, front, c, argc, argv);

  Runs runs;
  try {
    runs = load_runs(c);
    if (c.cl.print_config) {
      for (const auto& [path, cfg] : runs)
        std::printf("# %s\n%s\n", path.c_str(), roles::to_yaml(cfg).c_str());
      return 0;
    }
    set_up_process(runs, argc, argv);
    check_python_environments(runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-train: error: %s\n", e.what());
    return 2;
  }

  try {
    run_benchmarks(c, runs, front, argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-train: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
