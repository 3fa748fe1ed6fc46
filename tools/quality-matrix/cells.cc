#include "tools/quality-matrix/cells.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <stdexcept>
#include <utility>

#include "runtime/gfn/loss_kind.h"

namespace gfn::quality {
namespace {

// torchgfn test_scripts.py targets (mean L1 over terminating states, atol), keyed by
// "<ndim>/<loss>/<buffer>". TB: test_hypergrid_tb (replay_buffer_size 0 / 1000), FM:
// test_hypergrid_fm (0 / 100). The other losses only have a smoke test there
// (test_hypergrid_losses_and_replay_buffer: 1,000 trajectories, no assertion).
const std::map<std::string, std::pair<double, double>>& hypergrid_targets() {
  static const std::map<std::string, std::pair<double, double>> targets = {
      {"2/tb/none", {2.975e-3, 1e-3}},  {"2/tb/buffer", {3.1364e-3, 1e-3}},
      {"4/tb/none", {1.6e-4, 1e-4}},    {"4/tb/buffer", {1.7123e-4, 1e-4}},
      {"2/fm/none", {5.024e-3, 1e-3}},  {"2/fm/buffer", {1.376e-2, 1e-2}},
      {"4/fm/none", {2.3227e-4, 1e-4}}, {"4/fm/buffer", {3.2208e-4, 1e-4}},
  };
  return targets;
}

// test_discreteebm (FM, 16,000 trajectories): (ndim, alpha) -> (target, atol), as in
// test_scripts.py of the torchgfn version whose train_discreteebm.py has `def main(args)`
// returning validation_info["l1_dist"] (the l1_dist of iteration 100 of 125). Older
// test_scripts.py versions asserted smaller values (ndim 4 alpha 1.0: 0.062, kept in its
// comment) with atol 1e-2; the bound here is the current target + atol.
TorchgfnTarget discrete_ebm_target(int ndim, double alpha) {
  TorchgfnTarget t;
  t.source = "test_discreteebm";
  if (ndim == 2 && alpha == 0.1) {
    t.value = 2.6972e-2, t.atol = 1e-1;
  } else if (ndim == 2 && alpha == 1.0) {
    t.value = 1.3159e-1, t.atol = 1e-1;
  } else if (ndim == 4 && alpha == 0.1) {
    t.value = 2.46e-2, t.atol = 1e-2;
  } else {
    t.value = 8.675e-2, t.atol = 1e-2;
  }
  return t;
}

Cell hypergrid_cell(int ndim, const std::string& loss, bool replay, int tb_seeds,
                    const ReplaySettings& rs) {
  Cell c;
  const std::string buffer = replay ? "buffer" : "none";
  c.id = fmt::format("hypergrid_{}d/{}/{}", ndim, loss, buffer);
  c.env_label = fmt::format("HyperGrid {}D h8", ndim);
  c.loss = loss;
  c.replay = replay;
  c.config = fmt::format("configs/hypergrid_{}d.yaml", ndim);
  c.n_terminating_states = ndim == 2 ? 64 : 4096;
  c.sets = {"train.loss=" + loss};
  c.schedule = hypergrid_schedule();
  if (replay) {
    const std::int64_t capacity = loss == "fm" ? rs.capacity_fm : rs.capacity_tb;
    c.sets.push_back("replay.kind=" + rs.kind);
    c.sets.push_back(fmt::format("replay.capacity={}", capacity));
    c.sets.push_back(fmt::format("replay.fraction={}", rs.fraction));
  }
  if (loss == "tb") {
    c.seeds.clear();
    for (int s = 1; s <= tb_seeds; ++s) c.seeds.push_back(static_cast<std::uint64_t>(s));
    if (ndim == 2 && !replay) c.max_sampled_l1_sum = 0.015;
  }
  const std::string key = fmt::format("{}/{}/{}", ndim, loss, buffer);
  const auto& targets = hypergrid_targets();
  if (auto it = targets.find(key); it != targets.end()) {
    c.target = {it->second.first, it->second.second,
                loss == "tb" ? "test_hypergrid_tb" : "test_hypergrid_fm", true};
  } else {
    const auto& tb = targets.at(fmt::format("{}/tb/{}", ndim, buffer));
    c.target = {tb.first, tb.second, "none published; TB's bar", false};
  }
  return c;
}

Cell discrete_ebm_cell(int ndim, double alpha, const std::string& loss) {
  Cell c;
  c.id = fmt::format("discrete_ebm_{}d_a{:.1f}/{}", ndim, alpha, loss);
  c.env_label = fmt::format("DiscreteEBM ndim {} alpha {:.1f}", ndim, alpha);
  c.loss = loss;
  c.config = "configs/discrete_ebm.yaml";
  c.n_terminating_states = std::int64_t{1} << ndim;
  c.sets = {"train.loss=" + loss, fmt::format("env.ndim={}", ndim),
            fmt::format("env.alpha={}", alpha)};
  c.n_trajectories = 16000;
  // The target is test_discreteebm's, so both losses follow train_discreteebm.py's schedule.
  c.schedule = discrete_ebm_schedule();
  if (loss == "fm") {
    // train_discreteebm.py: FMGFlowNet, Adam lr 1e-3, identity preprocessor (torchgfn's
    // DiscreteEBM default), MLP 256 x 2.
    c.sets.push_back("env.preprocessor=identity");
    c.note =
        "DiscreteEBM `fm` rows: torchgfn's train_discreteebm.py setting (FM, identity "
        "preprocessor, Adam lr 1e-3, MLP 256 x 2), the configuration its targets come from";
  } else {
    c.note =
        "DiscreteEBM `tb` rows: our configs/discrete_ebm.yaml (TB, K-hot), judged against the "
        "same (FM) target";
  }
  c.target = discrete_ebm_target(ndim, alpha);
  return c;
}

// TB on a scenario of torchgfn's library benchmark on NonAutoregressiveBitSequence
// (configs/bench/torchgfn/<scenario>.yaml: n = 8, word_size k, batch 16, MLP 256 x 2 tied),
// trained for 16,000 trajectories and validated once, at the end (exact: 256 terminating states).
// torchgfn times these scenarios and judges nothing, so the bar is ours (LearningBar), set
// from seeds 1-5 with margin (docs/results/quality-matrix.md "Cells"): sum-L1 exact <= 0.1
// (seeds: 0.058-0.063 small, 0.070-0.077 medium; the untrained, uniform distribution: 0.234
// and 0.204), every mode found, loss ratio <= 0.02 over a tenth of the run (median loss of the
// last 100 iterations / of the first 100, ~1.5; seeds: 0.0056-0.0079).
Cell bitseq_cell(const std::string& scenario, int word_size, int n_modes) {
  Cell c;
  c.id = scenario + "/tb";
  c.env_label = fmt::format("NA BitSequence n8 k{} {} modes", word_size, n_modes);
  c.loss = "tb";
  c.config = "configs/bench/torchgfn/" + scenario + ".yaml";
  c.n_terminating_states = 256;
  c.batch_size = 16;
  c.n_trajectories = 16000;
  c.seeds = {1, 2, 3};
  // The scenario's fixed 150 iterations give way to the budget; one validation, at the end;
  // training.csv gets every iteration's loss (the loss bar).
  c.sets = {"train.n_iterations=0", "validation.enabled=true", "validation.interval=1000000",
            "output.log_every=1"};
  c.target = {0, 0, "none (torchgfn only times " + scenario + ")", false};
  LearningBar bar;
  bar.max_l1_exact = 0.1;
  bar.min_modes_found = n_modes;  // every mode
  bar.max_loss_ratio = 0.02;
  bar.loss_head = bar.loss_tail = 100;
  c.bar = bar;
  c.note =
      "`tb_bitseq_*` rows: torchgfn's library-benchmark scenarios (configs/bench/torchgfn/, batch "
      "16), which torchgfn times but does not judge: judged at the end of every seed's run on our "
      "own bar (sum-L1 exact, every mode sampled in training, TB loss fallen)";
  return c;
}

// torchgfn's benchmark scenario tb_ising_6x6 (configs/bench/torchgfn/tb_ising_6x6.yaml: TB,
// identity input, MLP 256 x 2 with a shared trunk, Adam 1e-3 / logZ 0.1) for 400 iterations of
// 128: 2^36 terminating states, so no L1, and torchgfn only times the scenario, so no target.
// Measured (seeds 1-5, 400 iterations): every seed sampled one of the two modes during training
// (first at iteration 54-275), its final policy hit it in 2,000 fresh samples, and the median
// TB loss fell from ~600 (first 10 iterations) to 2-100 (last 40): ratios 0.004-0.16; the bar
// takes 0.3 on these windows. The learned log Z (4-9 after 400 iterations; its Adam lr 0.1 moves it
// ~0.1 per iteration from 0) is far from the exact 64.09, whose mass is ~0.48 per mode: shown, not
// judged (each seed settles on one mode in this budget).
Cell ising_lattice_cell(int tb_seeds) {
  Cell c;
  c.id = "discrete_ebm_ising_6x6/tb";
  c.env_label = "DiscreteEBM Ising 6x6 J 0.44";
  c.loss = "tb";
  c.config = "configs/bench/torchgfn/tb_ising_6x6.yaml";
  LearningBar bar;
  bar.min_modes_found = 1;
  bar.fresh_samples = 2000;
  bar.min_fresh_modes = 1;
  bar.max_loss_ratio = 0.3;
  bar.log_z_true = periodic_ising_log_partition(6, 0.44);
  // The config's 150 timed iterations give way to the cell's budget; validation on (cheap
  // without enumeration) so that summary.json has the learned log Z; every loss logged.
  c.sets = {"train.n_iterations=0", "validation.enabled=true", "output.log_every=1",
            fmt::format("validation.fresh_samples={}", bar.fresh_samples)};
  c.n_trajectories = 400 * c.batch_size;
  c.seeds.clear();
  for (int s = 1; s <= tb_seeds; ++s) c.seeds.push_back(static_cast<std::uint64_t>(s));
  c.n_terminating_states = 0;  // 2^36: not enumerated
  c.target = {0, 0, "none (torchgfn only times tb_ising_6x6)", false};
  c.bar = bar;
  c.note =
      "DiscreteEBM Ising 6x6: torchgfn's benchmark scenario tb_ising_6x6 "
      "(configs/bench/torchgfn/tb_ising_6x6.yaml), 2^36 states: no L1 and no torchgfn target; "
      "judged at the end of every seed's run on our own bar (modes sampled in training and by "
      "the final policy, TB loss fallen); \\|logZ error\\| is against the exact log Z "
      "(transfer matrix), shown, not judged";
  return c;
}

// test_box (tutorials/examples/test_scripts.py, BoxArgs): train_box.py on the 2-D Cartesian Box
// (configs/box.yaml) with TB or DB at delta 0.1 or 0.25, 32,000 trajectories in batches of 128,
// KDE Jensen-Shannon divergence on 10,000 samples; target JSD 0.10 (delta 0.1) and 0.09 (delta
// 0.25), atol 0.02, for both losses. Judged on the JSD of our final validation (summary.json
// "jsd"), over seeds 1-3; the config's validation every 50 iterations leaves the curve in
// metrics.csv.
Cell box_cell(double delta, const std::string& loss) {
  Cell c;
  c.id = fmt::format("box_2d_d{}/{}", delta, loss);
  c.env_label = fmt::format("Box 2D delta {}", delta);
  c.loss = loss;
  c.config = "configs/box.yaml";
  c.sets = {"train.loss=" + loss, fmt::format("env.delta={}", delta)};
  c.seeds = {1, 2, 3};
  c.validation_samples = 10000;
  c.n_terminating_states = 0;  // continuous: no L1
  c.target = {delta == 0.1 ? 0.10 : 0.09, 0.02, "test_box", true, TargetMetric::kJsd};
  c.note =
      "Box rows: torchgfn's test_box settings (configs/box.yaml: the Cartesian Box, which "
      "train_box.py now trains, gfn.gym.Box = BoxCartesian), judged on the KDE JSD of our final "
      "validation (10,000 samples) against test_box's targets; torchgfn's figure is the JSD of "
      "its last validation, which at validation interval 500 and 250 iterations is the one after "
      "the first iteration, sampled at temperature 2: a bar on the untrained sampler "
      "(docs/environments.md \"torchgfn's Box quality test\")";
  return c;
}

// Every loss of runtime/gfn/loss_kind.h, in the matrix's row order (TB first: its bar
// judges the losses without a torchgfn target).
constexpr core::LossKind kMatrixLosses[] = {core::LossKind::kTB,    core::LossKind::kDB,
                                            core::LossKind::kSubTB, core::LossKind::kFM,
                                            core::LossKind::kZVar,  core::LossKind::kModifiedDB};
static_assert(std::size(kMatrixLosses) == std::size(core::kLossKindNames),
              "every train.loss of runtime/gfn/loss_kind.h has its rows in the matrix");

}  // namespace

const char* metric_name(TargetMetric metric) {
  return metric == TargetMetric::kJsd ? "jsd" : "l1_visited";
}

std::vector<Cell> full_matrix(int tb_seeds, const ReplaySettings& replay) {
  if (tb_seeds < 1) {
    throw std::invalid_argument(fmt::format("--tb-seeds must be >= 1, got {}", tb_seeds));
  }
  std::vector<Cell> cells;
  for (int ndim : {2, 4}) {
    for (const core::LossKind kind : kMatrixLosses) {
      const char* loss = config::enum_name(kind);
      for (bool buffered : {false, true}) {
        cells.push_back(hypergrid_cell(ndim, loss, buffered, tb_seeds, replay));
      }
    }
  }
  for (int ndim : {2, 4}) {
    for (double alpha : {0.1, 1.0}) {
      for (const char* loss : {"fm", "tb"}) cells.push_back(discrete_ebm_cell(ndim, alpha, loss));
    }
  }
  cells.push_back(ising_lattice_cell(tb_seeds));
  cells.push_back(bitseq_cell("tb_bitseq_small", 1, 2));
  cells.push_back(bitseq_cell("tb_bitseq_medium", 2, 4));
  for (double delta : {0.1, 0.25}) {
    for (const char* loss : {"tb", "db"}) cells.push_back(box_cell(delta, loss));
  }
  return cells;
}

double periodic_ising_log_partition(int side, double k) {
  if (side < 3 || side > 8) {
    throw std::invalid_argument(
        fmt::format("periodic_ising_log_partition: side must be in [3, 8], got {}", side));
  }
  const int n = 1 << side;  // row configurations, spin j = bit j (1: +1, 0: -1)
  const auto spin = [](int row, int j) { return ((row >> j) & 1) != 0 ? 1 : -1; };
  std::vector<double> t(static_cast<std::size_t>(n) * n);
  for (int a = 0; a < n; ++a) {
    int within = 0;
    for (int j = 0; j < side; ++j) within += spin(a, j) * spin(a, (j + 1) % side);
    for (int b = 0; b < n; ++b) {
      int between = 0;
      for (int j = 0; j < side; ++j) between += spin(a, j) * spin(b, j);
      t[static_cast<std::size_t>(a) * n + b] = std::exp(2 * k * (within + between));
    }
  }
  // P = T^side with P rescaled to max entry 1 after each product (log_scale keeps the factor).
  std::vector<double> p = t, next(t.size());
  double log_scale = 0;
  for (int power = 1; power < side; ++power) {
    double top = 0;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        double sum = 0;
        for (int m = 0; m < n; ++m) sum += p[a * n + m] * t[m * n + b];
        next[a * n + b] = sum;
        top = std::max(top, sum);
      }
    }
    for (double& v : next) v /= top;
    log_scale += std::log(top);
    p.swap(next);
  }
  double trace = 0;
  for (int a = 0; a < n; ++a) trace += p[a * n + a];
  return log_scale + std::log(trace);
}

std::vector<Cell> smoke_matrix() {
  return {hypergrid_cell(2, "tb", false, 1, {}), discrete_ebm_cell(2, 0.1, "fm")};
}

std::int64_t cell_iterations(const Cell& cell, std::int64_t iterations_override) {
  if (iterations_override > 0) return iterations_override;
  return (cell.n_trajectories + cell.batch_size - 1) / cell.batch_size;
}

std::vector<std::string> run_arguments(const Cell& cell, std::uint64_t seed,
                                       const std::string& output_dir,
                                       const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--config", cell.config};
  auto add = [&args](const std::string& kv) {
    args.push_back("--set");
    args.push_back(kv);
  };
  add(fmt::format("train.batch_size={}", cell.batch_size));
  add(fmt::format("train.n_trajectories={}", cell.n_trajectories));
  add(fmt::format("validation.n_samples={}", cell.validation_samples));
  for (const auto& kv : cell.sets) add(kv);
  add(fmt::format("train.seed={}", seed));
  add("output.dir=" + output_dir);
  for (const auto& kv : extra) add(kv);
  return args;
}

}  // namespace gfn::quality
