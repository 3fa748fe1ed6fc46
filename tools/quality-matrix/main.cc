// gfn-quality-matrix: runs the quality matrix (docs/results/quality-matrix.md "Quality matrix")
// with gfn-train (one single-rank run per cell and seed) and writes a markdown table.
//
//   build/bin/gfn-quality-matrix --gfn-train build/bin/gfn-train
//   build/bin/gfn-quality-matrix --gfn-train build/bin/gfn-train --only 'hypergrid_2d/fm'
//   build/bin/gfn-quality-matrix --gfn-train build/bin/gfn-train --smoke --iterations 3
//   build/bin/gfn-quality-matrix --gfn-train build/bin/gfn-train --only discrete_ebm --reuse-runs
//
// Runs from --repo (configs/ are relative to it); each run writes
// <out-dir>/<cell id>/seed<k>/{summary.json,run.log}; the table goes to --table
// (default tools/quality-matrix/last_table.md). Each cell is judged on l1_visited at the
// validation torchgfn's test asserts on (schedule.h): its run validates there
// (validation.interval) and that row of metrics.csv is read and checked (iteration,
// trajectories, n_visited); a Box cell on the KDE jsd of its final validation (summary.json,
// torchgfn's test_box target); a cell torchgfn has no target for (the Ising lattice, the
// bit-sequence benchmark scenarios) is judged at the end of its run on our own bar (cells.h
// LearningBar; training.csv gives the loss). With --reuse-runs the cells --only leaves out are
// read from their previous run directories instead of being dropped, so the table is complete.
// Shared benchmark flags (tools/common/harness/front.h): --json FILE (every cell's figures
// over its seeds and its verdict) and --quick (the smoke matrix, 3 iterations).
// Exit codes: 0 table written (cells may
// FAIL: the table says so), 1 a run could not be started or the table not written,
// 2 bad command line.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "tools/common/harness/front.h"
#include "tools/quality-matrix/cells.h"
#include "tools/quality-matrix/json_report.h"
#include "tools/quality-matrix/run.h"
#include "tools/quality-matrix/table.h"

namespace fs = std::filesystem;
using namespace gfn::quality;
namespace harness = gfn::harness;

