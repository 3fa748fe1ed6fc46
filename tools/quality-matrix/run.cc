#include "tools/quality-matrix/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/process.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tools/common/child_process.h"
#include "tools/common/json_file.h"

namespace gfn::quality {
namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

using gfn::tools::last_error_line;
using gfn::tools::number_at;
using gfn::tools::optional_number_at;

bool is_unknown_replay_key(int exit_code, const std::string& log) {
  return exit_code == 2 && log.find("unknown key 'replay.") != std::string::npos;
}

}  // namespace

RunMetrics read_summary(const std::string& path, bool exact) {
  const nlohmann::json j = gfn::tools::read_json_file(path);
  const double nan = std::nan("");
  // Exact metrics: required, or (no enumeration) null allowed.
  const auto exact_at = [&](const char* key) {
    return exact ? number_at(j, key, path) : optional_number_at(j, key, path).value_or(nan);
  };
  RunMetrics m;
  m.l1_exact = exact_at("l1_exact");
  m.l1_sampled = exact_at("l1_sampled");
  m.l1_visited = exact_at("l1_visited");
  m.logz_error = exact_at("logz_error");
  m.jsd = optional_number_at(j, "jsd", path).value_or(nan);
  m.logz = exact ? optional_number_at(j, "logz", path).value_or(nan) : number_at(j, "logz", path);
  m.modes_found = static_cast<long long>(number_at(j, "modes_found", path));
  m.n_modes = static_cast<long long>(number_at(j, "n_modes", path));
  m.fresh_sample_modes =
      static_cast<long long>(optional_number_at(j, "fresh_sample_modes", path).value_or(-1));
  m.ms_per_iteration = number_at(j, "ms_per_iteration", path);
  m.iterations = static_cast<long long>(number_at(j, "iterations", path));
  m.trajectories = static_cast<long long>(number_at(j, "trajectories", path));
  return m;
}

double loss_ratio(const std::string& training_csv, int head, int tail) {
  std::ifstream in(training_csv);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", training_csv));
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) out.push_back(f);
    return out;
  };
  std::string line;
  std::getline(in, line);
  const auto header = fields(line);
  const auto column = std::find(header.begin(), header.end(), "loss");
  if (column == header.end()) {
    throw std::runtime_error(fmt::format("{}: no 'loss' column", training_csv));
  }
  const auto at = static_cast<std::size_t>(column - header.begin());
  std::vector<double> losses;
  while (std::getline(in, line)) {
    const auto row = fields(line);
    if (row.size() > at) losses.push_back(std::stod(row[at]));
  }
  if (head < 1 || tail < 1 || losses.size() < static_cast<std::size_t>(head + tail)) {
    throw std::runtime_error(fmt::format("{}: {} losses, fewer than {} + {} (output.log_every 1?)",
                                         training_csv, losses.size(), head, tail));
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  return median({losses.end() - tail, losses.end()}) /
         median({losses.begin(), losses.begin() + head});
}

void apply_bar(RunOutcome& outcome, const LearningBar* bar, const std::string& output_dir) {
  if (bar == nullptr || outcome.status != RunStatus::kOk) return;
  RunMetrics& m = *outcome.metrics;
  if (bar->log_z_true) m.logz_error = std::abs(m.logz - *bar->log_z_true);
  try {
    m.loss_ratio = loss_ratio((fs::path(output_dir) / "training.csv").string(), bar->loss_head,
                              bar->loss_tail);
  } catch (const std::exception& e) {
    outcome.status = RunStatus::kFailed;
    outcome.message = e.what();
  }
}

RunOutcome run_gfn_train(const std::string& gfn_train, const std::vector<std::string>& args,
                         const std::string& working_dir, const std::string& output_dir,
                         const std::string& log_path, double timeout_s, bool exact) {
  RunOutcome out;
  out.log_path = log_path;
  fs::create_directories(fs::path(log_path).parent_path());
  fs::remove(fs::path(output_dir) / "summary.json");
  const auto child = gfn::tools::run_logged(gfn_train, args, working_dir, log_path, timeout_s);
  out.wall_s = child.wall_s;
  if (child.timed_out) {
    out.message = fmt::format("timed out after {:.0f} s", timeout_s);
    return out;
  }
  const int exit_code = child.exit_code;
  const std::string log = gfn::tools::read_text_file(log_path);
  if (is_unknown_replay_key(exit_code, log)) {
    out.status = RunStatus::kUnsupported;
    out.message = "no replay buffer yet (gfn-train refuses the replay: keys)";
    return out;
  }
  if (exit_code != 0) {
    out.message = fmt::format("exit code {}: {}", exit_code, last_error_line(log));
    return out;
  }
  try {
    out.metrics = read_summary((fs::path(output_dir) / "summary.json").string(), exact);
    out.status = RunStatus::kOk;
  } catch (const std::exception& e) {
    out.message = e.what();
  }
  return out;
}

void attach_judged_row(RunOutcome& outcome, const std::string& output_dir, const ValidationPoint& p,
                       std::int64_t batch_size) {
  if (outcome.status != RunStatus::kOk) return;
  try {
    const auto row = read_metrics_row((fs::path(output_dir) / "metrics.csv").string(), p.iteration);
    check_row(row, p, batch_size);
    outcome.metrics->judged = row;
  } catch (const std::exception& e) {
    outcome.status = RunStatus::kFailed;
    outcome.message = e.what();
  }
}

RunOutcome read_previous_run(const std::string& output_dir, const std::string& log_path,
                             bool exact) {
  RunOutcome out;
  out.log_path = log_path;
  try {
    out.metrics = read_summary((fs::path(output_dir) / "summary.json").string(), exact);
    out.status = RunStatus::kOk;
  } catch (const std::exception& e) {
    out.message = std::string("no previous run to reuse: ") + e.what();
  }
  return out;
}

std::string probe_replay_support(const std::string& gfn_train, const std::string& config,
                                 const std::vector<std::string>& replay_sets,
                                 const std::string& working_dir) {
  std::vector<std::string> args{"--config", config, "--print-config"};
  for (const auto& kv : replay_sets) {
    args.push_back("--set");
    args.push_back(kv);
  }
  bp::ipstream output;
  bp::child child(gfn_train, bp::args(args), bp::start_dir(working_dir),
                  (bp::std_out & bp::std_err) > output, bp::std_in < bp::null);
  std::string all, line;
  while (std::getline(output, line)) all += line + "\n";
  child.wait();
  const int exit_code = child.exit_code();
  if (exit_code == 0) return "";
  if (is_unknown_replay_key(exit_code, all)) return "unknown key 'replay.*'";
  return fmt::format("exit code {}: {}", exit_code, last_error_line(all));
}

}  // namespace gfn::quality
