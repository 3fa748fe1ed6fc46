#include "tools/quality-matrix/cells.h"

#include <fmt/format.h>

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
// torchgfn times these scenarios and judges nothing, so the bars are ours (LearningBars), set
// from seeds 1-5 with margin (docs/results/quality-matrix.md "Cells"): sum-L1 exact <= 0.1
// (seeds: 0.058-0.063 small, 0.070-0.077 medium; the untrained, uniform distribution: 0.234
// and 0.204), every mode found, loss ratio <= 0.02 (seeds: 0.0025-0.0034).
Cell bitseq_cell(const std::string& scenario, int word_size, int n_modes,
                 const LearningBars& bars) {
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
  c.schedule = {"none (the end of the run)", 1, true};
  c.target = {bars.max_l1_exact, 0, "none (our learning bars)", false};
  c.learning = bars;
  c.note =
      "`tb_bitseq_*` rows: torchgfn's library-benchmark scenarios (configs/bench/torchgfn/, batch "
      "16), which torchgfn times but does not judge: the verdict is OUR learning bars, every seed "
      "within each (sum-L1 exact at the end, every exact mode found, the loss falling: mean of "
      "training.csv's last tenth / first tenth)";
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
  cells.push_back(bitseq_cell("tb_bitseq_small", 1, 2, {0.1, true, 0.02}));
  cells.push_back(bitseq_cell("tb_bitseq_medium", 2, 4, {0.1, true, 0.02}));
  return cells;
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