namespace {

std::string command_line(int argc, char** argv) {
  std::string s = "gfn-quality-matrix";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

std::vector<std::string> replay_probe_sets(const ReplaySettings& rs) {
  return {"replay.kind=" + rs.kind, fmt::format("replay.capacity={}", rs.capacity_tb),
          fmt::format("replay.fraction={}", rs.fraction)};
}

// The command line.
struct Options {
  std::string gfn_train, repo = ".", out_dir = "runs/quality-matrix";
  std::string table_path = "tools/quality-matrix/last_table.md", only;
  int tb_seeds = 3;
  int seeds = 0;
  std::string seeds_for;
  long long iterations = 0;
  long long validation_samples = 0;
  std::vector<std::string> user_sets;
  double timeout_s = 1800;
  bool smoke = false, dry_run = false, reuse_runs = false;
  ReplaySettings replay;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--gfn-train", o.gfn_train, "path of the gfn-train binary")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--repo", o.repo, "repository root (configs/ are relative to it)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--out-dir", o.out_dir, "run directories (relative to --repo unless absolute)");
  app.add_option("--table", o.table_path, "markdown output (relative to --repo unless absolute)");
  app.add_option("--only", o.only, "run only the cells whose id matches this regex (ECMAScript)");
  app.add_option("--tb-seeds", o.tb_seeds, "seeds 1..n for the TB cells")->check(CLI::Range(1, 10));
  auto* seeds_for_opt = app.add_option(
      "--seeds-for", o.seeds_for,
      "give the cells whose id matches this regex (ECMAScript) seeds 1..--seeds "
      "(the verdict is judged on the mean over seeds and shows seed 1, the spread and how many "
      "seeds are within the bar)");
  app.add_option("--seeds", o.seeds, "number of seeds of the --seeds-for cells")
      ->check(CLI::Range(1, 100))
      ->needs(seeds_for_opt);
  seeds_for_opt->needs("--seeds");
  app.add_option("--iterations", o.iterations, "override train.n_iterations (smoke runs)")
      ->check(CLI::Range(1LL, 1000000LL));
  app.add_option("--validation-samples", o.validation_samples,
                 "override validation.n_samples (smoke runs)")
      ->check(CLI::Range(1LL, 100000000LL));
  app.add_option("--set", o.user_sets,
                 "KEY=VALUE passed to every gfn-train run as --set (repeatable; e.g. "
                 "engine.precision=bf16 for an A/B matrix)");
  app.add_option("--timeout", o.timeout_s, "seconds per run")->check(CLI::PositiveNumber);
  std::vector<std::string> buffered_kinds;  // replay.kind's names (options.h), but none
  for (const auto& entry : gfn::buffer::kReplayKindNames) {
    if (entry.value != gfn::buffer::ReplayKind::kNone) buffered_kinds.push_back(entry.name);
  }
  app.add_option("--replay-kind", o.replay.kind, "replay.kind of the buffered cells")
      ->check(CLI::IsMember(buffered_kinds));
  app.add_flag("--smoke", o.smoke, "the 2-cell smoke matrix instead of the full one");
  app.add_flag("--dry-run", o.dry_run, "print the gfn-train commands, run nothing");
  app.add_flag("--reuse-runs", o.reuse_runs,
               "cells not matched by --only (all cells without --only) are not run: their "
               "previous run directories under --out-dir are read, and the table lists every "
               "cell");
}

// The cells of the table and, for each, whether it is run (otherwise, with --reuse-runs,
// its previous runs are read).
struct Plan {
  std::vector<Cell> cells;
  std::vector<bool> to_run;
};

// The matrix after --only / --reuse-runs, --seeds-for and --validation-samples; nullopt
// after printing which regex matches no cell. Throws std::regex_error for a bad regex.
std::optional<Plan> plan_cells(const Options& o) {
  Plan plan;
  plan.cells = o.smoke ? smoke_matrix() : full_matrix(o.tb_seeds, o.replay);
  plan.to_run.assign(plan.cells.size(), !o.reuse_runs);
  if (!o.only.empty()) {
    const std::regex pattern(o.only);
    Plan kept;
    bool any = false;
    for (auto& c : plan.cells) {
      const bool match = std::regex_search(c.id, pattern);
      any = any || match;
      if (match || o.reuse_runs) {
        kept.cells.push_back(std::move(c));
        kept.to_run.push_back(match);
      }
    }
    if (!any) {
      fmt::print(stderr, "gfn-quality-matrix: error: --only '{}' matches no cell\n", o.only);
      return std::nullopt;
    }
    plan = std::move(kept);
  }
  if (!o.seeds_for.empty()) {
    const std::regex pattern(o.seeds_for);
    bool any = false;
    for (auto& c : plan.cells) {
      if (!std::regex_search(c.id, pattern)) continue;
      any = true;
      c.seeds.clear();
      for (int s = 1; s <= o.seeds; ++s) c.seeds.push_back(static_cast<std::uint64_t>(s));
    }
    if (!any) {
      fmt::print(stderr, "gfn-quality-matrix: error: --seeds-for '{}' matches no cell\n",
                 o.seeds_for);
      return std::nullopt;
    }
  }
  for (auto& c : plan.cells) {
    if (o.validation_samples > 0) c.validation_samples = o.validation_samples;
  }
  return plan;
}

// Where and how the runs go.
struct RunContext {
  fs::path root;       // --repo, absolute
  fs::path runs_root;  // --out-dir, absolute
  std::string train_bin;
  std::vector<std::string> extra;  // --set arguments of every run
  std::string replay_refusal;      // why this gfn-train has no replay buffer ("" if it has)
};

// Why the buffered cells cannot run ("" if they can, or none of them runs): asks
// gfn-train once and says so.
std::string probe_replay(const Options& o, const Plan& plan, const RunContext& ctx) {
  bool any_replay = false;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    any_replay = any_replay || (plan.to_run[i] && plan.cells[i].replay);
  }
  if (!any_replay || o.dry_run) return "";
  const std::string refusal = probe_replay_support(ctx.train_bin, "configs/hypergrid_2d.yaml",
                                                   replay_probe_sets(o.replay), ctx.root.string());
  if (!refusal.empty()) {
    fmt::print("replay buffer not available in this gfn-train ({}): buffered cells are n/a\n",
               refusal);
  }
  return refusal;
}

