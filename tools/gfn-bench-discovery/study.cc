#include "tools/gfn-bench-discovery/study.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "tools/common/harness/stats.h"

namespace gfn::bench_discovery {

std::vector<Policy> policies_named(const std::vector<std::string>& names) {
  std::vector<Policy> out;
  for (const auto& n : names) {
    if (n == "average_all") {
      out.push_back({n, {"spawn.policy=average_all"}});
    } else if (n == "selective") {
      out.push_back({n, {"spawn.policy=selective"}});
    } else if (n == "selective_random") {
      out.push_back({n, {"spawn.policy=selective", "spawn.random_strategies=true"}});
    } else {
      throw std::invalid_argument("unknown policy '" + n +
                                  "' (average_all, selective, selective_random)");
    }
  }
  return out;
}

Policy parse_technique(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::invalid_argument("--technique '" + spec +
                                "': expected NAME=section.key=value;section.key=value");
  }
  Policy t;
  t.name = spec.substr(0, eq);
  if (t.name.find('+') != std::string::npos) {
    throw std::invalid_argument("--technique '" + spec + "': the name must not contain '+'");
  }
  std::istringstream rest(spec.substr(eq + 1));
  for (std::string set; std::getline(rest, set, ';');) {
    if (!set.empty()) t.sets.push_back(set);
  }
  return t;
}

std::vector<Policy> cross_techniques(const std::vector<Policy>& policies,
                                     const std::vector<Policy>& techniques) {
  if (techniques.empty()) return policies;
  std::vector<Policy> out;
  for (const auto& p : policies) {
    for (const auto& t : techniques) {
      Policy cell{p.name + "+" + t.name, p.sets};
      cell.sets.insert(cell.sets.end(), t.sets.begin(), t.sets.end());
      out.push_back(std::move(cell));
    }
  }
  return out;
}

double exact_expected_modes(std::int64_t n_modes, double p, double trajectories) {
  return static_cast<double>(n_modes) * -std::expm1(trajectories * std::log1p(-p));
}

double exact_trajectories_to(double share, double p) {
  return std::ceil(std::log1p(-share) / std::log1p(-p));
}

std::string format_exact_sampler(std::int64_t n_modes, double p, std::int64_t budget) {
  return fmt::format(
      "exact sampler (each mode p = {:.4g}): {:.1f}/{} modes at the budget, 50 % after {:.0f} "
      "trajectories, 90 % after {:.0f}\n",
      p, exact_expected_modes(n_modes, p, static_cast<double>(budget)), n_modes,
      exact_trajectories_to(0.5, p), exact_trajectories_to(0.9, p));
}

std::string curves_csv(const std::vector<RunResult>& runs, double mode_probability,
                       std::int64_t budget) {
  std::string out = "cell,seed,trajectories,wall_s,modes\n";
  std::int64_t n_modes = 0;
  for (const auto& r : runs) {
    if (!r.ok) continue;
    n_modes = r.n_modes;
    const std::string cell = fmt::format("a{}/{}", r.agents, r.policy);
    out += fmt::format("{},{},0,0.000,0\n", cell, r.seed);
    for (const auto& p : r.timeline) {
      out += fmt::format("{},{},{},{:.3f},{}\n", cell, r.seed, p.trajectories, p.wall_s, p.modes);
    }
  }
  if (mode_probability > 0 && mode_probability < 1 && n_modes > 0) {
    for (int k = 0; k <= 64; ++k) {
      const double n = static_cast<double>(budget) * k / 64.0;
      out += fmt::format("exact sampler,0,{:.0f},,{:.2f}\n", n,
                         exact_expected_modes(n_modes, mode_probability, n));
    }
  }
  return out;
}

std::vector<TimelinePoint> read_total_timeline(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line) || line != "agent,modes_found,iteration,trajectories,wall_s") {
    throw std::runtime_error("modes_timeline.csv: missing header, got '" + line + "'");
  }
  std::vector<TimelinePoint> out;
  while (std::getline(in, line)) {
    if (line.rfind("total,", 0) != 0) continue;
    TimelinePoint p;
    std::int64_t iteration = 0;
    char c1 = 0, c2 = 0, c3 = 0;
    std::istringstream row(line.substr(6));
    if (!(row >> p.modes >> c1 >> iteration >> c2 >> p.trajectories >> c3 >> p.wall_s) ||
        c1 != ',' || c2 != ',' || c3 != ',') {
      throw std::runtime_error("modes_timeline.csv: malformed row '" + line + "'");
    }
    out.push_back(p);
  }
  return out;
}

std::optional<TimelinePoint> first_reaching(const std::vector<TimelinePoint>& timeline,
                                            std::int64_t modes) {
  for (const auto& p : timeline) {
    if (p.modes >= modes) return p;
  }
  return std::nullopt;
}

void summarise(RunResult& r, const std::vector<TimelinePoint>& timeline, std::int64_t n_modes) {
  r.n_modes = n_modes;
  r.modes_at_budget = timeline.empty() ? 0 : timeline.back().modes;
  const auto target = [n_modes](double share) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(share * n_modes)));
  };
  r.half = first_reaching(timeline, target(0.5));
  r.ninety = first_reaching(timeline, target(0.9));
}

