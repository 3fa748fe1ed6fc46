#include "tools/quality-matrix/table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tools/common/harness/stats.h"

namespace gfn::quality {
namespace {

const RunMetrics* first_metrics(const CellResult& r) {
  if (r.runs.empty() || r.runs.front().status != RunStatus::kOk) return nullptr;
  return &*r.runs.front().metrics;
}

// The cell's target metric in one run (Cell::target.metric): l1_visited at torchgfn's validation
// (the judged metrics.csv row) or the final jsd; nullopt when the run has none.
std::optional<double> target_value(const Cell& c, const RunMetrics& m) {
  if (c.target.metric == TargetMetric::kJsd) {
    return std::isnan(m.jsd) ? std::nullopt : std::optional<double>(m.jsd);
  }
  return m.judged ? std::optional<double>(m.judged->l1_visited) : std::nullopt;
}

double mean_l1(const Cell& c, const RunMetrics& m) {
  return m.l1_sampled / static_cast<double>(c.n_terminating_states);
}

// Values of `field` over the successful runs of r.
template <typename F>
std::vector<double> over_seeds(const CellResult& r, F field) {
  std::vector<double> v;
  for (const auto& run : r.runs) {
    if (run.status == RunStatus::kOk) v.push_back(field(*run.metrics));
  }
  return v;
}

// "x" for one seed, "x (mean ± std, n seeds)" for several successful seeds.
template <typename F>
std::string with_seeds(const CellResult& r, F field, const char* spec) {
  const RunMetrics* m = first_metrics(r);
  if (m == nullptr || std::isnan(field(*m))) return "—";  // NaN: not enumerable (Cell::bar)
  std::string s = fmt::format(fmt::runtime(spec), field(*m));
  const auto v = over_seeds(r, field);
  if (r.cell.seeds.size() > 1 && v.size() > 1) {
    const harness::Summary sum = harness::summarize(v);
    s += fmt::format(" ({} ± {}, {} seeds)", fmt::format(fmt::runtime(spec), sum.mean),
                     fmt::format(fmt::runtime(spec), sum.stddev), v.size());
  }
  return s;
}

std::string judged_at_text(const CellResult& r) {
  if (!judged_at_torchgfn_validation(r.cell) && !r.runs.empty() &&
      r.runs.front().status == RunStatus::kOk) {
    const RunMetrics& m = *r.runs.front().metrics;
    return fmt::format("end of run, it {}, {} trajectories ({})", m.iterations, m.trajectories,
                       r.cell.bar ? "our bar" : "final validation");
  }
  if (!r.point) return "—";
  const ValidationPoint& p = *r.point;
  return fmt::format("it {}/{} (torchgfn {}), {} visited", p.iteration, p.n_iterations,
                     p.torchgfn_iteration, p.n_visited);
}

std::string target_text(const Cell& c) {
  const TorchgfnTarget& t = c.target;
  if (c.bar) {
    std::string s = "none; our bar: " + learning_bar_text(*c.bar);
    if (c.bar->log_z_true) s += fmt::format(" (exact log Z {:.4f})", *c.bar->log_z_true);
    return s;
  }
  // The l1_visited targets are the table's default metric; others are named.
  const std::string metric =
      t.metric == TargetMetric::kL1Visited ? "" : std::string(metric_name(t.metric)) + " ";
  if (t.published) {
    return fmt::format("{}≤ {:.4g} ({:.4g} ± {:.0e})", metric, t.bound(), t.value, t.atol);
  }
  return fmt::format("none (TB bar ≤ {:.4g})", t.bound());
}

// `value` to 3 significant digits, or more (up to 6) while it prints like `bound` does ({:.4g}):
// a miss never reads "0.12 > 0.12".
std::string past_bound_digits(double value, double bound) {
  const std::string b = fmt::format("{:.4g}", bound);
  for (int digits = 3; digits < 6; ++digits) {
    std::string s = fmt::format("{:.{}g}", value, digits);
    if (s != b) return s;
  }
  return fmt::format("{:.6g}", value);
}

// What keeps one run of a cell with our own bar from passing it ("" when it passes).
std::string bar_miss(const LearningBar& bar, const RunMetrics& m) {
  std::vector<std::string> miss;
  if (bar.max_l1_exact && !(m.l1_exact <= *bar.max_l1_exact)) {
    miss.push_back(fmt::format("sum-L1 exact {:.4f} > {:.4g}", m.l1_exact, *bar.max_l1_exact));
  }
  if (m.modes_found < bar.min_modes_found) {
    miss.push_back(fmt::format("{} modes in training < {}", m.modes_found, bar.min_modes_found));
  }
  if (bar.min_fresh_modes > 0 && m.fresh_sample_modes < bar.min_fresh_modes) {
    miss.push_back(
        fmt::format("{} modes in fresh samples < {}", m.fresh_sample_modes, bar.min_fresh_modes));
  }
  if (!(m.loss_ratio <= bar.max_loss_ratio)) {
    miss.push_back(fmt::format("loss ratio {:.3g} > {:.3g}", m.loss_ratio, bar.max_loss_ratio));
  }
  return fmt::format("{}", fmt::join(miss, ", "));
}

// verdict() of a cell with our own bar (Cell::bar): every seed runs and passes it.
std::string bar_verdict(const CellResult& r) {
  const LearningBar& bar = *r.cell.bar;
  std::vector<std::string> misses;
  long long fewest_modes = -1, fewest_fresh = -1;
  double worst_l1 = 0;
  const int n = static_cast<int>(r.runs.size());
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const std::uint64_t seed = r.cell.seeds.at(i);
    if (r.runs[i].status != RunStatus::kOk) {
      misses.push_back(fmt::format("seed {}: run failed", seed));
      continue;
    }
    const RunMetrics& m = *r.runs[i].metrics;
    fewest_modes = fewest_modes < 0 ? m.modes_found : std::min(fewest_modes, m.modes_found);
    fewest_fresh =
        fewest_fresh < 0 ? m.fresh_sample_modes : std::min(fewest_fresh, m.fresh_sample_modes);
    worst_l1 = std::max(worst_l1, m.l1_exact);
    const std::string miss = bar_miss(bar, m);
    if (!miss.empty()) misses.push_back(fmt::format("seed {}: {}", seed, miss));
  }
  if (!misses.empty()) {
    return fmt::format("**FAIL** (our bar: {}; {}/{} seeds within)", fmt::join(misses, "; "),
                       n - static_cast<int>(misses.size()), n);
  }
  const std::string l1 =
      bar.max_l1_exact ? fmt::format("sum-L1 exact {:.4f}, ", worst_l1) : std::string();
  const std::string fresh =
      bar.min_fresh_modes > 0 ? fmt::format(", {} in fresh samples", fewest_fresh) : "";
  const std::string seeds = n > 1 ? fmt::format(", worst of {} seeds", n) : "";
  return fmt::format("PASS (our bar): {}{}/{} modes in training{}, loss ratio {:.3g}{}", l1,
                     fewest_modes, first_metrics(r)->n_modes, fresh, *judged_value(r), seeds);
}

}  // namespace

