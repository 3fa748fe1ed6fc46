#pragma once
// The cells of the quality matrix (docs/results/quality-matrix.md "Quality matrix"): every loss x
// {HyperGrid 2D h8, HyperGrid 4D h8} x {no replay buffer, replay buffer}, plus DiscreteEBM ndim 2/4
// x alpha 0.1/1.0, the DiscreteEBM Ising lattice 6 x 6 (TB) and TB on torchgfn's benchmark
// bit-sequence scenarios, each a single-rank `gfn-train` run (world of one), batch 128 (the
// bit-sequence scenarios: 16), seed 1 (TB cells: seeds 1..n, mean +- std), and TB / DB on the
// 2-D Box at delta 0.1 and 0.25 (seeds 1-3). Each cell but the Ising lattice and the
// bit-sequence ones carries torchgfn's published test target for the same configuration
// (tutorials/examples/test_scripts.py of GFNOrg/torchgfn: test_hypergrid_tb, test_hypergrid_fm,
// test_discreteebm, test_box) and the hyper-parameters that torchgfn's training scripts use for
// it (train_hypergrid.py, train_discreteebm.py, train_box.py).
//
// torchgfn's l1_dist is a MEAN over terminating states of |p - p_true|, p being the
// empirical distribution of the terminating states visited during training; gfn-train's
// summary.json reports it as "l1_visited" (the verdict's metric), and the fresh-sample and
// exact L1 as SUMS (runtime/gfn/validation.h), so a cell also records its number of
// terminating states to show the fresh-sample L1 as a mean.
//
// The Box is continuous: no L1; test_box asserts on the KDE Jensen-Shannon divergence between
// samples of the policy and the reward density (train_box.py's validation), which gfn-train's
// continuous validation writes as summary.json "jsd" (TargetMetric::kJsd).
//
// The Ising lattice cell's 2^36 terminating states cannot be enumerated (no L1) and torchgfn
// only times that scenario and the bit-sequence ones (no target): they carry our own bar
// instead (LearningBar).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/quality-matrix/schedule.h"

