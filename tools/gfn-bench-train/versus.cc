#include "tools/gfn-bench-train/versus.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "runtime/gfn/learner.h"
#include "runtime/process/threads.h"
#include "tools/common/harness/timing.h"

namespace gfn::bench {
namespace {

// A Learner, its plan's thread counts set once (runtime::set_thread_counts), so that
// time_iteration may switch between the two Learners' counts cheaply.
std::unique_ptr<core::Learner> make_learner(const roles::ExperimentConfig& c) {
  auto learner = std::make_unique<core::Learner>(c.env, c.model, c.train, c.train.seed,
                                                 buffer::ReplayOptions{}, c.engine, c.local_search);
  runtime::set_thread_counts(learner->plan().threads);
  return learner;
}

// Seconds of one train_iteration (its result freed after the clock stops).
// One iteration under the learner's own thread counts (set before the clock starts).
double time_iteration(core::Learner& learner, std::int64_t batch) {
  runtime::switch_thread_counts(learner.plan().threads);
  harness::Stopwatch clock;
  const core::IterationResult step = learner.train_iteration(batch);
  const double s = clock.seconds();
  (void)step;
  return s;
}

std::string engine_line(const std::map<std::string, std::string>& engine) {
  std::string out;
  for (const auto& [key, value] : engine) out += (out.empty() ? "" : ", ") + key + " " + value;
  return out;
}

}  // namespace

VersusResult run_versus(const roles::ExperimentConfig& a, const roles::ExperimentConfig& b,
                        const std::string& label, int warmup, int iters) {
  if (warmup < 0 || iters < 1) {
    throw std::invalid_argument("gfn-bench-train --versus: need --warmup >= 0 and --iters >= 1");
  }
  VersusResult r{label, a, b, {}, {}, {}, {}, {}, 0};
  const auto learner_a = make_learner(a);
  const auto learner_b = make_learner(b);
  r.engine_a = learner_a->plan().report;
  r.engine_b = learner_b->plan().report;
  for (int i = 0; i < warmup; ++i) {
    time_iteration(*learner_a, a.train.batch_size);
    time_iteration(*learner_b, b.train.batch_size);
  }
  std::vector<double> ms_a, ms_b, ratio;
  for (int i = 0; i < iters; ++i) {  // alternate which side runs first
    double sa = 0, sb = 0;
    if (i % 2 == 0) {
      sa = time_iteration(*learner_a, a.train.batch_size);
      sb = time_iteration(*learner_b, b.train.batch_size);
    } else {
      sb = time_iteration(*learner_b, b.train.batch_size);
      sa = time_iteration(*learner_a, a.train.batch_size);
    }
    ms_a.push_back(1e3 * sa);
    ms_b.push_back(1e3 * sb);
    ratio.push_back(sa / sb);
  }
  r.a_ms = harness::summarize(ms_a);
  r.b_ms = harness::summarize(ms_b);
  r.ratio = harness::summarize(ratio);
  r.ratio_of_means = r.a_ms.mean / r.b_ms.mean;
  return r;
}

void print_versus(const VersusResult& r, std::ostream& out) {
  fmt::print(out,
             "# gfn-bench-train --versus: {} (A) against the same with the --versus keys (B), "
             "interleaved in one process (each side's iterations under its own thread counts)\n",
             r.label);
  fmt::print(out, "#  engine A  {}\n#  engine B  {}\n", engine_line(r.engine_a),
             engine_line(r.engine_b));
  fmt::print(out, "#  batch A {}, B {}; threads A {}, B {}\n", r.a.train.batch_size,
             r.b.train.batch_size, r.a.train.num_threads, r.b.train.num_threads);
  for (const auto& [name, s] : {std::pair{"A", r.a_ms}, {"B", r.b_ms}}) {
    fmt::print(out, "   ms/iteration {}   median {:.3f}  mean {:.3f}  p90 {:.3f}  min {:.3f}\n",
               name, s.median, s.mean, s.p90, s.min);
  }
  fmt::print(
      out,
      "   A / B            median of the {} per-pair ratios {:.3f} (min {:.3f}, p90 {:.3f}); "
      "ratio of the means {:.3f}\n",
      r.ratio.n, r.ratio.median, r.ratio.min, r.ratio.p90, r.ratio_of_means);
}

harness::Case versus_case(const VersusResult& r) {
  harness::Case c;
  c.name = "versus";
  c.parameters = {{"config", r.label},
                  {"batch_size_a", r.a.train.batch_size},
                  {"batch_size_b", r.b.train.batch_size},
                  {"threads_a", r.a.train.num_threads},
                  {"threads_b", r.b.train.num_threads},
                  {"engine_a", r.engine_a},
                  {"engine_b", r.engine_b}};
  c.add("ms_per_iteration_a", r.a_ms, "ms").add("ms_per_iteration_b", r.b_ms, "ms");
  c.add("ratio_a_over_b", r.ratio, "ratio").add("ratio_of_means", r.ratio_of_means, "ratio");
  return c;
}

}  // namespace gfn::bench