std::string learning_bar_text(const LearningBar& bar) {
  std::string s;
  if (bar.max_l1_exact) s += fmt::format("sum-L1 exact ≤ {:.4g}, ", *bar.max_l1_exact);
  s += fmt::format("≥ {} mode(s) in training", bar.min_modes_found);
  if (bar.min_fresh_modes > 0) {
    s += fmt::format(" and ≥ {} in {} fresh samples", bar.min_fresh_modes, bar.fresh_samples);
  }
  return s + fmt::format(", loss ratio ≤ {:.3g} (median loss, last {} / first {} iterations)",
                         bar.max_loss_ratio, bar.loss_tail, bar.loss_head);
}

std::vector<double> judged_values(const CellResult& r) {
  std::vector<double> judged;
  for (const auto& run : r.runs) {
    if (run.status != RunStatus::kOk) continue;
    if (r.cell.bar) {
      judged.push_back(run.metrics->loss_ratio);
    } else if (const auto v = target_value(r.cell, *run.metrics)) {
      judged.push_back(*v);
    }
  }
  return judged;
}

std::optional<double> judged_value(const CellResult& r) {
  const RunMetrics* m = first_metrics(r);
  if (m != nullptr && r.cell.bar) {  // the worst (largest) loss ratio: every seed is judged
    const auto ratios = judged_values(r);
    return *std::max_element(ratios.begin(), ratios.end());
  }
  const auto seed1 = m == nullptr ? std::nullopt : target_value(r.cell, *m);
  if (!seed1) return std::nullopt;
  const auto judged = judged_values(r);
  return judged.size() > 1 ? harness::mean(judged) : *seed1;
}

