#include "tools/quality-matrix/run.h"

#include <fmt/format.h>

#include <boost/process.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tools/common/child_process.h"
#include "tools/common/json_file.h"

namespace gfn::quality {
namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

using gfn::tools::last_error_line;
using gfn::tools::number_at;

bool is_unknown_replay_key(int exit_code, const std::string& log) {
  return exit_code == 2 && log.find("unknown key 'replay.") != std::string::npos;
}

}  // namespace

RunMetrics read_summary(const std::string& path) {
  const nlohmann::json j = gfn::tools::read_json_file(path);
  RunMetrics m;
  m.l1_exact = number_at(j, "l1_exact", path);
  m.l1_sampled = number_at(j, "l1_sampled", path);
  m.l1_visited = number_at(j, "l1_visited", path);
  m.logz_error = number_at(j, "logz_error", path);
  m.ms_per_iteration = number_at(j, "ms_per_iteration", path);
  m.modes_found = static_cast<long long>(number_at(j, "modes_found", path));
  m.n_modes = static_cast<long long>(number_at(j, "n_modes", path));
  m.iterations = static_cast<long long>(number_at(j, "iterations", path));
  m.trajectories = static_cast<long long>(number_at(j, "trajectories", path));
  return m;
}

RunOutcome run_gfn_train(const std::string& gfn_train, const std::vector<std::string>& args,
                         const std::string& working_dir, const std::string& output_dir,
                         const std::string& log_path, double timeout_s) {
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
    out.metrics = read_summary((fs::path(output_dir) / "summary.json").string());
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

void attach_loss_trend(RunOutcome& outcome, const std::string& output_dir) {
  if (outcome.status != RunStatus::kOk) return;
  try {
    outcome.metrics->loss = read_loss_trend((fs::path(output_dir) / "training.csv").string());
  } catch (const std::exception& e) {
    outcome.status = RunStatus::kFailed;
    outcome.message = e.what();
  }
}

RunOutcome read_previous_run(const std::string& output_dir, const std::string& log_path) {
  RunOutcome out;
  out.log_path = log_path;
  try {
    out.metrics = read_summary((fs::path(output_dir) / "summary.json").string());
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
