// gfn-bench-discovery: how fast a population of agents discovers the modes, by spawn policy
// (docs/spawn.md "Spawn policies"; torchgfn's multinode study: HyperGrid ndim 8, height 8, R0 0.01,
// TB, batch 256, configs/discovery_8d.yaml). For each layout of 1, 2, 4 agents (trainer
// ranks, plus one buffer manager whose SCOREs are the agents' metric) and each policy
// (average_all, selective, selective_random = selective + spawn.random_strategies), over
// several seeds, it runs gfn-train under the MPI launcher with the config's trajectory
// budget (train.n_trajectories, the same global budget for every layout), reads
// modes_timeline.csv, and prints medians of: modes found at the budget, trajectories and
// wall seconds to 50 % and 90 % of the modes, and the winning policy per agent count.
//
//   build/bin/gfn-bench-discovery                                 # configs/discovery_small.yaml
//   build/bin/gfn-bench-discovery --config configs/discovery_8d.yaml --seeds 5
//   build/bin/gfn-bench-discovery --agents 1,2 --policies average_all,selective --seeds 1
//       --set train.n_trajectories=2000                       # (one command line)
//   build/bin/gfn-bench-discovery --quick --json report.json    # the smoke run, as JSON
//
// Shared benchmark flags (tools/common/harness/front.h): --json FILE (the method and every
// cell's medians), --quick, and --repeats for --seeds.
// More agents than cores oversubscribe (tools/mpirun.sh): wall seconds then measure the
// machine as much as the policy; trajectories do not. Paths are relative to the current
// directory (the repository root by default). Exit codes: 0 every run succeeded, 1 a run
// failed (the table still prints), 2 bad command line.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/common/child_process.h"
#include "tools/common/harness/front.h"
#include "tools/common/json_file.h"
#include "tools/gfn-bench-discovery/study.h"

namespace fs = std::filesystem;
using namespace gfn::bench_discovery;
namespace harness = gfn::harness;