std::string verdict(const CellResult& r) {
  if (r.runs.empty()) return "n/a (not run)";
  const RunOutcome& first = r.runs.front();
  if (first.status == RunStatus::kUnsupported) return "n/a (no replay buffer yet)";
  if (first.status == RunStatus::kFailed) {
    std::string msg = first.message;  // a table cell: no raw '|' or newlines
    for (char& ch : msg) {
      if (ch == '|' || ch == '\n') ch = ' ';
    }
    return "**FAIL** (run failed: " + msg + ")";
  }
  if (r.cell.bar) return bar_verdict(r);
  const RunMetrics& m = *first.metrics;
  const TargetMetric metric = r.cell.target.metric;
  const auto seed1 = target_value(r.cell, m);
  if (!seed1) {
    return metric == TargetMetric::kJsd
               ? "**FAIL** (no jsd in seed 1's summary.json: validation off, or an environment "
                 "without the KDE validation)"
               : "**FAIL** (no metrics.csv row at torchgfn's validation)";
  }
  const double bound = r.cell.target.bound();
  // The judged values of every seed that has one (seed 1 first).
  std::vector<double> judged, sampled;
  int within = 0;
  for (const auto& run : r.runs) {
    if (run.status != RunStatus::kOk) continue;
    const auto v = target_value(r.cell, *run.metrics);
    if (!v) continue;
    judged.push_back(*v);
    sampled.push_back(run.metrics->l1_sampled);
    if (judged.back() <= bound) ++within;
  }
  // Several seeds: judged on the mean over seeds, seed 1 and the spread shown beside it.
  const bool over_seeds = judged.size() > 1;
  const double value = *judged_value(r);
  const double sampled_value = over_seeds ? harness::mean(sampled) : m.l1_sampled;
  const std::string what = (over_seeds ? "mean " : "") + std::string(metric_name(metric));
  std::string why;
  if (!(value <= bound)) {
    why = fmt::format("{} {} > {:.4g}, +{:.1f}%", what, past_bound_digits(value, bound), bound,
                      100.0 * (value / bound - 1.0));
  }
  if (r.cell.max_sampled_l1_sum && !(sampled_value <= *r.cell.max_sampled_l1_sum)) {
    why += fmt::format("{}{}sampled sum-L1 > {:.3g}", why.empty() ? "" : ", ",
                       over_seeds ? "mean " : "", *r.cell.max_sampled_l1_sum);
  }
  std::string spread;
  if (over_seeds) {
    const harness::Summary s = harness::summarize(judged);
    spread =
        fmt::format("; mean {:.3g} ± {:.3g} over {} seeds, seed 1 {:.3g}, {}/{} seeds ≤ {:.4g}",
                    s.mean, s.stddev, judged.size(), *seed1, within, judged.size(), bound);
  }
  if (!why.empty()) {
    // No torchgfn target: the bar is our own (TB's), so this is not a failed target.
    if (!r.cell.target.published)
      return "over our TB bar, no torchgfn target (" + why + spread + ")";
    return "**FAIL** (" + why + spread + ")";
  }
  std::string ok = r.cell.target.published ? "PASS" : "PASS (vs TB bar)";
  if (r.cell.max_sampled_l1_sum) ok += fmt::format(", sum ≤ {:.3g}", *r.cell.max_sampled_l1_sum);
  return ok + spread;
}

