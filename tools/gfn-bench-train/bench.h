#pragma once
// gfn-bench-train's measurement: builds a core::Learner from an experiment
// configuration (a world of one: one trainer, no replay buffer, no averaging) and
// times `warmup` + `iters` calls of Learner::train_iteration(train.batch_size)
// (harness::time_calls, tools/common/harness/timing.h), then
// measures the rows the network evaluates (row_count.h), the GEMM FLOPs they imply
// (flop_model.h), records the GEMM calls of `record_iters` more iterations and runs two
// GEMM probes (gemm_probe.h): the same shapes as those calls (the goal's basis) and the
// single hidden-layer forward shape.
// Blocking, single-threaded caller; sets LibTorch's thread count (train.num_threads)
// for the whole process, as the Learner does.

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "tools/common/harness/report.h"
#include "tools/common/harness/stats.h"
#include "tools/common/harness/timing.h"
#include "tools/gfn-bench-train/flop_model.h"
#include "tools/gfn-bench-train/gemm_probe.h"
#include "tools/gfn-bench-train/row_count.h"

namespace gfn::core {
class Agent;
class Learner;
}  // namespace gfn::core

namespace gfn::bench {

struct BenchOptions {
  int warmup = 20;  ///< iterations run before measuring (>= 0)
  int iters = 200;  ///< measured iterations (>= 1)
  /// If not empty: the measured iterations run under LibTorch's autograd profiler
  /// (torch::autograd::profiler::RecordProfile), which writes a chrome://tracing file
  /// here; its overhead inflates the timings of that run.
  std::string profile_path;
  int row_batches = 20;  ///< extra batches sampled to count rows (>= 1)
  int record_iters = 3;  ///< extra iterations whose GEMM calls are recorded (>= 1)
  /// Paired rounds (>= 1): after the main measurement, each round times `paired_iters`
  /// (>= 1) more iterations and then one pass of the same-shapes probe (1 block of >= 2 ms
  /// per call), so that a swing of the machine's speed (a shared VM) hits both sides of
  /// the ratio; BenchResult::paired_ratios has one ratio per round.
  int paired_rounds = 15;
  int paired_iters = 20;
};

struct BenchResult {
  std::string label;  ///< the config file (or "defaults")
  roles::ExperimentConfig config;
  /// The paths the engine options resolved to (core::EnginePlan::report): compare
  /// paths with `--set engine.<key>=<value>` (runtime/config/engine_options.h).
  std::map<std::string, std::string> engine;
  BenchOptions options;
  harness::Summary ms;  ///< wall time per measured iteration (ms), harness::time_calls
  /// Thread CPU time per measured iteration (CLOCK_THREAD_CPUTIME_ID), ms: less sensitive
  /// than wall time to other processes on a shared machine.
  harness::Summary cpu_ms;
  /// Mean per phase over the measured iterations, ms (IterationResult::seconds).
  double sample_ms = 0, loss_ms = 0, backward_ms = 0, optimizer_ms = 0, hook_ms = 0;
  double trajectories_per_s = 0;  ///< batch_size / median iteration time (ms.median)
  RowCounts rows;
  MlpShape shape;
  IterationFlops flops;                 ///< from rows.sample_rows, rows.loss_rows
  IterationFlops flops_per_transition;  ///< without deduplication (rows = transitions)
  double achieved_gflops = 0;           ///< flops.total() / median iteration time
  GemmProbe probe;         ///< single shape: hidden layer forward, rows = round(rows.loss_rows)
  double probe_ratio = 0;  ///< achieved_gflops / probe.gflops
  /// The GEMM calls per iteration the FLOP model predicts (iteration_gemm_calls with rows
  /// rounded) and the ones record_gemm_calls saw in `record_iters` real iterations.
  std::vector<GemmCall> gemm_model, gemm_recorded;
  bool gemm_verified = false;  ///< same_calls(gemm_model, gemm_recorded)
  /// Same-shapes probe of gemm_recorded (of gemm_model if nothing was recorded): the
  /// goal's basis, "a GEMM probe of the same shapes run in the same process".
  SameShapesProbe same_shapes;
  double same_shapes_ratio = 0;  ///< achieved_gflops / same_shapes.gflops
  /// Over the paired rounds, each round's (flops.total() / median ms of the round's
  /// iterations) / the round's same-shapes probe rate. Its median is the ratio goal's basis
  /// (side by side in time).
  harness::Summary paired_ratio;
  harness::Summary paired_ms;      ///< over the rounds: each round's median ms per iteration
  harness::Summary paired_gflops;  ///< over the rounds: each round's same-shapes probe rate
  /// torchgfn-equivalent (nominal) rate: flops_per_transition.total() / median time, i.e.
  /// the GEMM work of evaluating every transition (the compute-floor count).
  double nominal_gflops = 0;
  GemmProbe probe_nominal;   ///< same shape with rows = round(rows.transitions)
  double nominal_ratio = 0;  ///< nominal_gflops / probe_nominal.gflops
  int threads = 0;           ///< at::get_num_threads() during the run
  double load_average = -1;  ///< 1-minute load average at the start (-1 if unknown)
};

/// The timing of `reps` calls of learner.train_iteration(batch) (a discrete or continuous agent):
/// wall and thread-CPU time per measured call (ms) and the mean of each phase
/// (IterationResult::seconds, ms). With a non-empty `profile_path` the measured calls run under
/// LibTorch's autograd profiler, which writes a chrome://tracing file there. Blocking; throws what
/// train_iteration throws.
struct IterationTimes {
  harness::Summary ms, cpu_ms;
  double sample_ms = 0, loss_ms = 0, backward_ms = 0, optimizer_ms = 0, hook_ms = 0;
};
IterationTimes time_iterations(core::Agent& learner, std::int64_t batch,
                               const harness::Repetitions& reps, const std::string& profile_path);

/// roles::load_config(path, overrides) with env.python_path resolved as gfn-train resolves it
/// (python::resolve_python_path: empty is the directory of `path`, relative ones from the
/// working directory), so that env.python and env.reward_python find their modules. Throws
/// what load_config throws.
roles::ExperimentConfig load_bench_config(const std::string& path,
                                          const std::vector<std::string>& overrides);

/// Throws std::invalid_argument for warmup < 0, iters < 1, row_batches < 1,
/// record_iters < 1, paired_rounds < 1, paired_iters < 1, and whatever
/// Learner's constructor throws for the configuration.
BenchResult run_bench(const roles::ExperimentConfig& config, const std::string& label,
                      const BenchOptions& options);

/// The nccl-tests-style report of one run: the configuration, the phases, the FLOP model
/// with its formulas, the GEMM probes and the figures. The timing method and the machine
/// are the method statement, printed once before (bench_method, harness::method_statement).
void print_report(const BenchResult& r, std::ostream& out);

/// What gfn-bench-train times (the method statement's "timed", counts and notes).
harness::Method bench_method(harness::Method base, const BenchOptions& options);

/// A warning when the loaded OpenBLAS runs its generic Prescott (SSE3) kernels on a CPU
/// with AVX2 or AVX-512 (OpenBLAS < 0.3.25 does not recognise recent CPU models), "" else.
std::string blas_kernel_warning(const harness::Machine& machine);

}  // namespace gfn::bench