void print_outcome(const Cell& cell, std::uint64_t seed, bool reused,
                   const std::optional<ValidationPoint>& point, const RunOutcome& outcome) {
  if (outcome.status == RunStatus::kOk && cell.target.metric == TargetMetric::kJsd) {
    const auto& m = *outcome.metrics;
    fmt::print("{} seed {}{}: jsd {:.3g} at the end (iteration {}), |logZ err| {:.3g} ({:.1f} s)\n",
               cell.id, seed, reused ? " (reused)" : "", m.jsd, m.iterations, m.logz_error,
               outcome.wall_s);
  } else if (outcome.status == RunStatus::kOk && !point) {  // our own bar (Cell::bar)
    const auto& m = *outcome.metrics;
    const std::string l1 = enumerable(cell) ? fmt::format("sum-L1 exact {:.4f} sampled {:.4f}, ",
                                                          m.l1_exact, m.l1_sampled)
                                            : "";
    fmt::print(
        "{} seed {}{}: {}modes found {}/{}, {} in fresh samples, loss ratio {:.3g}, logZ {:.4f} "
        "(|logZ err| {:.3g}) ({:.1f} s)\n",
        cell.id, seed, reused ? " (reused)" : "", l1, m.modes_found, m.n_modes,
        m.fresh_sample_modes, m.loss_ratio, m.logz, m.logz_error, outcome.wall_s);
  } else if (outcome.status == RunStatus::kOk) {
    const auto& m = *outcome.metrics;
    fmt::print(
        "{} seed {}{}: l1_visited (mean) {:.3g} at iteration {}/{} ({} visited), {:.3g} at "
        "the end, sum-L1 exact {:.4f} sampled {:.4f} |logZ err| {:.3g} ({:.1f} s)\n",
        cell.id, seed, reused ? " (reused)" : "", m.judged->l1_visited, point->iteration,
        point->n_iterations, point->n_visited, m.l1_visited, m.l1_exact, m.l1_sampled, m.logz_error,
        outcome.wall_s);
  } else {
    fmt::print("{} seed {}: {} {}\n", cell.id, seed,
               outcome.status == RunStatus::kUnsupported ? "n/a:" : "FAILED:", outcome.message);
  }
  std::fflush(stdout);
}

// Every seed of one cell: run (or read, or n/a), judged at torchgfn's validation (a cell judged
// on the jsd or with our own bar: at the end of the run); with --dry-run only the commands are
// printed.
CellResult run_cell(const Cell& cell, bool to_run, const Options& o, const RunContext& ctx) {
  // The validation torchgfn's test asserts on, and the interval that makes ours hit it
  // (end-of-run cells keep the config's interval; smoke runs validate only at the end).
  const bool exact = enumerable(cell);
  std::optional<ValidationPoint> point;
  if (judged_at_torchgfn_validation(cell)) {
    point = last_validation(cell.schedule, cell_iterations(cell, o.iterations), cell.batch_size,
                            cell.validation_samples);
  }
  CellResult r{cell, {}, point};
  std::vector<std::string> cell_extra = ctx.extra;
  if (const auto interval = point ? interval_for(*point) : std::nullopt) {
    cell_extra.push_back(fmt::format("validation.interval={}", *interval));
  } else if (o.iterations > 0) {
    cell_extra.push_back(fmt::format("validation.interval={}", o.iterations));
  }
  for (std::uint64_t seed : cell.seeds) {
    const fs::path dir = ctx.runs_root / cell.id / fmt::format("seed{}", seed);
    const auto args = run_arguments(cell, seed, dir.string(), cell_extra);
    if (o.dry_run) {
      if (to_run) fmt::print("{} {}\n", ctx.train_bin, fmt::join(args, " "));
      continue;
    }
    RunOutcome outcome;
    if (!to_run) {
      outcome = read_previous_run(dir.string(), (dir / "run.log").string(), exact);
    } else if (cell.replay && !ctx.replay_refusal.empty()) {
      outcome.status = RunStatus::kUnsupported;
      outcome.message = ctx.replay_refusal;
    } else {
      outcome = run_gfn_train(ctx.train_bin, args, ctx.root.string(), dir.string(),
                              (dir / "run.log").string(), o.timeout_s, exact);
    }
    if (point) attach_judged_row(outcome, dir.string(), *point, cell.batch_size);
    apply_bar(outcome, cell.bar ? &*cell.bar : nullptr, dir.string());
    print_outcome(cell, seed, !to_run, point, outcome);
    r.runs.push_back(std::move(outcome));
  }
  return r;
}