namespace gfn::quality {

/// The metric a torchgfn target is stated on, and where the matrix reads it.
enum class TargetMetric {
  /// torchgfn's l1_dist (mean over terminating states, visited during training): the
  /// metrics.csv row of the validation torchgfn's test asserts on (RunMetrics::judged).
  kL1Visited,
  /// train_box.py's KDE Jensen-Shannon divergence: summary.json "jsd", the final validation.
  kJsd,
};

/// The metric's name in the table and the verdict ("l1_visited", "jsd").
const char* metric_name(TargetMetric metric);

/// torchgfn's test target: np.isclose(metric, value, atol) (l1_dist: a mean over terminating
/// states). "At least as good" = our metric <= value + atol.
struct TorchgfnTarget {
  double value = 0;
  double atol = 0;
  std::string source;  ///< the test it comes from, e.g. "test_hypergrid_tb"
  /// true: published for exactly this cell; false: no target for this loss, the TB
  /// target of the same environment and buffer is used as a stand-in bar.
  bool published = true;
  TargetMetric metric = TargetMetric::kL1Visited;
  double bound() const { return value + atol; }
};

/// Our own bar for a cell torchgfn judges nothing for (the benchmark scenarios it only times:
/// the Ising lattice, the bit-sequence scenarios), judged at the end of every seed's run: it
/// learned if the run sampled modes during training (summary.json modes_found; the number of
/// modes for "every mode found"), its final policy still hits modes among fresh samples
/// (fresh_sample_modes, validation.fresh_samples; when min_fresh_modes > 0), its exact sum-L1 is
/// small (when the states can be enumerated and max_l1_exact is set) and its TB loss fell: the
/// loss ratio = the median loss over the last loss_tail logged iterations over the median over
/// the first loss_head (training.csv, output.log_every 1; run.h loss_ratio). A uniform sampler
/// hits a mode of the 6 x 6 lattice with probability 2^-35 per trajectory.
struct LearningBar {
  std::int64_t min_modes_found = 0;  ///< distinct modes sampled during training
  std::int64_t fresh_samples = 0;    ///< validation.fresh_samples of the run (0: not judged)
  std::int64_t min_fresh_modes = 0;  ///< distinct modes among them (0: not judged)
  /// Bar on summary.json l1_exact (sum over states, end of run), for an enumerable environment.
  std::optional<double> max_l1_exact;
  double max_loss_ratio = 0;  ///< bar on median(last loss_tail) / median(first loss_head)
  int loss_head = 10;         ///< logged iterations at the start of training.csv
  int loss_tail = 40;         ///< logged iterations at its end
  /// Exact log Z of an environment that cannot be enumerated (summary.json has no logz_error):
  /// |logZ error| is taken against it, shown beside the learned one (not judged).
  std::optional<double> log_z_true;
};

struct Cell {
  std::string id;         ///< unique, e.g. "hypergrid_2d/tb/buffer"
  std::string env_label;  ///< "HyperGrid 2D h8", "DiscreteEBM ndim 4 alpha 1.0"
  std::string loss;       ///< train.loss
  bool replay = false;    ///< trains with a trainer-side replay buffer (`replay:`)
  std::string config;     ///< YAML under the repository root, e.g. configs/hypergrid_2d.yaml
  std::vector<std::string> sets;             ///< extra `--set key=value` overrides (cell settings)
  std::vector<std::uint64_t> seeds{1};       ///< the first seed is the cell's reported run
  std::int64_t batch_size = 128;             ///< train.batch_size (set explicitly)
  std::int64_t n_trajectories = 32000;       ///< train.n_trajectories (set explicitly)
  std::int64_t validation_samples = 200000;  ///< validation.n_samples: visited window
  /// The validation schedule of the torchgfn script that produced the target: the verdict
  /// takes l1_visited at that script's last validation (schedule.h). Unused by the other
  /// kinds of cell (judged_at_torchgfn_validation).
  TorchgfnSchedule schedule;
  /// To convert sum-L1 to torchgfn's mean-L1; 0: not enumerated (no exact metrics, see
  /// enumerable()).
  std::int64_t n_terminating_states = 0;
  TorchgfnTarget target;
  /// An extra bound on our sampled sum-L1 (the README's TB 2D h8 bar, 0.015), if any.
  std::optional<double> max_sampled_l1_sum;
  std::string note;  ///< shown under the table (settings that differ from the default)
  /// Set for a cell judged on our own bar instead of a torchgfn target (then target, schedule
  /// and the l1_visited columns are unused), at the end of the run.
  std::optional<LearningBar> bar;
};

/// Replay-buffer settings of the buffered cells: torchgfn's test scripts use its plain
/// (uniform) ReplayBuffer, capacity 1000 for TB (test_hypergrid_tb) and 100 for FM
/// (test_hypergrid_fm), and train on batch_size objects drawn from the buffer after
/// adding the fresh batch (fraction 1).
struct ReplaySettings {
  std::string kind = "uniform";
  std::int64_t capacity_tb = 1000;
  std::int64_t capacity_fm = 100;
  double fraction = 1.0;
};

/// Whether the cell is judged at the validation torchgfn's test asserts on (a torchgfn target on
/// l1_visited: its run validates there, schedule.h), rather than at the end of its run (a
/// target on the JSD, or our own bar).
inline bool judged_at_torchgfn_validation(const Cell& c) {
  return !c.bar && c.target.metric == TargetMetric::kL1Visited;
}

/// Whether the cell's environment is enumerated (n_terminating_states > 0): its summary.json has
/// the exact metrics (L1s, logz_error); else they are null.
inline bool enumerable(const Cell& c) { return c.n_terminating_states > 0; }

/// The full matrix (HyperGrid losses x dims x buffer, then DiscreteEBM, the Ising lattice, the
/// two bit-sequence benchmark scenarios and the Box); HyperGrid TB cells and the Ising lattice
/// get seeds 1..tb_seeds, the bit-sequence and Box cells seeds 1-3. Throws std::invalid_argument if
/// tb_seeds < 1.
std::vector<Cell> full_matrix(int tb_seeds, const ReplaySettings& replay = {});

/// A tiny matrix for the smoke test: HyperGrid 2D TB without buffer and DiscreteEBM
/// ndim 2 alpha 0.1 FM, seed 1 only (run them with few iterations).
std::vector<Cell> smoke_matrix();

/// log Z of torchgfn's Ising lattice reward (runtime/gfn/env/discrete_ebm.h, energy
/// ising_lattice): log sum_x exp(k * x^T A x) over x in {-1, 1}^(side * side), A the adjacency
/// of the side x side lattice with periodic boundaries (every bond counted twice), k = alpha *
/// coupling. Exact: Z = trace(T^side) with the 2^side x 2^side row transfer matrix
/// T[a][b] = exp(2 k (bonds within row a + bonds between rows a and b)), rescaled after each
/// product. Throws std::invalid_argument unless 3 <= side <= 8 (cost O(side 8^side)).
double periodic_ising_log_partition(int side, double k);

/// The run's iterations: `iterations_override` when > 0, else ceil(n_trajectories /
/// batch_size) (gfn-train's ExperimentConfig::iterations()).
std::int64_t cell_iterations(const Cell& cell, std::int64_t iterations_override);

/// The `--set` arguments of one run of `cell` with `seed`, writing into `output_dir`
/// (train.batch_size, train.n_trajectories, validation.n_samples, cell.sets, train.seed,
/// output.dir, and `extra` last so that it wins).
std::vector<std::string> run_arguments(const Cell& cell, std::uint64_t seed,
                                       const std::string& output_dir,
                                       const std::vector<std::string>& extra);

}  // namespace gfn::quality
