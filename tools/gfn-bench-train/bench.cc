#include "tools/gfn-bench-train/bench.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "roles/experiment/experiment.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/process/threads.h"
#include "runtime/python/python_environment.h"
#include "tools/common/harness/machine.h"
#include "tools/common/harness/timing.h"

namespace gfn::bench {

harness::Method bench_method(harness::Method base, const BenchOptions& options) {
  return base.describe(
      "Learner::train_iteration(train.batch_size) of each config, each call timed with "
      "steady_clock (wall) and CLOCK_THREAD_CPUTIME_ID (CPU)",
      options.warmup, options.iters, "iterations per config",
      {"phases are IterationResult::seconds, averaged over the measured iterations",
       "median = middle value (mean of the two middle ones for an even count); p90 = nearest "
       "rank"});
}

std::string blas_kernel_warning(const harness::Machine& machine) {
  const bool wide_cpu = __builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx512f");
  if (machine.blas_kernels != "Prescott" || !wide_cpu) return "";
  return fmt::format(
      "#  WARNING   OpenBLAS chose its generic Prescott (SSE3) kernels on a CPU with {}:\n"
      "#            OpenBLAS < 0.3.25 does not recognise this CPU model.\n#            "
      "Set OPENBLAS_CORETYPE={} in the environment (read when the library loads).\n",
      machine.cpu_features, __builtin_cpu_supports("avx512f") ? "SkylakeX" : "Haswell");
}

IterationTimes time_iterations(core::Agent& learner, std::int64_t batch,
                               const harness::Repetitions& reps, const std::string& profile_path) {
  std::vector<core::PhaseDurations> phases(static_cast<std::size_t>(reps.iterations));
  std::unique_ptr<torch::autograd::profiler::RecordProfile> profile;
  const auto timings = harness::time_calls(
      reps,
      [&](int i) {
        core::IterationResult step = learner.train_iteration(batch);
        if (i >= 0) phases[static_cast<std::size_t>(i)] = step.seconds;
        return step;  // freed after the timing stops
      },
      [&] {  // the profiler records the measured iterations only
        if (profile_path.empty()) return;
        profile = std::make_unique<torch::autograd::profiler::RecordProfile>(profile_path);
      });
  profile.reset();  // writes the trace
  const auto phase_ms = [&phases](double core::PhaseDurations::*phase) {
    std::vector<double> ms;
    for (const auto& p : phases) ms.push_back(1e3 * (p.*phase));
    return harness::mean(ms);
  };
  IterationTimes t;
  t.ms = harness::summarize(timings.wall_s).scaled(1e3);
  t.cpu_ms = harness::summarize(timings.cpu_s).scaled(1e3);
  t.sample_ms = phase_ms(&core::PhaseDurations::sample);
  t.loss_ms = phase_ms(&core::PhaseDurations::loss);
  t.backward_ms = phase_ms(&core::PhaseDurations::backward);
  t.optimizer_ms = phase_ms(&core::PhaseDurations::optimizer);
  t.hook_ms = phase_ms(&core::PhaseDurations::gradient_hook);
  return t;
}

BenchResult run_bench(const roles::ExperimentConfig& config, const std::string& label,
                      const BenchOptions& options) {
  if (options.warmup < 0 || options.iters < 1 || options.row_batches < 1 ||
      options.record_iters < 1 || options.paired_rounds < 1 || options.paired_iters < 1) {
    throw std::invalid_argument(
        "gfn-bench-train: need --warmup >= 0, --iters >= 1, --row-batches >= 1, "
        "--record-iters >= 1, --paired-rounds >= 1 and --paired-iters >= 1");
  }
  BenchResult r;
  r.label = label;
  r.config = config;
  r.options = options;
  const auto load = harness::load_averages();
  if (!load.empty()) r.load_average = load[0];

  core::Learner learner(config.env, config.model, config.train, config.train.seed,
                        buffer::ReplayOptions{}, config.engine, config.local_search);
  runtime::set_thread_counts(learner.plan().threads);
  r.engine = learner.plan().report;
  const std::int64_t batch = config.train.batch_size;
  const IterationTimes times = time_iterations(
      learner, batch, harness::Repetitions{options.warmup, options.iters}, options.profile_path);
  r.ms = times.ms;
  r.cpu_ms = times.cpu_ms;
  r.sample_ms = times.sample_ms;
  r.loss_ms = times.loss_ms;
  r.backward_ms = times.backward_ms;
  r.optimizer_ms = times.optimizer_ms;
  r.hook_ms = times.hook_ms;
  r.trajectories_per_s = static_cast<double>(batch) / (r.ms.median / 1e3);
  r.threads = at::get_num_threads();

  r.rows = count_rows(learner, batch, config.train.epsilon, config.train.temperature,
                      options.row_batches, config.train.seed + 7919);
  r.shape.input_dim = learner.preprocessor().output_dim();
  r.shape.hidden_dim = config.model.hidden_dim;
  r.shape.n_hidden = config.model.n_hidden;
  r.shape.n_actions = learner.env().n_actions();
  r.shape.tied = config.model.tied;
  r.shape.uniform_pb = config.model.uniform_pb;
  r.flops = iteration_flops(r.shape, r.rows.sample_rows, r.rows.loss_rows);
  r.flops_per_transition = iteration_flops(r.shape, r.rows.transitions, r.rows.transitions);
  r.achieved_gflops = r.flops.total() / (r.ms.median / 1e3) / 1e9;
  const auto probe_rows = std::max<std::int64_t>(1, std::llround(r.rows.loss_rows));
  // The GEMM calls of an iteration: modelled (rows rounded to whole calls) and recorded
  // from real iterations (after the timing: recording slows every ATen op down).
  const std::int64_t sample_rows_per_call =
      r.rows.policy_calls > 0 ? std::llround(r.rows.sample_rows / r.rows.policy_calls) : 0;
  r.gemm_model = iteration_gemm_calls(r.shape, std::llround(r.rows.loss_rows), sample_rows_per_call,
                                      r.rows.policy_calls);
  r.gemm_recorded =
      record_gemm_calls([&] { learner.train_iteration(batch); }, options.record_iters);
  r.gemm_verified = same_calls(r.gemm_model, r.gemm_recorded);
  r.same_shapes = probe_gemm_calls(r.gemm_recorded.empty() ? r.gemm_model : r.gemm_recorded);
  r.same_shapes_ratio = r.achieved_gflops / r.same_shapes.gflops;
  // Paired rounds: iterations and a probe pass back to back, so both halves of each
  // round's ratio see the same machine speed (on a shared VM the probe alone swings
  // between ~80 and ~120 GFLOP/s from one run to the next).
  const auto& probed_calls = r.gemm_recorded.empty() ? r.gemm_model : r.gemm_recorded;
  std::vector<double> paired_ms, paired_gflops, paired_ratios;
  for (int round = 0; round < options.paired_rounds; ++round) {
    const auto round_times = harness::time_calls(harness::Repetitions{0, options.paired_iters},
                                                 [&](int) { learner.train_iteration(batch); });
    const double round_ms = 1e3 * harness::median(round_times.wall_s);
    const double round_gflops = r.flops.total() / (round_ms / 1e3) / 1e9;
    const SameShapesProbe pass = probe_gemm_calls(probed_calls, /*n_blocks=*/1,
                                                  /*min_block_s=*/0.002);
    paired_ms.push_back(round_ms);
    paired_gflops.push_back(pass.gflops);
    paired_ratios.push_back(round_gflops / pass.gflops);
  }
  r.paired_ms = harness::summarize(paired_ms);
  r.paired_gflops = harness::summarize(paired_gflops);
  r.paired_ratio = harness::summarize(paired_ratios);
  r.probe = probe_gemm(probe_rows, r.shape.hidden_dim, r.shape.hidden_dim);
  r.probe_ratio = r.achieved_gflops / r.probe.gflops;
  r.nominal_gflops = r.flops_per_transition.total() / (r.ms.median / 1e3) / 1e9;
  const auto nominal_rows = std::max<std::int64_t>(1, std::llround(r.rows.transitions));
  r.probe_nominal = probe_gemm(nominal_rows, r.shape.hidden_dim, r.shape.hidden_dim);
  r.nominal_ratio = r.nominal_gflops / r.probe_nominal.gflops;
  return r;
}

namespace {

// The configuration: environment, model, training, engine paths, threads, load.
void print_configuration(const BenchResult& r, std::ostream& out) {
  const auto& c = r.config;
  const auto& s = r.shape;
  fmt::print(out, "# gfn-bench-train: trainer throughput, single trainer (world of one)\n");
  fmt::print(out, "#  config    {}\n", r.label);
  fmt::print(out, "#  env       HyperGrid ndim {} height {}, reward {}, {} input ({} features)\n",
             c.env.get<core::HyperGridOptions>().ndim, c.env.get<core::HyperGridOptions>().height,
             config::enum_name(c.env.get<core::HyperGridOptions>().reward),
             config::enum_name(c.env.preprocessor), s.input_dim);
  fmt::print(out,
             "#  model     MLP hidden {} x {} Linear layers per trunk, {} PF/PB, {} PB, learned "
             "logZ\n",
             c.model.hidden_dim, c.model.n_hidden, c.model.tied ? "tied" : "untied",
             c.model.uniform_pb ? "uniform" : "learned");
  fmt::print(out,
             "#  train     loss {}, batch {} trajectories/iteration, Adam lr {} / logZ {}, "
             "epsilon {}, temperature {}, no replay buffer\n",
             config::enum_name(c.train.loss), c.train.batch_size, c.train.lr, c.train.lr_logz,
             c.train.epsilon, c.train.temperature);
  std::string engine;
  for (const auto& [key, value] : r.engine)
    engine += (engine.empty() ? "" : ", ") + key + " " + value;
  fmt::print(out, "#  engine    {}\n", engine);
  fmt::print(out, "#  threads   at::get_num_threads() = {} (train.num_threads = {})\n", r.threads,
             c.train.num_threads);
  fmt::print(out, "#  load      1-min load average {:.2f} at start\n#\n", r.load_average);
}

// The mean time of each phase of an iteration and its share.
void print_phases(const BenchResult& r, std::ostream& out) {
  const double total_phases = r.sample_ms + r.loss_ms + r.backward_ms + r.optimizer_ms + r.hook_ms;
  const double other = r.ms.mean - total_phases;
  auto share = [&](double ms) { return 100.0 * ms / r.ms.mean; };
  fmt::print(out, "#  {:<14} {:>9} {:>7}   {}\n", "phase", "mean ms", "share", "what");
  auto row = [&](const char* name, double ms, const char* what) {
    fmt::print(out, "   {:<14} {:>9.3f} {:>6.1f}%   {}\n", name, ms, share(ms), what);
  };
  row("sample", r.sample_ms, "sample_trajectories, PF forward without autograd");
  row("loss", r.loss_ms, "TB loss: PF and PB forward with autograd");
  row("backward", r.backward_ms, "zero_grad + loss.backward()");
  row("optimizer", r.optimizer_ms, "Adam step");
  row("averaging", r.hook_ms, "0 for a single trainer: no gradient/model averaging");
  row("communication", 0.0, "0 for a single trainer: no buffer submission, no collective");
  row("other", other, "loss.item(), logZ, mode tracking (total - phases)");
  row("total", r.ms.mean, "mean wall time per iteration");
  fmt::print(out, "#\n");
}

// The rows the network evaluates and the FLOP model with its formulas.
void print_flop_model(const BenchResult& r, std::ostream& out) {
  const auto& s = r.shape;
  fmt::print(out,
             "#  rows the network evaluates (distinct states, Environment::unique), averaged over "
             "{} extra batches:\n",
             r.options.row_batches);
  fmt::print(out,
             "#    sample: {:.1f} rows in {:.1f} policy calls; loss: {:.1f} rows through PF and "
             "PB; transitions N = {:.1f}\n",
             r.rows.sample_rows, r.rows.policy_calls, r.rows.loss_rows, r.rows.transitions);
  fmt::print(out,
             "#  FLOPs/iteration (GEMMs of the Linear layers, 2 per multiply-add; bias, ReLU, "
             "softmax, Adam not counted):\n");
  fmt::print(out,
             "#    T = d0*h + (L-1)*h^2 = {}*{} + {}*{}^2 = {:.0f} MACs/row/trunk, "
             "Hpf = h*{} , Hpb = h*{}\n",
             s.input_dim, s.hidden_dim, s.n_hidden - 1, s.hidden_dim, trunk_macs(s), s.n_actions,
             s.uniform_pb ? 0 : s.n_actions - 1);
  fmt::print(out,
             "#    sample   = 2 * rows_s * (T + Hpf)                             = {:9.3f} "
             "MFLOP\n",
             r.flops.sample / 1e6);
  fmt::print(out,
             "#    loss     = 2 * rows_l * (k*T + Hpf + Hpb)        (k trunks = {}) = {:9.3f} "
             "MFLOP\n",
             (s.tied || s.uniform_pb) ? 1 : 2, r.flops.loss / 1e6);
  fmt::print(out,
             "#    backward = 2 * rows_l * (k*(2T - d0*h) + 2*(Hpf + Hpb))           = {:9.3f} "
             "MFLOP\n",
             r.flops.backward / 1e6);
  fmt::print(out,
             "#    total {:.3f} MFLOP/iteration; per transition (no deduplication, as "
             "torchgfn evaluates): {:.3f} MFLOP\n",
             r.flops.total() / 1e6, r.flops_per_transition.total() / 1e6);
}

// The GEMM probes: the iteration's own GEMM calls (same shapes) and the single shape.
void print_gemm_probes(const BenchResult& r, std::ostream& out) {
  const bool recorded = !r.gemm_recorded.empty();
  fmt::print(out,
             "#  GEMM probes (float32, this process, same thread count; each call repeated in "
             "blocks, median of 5 blocks):\n");
  fmt::print(out,
             "#    same shapes (goal basis): the GEMM calls of one iteration, each timed alone, "
             "weighted by calls/iteration;\n#      rate = sum(calls * FLOPs) / sum(calls * "
             "s/call). The calls were {} ({} iterations, ATen RecordFunction on\n#      "
             "aten::addmm / addmm_ / mm) and {} the FLOP model's list (per Linear(in, out) on r "
             "rows: forward\n#      addmm(b, x[r x in], W^T), backward grad-input mm(dy[r x out], "
             "W[out x in]) except the first layer, grad-weight\n#      mm(dy^T[out x r], "
             "x[r x in]) or addmm_ of it into the flat gradient buffer (same product); biases "
             "are\n#      sums, not GEMMs):\n",
             recorded ? "recorded from Learner::train_iteration" : "NOT recorded (model used)",
             r.options.record_iters, r.gemm_verified ? "MATCH" : "DIFFER FROM");
  fmt::print(out, "#      {:>6}  {:<12} {:<36} {:>9} {:>9} {:>8}\n", "calls", "what",
             "GEMM (C = A B)", "MFLOP", "us/call", "GFLOP/s");
  for (const auto& t : r.same_shapes.calls) {
    fmt::print(out, "#      {:>6.2f}  {:<12} {:<36} {:>9.4f} {:>9.3f} {:>8.2f}\n", t.call.count,
               t.call.what, t.call.shape_label(), t.call.flops() / 1e6, t.seconds * 1e6, t.gflops);
  }
  fmt::print(out,
             "#      total {:.3f} MFLOP (FLOP model: {:.3f}) in {:.1f} us of GEMM per iteration = "
             "{:.2f} GFLOP/s\n",
             r.same_shapes.flops / 1e6, r.flops.total() / 1e6, r.same_shapes.seconds * 1e6,
             r.same_shapes.gflops);
  if (!r.gemm_verified && recorded) {
    fmt::print(
        out,
        "#      (the FLOP model's list has {} calls of average row counts; off the state-table "
        "path the rows\n#      vary per iteration, so the recorded calls differ in rows and "
        "counts, not in kind)\n",
        r.gemm_model.size());
  }
  fmt::print(out,
             "#    single shape: addmm(b, x[{} x {}], W[{} x {}]^T) (hidden layer forward, "
             "nn::Linear's call): {:.3f} us/GEMM = {:.2f} GFLOP/s\n#\n",
             r.probe.rows, r.probe.in, r.probe.out, r.probe.in, r.probe.seconds_per_gemm * 1e6,
             r.probe.gflops);
}

// The figures: time per iteration, throughput, GFLOP/s and the GEMM rate ratios.
void print_figures(const BenchResult& r, std::ostream& out) {
  fmt::print(out, "   ms/iteration     median {:.3f}  p90 {:.3f}  mean {:.3f}  min {:.3f}\n",
             r.ms.median, r.ms.p90, r.ms.mean, r.ms.min);
  fmt::print(out,
             "   CPU ms/iteration median {:.3f}  (thread CPU time; robust to a shared machine)\n",
             r.cpu_ms.median);
  fmt::print(out, "   trajectories/s   {:.0f}  (batch / median)\n", r.trajectories_per_s);
  fmt::print(out, "   GFLOP/s          achieved {:.3f}  (total FLOPs / median)\n",
             r.achieved_gflops);
  fmt::print(out,
             "   GEMM rate        same shapes {:.2f}  ratio {:.1f}%  (whole run)   single shape "
             "{:.2f}  ratio {:.1f}%\n",
             r.same_shapes.gflops, 100.0 * r.same_shapes_ratio, r.probe.gflops,
             100.0 * r.probe_ratio);
  fmt::print(
      out,
      "   GEMM rate paired median ratio {:.1f}%  (min {:.1f}%, max {:.1f}%; ratio goal basis)  "
      "over {} rounds of {} iterations, each followed by one same-shapes probe pass (medians: "
      "{:.3f} ms/iteration, probe {:.2f} GFLOP/s)\n",
      100.0 * r.paired_ratio.median, 100.0 * r.paired_ratio.min, 100.0 * r.paired_ratio.max,
      r.paired_ratio.n, r.options.paired_iters, r.paired_ms.median, r.paired_gflops.median);
  fmt::print(out,
             "   GFLOP/s nominal  {:.3f}  (per-transition FLOPs / median: the work torchgfn does "
             "for the same batch)   GEMM probe ({} rows) {:.2f}   ratio {:.1f}%  (NOT executed "
             "work)\n",
             r.nominal_gflops, r.probe_nominal.rows, r.probe_nominal.gflops,
             100.0 * r.nominal_ratio);
}

}  // namespace

void print_report(const BenchResult& r, std::ostream& out) {
  print_configuration(r, out);
  print_phases(r, out);
  print_flop_model(r, out);
  print_gemm_probes(r, out);
  print_figures(r, out);
}

roles::ExperimentConfig load_bench_config(const std::string& path,
                                          const std::vector<std::string>& overrides) {
  roles::ExperimentConfig config = roles::load_config(path, overrides);
  python::resolve_python_path(config.env, path);
  return config;
}

}  // namespace gfn::bench