// Writes the table to `table_file` and prints it; false after printing why it could not.
bool write_table(const std::string& table, const fs::path& table_file) {
  if (table_file.has_parent_path()) fs::create_directories(table_file.parent_path());
  std::ofstream out(table_file);
  out << table;
  out.close();
  if (!out) {
    fmt::print(stderr, "gfn-quality-matrix: error: cannot write {}\n", table_file.string());
    return false;
  }
  fmt::print("\n{}\ntable written to {}\n", table, table_file.string());
  return true;
}

// The matrix: the runs, the table and the JSON report; the exit code.
int run_matrix(const Options& o, const harness::Front& front, int argc, char** argv) {
  const harness::Method method = matrix_method(front.method(argc, argv), o.tb_seeds);
  if (!o.dry_run) fmt::print("{}#\n", harness::method_statement(method));
  RunContext ctx;
  ctx.root = fs::weakly_canonical(fs::absolute(o.repo));
  ctx.runs_root = fs::path(o.out_dir).is_absolute() ? fs::path(o.out_dir) : ctx.root / o.out_dir;
  const fs::path table_file =
      fs::path(o.table_path).is_absolute() ? fs::path(o.table_path) : ctx.root / o.table_path;
  ctx.train_bin = fs::absolute(o.gfn_train).string();

  const std::optional<Plan> plan = plan_cells(o);
  if (!plan) return 2;
  if (o.iterations > 0) ctx.extra.push_back(fmt::format("train.n_iterations={}", o.iterations));
  ctx.extra.insert(ctx.extra.end(), o.user_sets.begin(), o.user_sets.end());
  ctx.replay_refusal = probe_replay(o, *plan, ctx);

  std::vector<CellResult> results;
  for (std::size_t i = 0; i < plan->cells.size(); ++i) {
    results.push_back(run_cell(plan->cells[i], plan->to_run[i], o, ctx));
  }
  if (o.dry_run) return 0;

  if (!write_table(render_table(results, command_line(argc, argv)), table_file)) return 1;
  front.write_json({front.tool(), method, cell_cases(results), cell_goals(results)});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs gfn-train over the quality matrix and writes a markdown table"};
  app.footer("Cells, verdicts and the last table: docs/results/quality-matrix.md \"Verdicts\".");
  Options o;
  harness::Front front(app, "gfn-quality-matrix",
                       "--smoke --iterations 3 --validation-samples 2000");
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  front.quick_default("--smoke", o.smoke, true);
  front.quick_default("--iterations", o.iterations, 3LL);
  front.quick_default("--validation-samples", o.validation_samples, 2000LL);

  try {
    return run_matrix(o, front, argc, argv);
  } catch (const std::regex_error& e) {
    fmt::print(stderr, "gfn-quality-matrix: error: --only '{}' is not a valid regex: {}\n", o.only,
               e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gfn-quality-matrix: error: {}\n", e.what());
    return 1;
  }
}
