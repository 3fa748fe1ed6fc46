#include "tools/gfn-bench-scaling/report.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace gfn::bench_scaling {
namespace {

// The median with `digits` decimals and `suffix`, or "-".
std::string or_dash(const std::optional<harness::Summary>& s, int digits, const char* suffix = "") {
  if (!s) return "-";
  return fmt::format("{:.{}f}{}", s->median, digits, suffix);
}

std::string percent_range(const std::optional<harness::Summary>& s, int rounds) {
  if (!s) return "-";
  if (rounds == 1 || s->n == 1) return fmt::format("{:.1f} %", 100 * s->median);
  return fmt::format("{:.1f} % ({:.0f}-{:.0f})", 100 * s->median, 100 * s->min, 100 * s->max);
}

}  // namespace

std::string thousands(double value) {
  const bool negative = value < 0;
  std::string digits = fmt::format("{:.0f}", std::fabs(value));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return negative ? "-" + digits : digits;
}

std::string method_text(const MethodInfo& m) {
  const auto& s = m.settings;
  std::string order;
  for (int id : m.order) order += fmt::format("{}{}", order.empty() ? "" : " ", id);
  std::string layouts;
  for (int id : m.order) {
    const auto& l = layout_by_id(id);
    layouts +=
        fmt::format("#    {}  {:<42} np {}  ({} trainer{}, {} manager{})\n", id, l.label, l.np(),
                    l.trainers, l.trainers > 1 ? "s" : "", l.managers, l.managers == 1 ? "" : "s");
  }
  std::string out;
  out += "# gfn-bench-scaling: what adding trainer and buffer-manager ranks buys\n#\n";
  out += fmt::format("# Each run:   {} -np <np> {} --config {} --set ...\n", m.mpirun, m.binary,
                     s.config);
  out += fmt::format(
      "#             {} iterations, {} trajectories per trainer per iteration "
      "(train.batch_size = {} x trainers),\n"
      "#             validation off, coordinator off, buffer.capacity={}, "
      "buffer.remote_buffer_freq={} with a manager{}\n",
      s.iterations, s.batch_per_trainer, s.batch_per_trainer, s.capacity, s.submit_every,
      s.extra_sets.empty() ? "" : fmt::format(", extra: {}", fmt::join(s.extra_sets, " ")));
  out += "# Layouts:\n" + layouts;
  out += fmt::format(
      "# Rounds:     {}; each round runs every layout once, in the order {} (round-robin, so\n"
      "#             that the machine's slow and fast phases hit every layout alike)\n",
      m.rounds, order);
  out += fmt::format("# Runs:       {}/round<r>/<layout>/ (run.log, summary.json)\n#\n", m.out_dir);
  return out;
}

harness::Method scaling_method(harness::Method base, int rounds) {
  return base.describe(
      "each run is one gfn-train job under the MPI launcher; its figures are read from "
      "summary.json and buffer_manager_<rank>.json",
      0, rounds, "rounds (each runs every layout once, round-robin)",
      {"traj/s = summary.json trajectories / train_s (run_trainer's time, max over trainers: no "
       "process or transport start-up, no final reports; wall_s if absent); 'wall' = "
       "trajectories / wall_s (the whole job)",
       "ms/it = summary.json ms_per_iteration (median over trainers of each one's median)",
       "x 1t = traj/s over layout 1's in the same round",
       "efficiency = traj/s over the same round's traj/s of as many trainers without a manager "
       "(3-5 vs 2, 6 vs 7), median over rounds (min-max)",
       "manager = buffer_manager_<rank>.json cpu_s (getrusage user + system of the manager "
       "process around run_buffer_manager) and wall_s; CPU % = cpu_s / wall_s",
       "figures are medians over the rounds' successful runs"});
}

