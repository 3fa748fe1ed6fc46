#include "runtime/timing/reports.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace gfn::timing {
namespace {

// Union of the step names of all tables, in first-seen order over ranks 0, 1, ....
std::vector<std::string> all_steps(const std::vector<TimingTable>& tables) {
  std::vector<std::string> order;
  std::unordered_set<std::string> seen;
  for (const auto& t : tables) {
    for (const auto& s : t.steps()) {
      if (seen.insert(s).second) order.push_back(s);
    }
  }
  return order;
}

std::size_t name_width(const std::vector<std::string>& names, std::size_t minimum) {
  std::size_t w = minimum;
  for (const auto& n : names) w = std::max(w, n.size());
  return w;
}

}  // namespace

TimeReport report_time_info(const std::vector<TimingTable>& tables,
                            const std::vector<int>& rank_labels) {
  if (!rank_labels.empty() && rank_labels.size() != tables.size()) {
    throw std::invalid_argument(fmt::format("report_time_info: {} rank labels for {} tables",
                                            rank_labels.size(), tables.size()));
  }
  TimeReport report;
  report.world_size = static_cast<int>(tables.size());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    TimeReport::RankStats rs;
    rs.rank = rank_labels.empty() ? static_cast<int>(i) : rank_labels[i];
    for (const auto& step : tables[i].steps()) {
      TimeReport::StepStats ss;
      ss.step = step;
      ss.iterations = tables[i].num_iterations();
      ss.total_s = tables[i].total(step);
      ss.mean_s = ss.iterations > 0 ? ss.total_s / ss.iterations : 0.0;
      rs.steps.push_back(ss);
    }
    report.ranks.push_back(std::move(rs));
  }
  for (const auto& step : all_steps(tables)) {
    TimeReport::AcrossRanks a;
    a.step = step;
    double sum = 0.0;
    for (const auto& t : tables) {
      if (!t.has_step(step)) continue;
      const double total = t.total(step);
      a.max_total_s = a.num_ranks == 0 ? total : std::max(a.max_total_s, total);
      sum += total;
      ++a.num_ranks;
    }
    a.mean_total_s = sum / a.num_ranks;
    if (a.num_ranks != report.world_size) {
      spdlog::warn(
          "report_time_info: step '{}' is timed on {} of {} ranks; max and mean are over "
          "those ranks only",
          step, a.num_ranks, report.world_size);
    }
    report.across.push_back(a);
  }
  return report;
}

LoadImbalanceReport report_load_imbalance(const std::vector<TimingTable>& tables) {
  LoadImbalanceReport report;
  for (const auto& step : all_steps(tables)) {
    std::vector<int> missing;
    for (std::size_t r = 0; r < tables.size(); ++r) {
      if (!tables[r].has_step(step)) missing.push_back(static_cast<int>(r));
    }
    if (!missing.empty()) {
      spdlog::warn("report_load_imbalance: step '{}' is not timed on rank(s) {}, skipping it", step,
                   fmt::join(missing, ","));
      report.skipped.push_back(step);
      continue;
    }
    const std::size_t iterations = tables.front().num_iterations();
    const std::size_t rows = tables.front().durations(step).size();
    bool same_iterations = true, same_rows = true;
    std::vector<std::size_t> counts;
    for (const auto& t : tables) {
      counts.push_back(static_cast<std::size_t>(t.num_iterations()));
      same_iterations = same_iterations && counts.back() == iterations;
      same_rows = same_rows && t.durations(step).size() == rows &&
                  t.iterations_per_row() == tables.front().iterations_per_row();
    }
    if (!same_iterations || !same_rows) {
      spdlog::warn("report_load_imbalance: step '{}' has different {} per rank ({}), skipping it",
                   step,
                   same_iterations ? "timing rows (TimingTable max_rows)" : "iteration counts",
                   fmt::join(counts, ","));
      report.skipped.push_back(step);
      continue;
    }
    LoadImbalanceReport::StepImbalance s;
    s.step = step;
    s.iterations = static_cast<int>(iterations);
    for (std::size_t row = 0; row < rows; ++row) {
      double sum = 0.0, max = 0.0;
      for (const auto& t : tables) {
        const double d = t.durations(step)[row];
        sum += d;
        max = std::max(max, d);
      }
      const double mean = sum / static_cast<double>(tables.size());
      s.useful_s += mean;
      s.waiting_s += max - mean;
    }
    report.total_useful_s += s.useful_s;
    report.total_waiting_s += s.waiting_s;
    report.steps.push_back(s);
  }
  return report;
}

std::string TimeReport::to_string() const {
  std::vector<std::string> names;
  for (const auto& a : across) names.push_back(a.step);
  const std::size_t w = name_width(names, 4);
  std::string out = fmt::format("Timing information for each rank ({} ranks):\n", world_size);
  for (const auto& r : ranks) {
    out += fmt::format("rank {}\n", r.rank);
    out += fmt::format("  {:<{}}  {:>12}  {:>12}  {:>10}\n", "step", w, "mean [s]", "total [s]",
                       "iterations");
    for (const auto& s : r.steps) {
      out += fmt::format("  {:<{}}  {:>12.4f}  {:>12.4f}  {:>10}\n", s.step, w, s.mean_s, s.total_s,
                         s.iterations);
    }
  }
  out += "Across ranks (per-rank totals):\n";
  out +=
      fmt::format("  {:<{}}  {:>12}  {:>12}  {:>7}\n", "step", w, "max [s]", "mean [s]", "ranks");
  for (const auto& a : across) {
    out += fmt::format("  {:<{}}  {:>12.4f}  {:>12.4f}  {:>7}\n", a.step, w, a.max_total_s,
                       a.mean_total_s, fmt::format("{}/{}", a.num_ranks, world_size));
  }
  return out;
}

std::string LoadImbalanceReport::to_string() const {
  std::vector<std::string> names;
  for (const auto& s : steps) names.push_back(s.step);
  const std::size_t w = name_width(names, 9);
  auto pct = [](double waiting, double useful) {
    const double all = waiting + useful;
    return all > 0.0 ? 100.0 * waiting / all : 0.0;
  };
  std::string out = fmt::format("{:<{}}  {:>14}  {:>12}  {:>9}\n", "step", w, "useful [s]",
                                "waiting [s]", "waiting %");
  out += std::string(w + 43, '-') + "\n";
  for (const auto& s : steps) {
    out += fmt::format("{:<{}}  {:>14.4f}  {:>12.4f}  {:>8.1f}%\n", s.step, w, s.useful_s,
                       s.waiting_s, pct(s.waiting_s, s.useful_s));
  }
  out += std::string(w + 43, '-') + "\n";
  out += fmt::format("{:<{}}  {:>14.4f}  {:>12.4f}  {:>8.1f}%\n", "total", w, total_useful_s,
                     total_waiting_s, pct(total_waiting_s, total_useful_s));
  if (!skipped.empty()) out += fmt::format("skipped: {}\n", fmt::join(skipped, ", "));
  return out;
}

}  // namespace gfn::timing
