#include "roles/trainer/spawn_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "roles/trainer/spawn/spawn_policy.h"
#include "runtime/gfn/validation.h"
#include "transport/gather.h"
#include "transport/transport.h"

namespace gfn::roles {

void ModeTimeline::observe(const core::ModeTracker* tracker, std::int64_t iteration,
                           double wall_s) {
  if (!tracker || tracker->n_found() == static_cast<std::int64_t>(seen_.size())) return;
  for (std::int64_t mode : tracker->found()) {
    if (seen_.insert(mode).second) firsts_.push_back({mode, iteration, wall_s});
  }
}

void ModeTimeline::restore(std::vector<ModeFirst> firsts) {
  firsts_ = std::move(firsts);
  seen_.clear();
  for (const auto& f : firsts_) seen_.insert(f.mode);
}

std::string agent_spawn_json(int rank, const std::vector<SpawnEvent>& events, int group_rank,
                             std::int64_t modes_found, const std::string& strategy_json) {
  nlohmann::json j;
  j["rank"] = rank;
  j["modes_found"] = modes_found;
  j["strategy"] =
      strategy_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(strategy_json);
  auto metric = nlohmann::json::array();
  auto replacements = nlohmann::json::array();
  std::int64_t last_replaced = -1;
  for (const auto& e : events) {
    metric.push_back({e.iteration, e.metrics[static_cast<std::size_t>(group_rank)]});
    if (std::find(e.replaced.begin(), e.replaced.end(), rank) != e.replaced.end()) {
      nlohmann::json r = {{"iteration", e.iteration}, {"donors", e.donors}, {"weights", e.weights}};
      if (e.applied_at >= 0) {  // spawn.mode async
        r["applied_at"] = e.applied_at;
        r["donor_iterations"] = e.donor_iterations;
      }
      replacements.push_back(std::move(r));
      last_replaced = e.iteration;
    }
  }
  j["metric"] = metric;
  j["replacements"] = replacements;
  j["times_replaced"] = replacements.size();
  j["last_replaced"] = last_replaced;  // -1: never (its age counts from iteration 0)
  return j.dump();
}

namespace {

void put_i64(transport::Bytes& out, std::int64_t v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
void put_f64(transport::Bytes& out, double v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
template <class T>
T get(const transport::Bytes& in, std::size_t& at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

std::vector<AgentReport> gather_agent_reports(transport::Group& trainers, const AgentReport& mine) {
  // [rank, n, (mode, iteration, wall_s) * n, json bytes]
  transport::Bytes bytes;
  put_i64(bytes, mine.rank);
  put_i64(bytes, static_cast<std::int64_t>(mine.firsts.size()));
  for (const auto& f : mine.firsts) {
    put_i64(bytes, f.mode);
    put_i64(bytes, f.iteration);
    put_f64(bytes, f.wall_s);
  }
  bytes.insert(bytes.end(), mine.spawn_json.begin(), mine.spawn_json.end());
  std::vector<AgentReport> out;
  for (const auto& b : transport::gather_bytes(trainers, bytes, 0)) {
    AgentReport r;
    std::size_t at = 0;
    r.rank = static_cast<int>(get<std::int64_t>(b, at));
    const auto n = get<std::int64_t>(b, at);
    for (std::int64_t i = 0; i < n; ++i) {
      ModeFirst f;
      f.mode = get<std::int64_t>(b, at);
      f.iteration = get<std::int64_t>(b, at);
      f.wall_s = get<double>(b, at);
      r.firsts.push_back(f);
    }
    r.spawn_json.assign(b.begin() + static_cast<std::ptrdiff_t>(at), b.end());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<AgentModes> gather_agent_modes(transport::Group& trainers, const AgentModes& mine) {
  const std::int64_t pair[2] = {mine.rank, mine.modes_found};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(trainers.size()));
  trainers.all_gather(pair, 2, transport::DType::kInt64, all.data());
  std::vector<AgentModes> out;
  for (std::size_t i = 0; i < all.size(); i += 2) {
    out.push_back({static_cast<int>(all[i]), all[i + 1]});
  }
  return out;
}

std::string population_line(const PopulationModes& population) {
  if (population.n_modes <= 0) return "no modes: the environment defines none";
  std::string split = "a single agent";
  if (population.agents.size() > 1) {
    std::vector<std::int64_t> counts;
    for (const auto& a : population.agents) counts.push_back(a.modes_found);
    split = fmt::format("agents: {}", fmt::join(counts, ", "));
  }
  return fmt::format("modes found {}/{} by the population ({})", population.modes_found,
                     population.n_modes, split);
}

std::string population_json(const PopulationModes& population) {
  nlohmann::ordered_json j;  // in this order: the union, the environment's modes, the split
  j["modes_found"] = population.modes_found;
  j["n_modes"] = population.n_modes > 0 ? nlohmann::ordered_json(population.n_modes) : nullptr;
  j["agents"] = nlohmann::ordered_json::array();
  for (const auto& a : population.agents) {
    j["agents"].push_back({{"rank", a.rank}, {"modes_found", a.modes_found}});
  }
  return j.dump();
}

std::string spawn_summary_json(const dist::spawn::SpawnOptions& options,
                               const std::vector<AgentReport>& reports) {
  nlohmann::json j;
  j["policy"] = config::enum_name(options.policy);
  j["mode"] = config::enum_name(options.mode);
  j["strategy"] = config::enum_name(options.strategy);
  j["metric"] = config::enum_name(options.metric);
  j["replacement_ratio"] = options.replacement_ratio;
  j["momentum"] = options.momentum;
  j["threshold"] =
      std::isinf(options.threshold) ? nlohmann::json(nullptr) : nlohmann::json(options.threshold);
  j["cooldown"] = options.cooldown;
  if (options.policy == dist::spawn::SpawnPolicy::kDonorPull) {
    j["replacement_mode"] = config::enum_name(options.replacement_mode);
    j["age_range"] = {options.age_range.min, options.age_range.max};
    j["num_donors"] = options.num_donors;
  }
  auto agents = nlohmann::json::array();
  std::int64_t replacements = 0;
  for (const auto& r : reports) {
    auto a = r.spawn_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(r.spawn_json);
    replacements += a.value("times_replaced", std::int64_t{0});
    agents.push_back(std::move(a));
  }
  j["replacements"] = replacements;
  j["agents"] = agents;
  return j.dump();
}

std::string modes_timeline_csv(const std::vector<AgentReport>& reports,
                               double trajectories_per_iteration) {
  const auto trajectories = [trajectories_per_iteration](std::int64_t iteration) {
    return std::llround(static_cast<double>(iteration) * trajectories_per_iteration);
  };
  std::string csv = "agent,modes_found,iteration,trajectories,wall_s\n";
  const auto earlier = [](const ModeFirst& a, const ModeFirst& b) {
    return a.iteration < b.iteration || (a.iteration == b.iteration && a.wall_s < b.wall_s);
  };
  std::map<std::int64_t, ModeFirst> first_of_mode;
  for (const auto& r : reports) {
    auto firsts = r.firsts;
    std::stable_sort(firsts.begin(), firsts.end(), earlier);
    std::int64_t count = 0;
    for (const auto& f : firsts) {
      csv += fmt::format("{},{},{},{},{:.3f}\n", r.rank, ++count, f.iteration,
                         trajectories(f.iteration), f.wall_s);
      auto it = first_of_mode.find(f.mode);
      if (it == first_of_mode.end() || earlier(f, it->second)) first_of_mode[f.mode] = f;
    }
  }
  std::vector<ModeFirst> total;
  for (const auto& kv : first_of_mode) total.push_back(kv.second);
  std::stable_sort(total.begin(), total.end(), earlier);
  std::int64_t count = 0;
  for (const auto& f : total) {
    csv += fmt::format("total,{},{},{},{:.3f}\n", ++count, f.iteration, trajectories(f.iteration),
                       f.wall_s);
  }
  return csv;
}

}  // namespace gfn::roles
