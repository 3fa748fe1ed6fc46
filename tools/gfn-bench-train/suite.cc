#include "tools/gfn-bench-train/suite.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "roles/experiment/experiment.h"
#include "runtime/gfn/agent.h"
#include "runtime/process/threads.h"

namespace gfn::bench {

namespace fs = std::filesystem;

std::vector<SuiteScenario> suite_scenarios(const SuiteOptions& options) {
  if (!fs::is_directory(options.dir))
    throw std::invalid_argument("--suite: no directory " + options.dir);
  std::vector<SuiteScenario> all;
  for (const auto& entry : fs::directory_iterator(options.dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      all.push_back({entry.path().stem().string(), entry.path().string()});
  }
  if (all.empty()) throw std::invalid_argument("--suite: no .yaml file in " + options.dir);
  std::sort(all.begin(), all.end(),
            [](const SuiteScenario& a, const SuiteScenario& b) { return a.name < b.name; });
  if (options.scenarios.empty()) return all;
  std::vector<SuiteScenario> chosen;
  for (const auto& name : options.scenarios) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const SuiteScenario& s) { return s.name == name; });
    if (it == all.end()) {
      std::string there;
      for (const auto& s : all) there += (there.empty() ? "" : ", ") + s.name;
      throw std::invalid_argument("--scenario " + name + ": no " + name + ".yaml in " +
                                  options.dir + " (scenarios there: " + there + ")");
    }
    chosen.push_back(*it);
  }
  return chosen;
}

SuiteCase run_suite_case(const roles::ExperimentConfig& config, const std::string& scenario,
                         int warmup, int iters, const std::string& profile_path) {
  if (warmup < 0 || iters < 1)
    throw std::invalid_argument("gfn-bench-train --suite: need --warmup >= 0 and --iters >= 1");
  // A Learner, or a ContinuousLearner for a continuous scenario (tb_box_2d).
  const std::unique_ptr<core::Agent> agent =
      core::make_agent(config.env, config.model, config.train, config.train.seed,
                       buffer::ReplayOptions{}, config.engine, config.local_search);
  core::Agent& learner = *agent;
  runtime::set_thread_counts(learner.plan().threads);
  SuiteCase c;
  c.scenario = scenario;
  c.batch_size = config.train.batch_size;
  for (const auto& p : learner.module().parameters())
    if (p.requires_grad()) c.n_params += p.numel();
  c.engine = learner.plan().report;
  c.times = time_iterations(learner, c.batch_size, harness::Repetitions{warmup, iters},
                            profile_path.empty() ? profile_path
                                                 : profile_path + "." + scenario + ".b" +
                                                       std::to_string(c.batch_size) + ".json");
  return c;
}

std::vector<SuiteCase> run_suite(const SuiteOptions& options, std::ostream& out) {
  const auto scenarios = suite_scenarios(options);
  for (const int b : options.batch_sizes)
    if (b < 1) throw std::invalid_argument("--batch-sizes: every size must be >= 1");
  std::vector<SuiteCase> cases;
  print_suite_header(out);
  for (const int batch : options.batch_sizes) {
    for (const auto& s : scenarios) {
      std::vector<std::string> overrides = options.overrides;
      overrides.push_back("train.batch_size=" + std::to_string(batch));
      const roles::ExperimentConfig config = load_bench_config(s.path, overrides);
      cases.push_back(
          run_suite_case(config, s.name, options.warmup, options.iters, options.profile_path));
      print_suite_row(cases.back(), out);
      out.flush();
    }
  }
  return cases;
}

void print_suite_header(std::ostream& out) {
  fmt::print(out, "#  {:<24} {:>6} {:>9} {:>20} {:>9} {:>9} {:>9} {:>9}\n", "scenario", "batch",
             "params", "ms/iter (mean ± sd)", "sample", "loss", "backward", "optimizer");
}

void print_suite_row(const SuiteCase& c, std::ostream& out) {
  const IterationTimes& t = c.times;
  fmt::print(out, "   {:<24} {:>6} {:>9} {:>20} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n", c.scenario,
             c.batch_size, c.n_params, fmt::format("{:.3f} ± {:.3f}", t.ms.mean, t.ms.stddev),
             t.sample_ms, t.loss_ms, t.backward_ms, t.optimizer_ms);
}

harness::Case suite_report_case(const SuiteCase& c) {
  harness::Case r;
  r.name = c.scenario + "/b" + std::to_string(c.batch_size);
  r.parameters = {{"scenario", c.scenario},
                  {"batch_size", c.batch_size},
                  {"n_params", c.n_params},
                  {"engine", c.engine}};
  r.add("ms_per_iteration", c.times.ms, "ms").add("cpu_ms_per_iteration", c.times.cpu_ms, "ms");
  r.add("sample_ms", c.times.sample_ms, "ms").add("loss_ms", c.times.loss_ms, "ms");
  r.add("backward_ms", c.times.backward_ms, "ms").add("optimizer_ms", c.times.optimizer_ms, "ms");
  return r;
}

}  // namespace gfn::bench