std::string render_table(const std::vector<CellResult>& results, const std::string& command) {
  std::string out;
  out += fmt::format("`{}`\n\n", command);
  out +=
      "Single trainer (world of one), batch 128, seed 1 (TB: seeds 1-3; cells with several seeds "
      "show seed 1's value and mean ± std in parentheses; their verdict is judged on the mean over "
      "seeds and shows seed 1 and how many seeds are within the bar, single-seed cells are "
      "judged on seed 1; cells without a torchgfn target that miss TB's bar say so: "
      "\"over our TB bar\", not a failed target); HyperGrid 32,000 trajectories (250 iterations), "
      "DiscreteEBM 16,000 (125). "
      "**l1_visited** = torchgfn's `l1_dist` (`gfn/utils/training.py` `validate`): the MEAN "
      "over terminating states of |empirical − true|, the empirical distribution being that of "
      "the last `validation.n_samples` (200,000) terminating states SAMPLED DURING TRAINING "
      "(here all of them, early untrained samples included). **Verdict** (like for like): "
      "l1_visited AT THE VALIDATION torchgfn's test asserts on ≤ target + atol "
      "(`tutorials/examples/test_scripts.py`). Its scripts validate after iteration i "
      "(0-based) when i % 100 == 0; `train_hypergrid.py` also at its last iteration, "
      "`train_discreteebm.py` not, so `test_discreteebm` checks iteration 100 of 125 (101 × 128 "
      "= 12,928 visited states) and `test_hypergrid_*` the end (32,000). gfn-train counts from "
      "1: torchgfn's i is our i + 1, so DiscreteEBM runs validate at iteration 101 "
      "(`validation.interval=101`) and the verdict reads that row of metrics.csv, checked "
      "(trajectories, `n_visited`); **judged at** says where. **end of run** = l1_visited at "
      "the last iteration (shown, not judged). **mean L1 fresh** = sampled sum-L1 / number "
      "of terminating states (64, 4096, 2^ndim, 256), from 200,000 fresh samples of the FINAL "
      "policy (shown, not judged); sum-L1 columns are sums over states (summary.json). "
      "**Cells with our own bar** (torchgfn's benchmark scenarios, which torchgfn times but does "
      "not judge: the DiscreteEBM Ising lattice 6x6, 2^36 states, not enumerated, so no L1; the "
      "bit-sequence scenarios `tb_bitseq_*`, batch 16, 16,000 trajectories (1,000 iterations), "
      "seeds 1-3): every seed judged at the end of its run on the bar its target column states: "
      "sum-L1 exact (if enumerated), modes sampled during training (and among fresh samples of "
      "the final policy), and the TB loss fallen (**loss ratio** = median loss of the last "
      "iterations / of the first, the windows per cell); the Ising lattice's \\|logZ error\\| "
      "is against the exact log Z, shown, not judged. **Box cells** (torchgfn's `test_box`, TB "
      "and DB at delta 0.1 and 0.25, 32,000 trajectories (250 iterations), seeds 1-3): no L1; "
      "judged on **jsd** = `train_box.py`'s KDE Jensen-Shannon divergence between 10,000 samples "
      "of the final policy and the reward density (summary.json `jsd`, our last validation; "
      "shown for these cells only), the mean over seeds ≤ target + atol; \\|logZ error\\| is "
      "against the Box's exact log Z.\n\n";
  out +=
      "| cell | env | loss | buffer | l1_visited (torchgfn def.) at torchgfn's validation | "
      "judged at | l1_visited end of run | jsd end of run | torchgfn target | verdict | mean L1 "
      "fresh | sum-L1 exact | sum-L1 sampled | \\|logZ error\\| | ms/iteration |\n";
  out +=
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
      "--- |\n";
  for (const auto& r : results) {
    const Cell& c = r.cell;
    const auto mean_l1_of = [&c](const RunMetrics& m) { return mean_l1(c, m); };
    const auto judged = [](const RunMetrics& m) {
      return m.judged ? m.judged->l1_visited : std::nan("");
    };
    // The KDE jsd of the cells judged on it (an enumerable environment's summary.json jsd is
    // the exact JSD, another quantity: not shown).
    const auto jsd = [&c](const RunMetrics& m) {
      return c.target.metric == TargetMetric::kJsd ? m.jsd : std::nan("");
    };
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.id,
        c.env_label, c.loss, c.replay ? "uniform" : "none", with_seeds(r, judged, "{:.3g}"),
        judged_at_text(r),
        with_seeds(
            r, [](const RunMetrics& m) { return m.l1_visited; }, "{:.3g}"),
        with_seeds(r, jsd, "{:.3g}"), target_text(c), verdict(r),
        with_seeds(r, mean_l1_of, "{:.3g}"),
        with_seeds(
            r, [](const RunMetrics& m) { return m.l1_exact; }, "{:.4f}"),
        with_seeds(
            r, [](const RunMetrics& m) { return m.l1_sampled; }, "{:.4f}"),
        with_seeds(
            r, [](const RunMetrics& m) { return m.logz_error; }, "{:.3g}"),
        with_seeds(
            r, [](const RunMetrics& m) { return m.ms_per_iteration; }, "{:.1f}"));
  }
  std::string notes;  // each distinct note once
  std::vector<std::string> seen;
  for (const auto& r : results) {
    const std::string& note = r.cell.note;
    if (note.empty() || std::find(seen.begin(), seen.end(), note) != seen.end()) continue;
    seen.push_back(note);
    notes += "- " + note + "\n";
  }
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

}  // namespace gfn::quality