namespace {

harness::Method discovery_method(harness::Method base, int seeds, const std::string& config) {
  return base.describe(
      "each run is one gfn-train job (the agents as trainer ranks + 1 buffer manager) under the "
      "MPI launcher with the trajectory budget of " +
          config + "; its modes_timeline.csv gives the figures",
      0, seeds, "seeds per cell (train.seed = 1..N)",
      {"modes@budget = modes found with the whole budget; traj->50% / traj->90% = trajectories "
       "until 50 % / 90 % of the modes; s->50% / s->90% = wall seconds until then",
       "medians over the successful seeds; a milestone some seed missed counts as missing"});
}

RunResult run_once(int agents, const Policy& policy, std::uint64_t seed, const std::string& mpirun,
                   const std::string& binary, const std::string& config,
                   const std::vector<std::string>& sets, const fs::path& dir, double timeout_s) {
  RunResult r;
  r.agents = agents;
  r.policy = policy.name;
  r.seed = seed;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> args = {"-np",
                                   std::to_string(agents + 1),
                                   binary,
                                   "--config",
                                   config,
                                   "--set",
                                   "layout.num_buffers=1",
                                   "--set",
                                   "layout.coordinator=false",
                                   "--set",
                                   "train.seed=" + std::to_string(seed),
                                   "--set",
                                   "output.dir=" + dir.string()};
  for (const auto& s : policy.sets) args.insert(args.end(), {"--set", s});
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const std::string log = (dir / "run.log").string();
  const auto child =
      gfn::tools::run_logged(mpirun, args, fs::current_path().string(), log, timeout_s);
  r.wall_s = child.wall_s;
  if (child.timed_out || child.exit_code != 0) {
    r.problem = child.timed_out
                    ? fmt::format("timed out after {:.0f} s", timeout_s)
                    : fmt::format("exit code {}: {}", child.exit_code,
                                  gfn::tools::last_error_line(gfn::tools::read_text_file(log)));
    return r;
  }
  try {
    const auto summary = gfn::tools::read_json_file((dir / "summary.json").string());
    const auto n_modes = static_cast<std::int64_t>(
        gfn::tools::number_at(summary, "n_modes", (dir / "summary.json").string()));
    if (n_modes <= 0) {
      // HyperGrid finds its modes by enumerating the grid (runtime/gfn/env/hypergrid.h,
      // at most 2^22 states): a larger grid has no mode set to count against.
      r.problem =
          "summary.json n_modes = 0: the environment has no mode set to count (a "
          "HyperGrid above 2^22 states is not enumerated, so its modes are unknown)";
      return r;
    }
    r.timeline =
        read_total_timeline(gfn::tools::read_text_file((dir / "modes_timeline.csv").string()));
    summarise(r, r.timeline, n_modes);
    const std::string path = (dir / "summary.json").string();
    if (const auto fresh = gfn::tools::optional_number_at(summary, "fresh_sample_modes", path)) {
      r.fresh_modes = static_cast<std::int64_t>(*fresh);
    }
    r.mode_probability =
        gfn::tools::optional_number_at(summary, "mode_probability", path).value_or(-1.0);
    r.ok = true;
  } catch (const std::exception& e) {
    r.problem = e.what();
  }
  return r;
}

// The command line.
struct Options {
  std::string config = "configs/discovery_small.yaml";
  std::vector<int> agent_counts = {1, 2, 4};
  std::vector<std::string> policy_names = {"average_all", "selective", "selective_random"};
  int seeds = 3;
  std::string binary = "build/bin/gfn-train";
  std::string mpirun = "tools/mpirun.sh";
  std::string out_dir;
  double timeout_s = 3600;
  std::vector<std::string> sets;
  std::vector<std::string> technique_specs;
};

// The study's axes: before the Front's options in --help.
void add_study_options(CLI::App& app, Options& o) {
  app.add_option("--config", o.config, "gfn-train config of the study");
  app.add_option("--agents", o.agent_counts, "agent counts (trainer ranks)")->delimiter(',');
  app.add_option("--policies", o.policy_names, "average_all, selective, selective_random")
      ->delimiter(',');
}

void add_run_options(CLI::App& app, harness::Front& front, Options& o) {
  front.add_repetitions(o.seeds, "--seeds", "seeds per cell (train.seed = 1..N)");
  app.add_option("--binary", o.binary, "gfn-train");
  app.add_option("--mpirun", o.mpirun, "MPI launcher");
  app.add_option("--out", o.out_dir, "run directories (default: a temporary directory)");
  app.add_option("--timeout", o.timeout_s, "seconds per run");
  app.add_option("--set", o.sets, "extra gfn-train override section.key=value (repeatable)");
  app.add_option("--technique", o.technique_specs,
                 "a technique axis, NAME=section.key=value;section.key=value (repeatable; "
                 "NAME= is the baseline): every policy runs with every technique");
}

// The trajectory budget a run's summary.json reports: the trajectories sampled forward
// (replayed items cost nothing), else the batches'.
std::int64_t read_budget(const fs::path& dir) {
  const std::string path = (dir / "summary.json").string();
  const auto s = gfn::tools::read_json_file(path);
  return static_cast<std::int64_t>(gfn::tools::optional_number_at(s, "trajectories_sampled", path)
                                       .value_or(gfn::tools::number_at(s, "trajectories", path)));
}

// Every run of the study, and the budget the table names (the config's, after the extra
// overrides, from the first run that succeeded).
struct Study {
  std::vector<RunResult> runs;
  std::int64_t budget = 0;
  bool all_ok = true;
};

Study run_study(const Options& o, const std::vector<Policy>& policies, const fs::path& root) {
  Study study;
  for (int seed = 1; seed <= o.seeds; ++seed) {  // seeds outermost: a partial study is balanced
    for (int agents : o.agent_counts) {
      for (const auto& policy : policies) {
        const fs::path dir = root / fmt::format("a{}_{}_s{}", agents, policy.name, seed);
        auto r = run_once(agents, policy, static_cast<std::uint64_t>(seed), o.mpirun, o.binary,
                          o.config, o.sets, dir, o.timeout_s);
        if (r.ok && study.budget == 0) study.budget = read_budget(dir);
        std::printf("%s\n",
                    r.ok ? fmt::format("agents {} {} seed {}: {}/{} modes, {:.1f} s", agents,
                                       policy.name, seed, r.modes_at_budget, r.n_modes, r.wall_s)
                               .c_str()
                         : fmt::format("agents {} {} seed {}: FAILED ({}), see {}", agents,
                                       policy.name, seed, r.problem, dir.string())
                               .c_str());
        std::fflush(stdout);
        study.all_ok = study.all_ok && r.ok;
        study.runs.push_back(std::move(r));
      }
    }
  }
  return study;
}

// The table, the exact sampler's line, <root>/curves.csv and the JSON report; the exit
// code.
int report_study(const Study& study, const Options& o, const fs::path& root,
                 const harness::Method& method, const harness::Front& front) {
  std::printf("\n%s", format_table(study.runs, study.budget).c_str());
  double p = -1;  // the environment's exact sampler, from the first run that knows
  for (const auto& r : study.runs) {
    if (r.ok && r.mode_probability > 0 && r.mode_probability < 1) {
      p = r.mode_probability;
      std::printf("%s", format_exact_sampler(r.n_modes, p, study.budget).c_str());
      break;
    }
  }
  const fs::path curves = root / "curves.csv";
  if (FILE* f = std::fopen(curves.string().c_str(), "w")) {
    const std::string text = curves_csv(study.runs, p, study.budget);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    std::printf("curves: tools/gfn-plot --discovery %s\n", curves.string().c_str());
  }
  std::printf("runs in %s; config %s\n", root.string().c_str(), o.config.c_str());
  try {
    front.write_json(
        {front.tool(), method, cell_cases(summarise_cells(study.runs), study.budget), {}});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-discovery: %s\n", e.what());
    return 1;
  }
  return study.all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gfn-bench-discovery: modes found vs trajectories by spawn policy and agents"};
  app.footer(
      "The cells and columns: docs/spawn.md \"Mode discovery by policy: gfn-bench-discovery\"; "
      "figures: docs/results/discovery.md \"Small grid: HyperGrid 4-D, 16 modes\".");
  Options o;
  add_study_options(app, o);
  harness::Front front(app, "gfn-bench-discovery",
                       "--agents 1,2 --policies average_all,selective --seeds 1 --set "
                       "train.n_trajectories=2560");
  add_run_options(app, front, o);
  CLI11_PARSE(app, argc, argv);
  front.quick_default("--agents", o.agent_counts, std::vector<int>{1, 2});
  front.quick_default("--policies", o.policy_names,
                      std::vector<std::string>{"average_all", "selective"});
  front.quick_default("--seeds", o.seeds, 1);
  front.quick_default("--set", o.sets, std::vector<std::string>{"train.n_trajectories=2560"});
  std::vector<Policy> policies;
  try {
    policies = policies_named(o.policy_names);
    std::vector<Policy> techniques;
    for (const auto& spec : o.technique_specs) techniques.push_back(parse_technique(spec));
    policies = cross_techniques(policies, techniques);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-bench-discovery: %s\n", e.what());
    return 2;
  }
  const fs::path root = o.out_dir.empty()
                            ? fs::path(gfn::tools::make_temp_dir("gfn-bench-discovery"))
                            : fs::path(o.out_dir);
  o.binary = fs::absolute(o.binary).string();
  o.mpirun = gfn::tools::resolve_program(o.mpirun);

  const harness::Method method = discovery_method(front.method(argc, argv), o.seeds, o.config);
  std::printf("%s#\n", harness::method_statement(method).c_str());
  const Study study = run_study(o, policies, root);
  return report_study(study, o, root, method, front);
}