namespace {

// The median, NaN for no values (a cell without a successful seed).
double median_or_nan(std::vector<double> v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : harness::median(std::move(v));
}

/// Median of a milestone over runs, a missed milestone counting as +inf.
double milestone_median(const std::vector<const RunResult*>& runs, bool ninety, bool seconds) {
  std::vector<double> v;
  for (const auto* r : runs) {
    const auto& m = ninety ? r->ninety : r->half;
    v.push_back(!m        ? std::numeric_limits<double>::infinity()
                : seconds ? m->wall_s
                          : static_cast<double>(m->trajectories));
  }
  return median_or_nan(v);
}

std::string show(double v, const char* format) {
  if (std::isnan(v) || std::isinf(v)) return "-";
  return fmt::format(fmt::runtime(format), v);
}

CellSummary summarise_cell(const std::vector<RunResult>& runs, int agents,
                           const std::string& policy) {
  CellSummary c;
  c.agents = agents;
  c.policy = policy;
  std::vector<const RunResult*> ok;
  std::vector<double> modes, fresh;
  for (const auto& r : runs) {
    if (r.agents != agents || r.policy != policy) continue;
    ++c.runs;
    if (!r.ok) {
      ++c.failed;
      continue;
    }
    ok.push_back(&r);
    modes.push_back(static_cast<double>(r.modes_at_budget));
    if (r.fresh_modes >= 0) fresh.push_back(static_cast<double>(r.fresh_modes));
    c.n_modes = static_cast<double>(r.n_modes);
  }
  c.modes = median_or_nan(modes);
  c.t50 = milestone_median(ok, false, false);
  c.t90 = milestone_median(ok, true, false);
  c.s50 = milestone_median(ok, false, true);
  c.s90 = milestone_median(ok, true, true);
  c.fresh = median_or_nan(fresh);
  return c;
}

// Most modes at the budget, then fewest trajectories to 90 %, then to 50 %.
bool better(const CellSummary& a, const CellSummary& b) {
  const auto key = [](const CellSummary& c) {
    const auto inf = std::numeric_limits<double>::infinity();
    return std::make_tuple(std::isnan(c.modes) ? -1.0 : -c.modes, std::isnan(c.t90) ? inf : c.t90,
                           std::isnan(c.t50) ? inf : c.t50);
  };
  return key(a) < key(b);
}

}  // namespace

std::vector<CellSummary> summarise_cells(const std::vector<RunResult>& runs) {
  std::vector<std::pair<int, std::string>> keys;
  for (const auto& r : runs) {
    const auto k = std::make_pair(r.agents, r.policy);
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  std::vector<CellSummary> cells;
  for (const auto& [agents, policy] : keys) cells.push_back(summarise_cell(runs, agents, policy));
  std::map<int, std::size_t> best;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (std::isnan(cells[i].modes)) continue;
    auto it = best.find(cells[i].agents);
    if (it == best.end() || better(cells[i], cells[it->second])) best[cells[i].agents] = i;
  }
  for (const auto& [agents, i] : best) cells[i].winner = true;
  return cells;
}

std::string format_table(const std::vector<RunResult>& runs, std::int64_t budget) {
  const auto cells = summarise_cells(runs);
  std::string out = fmt::format(
      "mode discovery: medians over seeds, budget {} trajectories\n"
      "{:>6} {:<18} {:>5} {:>16} {:>12} {:>12} {:>9} {:>9} {:>6}\n",
      budget, "agents", "policy", "runs", "modes@budget", "traj->50%", "traj->90%", "s->50%",
      "s->90%", "fresh");
  for (const auto& c : cells) {
    out += fmt::format(
        "{:>6} {:<18} {:>5} {:>16} {:>12} {:>12} {:>9} {:>9} {:>6}\n", c.agents, c.policy,
        c.failed ? fmt::format("{}/{}", c.runs - c.failed, c.runs) : std::to_string(c.runs),
        std::isnan(c.modes) ? "-" : fmt::format("{:.0f}/{:.0f}", c.modes, c.n_modes),
        show(c.t50, "{:.0f}"), show(c.t90, "{:.0f}"), show(c.s50, "{:.1f}"), show(c.s90, "{:.1f}"),
        show(c.fresh, "{:.0f}"));
  }
  std::map<int, const CellSummary*> winners;  // ordered by agent count
  for (const auto& c : cells) {
    if (c.winner) winners[c.agents] = &c;
  }
  for (const auto& [agents, c] : winners) {
    out += fmt::format("winner with {} agent(s): {} ({:.0f} modes at the budget)\n", agents,
                       c->policy, c->modes);
  }
  return out;
}

std::vector<harness::Case> cell_cases(const std::vector<CellSummary>& cells, std::int64_t budget) {
  std::vector<harness::Case> cases;
  for (const auto& c : cells) {
    harness::Case k;
    k.name = fmt::format("a{}/{}", c.agents, c.policy);
    k.parameters = {{"agents", c.agents}, {"policy", c.policy},   {"runs", c.runs},
                    {"failed", c.failed}, {"n_modes", c.n_modes}, {"budget", budget},
                    {"winner", c.winner}};
    k.add("modes_at_budget", c.modes, "modes");
    k.add("trajectories_to_50", c.t50, "trajectories")
        .add("trajectories_to_90", c.t90, "trajectories");
    k.add("seconds_to_50", c.s50, "s").add("seconds_to_90", c.s90, "s");
    k.add("fresh_sample_modes", c.fresh, "modes");
    cases.push_back(std::move(k));
  }
  return cases;
}

}  // namespace gfn::bench_discovery
