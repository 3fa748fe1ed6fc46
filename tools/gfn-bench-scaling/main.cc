// gfn-bench-scaling: what adding trainer and buffer-manager ranks buys. Runs gfn-train
// under the MPI launcher in several layouts (layouts.h: 1 trainer; 2 trainers without a
// manager; 2 trainers + 1 manager with sync / async / fire_and_forget submission;
// 3 trainers + 1 manager, and 3 trainers without one as its baseline), interleaved
// round-robin over --rounds rounds, and prints medians over rounds of trajectories/s,
// ms/iteration, the efficiency against as many trainers without a manager (a ratio
// within each round), the manager's CPU and wall time, and the goals (goals.h).
//
//   build/bin/gfn-bench-scaling                          # 5 rounds of layouts 1-6 (+7)
//   build/bin/gfn-bench-scaling --rounds 1 --iterations 20 --layouts 1,3
//   build/bin/gfn-bench-scaling --layouts 3-5 --submit-every 10   # idle manager CPU
//
// Shared benchmark flags (tools/common/harness/front.h): --json FILE (the method, every
// layout's figures over rounds, the goals), --quick, and --repeats for --rounds.
// Paths (--binary, --mpirun, --config) are relative to the current directory, the
// repository root by default. Exit codes: 0 every run succeeded (goals may FAIL: the
// output says so), 1 a run failed or could not be read, 2 bad command line.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tools/common/child_process.h"
#include "tools/common/harness/front.h"
#include "tools/gfn-bench-scaling/aggregate.h"
#include "tools/gfn-bench-scaling/goals.h"
#include "tools/gfn-bench-scaling/layouts.h"
#include "tools/gfn-bench-scaling/report.h"

namespace fs = std::filesystem;
using namespace gfn::bench_scaling;
namespace harness = gfn::harness;

namespace {

// Runs one layout once; the figures, or nullopt after printing why it failed.
std::optional<RunFigures> run_once(const Layout& layout, const Command& command,
                                   const fs::path& dir, double timeout_s) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = (dir / "run.log").string();
  const auto child = gfn::tools::run_logged(command.program, command.args,
                                            fs::current_path().string(), log, timeout_s);
  std::string problem;
  if (child.timed_out) {
    problem = fmt::format("timed out after {:.0f} s", timeout_s);
  } else if (child.exit_code != 0) {
    problem = fmt::format("exit code {}: {}", child.exit_code,
                          gfn::tools::last_error_line(gfn::tools::read_text_file(log)));
  }
  RunFigures f;
  if (problem.empty()) {
    try {
      f.job = read_job_summary((dir / "summary.json").string());
      if (layout.managers > 0) {
        f.manager = read_managers(dir.string());
        if (!f.manager) problem = fmt::format("no buffer_manager_<rank>.json in {}", dir.string());
      }
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  if (!problem.empty()) {
    fmt::print("#   FAILED: {} (log: {})\n", problem, log);
    return std::nullopt;
  }
  return f;
}

// The command line.
struct Options {
  RunSettings settings;
  int rounds = 5;
  std::string layouts_text = "1-6";
  std::string binary = "build/bin/gfn-train", mpirun = "tools/mpirun.sh", out_dir;
  double timeout_s = 900;
  bool dry_run = false;
};

void add_options(CLI::App& app, harness::Front& front, Options& o) {
  front.add_repetitions(o.rounds, "--rounds", "rounds; each runs every layout once");
  app.add_option("--iterations", o.settings.iterations, "train.n_iterations of every run")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100000000}));
  app.add_option("--layouts", o.layouts_text,
                 "layouts to run: ids or ranges, e.g. 1,3 or 3-5 (1-6; 7 = 3 trainers without a "
                 "manager, added as 6's baseline; 2 is added as 3-5's)");
  app.add_option("--submit-every", o.settings.submit_every,
                 "buffer.remote_buffer_freq of the layouts with a manager (10: a mostly idle "
                 "manager, for its CPU time)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}));
  app.add_option("--batch-per-trainer", o.settings.batch_per_trainer,
                 "trajectories per trainer per iteration (train.batch_size = this x trainers)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}));
  app.add_option("--capacity", o.settings.capacity, "buffer.capacity")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000000}));
  app.add_option("--config", o.settings.config, "base configuration (YAML)")
      ->check(CLI::ExistingFile);
  app.add_option("--binary", o.binary, "the gfn-train binary");
  app.add_option("--mpirun", o.mpirun,
                 "the MPI launcher (called as <mpirun> -np <n> <binary> ...)");
  app.add_option("--out", o.out_dir,
                 "directory of the runs (round<r>/<layout>/), default a new temporary directory");
  app.add_option("--extra-set", o.settings.extra_sets,
                 "key=value passed to every run as --set (repeatable; wins over the others)");
  app.add_option("--timeout", o.timeout_s, "seconds per run")->check(CLI::PositiveNumber);
  app.add_flag("--dry-run", o.dry_run, "print the commands of one round, run nothing");
}

