// check_summary: asserts that a run's summary.json and metrics.csv are complete
// and sane. Used by the end-to-end tests after `gfn-train` exits.
//   check_summary <output.dir> <world_size> <iterations> <trainers> <managers> <coordinators>
// With GFN_CHECK_NO_EXACT set in the environment the run's environment cannot be enumerated:
// its exact metrics must be null and it must define modes. With GFN_CHECK_CONTINUOUS set it
// is a continuous environment (Box): l1_exact and l1_sampled null, the KDE jsd in [0, ln 2]
// and a finite logz_error, and modes defined (Box: its 2^d top-reward corners), a single
// manager having found at least the modes the run reports. summary.json must open with the
// population's result ("result", "population"); with GFN_CHECK_LOG set (the run's log file)
// the log's last line must be that result.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "check_summary: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// The last non-empty line of the file at `path` ("" when it cannot be read).
std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \r\t") != std::string::npos) last = line;
  }
  return last;
}

/// summary.json opens with the population's result: "result" (the line), then "population"
/// (the union over the agents and each agent's own count), consistent with `modes_found`;
/// with GFN_CHECK_LOG set (a log file), the log's last line is that result.
void check_population(const nlohmann::ordered_json& s, std::int64_t trainers) {
  auto key = s.begin();
  check(key != s.end() && key.key() == "result" && key->is_string(), "first key is \"result\"");
  if (key == s.end() || ++key == s.end() || key.key() != "population") {
    check(false, "second key is \"population\"");
    return;
  }
  const auto& p = *key;
  const std::int64_t found = p["modes_found"], n_modes = s["n_modes"];
  check(found == s["modes_found"], "population.modes_found == modes_found");
  check(p["agents"].size() == static_cast<std::size_t>(trainers), "one agent per trainer");
  std::int64_t largest = 0, total = 0;
  std::string counts;
  for (const auto& a : p["agents"]) {
    const std::int64_t own = a["modes_found"];
    largest = std::max(largest, own);
    total += own;
    counts += (counts.empty() ? "" : ", ") + std::to_string(own);
  }
  check(largest <= found && found <= total, "max over agents <= population <= sum over agents");
  const std::string expected =
      n_modes <= 0 ? "no modes: the environment defines none"
                   : "modes found " + std::to_string(found) + "/" + std::to_string(n_modes) +
                         " by the population (" +
                         (trainers == 1 ? "a single agent" : "agents: " + counts) + ")";
  check(s["result"] == expected, "result \"" + expected + "\", got " + s["result"].dump());
  if (const char* log = std::getenv("GFN_CHECK_LOG")) {
    const auto last = last_line(log);
    check(last.size() >= expected.size() &&
              last.compare(last.size() - expected.size(), expected.size(), expected) == 0,
          std::string("the last line of ") + log + " ends with the result; it is: " + last);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s DIR WORLD ITERATIONS TRAINERS MANAGERS COORDINATORS\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream in(dir + "/summary.json");
  if (!in) {
    std::fprintf(stderr, "check_summary: no %s/summary.json\n", dir.c_str());
    return 1;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto s = nlohmann::json::parse(text);
  // GFN_CHECK_NO_EXACT set (gfn_add_e2e_test NO_EXACT): an environment too large to enumerate,
  // whose exact metrics must be null and which must define modes instead.
  const bool continuous = std::getenv("GFN_CHECK_CONTINUOUS") != nullptr;
  const bool exact = std::getenv("GFN_CHECK_NO_EXACT") == nullptr && !continuous;
  const char* exact_keys[] = {"l1_exact", "l1_sampled", "jsd", "logz_error"};
  for (const char* key : exact_keys) {
    const bool defined =
        exact || (continuous && (std::string(key) == "jsd" || std::string(key) == "logz_error"));
    check(s.contains(key) && s.at(key).is_null() != defined,
          std::string("key ") + key + (defined ? "" : " present and null (not enumerable)"));
  }
  for (const char* key : {"modes_found", "n_modes", "iterations", "trajectories", "wall_s",
                          "ms_per_iteration", "world_size", "roles", "target_evaluations"}) {
    check(s.contains(key) && !s.at(key).is_null(), std::string("key ") + key);
  }
  // The log Z estimates (continuous/log_z_bounds.h): finite for a continuous environment,
  // null otherwise.
  for (const char* key : {"elbo", "iw_elbo", "eubo", "delta_logz", "delta_logz_iw", "delta_eubo"}) {
    check(s.contains(key) &&
              (continuous ? s.at(key).is_number() && std::isfinite(s.at(key).get<double>())
                          : s.at(key).is_null()),
          std::string("key ") + key + (continuous ? " finite" : " null (discrete)"));
  }
  if (failures) return 1;
  check(s["world_size"] == std::stoi(argv[2]), "world_size");
  check(s["iterations"] == std::stoi(argv[3]), "iterations");
  check(s["roles"]["trainer"] == std::stoi(argv[4]), "roles.trainer");
  check(s["roles"]["buffer_manager"] == std::stoi(argv[5]), "roles.buffer_manager");
  check(s["roles"]["coordinator"] == std::stoi(argv[6]), "roles.coordinator");
  if (exact) {
    const double l1 = s["l1_exact"], l1s = s["l1_sampled"], jsd = s["jsd"];
    check(l1 >= 0 && l1 <= 2, "0 <= l1_exact <= 2");
    check(l1s >= 0 && l1s <= 2, "0 <= l1_sampled <= 2");
    check(jsd >= 0 && jsd <= std::log(2.0) + 1e-9, "0 <= jsd <= ln 2");
    check(std::isfinite(s["logz_error"].get<double>()), "finite logz_error");
  } else if (continuous) {  // train_box.py's metrics: the KDE JSD and the log Z error
    const double jsd = s["jsd"];
    check(jsd >= 0 && jsd <= std::log(2.0) + 1e-9, "0 <= jsd (KDE) <= ln 2");
    check(std::isfinite(s["logz_error"].get<double>()), "finite logz_error");
    // GFN_CHECK_NO_MODES: an environment without modes (diffusion).
    if (std::getenv("GFN_CHECK_NO_MODES") == nullptr) {
      check(s["n_modes"] >= 1, "n_modes >= 1 (Box: its 2^d top-reward corners)");
    }
  } else {  // TB's learned log Z and the modes are what such a run reports
    check(s.contains("logz") && s["logz"].is_number() && std::isfinite(s["logz"].get<double>()),
          "finite logz");
    check(s["n_modes"] >= 1, "n_modes >= 1 (the modes are the measure of a non-enumerable run)");
  }
  check(s["modes_found"] >= 0 && s["modes_found"] <= s["n_modes"], "0 <= modes_found <= n_modes");
  check_population(nlohmann::ordered_json::parse(text), s["roles"]["trainer"]);
  check(s["ms_per_iteration"] > 0, "ms_per_iteration > 0");
  check(s["ms_per_iteration_per_trainer"].size() == s["roles"]["trainer"],
        "one ms figure per trainer");
  // The engine paths that ran (roles/run_job.cc engine_summary).
  check(s.contains("engine") && s["engine"].is_object(), "engine object");
  if (s.contains("engine") && s["engine"].is_object()) {
    const auto& e = s["engine"];
    for (const char* key : {"state_table", "table_backward", "fused_tb", "optimizer", "adam_kernel",
                            "plain_loops", "precision", "split_batch", "split_rows",
                            "reuse_logprobs", "fused_sampler", "blas_kernels", "malloc_tune"}) {
      check(e.contains(key) && e.at(key).is_string(), std::string("engine.") + key);
    }
    if (e.contains("state_table")) {
      check(e["state_table"] == "on" || e["state_table"] == "off", "engine.state_table on|off");
    }
    if (e.contains("fused_sampler")) {
      check(e["fused_sampler"] == "on" || e["fused_sampler"] == "off" ||
                e["fused_sampler"] == "unused" || e["fused_sampler"] == "unused (no row dynamics)",
            "engine.fused_sampler on|off|unused|unused (no row dynamics)");
    }
    if (e.contains("precision")) {
      check(e["precision"] == "fp32" || e["precision"] == "bf16" ||
                e["precision"] == "bf16 unused (reference evaluator)",
            "engine.precision fp32|bf16|bf16 unused (reference evaluator)");
    }
  }

  // Every rank's peak RSS (roles/job/reports.cc peak_rss_json).
  check(s.contains("peak_rss_mb") && s["peak_rss_mb"]["per_rank"].size() == s["world_size"],
        "peak_rss_mb.per_rank: one figure per rank");
  if (s.contains("peak_rss_mb")) {
    for (const auto& mb : s["peak_rss_mb"]["per_rank"]) check(mb > 0, "peak RSS > 0");
  }

  // Buffer managers' own counts (buffer_manager_<rank>.json): every item the trainers
  // submitted is counted exactly once, no EXIT count mismatch, nothing rejected.
  if (s.contains("items_submitted") && s["roles"]["buffer_manager"] > 0) {
    std::int64_t received = 0, submissions = 0, files = 0, manager_modes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const auto name = entry.path().filename().string();
      if (name.rfind("buffer_manager_", 0) != 0) continue;
      std::ifstream mf(entry.path());
      const auto m = nlohmann::json::parse(mf);
      ++files;
      received += m["items_received"].get<std::int64_t>();
      submissions += m["submissions"].get<std::int64_t>();
      manager_modes += m["modes_found"].get<std::int64_t>();
      check(m["exit_mismatches"] == 0, name + ": exit_mismatches == 0");
      check(m["rejected_messages"] == 0, name + ": rejected_messages == 0");
    }
    check(files == s["roles"]["buffer_manager"], "one buffer_manager_<rank>.json per manager");
    // A continuous environment's modes are regions the manager finds in the float32 states it
    // receives (their ids): one manager receives every trainer's, so it has found at least
    // what the run reports.
    if (continuous && files == 1) {
      check(manager_modes >= s["modes_found"].get<std::int64_t>(),
            "the manager's modes_found (" + std::to_string(manager_modes) +
                ") >= the run's modes_found (" + s["modes_found"].dump() + ")");
    }
    check(received == s["items_submitted"].get<std::int64_t>(),
          "items received by the managers == items submitted by the trainers (" +
              std::to_string(received) + " vs " + s["items_submitted"].dump() + ")");
    check(submissions == s["submissions"].get<std::int64_t>(), "submissions counted once");
  }

  std::ifstream csv(dir + "/metrics.csv");
  std::string line;
  int rows = 0;
  check(static_cast<bool>(std::getline(csv, line)) && line.rfind("iteration,", 0) == 0,
        "metrics.csv header");
  while (std::getline(csv, line)) ++rows;
  check(rows >= 1, "metrics.csv has at least one validation row");
  if (failures == 0) std::printf("check_summary: %s OK (%d validation rows)\n", dir.c_str(), rows);
  return failures ? 1 : 0;
}
