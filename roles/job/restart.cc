// Automatic restart (roles/job/restart.h).
#include "roles/job/restart.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "roles/experiment/experiment.h"
#include "runtime/config/schema.h"

namespace gfn::roles {
namespace {

constexpr const char* kRecords = "/restarts.jsonl";

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
  auto opened = checkpoint::open_newest_valid_checkpoint(
      checkpoint::checkpoints_root(config.output.dir), &record->skipped_checkpoints);
  for (const auto& s : record->skipped_checkpoints) {
    spdlog::warn("restart {}: skipping checkpoint {}", record->restart, s);
  }
  if (!opened) {
    spdlog::warn("restart {} ({}): no valid checkpoint under '{}', starting afresh",
                 record->restart, launch.restart_count_origin, config.output.dir);
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
  const std::string path = output_dir + kRecords;
  if (record == nullptr) {
    if (fresh_start) std::filesystem::remove(path);
    return;
  }
  const std::int64_t last = last_csv_iteration(output_dir + "/training.csv");
  record->iterations_redone =
      std::max<std::int64_t>(0, last - std::max<std::int64_t>(0, record->resumed_from));
  std::filesystem::create_directories(output_dir);
  std::ofstream out(path, std::ios::app);
  out << to_json(*record).dump() << '\n';
  if (!out) throw std::runtime_error("cannot append to '" + path + "'");
}

nlohmann::json restarts_summary(const std::string& output_dir, int restart_count) {
  nlohmann::json attempts = nlohmann::json::array();
  std::ifstream in(output_dir + kRecords);
  std::string line;
  while (std::getline(in, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) attempts.push_back(std::move(parsed));
  }
  return {{"count", restart_count}, {"attempts", attempts}};
}

}  // namespace gfn::roles