fs::path run_dir(const Options& o, int round, const Layout& l) {
  return fs::path(o.out_dir) / fmt::format("round{}", round + 1) / l.slug;
}

// Every round runs every layout of `order` once; false if a run failed.
bool run_rounds(const Options& o, const std::vector<int>& order, Results& results) {
  bool any_failed = false;
  for (int r = 0; r < o.rounds; ++r) {
    for (int id : order) {
      const auto& l = layout_by_id(id);
      const fs::path dir = run_dir(o, r, l);
      const auto command = job_command(l, o.settings, o.mpirun, o.binary, dir.string());
      fmt::print("# round {}/{}  layout {} ({}, np {}) ...\n", r + 1, o.rounds, id, l.short_label,
                 l.np());
      std::fflush(stdout);
      const auto figures = run_once(l, command, dir, o.timeout_s);
      if (figures) {
        results.record(id, r, *figures);
        fmt::print("{}\n", run_line(r, o.rounds, l, *figures));
      } else {
        any_failed = true;
      }
      std::fflush(stdout);
    }
  }
  return !any_failed;
}

// The table of medians over rounds and the goal lines; the goals join `json`.
std::string summary_text(const Options& o, const std::vector<int>& order, const Results& results,
                         harness::Report& json) {
  std::map<int, LayoutSummary> summaries;
  for (int id : order) summaries[id] = summarize(results, id);
  std::string report =
      fmt::format("#\n# Medians over {} round{} ({} iterations per run; * = a baseline layout)\n",
                  o.rounds, o.rounds > 1 ? "s" : "", o.settings.iterations);
  report += table_text(order, summaries, o.rounds);
  report += "#\n# Goals (medians over rounds; efficiency = within-round ratio)\n";
  if (o.settings.submit_every != 1) {
    report += fmt::format(
        "# note: measured with --submit-every {}; the goals are for submission every "
        "iteration\n",
        o.settings.submit_every);
  }
  json.cases = layout_cases(order, summaries);
  for (const auto& g : judge_goals(summaries)) {
    report += goal_line(g) + "\n";
    json.goals.push_back(report_goal(g));
  }
  return report;
}

// The method statement, the rounds (or, with --dry-run, one round's commands), the table
// and the goals, written to <out>/report.txt and --json; the exit code.
int run_study(Options o, const std::vector<int>& order, const harness::Front& front, int argc,
              char** argv) {
  o.binary = fs::absolute(o.binary).string();
  o.mpirun = gfn::tools::resolve_program(o.mpirun);
  if (o.out_dir.empty())
    o.out_dir =
        o.dry_run ? "<temporary directory>" : gfn::tools::make_temp_dir("gfn-bench-scaling");
  if (!o.dry_run) o.out_dir = fs::absolute(o.out_dir).string();
  const MethodInfo method{o.settings, o.rounds, order, o.binary, o.mpirun, o.out_dir};
  const harness::Method statement = scaling_method(front.method(argc, argv), o.rounds);
  const std::string head = harness::method_statement(statement) + method_text(method);
  fmt::print("{}", head);
  std::fflush(stdout);

  if (o.dry_run) {
    for (int id : order) {
      const auto& l = layout_by_id(id);
      fmt::print(
          "{}\n",
          job_command(l, o.settings, o.mpirun, o.binary, run_dir(o, 0, l).string()).to_string());
    }
    return 0;
  }

  Results results(o.rounds);
  const bool all_ok = run_rounds(o, order, results);
  harness::Report json{front.tool(), statement, {}, {}};
  const std::string report = summary_text(o, order, results, json);
  fmt::print("{}", report);
  std::ofstream(fs::path(o.out_dir) / "report.txt") << head << report;
  front.write_json(json);
  if (!all_ok) {
    fmt::print("# some runs failed (see the FAILED lines above)\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Throughput of gfn-train trainer / buffer-manager layouts, round-robin over rounds"};
  app.footer("Layouts, method and figures: docs/performance.md \"Distributed scaling\".");
  Options o;
  harness::Front front(app, "gfn-bench-scaling", "--rounds 1 --iterations 20 --layouts 1,3");
  add_options(app, front, o);
  CLI11_PARSE(app, argc, argv);
  front.quick_default("--rounds", o.rounds, 1);
  front.quick_default("--iterations", o.settings.iterations, 20);
  front.quick_default("--layouts", o.layouts_text, "1,3");

  std::vector<int> order;
  try {
    order = run_order(parse_layout_list(o.layouts_text));
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "gfn-bench-scaling: error: {}\n", e.what());
    return 2;
  }
  if (!fs::is_regular_file(o.binary)) {
    fmt::print(stderr, "gfn-bench-scaling: error: --binary {} does not exist\n", o.binary);
    return 2;
  }

  try {
    return run_study(o, order, front, argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gfn-bench-scaling: error: {}\n", e.what());
    return 1;
  }
}
