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
// trajectories, n_visited). With --reuse-runs the cells --only leaves out are read from
// their previous run directories instead of being dropped, so the table is complete.
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs gfn-train over the quality matrix and writes a markdown table"};
  app.footer("Cells, verdicts and the last table: docs/results/quality-matrix.md \"Verdicts\".");
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
  harness::Front front(app, "gfn-quality-matrix",
                       "--smoke --iterations 3 --validation-samples 2000");
  app.add_option("--gfn-train", gfn_train, "path of the gfn-train binary")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--repo", repo, "repository root (configs/ are relative to it)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--out-dir", out_dir, "run directories (relative to --repo unless absolute)");
  app.add_option("--table", table_path, "markdown output (relative to --repo unless absolute)");
  app.add_option("--only", only, "run only the cells whose id matches this regex (ECMAScript)");
  app.add_option("--tb-seeds", tb_seeds, "seeds 1..n for the TB cells")->check(CLI::Range(1, 10));
  auto* seeds_for_opt = app.add_option(
      "--seeds-for", seeds_for,
      "give the cells whose id matches this regex (ECMAScript) seeds 1..--seeds "
      "(the verdict is judged on the mean over seeds and shows seed 1, the spread and how many "
      "seeds are within the bar)");
  app.add_option("--seeds", seeds, "number of seeds of the --seeds-for cells")
      ->check(CLI::Range(1, 100))
      ->needs(seeds_for_opt);
  seeds_for_opt->needs("--seeds");
  app.add_option("--iterations", iterations, "override train.n_iterations (smoke runs)")
      ->check(CLI::Range(1LL, 1000000LL));
  app.add_option("--validation-samples", validation_samples,
                 "override validation.n_samples (smoke runs)")
      ->check(CLI::Range(1LL, 100000000LL));
  app.add_option("--set", user_sets,
                 "KEY=VALUE passed to every gfn-train run as --set (repeatable; e.g. "
                 "engine.precision=bf16 for an A/B matrix)");
  app.add_option("--timeout", timeout_s, "seconds per run")->check(CLI::PositiveNumber);
  std::vector<std::string> buffered_kinds;  // replay.kind's names (options.h), but none
  for (const auto& entry : gfn::buffer::kReplayKindNames) {
    if (entry.value != gfn::buffer::ReplayKind::kNone) buffered_kinds.push_back(entry.name);
  }
  app.add_option("--replay-kind", replay.kind, "replay.kind of the buffered cells")
      ->check(CLI::IsMember(buffered_kinds));
  app.add_flag("--smoke", smoke, "the 2-cell smoke matrix instead of the full one");
  app.add_flag("--dry-run", dry_run, "print the gfn-train commands, run nothing");
  app.add_flag("--reuse-runs", reuse_runs,
               "cells not matched by --only (all cells without --only) are not run: their "
               "previous run directories under --out-dir are read, and the table lists every "
               "cell");
  CLI11_PARSE(app, argc, argv);
  front.quick_default("--smoke", smoke, true);
  front.quick_default("--iterations", iterations, 3LL);
  front.quick_default("--validation-samples", validation_samples, 2000LL);

  try {
    const harness::Method method = matrix_method(front.method(argc, argv), tb_seeds);
    if (!dry_run) fmt::print("{}#\n", harness::method_statement(method));
    const fs::path root = fs::weakly_canonical(fs::absolute(repo));
    const fs::path runs_root = fs::path(out_dir).is_absolute() ? fs::path(out_dir) : root / out_dir;
    const fs::path table_file =
        fs::path(table_path).is_absolute() ? fs::path(table_path) : root / table_path;
    const std::string train_bin = fs::absolute(gfn_train).string();

    std::vector<Cell> cells = smoke ? smoke_matrix() : full_matrix(tb_seeds, replay);
    // to_run[i]: cells[i] is run; otherwise (--reuse-runs) its previous runs are read.
    std::vector<bool> to_run(cells.size(), !reuse_runs);
    if (!only.empty()) {
      const std::regex pattern(only);
      std::vector<Cell> kept;
      std::vector<bool> kept_run;
      bool any = false;
      for (auto& c : cells) {
        const bool match = std::regex_search(c.id, pattern);
        any = any || match;
        if (match || reuse_runs) {
          kept.push_back(std::move(c));
          kept_run.push_back(match);
        }
      }
      if (!any) {
        fmt::print(stderr, "gfn-quality-matrix: error: --only '{}' matches no cell\n", only);
        return 2;
      }
      cells = std::move(kept);
      to_run = std::move(kept_run);
    }
    if (!seeds_for.empty()) {
      const std::regex pattern(seeds_for);
      bool any = false;
      for (auto& c : cells) {
        if (!std::regex_search(c.id, pattern)) continue;
        any = true;
        c.seeds.clear();
        for (int s = 1; s <= seeds; ++s) c.seeds.push_back(static_cast<std::uint64_t>(s));
      }
      if (!any) {
        fmt::print(stderr, "gfn-quality-matrix: error: --seeds-for '{}' matches no cell\n",
                   seeds_for);
        return 2;
      }
    }
    for (auto& c : cells) {
      if (validation_samples > 0) c.validation_samples = validation_samples;
    }
    std::vector<std::string> extra;
    if (iterations > 0) extra.push_back(fmt::format("train.n_iterations={}", iterations));
    extra.insert(extra.end(), user_sets.begin(), user_sets.end());

    bool any_replay = false;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      any_replay = any_replay || (to_run[i] && cells[i].replay);
    }
    std::string replay_refusal;
    if (any_replay && !dry_run) {
      replay_refusal = probe_replay_support(train_bin, "configs/hypergrid_2d.yaml",
                                            replay_probe_sets(replay), root.string());
      if (!replay_refusal.empty()) {
        fmt::print("replay buffer not available in this gfn-train ({}): buffered cells are n/a\n",
                   replay_refusal);
      }
    }

    std::vector<CellResult> results;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const Cell& cell = cells[i];
      // The validation torchgfn's test asserts on, and the interval that makes ours hit it
      // (end-of-run cells keep the config's interval; smoke runs validate only at the end).
      const ValidationPoint point =
          last_validation(cell.schedule, cell_iterations(cell, iterations), cell.batch_size,
                          cell.validation_samples);
      CellResult r{cell, {}, point};
      std::vector<std::string> cell_extra = extra;
      if (const auto interval = interval_for(point)) {
        cell_extra.push_back(fmt::format("validation.interval={}", *interval));
      } else if (iterations > 0) {
        cell_extra.push_back(fmt::format("validation.interval={}", iterations));
      }
      for (std::uint64_t seed : cell.seeds) {
        const fs::path dir = runs_root / cell.id / fmt::format("seed{}", seed);
        const auto args = run_arguments(cell, seed, dir.string(), cell_extra);
        if (dry_run) {
          if (to_run[i]) fmt::print("{} {}\n", train_bin, fmt::join(args, " "));
          continue;
        }
        RunOutcome outcome;
        if (!to_run[i]) {
          outcome = read_previous_run(dir.string(), (dir / "run.log").string());
        } else if (cell.replay && !replay_refusal.empty()) {
          outcome.status = RunStatus::kUnsupported;
          outcome.message = replay_refusal;
        } else {
          outcome = run_gfn_train(train_bin, args, root.string(), dir.string(),
                                  (dir / "run.log").string(), timeout_s);
        }
        attach_judged_row(outcome, dir.string(), point, cell.batch_size);
        if (outcome.status == RunStatus::kOk) {
          const auto& m = *outcome.metrics;
          fmt::print(
              "{} seed {}{}: l1_visited (mean) {:.3g} at iteration {}/{} ({} visited), {:.3g} at "
              "the end, sum-L1 exact {:.4f} sampled {:.4f} |logZ err| {:.3g} ({:.1f} s)\n",
              cell.id, seed, to_run[i] ? "" : " (reused)", m.judged->l1_visited, point.iteration,
              point.n_iterations, point.n_visited, m.l1_visited, m.l1_exact, m.l1_sampled,
              m.logz_error, outcome.wall_s);
        } else {
          fmt::print(
              "{} seed {}: {} {}\n", cell.id, seed,
              outcome.status == RunStatus::kUnsupported ? "n/a:" : "FAILED:", outcome.message);
        }
        std::fflush(stdout);
        r.runs.push_back(std::move(outcome));
      }
      results.push_back(std::move(r));
    }
    if (dry_run) return 0;

    const std::string table = render_table(results, command_line(argc, argv));
    if (table_file.has_parent_path()) fs::create_directories(table_file.parent_path());
    std::ofstream out(table_file);
    out << table;
    out.close();
    if (!out) {
      fmt::print(stderr, "gfn-quality-matrix: error: cannot write {}\n", table_file.string());
      return 1;
    }
    fmt::print("\n{}\ntable written to {}\n", table, table_file.string());
    front.write_json({front.tool(), method, cell_cases(results), cell_goals(results)});
    return 0;
  } catch (const std::regex_error& e) {
    fmt::print(stderr, "gfn-quality-matrix: error: --only '{}' is not a valid regex: {}\n", only,
               e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gfn-quality-matrix: error: {}\n", e.what());
    return 1;
  }
}
