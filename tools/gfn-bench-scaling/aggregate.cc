#include "tools/gfn-bench-scaling/aggregate.h"

#include <stdexcept>

#include "tools/gfn-bench-scaling/layouts.h"

namespace gfn::bench_scaling {

void Results::record(int layout, int round, const RunFigures& figures) {
  if (round < 0 || round >= rounds) throw std::out_of_range("Results::record: round out of range");
  auto& per_round = runs[layout];
  per_round.resize(static_cast<std::size_t>(rounds));
  per_round[static_cast<std::size_t>(round)] = figures;
}

LayoutSummary summarize(const Results& results, int id) {
  LayoutSummary s;
  s.layout = id;
  const auto tps = [](const RunFigures& f) { return f.job.trajectories_per_s(); };
  const auto mine = results.per_round(id, tps);
  for (const auto& v : mine) s.ok_runs += v ? 1 : 0;
  s.trajectories_per_s = spread(mine);
  s.wall_trajectories_per_s = spread(
      results.per_round(id, [](const RunFigures& f) { return f.job.wall_trajectories_per_s(); }));
  s.ms_per_iteration =
      spread(results.per_round(id, [](const RunFigures& f) { return f.job.ms_per_iteration; }));
  if (id != 1) s.vs_one_trainer = spread(within_round_ratios(mine, results.per_round(1, tps)));
  if (const int baseline = layout_by_id(id).baseline) {
    s.efficiency = spread(within_round_ratios(mine, results.per_round(baseline, tps)));
  }
  const auto manager = [&results, id](auto get) {
    return spread(results.per_round(id, [&get](const RunFigures& f) -> std::optional<double> {
      if (!f.manager) return std::nullopt;
      return get(*f.manager);
    }));
  };
  s.manager_cpu_s = manager([](const ManagerFigures& m) { return m.cpu_s; });
  s.manager_wall_s = manager([](const ManagerFigures& m) { return m.wall_s; });
  s.manager_cpu_percent = manager([](const ManagerFigures& m) { return m.cpu_percent(); });
  return s;
}

}  // namespace gfn::bench_scaling
