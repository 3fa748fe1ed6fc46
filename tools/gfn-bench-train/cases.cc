#include "tools/gfn-bench-train/cases.h"

#include <fmt/format.h>

#include "tools/gfn-bench-train/goals.h"

namespace gfn::bench {

harness::Case bench_case(const BenchResult& r) {
  const auto goal = goal_for(r.label);
  harness::Case c;
  c.name = goal ? goal->name : r.label;
  c.parameters = {{"config", r.label},
                  {"batch_size", r.config.train.batch_size},
                  {"threads", r.threads},
                  {"engine", r.engine},
                  {"gemm_verified", r.gemm_verified},
                  {"load_average_at_start", r.load_average}};
  c.add("ms_per_iteration", r.ms, "ms").add("cpu_ms_per_iteration", r.cpu_ms, "ms");
  c.add("sample_ms", r.sample_ms, "ms").add("loss_ms", r.loss_ms, "ms");
  c.add("backward_ms", r.backward_ms, "ms").add("optimizer_ms", r.optimizer_ms, "ms");
  c.add("averaging_ms", r.hook_ms, "ms");
  c.add("trajectories_per_s", r.trajectories_per_s, "1/s");
  c.add("mflop_per_iteration", r.flops.total() / 1e6, "MFLOP");
  c.add("mflop_per_transition", r.flops_per_transition.total() / 1e6, "MFLOP");
  c.add("achieved_gflops", r.achieved_gflops, "GFLOP/s");
  c.add("same_shapes_gflops", r.same_shapes.gflops, "GFLOP/s");
  c.add("same_shapes_ratio", r.same_shapes_ratio, "ratio");
  c.add("paired_ratio", r.paired_ratio, "ratio").add("paired_ms", r.paired_ms, "ms");
  c.add("paired_probe_gflops", r.paired_gflops, "GFLOP/s");
  c.add("single_shape_gflops", r.probe.gflops, "GFLOP/s");
  c.add("single_shape_ratio", r.probe_ratio, "ratio");
  c.add("nominal_gflops", r.nominal_gflops, "GFLOP/s");
  c.add("nominal_probe_gflops", r.probe_nominal.gflops, "GFLOP/s");
  c.add("nominal_ratio", r.nominal_ratio, "ratio");
  return c;
}

std::vector<harness::Goal> bench_goals(const BenchResult& r) {
  const auto g = goal_for(r.label);
  if (!g) return {};
  std::vector<harness::Goal> goals;
  goals.push_back(
      {g->name + ": ms/iteration",
       fmt::format("median ms/iteration <= {:.1f} (torchgfn {:.1f} ms)", g->max_ms, g->torchgfn_ms),
       r.ms.median, "ms", harness::judge_at_most(r.ms.median, g->max_ms),
       fmt::format("{:.1f}x faster than torchgfn", g->torchgfn_ms / r.ms.median)});
  if (g->min_probe_ratio > 0) {
    goals.push_back(
        {g->name + ": paired GEMM-rate ratio",
         fmt::format("paired median ratio >= {:.0f}%", 100.0 * g->min_probe_ratio),
         r.paired_ratio.median, "ratio",
         harness::judge_at_least(r.paired_ratio.median, g->min_probe_ratio),
         fmt::format("min {:.1f}%, max {:.1f}% over {} rounds", 100.0 * r.paired_ratio.min,
                     100.0 * r.paired_ratio.max, r.paired_ratio.n)});
  }
  return goals;
}

}  // namespace gfn::bench
