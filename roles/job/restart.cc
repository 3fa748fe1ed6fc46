// Automatic restart (roles/job/restart.h).
#include "roles/job/restart.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "roles/experiment/experiment.h"
#include "runtime/config/schema.h"

namespace gfn::roles {
namespace {

constexpr const char* kRecords = "/restarts.jsonl";
constexpr const char* kAttempts = "/attempts.jsonl";

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// The JSON objects of a .jsonl file (unreadable lines skipped: a killed writer's last one).
std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) out.push_back(std::move(parsed));
  }
  return out;
}

/// Appends `record` as a line; after a partial last line (a writer killed mid-line) on a line
/// of its own, so that record stays readable.
void append_line(const std::string& path, const nlohmann::json& record) {
  bool partial = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      partial = in.get() != '\n';
    }
  }
  std::ofstream out(path, std::ios::app);
  if (partial) out << '\n';
  out << record.dump() << '\n';
  if (!out) throw std::runtime_error("cannot append to '" + path + "'");
}

/// attempts.jsonl's attempt starts: {"attempt", "started", "started_at"} in order.
std::vector<nlohmann::json> attempt_starts(const std::string& output_dir) {
  std::vector<nlohmann::json> starts;
  for (auto& r : read_jsonl(output_dir + kAttempts)) {
    if (r.contains("started_at")) starts.push_back(std::move(r));
  }
  return starts;
}

/// Appends this attempt's start (global rank 0, before any communication).
void note_attempt_start(const std::string& output_dir, const char* how) {
  const std::string path = output_dir + kAttempts;
  const auto attempt = static_cast<int>(attempt_starts(output_dir).size()) + 1;
  append_line(path, {{"attempt", attempt}, {"started", how}, {"started_at", unix_seconds()}});
}

/// The highest iteration (first column) of a CSV written by the trainer, or -1.
std::int64_t last_csv_iteration(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::int64_t last = -1;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    try {
      last = std::max<std::int64_t>(last, std::stoll(line.substr(0, line.find(','))));
    } catch (const std::exception&) {
      // a partial last line of a killed run
    }
  }
  return last;
}

nlohmann::json to_json(const RestartRecord& r) {
  return {{"restart", r.restart},
          {"ended_by", r.ended_by},
          {"resumed_from_iteration",
           r.resumed_from >= 0 ? nlohmann::json(r.resumed_from) : nlohmann::json(nullptr)},
          {"skipped_checkpoints", r.skipped_checkpoints},
          {"iterations_redone", r.iterations_redone}};
}

}  // namespace

std::optional<checkpoint::OpenedCheckpoint> restart_checkpoint(const ExperimentConfig& config,
                                                               const launch::LaunchEnv& launch,
                                                               RestartRecord* record) {
  if (launch.restart_count <= 0) return std::nullopt;
  record->restart = launch.restart_count;
  record->ended_by = launch.restart_reason;
  // Absolute, so the log and restarts.jsonl name the checkpoints wherever they are read.
  const std::string run_dir = checkpoint::normal_directory(config.output.dir);
  auto opened = checkpoint::open_newest_valid_checkpoint(checkpoint::checkpoints_root(run_dir),
                                                         &record->skipped_checkpoints);
  for (const auto& s : record->skipped_checkpoints) {
    spdlog::warn("restart {}: skipping checkpoint {}", record->restart, s);
  }
  if (!opened) {
    spdlog::warn("restart {} ({}): no valid checkpoint under '{}', starting afresh",
                 record->restart, launch.restart_count_origin, run_dir);
    return std::nullopt;
  }
  try {
    check_same_experiment(config, opened->config_path());
  } catch (const config::ConfigError& e) {
    throw config::ConfigError("restart " + std::to_string(record->restart) + " (" +
                              launch.restart_count_origin + "): " + e.what());
  }
  record->resumed_from = opened->manifest.iteration;
  spdlog::info("restart {} ({}): continuing from {}", record->restart, launch.restart_count_origin,
               opened->directory);
  return opened;
}

void note_restart(const std::string& output_dir, bool fresh_start, RestartRecord* record) {
  std::filesystem::create_directories(output_dir);
  if (record == nullptr) {
    if (fresh_start) {
      std::filesystem::remove(output_dir + kRecords);
      std::filesystem::remove(output_dir + kAttempts);
    }
    note_attempt_start(output_dir, fresh_start ? "start" : "resume");
    return;
  }
  const std::int64_t last = last_csv_iteration(output_dir + "/training.csv");
  record->iterations_redone =
      std::max<std::int64_t>(0, last - std::max<std::int64_t>(0, record->resumed_from));
  append_line(output_dir + kRecords, to_json(*record));
  note_attempt_start(output_dir, "restart");
}

nlohmann::json restarts_summary(const std::string& output_dir, int restart_count) {
  nlohmann::json attempts = nlohmann::json::array();
  for (auto& r : read_jsonl(output_dir + kRecords)) attempts.push_back(std::move(r));
  return {{"count", restart_count}, {"attempts", attempts}};
}

JobWallTime job_wall_time(const std::string& output_dir, double this_attempt_s) {
  std::vector<nlohmann::json> starts;
  std::map<int, double> ended_at;  // attempts that wrote their summary
  for (auto& r : read_jsonl(output_dir + kAttempts)) {
    if (r.contains("ended_at")) ended_at[r.value("attempt", 0)] = r.value("ended_at", 0.0);
    if (r.contains("started_at")) starts.push_back(std::move(r));
  }
  JobWallTime out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const int attempt = starts[i].value("attempt", 0);
    const double started = starts[i].value("started_at", 0.0);
    double wall = this_attempt_s;  // the last: this attempt, by the job's own clock
    if (i + 1 < starts.size()) {   // an earlier one: to its summary, else to the next start
      const auto end = ended_at.find(attempt);
      wall =
          (end != ended_at.end() ? end->second : starts[i + 1].value("started_at", 0.0)) - started;
    }
    out.attempts.push_back({attempt, starts[i].value("started", ""), wall});
    out.wall_s += wall;
  }
  if (starts.empty()) {  // attempts.jsonl missing (removed by hand): this attempt alone
    out.attempts.push_back({1, "start", this_attempt_s});
    out.wall_s = this_attempt_s;
  }
  return out;
}

void note_attempt_end(const std::string& output_dir, int attempt) {
  append_line(output_dir + kAttempts, {{"attempt", attempt}, {"ended_at", unix_seconds()}});
}

}  // namespace gfn::roles
