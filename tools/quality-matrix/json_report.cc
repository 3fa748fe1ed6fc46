#include "tools/quality-matrix/json_report.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

namespace gfn::quality {
namespace {

// The statistics of `field` over the successful seeds of r, nullopt when none has it.
template <typename F>
std::optional<harness::Summary> over_seeds(const CellResult& r, F field) {
  std::vector<double> v;
  for (const auto& run : r.runs) {
    if (run.status != RunStatus::kOk) continue;
    const auto x = field(*run.metrics);
    if (x && !std::isnan(*x)) v.push_back(*x);  // NaN: no L1 without enumeration (Cell::bar)
  }
  if (v.empty()) return std::nullopt;
  return harness::summarize(std::move(v));
}

harness::Verdict verdict_of(const std::string& text) {
  const auto starts = [&text](const char* prefix) { return text.rfind(prefix, 0) == 0; };
  if (starts("PASS")) return harness::Verdict::kPass;
  if (starts("**FAIL**")) return harness::Verdict::kFail;
  if (starts("over our TB bar")) return harness::Verdict::kInfo;
  return harness::Verdict::kNotMeasured;
}

}  // namespace

harness::Method matrix_method(harness::Method base, int tb_seeds) {
  return base.describe(
      "each run is one gfn-train job (a world of one) per cell and seed; quality figures from its "
      "summary.json and the metrics.csv row of torchgfn's validation (ms/iteration is the run's "
      "own median)",
      0, tb_seeds, "seeds per TB cell (other cells 1 seed; --seeds-for cells --seeds)",
      {"l1_visited = torchgfn's l1_dist: mean over terminating states of |empirical - true| over "
       "the states sampled during training; sum-L1 figures are sums over states (summary.json)"});
}

std::vector<harness::Case> cell_cases(const std::vector<CellResult>& results) {
  std::vector<harness::Case> cases;
  for (const auto& r : results) {
    const Cell& c = r.cell;
    harness::Case k;
    k.name = c.id;
    k.parameters = {{"env", c.env_label},
                    {"loss", c.loss},
                    {"buffer", c.replay ? "uniform" : "none"},
                    {"seeds", c.seeds},
                    {"target_bound", c.target.bound()},
                    {"target_metric", metric_name(c.target.metric)},
                    {"target_published", c.target.published}};
    if (r.point) {
      k.parameters["judged_at_iteration"] = r.point->iteration;
      k.parameters["judged_at_visited"] = r.point->n_visited;
    }
    if (c.bar) {
      k.parameters["bar_min_modes_found"] = c.bar->min_modes_found;
      k.parameters["bar_fresh_samples"] = c.bar->fresh_samples;
      k.parameters["bar_min_fresh_modes"] = c.bar->min_fresh_modes;
      k.parameters["bar_max_loss_ratio"] = c.bar->max_loss_ratio;
      k.parameters["bar_loss_head"] = c.bar->loss_head;
      k.parameters["bar_loss_tail"] = c.bar->loss_tail;
      if (c.bar->max_l1_exact) k.parameters["bar_max_l1_exact"] = *c.bar->max_l1_exact;
      if (c.bar->log_z_true) k.parameters["log_z_true"] = *c.bar->log_z_true;
    }
    const auto add = [&k, &r](const char* name, const char* unit, auto field) {
      if (const auto s = over_seeds(r, field)) {
        k.add(name, *s, unit);
      } else {
        k.add_missing(name, unit);
      }
    };
    using Opt = std::optional<double>;
    add("l1_visited_judged", "mean L1",
        [](const RunMetrics& m) { return m.judged ? Opt(m.judged->l1_visited) : std::nullopt; });
    add("l1_visited_end", "mean L1", [](const RunMetrics& m) { return Opt(m.l1_visited); });
    add("jsd", "nats", [&c](const RunMetrics& m) {  // the KDE JSD of the cells judged on it
      return c.target.metric == TargetMetric::kJsd ? Opt(m.jsd) : std::nullopt;
    });
    add("l1_mean_fresh", "mean L1", [&c](const RunMetrics& m) {
      return Opt(m.l1_sampled / static_cast<double>(c.n_terminating_states));
    });
    add("l1_exact", "sum L1", [](const RunMetrics& m) { return Opt(m.l1_exact); });
    add("l1_sampled", "sum L1", [](const RunMetrics& m) { return Opt(m.l1_sampled); });
    add("logz_error", "nats", [](const RunMetrics& m) { return Opt(m.logz_error); });
    add("modes_found", "modes",
        [](const RunMetrics& m) { return Opt(static_cast<double>(m.modes_found)); });
    add("loss_ratio", "ratio", [](const RunMetrics& m) { return Opt(m.loss_ratio); });
    add("ms_per_iteration", "ms", [](const RunMetrics& m) { return Opt(m.ms_per_iteration); });
    cases.push_back(std::move(k));
  }
  return cases;
}

std::vector<harness::Goal> cell_goals(const std::vector<CellResult>& results) {
  std::vector<harness::Goal> goals;
  for (const auto& r : results) {
    const std::string text = verdict(r);
    if (const auto& bar = r.cell.bar) {
      goals.push_back({r.cell.id, "our bar, every seed: " + learning_bar_text(*bar),
                       judged_value(r), "ratio", verdict_of(text), text});
      continue;
    }
    const TorchgfnTarget& t = r.cell.target;
    const bool jsd = t.metric == TargetMetric::kJsd;
    goals.push_back(
        {r.cell.id,
         fmt::format("{} <= {:.4g} ({})",
                     jsd ? "jsd at the end of the run" : "l1_visited at torchgfn's validation",
                     t.bound(), t.published ? t.source : "TB bar"),
         judged_value(r), jsd ? "nats" : "mean L1", verdict_of(text), text});
  }
  return goals;
}

}  // namespace gfn::quality