std::vector<harness::Case> layout_cases(const std::vector<int>& order,
                                        const std::map<int, LayoutSummary>& rows) {
  std::vector<harness::Case> cases;
  for (int id : order) {
    const auto& l = layout_by_id(id);
    harness::Case c;
    c.name = l.slug;
    c.parameters = {{"id", id},
                    {"label", l.label},
                    {"np", l.np()},
                    {"trainers", l.trainers},
                    {"managers", l.managers},
                    {"baseline", l.baseline}};
    const auto it = rows.find(id);
    c.parameters["ok_runs"] = it == rows.end() ? 0 : it->second.ok_runs;
    const auto add = [&c](const char* name, const std::optional<harness::Summary>& s,
                          const char* unit) {
      if (s)
        c.add(name, *s, unit);
      else
        c.add_missing(name, unit);
    };
    const LayoutSummary empty;
    const LayoutSummary& r = it == rows.end() ? empty : it->second;
    add("trajectories_per_s", r.trajectories_per_s, "1/s");
    add("wall_trajectories_per_s", r.wall_trajectories_per_s, "1/s");
    add("ms_per_iteration", r.ms_per_iteration, "ms");
    add("vs_one_trainer", r.vs_one_trainer, "ratio");
    add("efficiency", r.efficiency, "ratio");
    add("manager_cpu_s", r.manager_cpu_s, "s");
    add("manager_wall_s", r.manager_wall_s, "s");
    add("manager_cpu_percent", r.manager_cpu_percent, "%");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string run_line(int round, int rounds, const Layout& layout, const RunFigures& f) {
  std::string trainers;
  for (double ms : f.job.ms_per_trainer) {
    trainers += fmt::format("{}{:.2f}", trainers.empty() ? "" : " ", ms);
  }
  std::string manager;
  if (f.manager) {
    manager = fmt::format(", manager {:.2f} s CPU / {:.2f} s ({:.0f} %)", f.manager->cpu_s,
                          f.manager->wall_s, f.manager->cpu_percent());
  }
  return fmt::format(
      "# round {}/{}  layout {} ({}, np {}): {} traj/s ({:.2f} s training, {:.2f} s wall), "
      "ms/it {:.2f} [{}]{}",
      round + 1, rounds, layout.id, layout.short_label, layout.np(),
      thousands(f.job.trajectories_per_s()), f.job.busy_s(), f.job.wall_s, f.job.ms_per_iteration,
      trainers, manager);
}

std::string table_text(const std::vector<int>& order, const std::map<int, LayoutSummary>& rows,
                       int rounds) {
  std::string out =
      fmt::format("#{:>3}  {:<42} {:>2} {:>9} {:>11} {:>7} {:>6} {:>20} {:>9} {:>10} {:>6}\n", "id",
                  "layout", "np", "traj/s", "wall traj/s", "ms/it", "x 1t", "efficiency",
                  "mgr CPU s", "mgr wall s", "CPU %");
  for (int id : order) {
    const auto& l = layout_by_id(id);
    const std::string id_text = fmt::format("{}{}", id, l.hidden ? "*" : "");
    const auto it = rows.find(id);
    if (it == rows.end() || it->second.ok_runs == 0) {
      out += fmt::format(" {:>3}  {:<42} {:>2} all runs failed\n", id_text, l.label, l.np());
      continue;
    }
    const auto& r = it->second;
    const auto traj = [](const std::optional<harness::Summary>& s) {
      return s ? thousands(s->median) : std::string("-");
    };
    out += fmt::format(
        " {:>3}  {:<42} {:>2} {:>9} {:>11} {:>7} {:>6} {:>20} {:>9} {:>10} {:>6}{}\n", id_text,
        l.label, l.np(), traj(r.trajectories_per_s), traj(r.wall_trajectories_per_s),
        or_dash(r.ms_per_iteration, 2), or_dash(r.vs_one_trainer, 2),
        percent_range(r.efficiency, rounds), or_dash(r.manager_cpu_s, 2),
        or_dash(r.manager_wall_s, 2), or_dash(r.manager_cpu_percent, 0, " %"),
        r.ok_runs < rounds ? fmt::format("  ({} of {} runs)", r.ok_runs, rounds) : "");
  }
  return out;
}

}  // namespace gfn::bench_scaling
