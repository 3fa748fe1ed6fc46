#pragma once
// Typed option structs of an experiment, filled from YAML by
// runtime/config/config.h (yaml-cpp) with `--set a.b=value` overrides (CLI11).
// Every field's YAML key is `<section>.<field>` as written here, e.g.
// `train.batch_size`, `layout.num_buffers`, `output.dir`. Defaults are the demo's.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "runtime/config/engine_options.h"
#include "runtime/gfn/env/hypergrid_reward.h"
#include "runtime/gfn/loss_kind.h"
#include "runtime/gfn/preprocessor_kind.h"
#include "transport/backend.h"

namespace gfn::config {

// Enumerated options. Each list of allowed values is written once, in the option's
// *Names table (engine_options.h EnumName): parsing, config.yaml and error messages use
// it, and so do the modules that take the option (roles/trainer/submitter.h,
// runtime/buffer/scorer.h, ...).

/// train.average: what an agent group averages (roles/trainer/trainer.cc).
enum class TrainAverage {
  kModels,     ///< parameters, every train.average_every iterations
  kGradients,  ///< gradients, every iteration (as DDP does)
};
inline constexpr EnumName<TrainAverage> kTrainAverageNames[] = {
    {TrainAverage::kModels, "models"}, {TrainAverage::kGradients, "gradients"}};

/// buffer.submit_mode: how a trainer submits to its manager (roles/trainer/submitter.h).
enum class SubmitMode { kSync, kAsync, kFireAndForget };
inline constexpr EnumName<SubmitMode> kSubmitModeNames[] = {
    {SubmitMode::kSync, "sync"},
    {SubmitMode::kAsync, "async"},
    {SubmitMode::kFireAndForget, "fire_and_forget"}};

/// buffer.score_novelty: how the ModesScorer's novelty term is computed
/// (runtime/buffer/scorer.h buffer::NoveltyMethod).
enum class NoveltyMethod {
  kIndex,       ///< nearest-neighbour index
  kBruteForce,  ///< all distances (the reference)
};
inline constexpr EnumName<NoveltyMethod> kNoveltyMethodNames[] = {
    {NoveltyMethod::kIndex, "index"}, {NoveltyMethod::kBruteForce, "brute_force"}};

/// buffer.receive_wait: how a manager waits for the next message (transport::ReceiveWait,
/// converted in roles/run_job.cc).
enum class ReceiveWait { kSpin, kSleep };
inline constexpr EnumName<ReceiveWait> kReceiveWaitNames[] = {{ReceiveWait::kSpin, "spin"},
                                                              {ReceiveWait::kSleep, "sleep"}};

/// buffer.baseline_aggregate: how the coordinator combines the managers' baselines
/// (roles/coordinator/coordinator.h).
enum class BaselineAggregate { kMin, kMean, kMax };
inline constexpr EnumName<BaselineAggregate> kBaselineAggregateNames[] = {
    {BaselineAggregate::kMin, "min"},
    {BaselineAggregate::kMean, "mean"},
    {BaselineAggregate::kMax, "max"}};

/// spawn.policy: what an agent group does every train.average_every iterations
/// (runtime/distributed/spawn/decision.h; torchgfn tutorials/examples/multinode/spawn_policy.py).
enum class SpawnPolicy {
  kAverageAll,  ///< average every member (train.average; AverageAllPolicy)
  kSelective,   ///< replace the worst agents by a combination of the others
  kDonorPull,   ///< a dying agent pulls k random donors' parameters (MPI one-sided windows)
};
inline constexpr EnumName<SpawnPolicy> kSpawnPolicyNames[] = {
    {SpawnPolicy::kAverageAll, "average_all"},
    {SpawnPolicy::kSelective, "selective"},
    {SpawnPolicy::kDonorPull, "donor_pull"}};

/// spawn.replacement_mode (donor_pull): when an agent decides it is dying
/// (runtime/distributed/spawn/donor_pull.h).
enum class SpawnReplacementMode {
  kAge,         ///< its age reached its maximum age, drawn from spawn.age_range
  kThreshold,   ///< its metric is below spawn.threshold
  kWorstRatio,  ///< its metric is among the spawn.replacement_ratio worst of the group
};
inline constexpr EnumName<SpawnReplacementMode> kSpawnReplacementModeNames[] = {
    {SpawnReplacementMode::kAge, "age"},
    {SpawnReplacementMode::kThreshold, "threshold"},
    {SpawnReplacementMode::kWorstRatio, "worst_ratio"}};

/// An inclusive integer range (YAML: a list of two integers, `[min, max]`).
struct IntRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
};

/// spawn.strategy: what a replaced agent becomes (runtime/distributed/spawn/decision.h).
enum class SpawnStrategy {
  kMean,          ///< the plain mean of the donors (every agent that is not replaced)
  kWeightedMean,  ///< the donors weighted by their metrics (better donors weigh more)
  kBestOnly,      ///< a copy of the best agent
  kResetWeights,  ///< a fresh initialisation (no donors)
};
inline constexpr EnumName<SpawnStrategy> kSpawnStrategyNames[] = {
    {SpawnStrategy::kMean, "mean"},
    {SpawnStrategy::kWeightedMean, "weighted_mean"},
    {SpawnStrategy::kBestOnly, "best_only"},
    {SpawnStrategy::kResetWeights, "reset_weights"}};

/// spawn.mode: how a selective decision point runs (roles/trainer/spawner.h,
/// roles/trainer/async_spawner.h).
enum class SpawnMode {
  kSync,   ///< every member waits: all-gather of the metrics, all-reduce of the donors
  kAsync,  ///< no barrier: SPAWN_METRIC / SPAWN_PARAMS point to point, applied when arrived
};
inline constexpr EnumName<SpawnMode> kSpawnModeNames[] = {{SpawnMode::kSync, "sync"},
                                                          {SpawnMode::kAsync, "async"}};

/// spawn.metric: each agent's local metric, higher is better (roles/trainer/trainer.cc).
enum class SpawnMetric {
  kScore,       ///< the score of its manager's latest SCORE reply (needs a buffer manager)
  kNegLoss,     ///< minus its latest training loss
  kModesFound,  ///< modes it has sampled so far
};
inline constexpr EnumName<SpawnMetric> kSpawnMetricNames[] = {
    {SpawnMetric::kScore, "score"},
    {SpawnMetric::kNegLoss, "neg_loss"},
    {SpawnMetric::kModesFound, "modes_found"}};
/// output.progress: how trainer rank 0 shows progress (runtime/output/progress.h).
enum class ProgressMode {
  kAuto,   ///< bar on a terminal (stderr is a tty), else lines
  kBar,    ///< one line updated in place
  kLines,  ///< a line every output.progress_every_s seconds
  kOff,
};
inline constexpr EnumName<ProgressMode> kProgressModeNames[] = {{ProgressMode::kAuto, "auto"},
                                                                {ProgressMode::kBar, "bar"},
                                                                {ProgressMode::kLines, "lines"},
                                                                {ProgressMode::kOff, "off"}};

inline constexpr const auto& enum_names(BaselineAggregate) { return kBaselineAggregateNames; }
inline constexpr const auto& enum_names(TrainAverage) { return kTrainAverageNames; }
inline constexpr const auto& enum_names(SubmitMode) { return kSubmitModeNames; }
inline constexpr const auto& enum_names(NoveltyMethod) { return kNoveltyMethodNames; }
inline constexpr const auto& enum_names(ReceiveWait) { return kReceiveWaitNames; }
inline constexpr const auto& enum_names(SpawnPolicy) { return kSpawnPolicyNames; }
inline constexpr const auto& enum_names(SpawnStrategy) { return kSpawnStrategyNames; }
inline constexpr const auto& enum_names(SpawnMetric) { return kSpawnMetricNames; }
inline constexpr const auto& enum_names(SpawnMode) { return kSpawnModeNames; }
inline constexpr const auto& enum_names(SpawnReplacementMode) { return kSpawnReplacementModeNames; }

/// layout.placement: where the buffer managers go (roles/planner/rank_layout.h).
enum class Placement {
  kAuto,        ///< hostname when num_buffers % num_nodes == 0, else arithmetic
  kArithmetic,  ///< [t t t M][t t M] by rank
  kHostname,    ///< managers node-local (refused when the counts do not allow it)
};
inline constexpr EnumName<Placement> kPlacementNames[] = {{Placement::kAuto, "auto"},
                                                          {Placement::kArithmetic, "arithmetic"},
                                                          {Placement::kHostname, "hostname"}};

/// transport.backend: the transport's own enumeration, named once in the layer below
/// (transport/backend.h kBackendNames, found by argument-dependent lookup).
using TransportBackend = transport::Backend;

/// env.reward, env.preprocessor, train.loss and train.subtb_weighting: enumerations of
/// the modules that implement them, named once there (runtime/gfn/env/hypergrid_reward.h,
/// runtime/gfn/preprocessor_kind.h, runtime/gfn/loss_kind.h; found by argument-dependent
/// lookup like TransportBackend).
using HyperGridReward = core::HyperGridReward;
using PreprocessorKind = core::PreprocessorKind;
using LossKind = core::LossKind;
using SubTrajectoryWeighting = core::SubTrajectoryWeighting;

/// buffer.payload: what a submission carries (roles/trainer/payload.h).
enum class Payload {
  kFull,         ///< states, rewards and trajectories: the manager may store them
  kScoringOnly,  ///< states and rewards, for the SCORE only
};
inline constexpr EnumName<Payload> kPayloadNames[] = {{Payload::kFull, "full"},
                                                      {Payload::kScoringOnly, "scoring_only"}};

/// buffer.baseline: a manager's reward baseline (runtime/buffer/baseline.h documents each).
enum class BaselineStrategy { kMin, kPercentile, kEma };
inline constexpr EnumName<BaselineStrategy> kBaselineStrategyNames[] = {
    {BaselineStrategy::kMin, "min"},
    {BaselineStrategy::kPercentile, "percentile"},
    {BaselineStrategy::kEma, "ema"}};

/// A sampler of a replay table (runtime/buffer/table.h): buffer.remote_sampler, named on the
/// wire in GET_SAMPLE (roles/protocol/messages.h SampleRequest::sampler).
enum class SamplerKind {
  kPrioritized,  ///< proportional to exp(log reward)
  kUniform,
};
inline constexpr EnumName<SamplerKind> kSamplerKindNames[] = {
    {SamplerKind::kPrioritized, "prioritized"}, {SamplerKind::kUniform, "uniform"}};

/// replay.kind: the trainer-local replay buffer (runtime/buffer/table.h local_table_options).
enum class ReplayKind { kNone, kUniform, kPrioritized, kDiverse };
inline constexpr EnumName<ReplayKind> kReplayKindNames[] = {
    {ReplayKind::kNone, "none"},
    {ReplayKind::kUniform, "uniform"},
    {ReplayKind::kPrioritized, "prioritized"},
    {ReplayKind::kDiverse, "diverse"}};

inline constexpr const auto& enum_names(Placement) { return kPlacementNames; }
inline constexpr const auto& enum_names(Payload) { return kPayloadNames; }
inline constexpr const auto& enum_names(BaselineStrategy) { return kBaselineStrategyNames; }
inline constexpr const auto& enum_names(SamplerKind) { return kSamplerKindNames; }
inline constexpr const auto& enum_names(ReplayKind) { return kReplayKindNames; }
inline constexpr const auto& enum_names(ProgressMode) { return kProgressModeNames; }

/// Role layout (README "Layouts"; torchgfn RankLayout semantics).
struct LayoutOptions {
  int num_buffers = 0;                     ///< replay-buffer manager ranks (0 = no remote buffer)
  int num_agent_groups = 1;                ///< trainers are split into this many averaging groups
  bool coordinator = false;                ///< last rank becomes the coordinator
  Placement placement = Placement::kAuto;  ///< "auto" | "arithmetic" | "hostname"
};

struct TransportConfig {
  TransportBackend backend = TransportBackend::kMpi;       ///< "mpi" | "torch"
  std::size_t max_message_bytes = std::size_t{256} << 20;  ///< bytes
  double timeout_s = 300.0;  ///< seconds; every blocking wait on a peer
};

/// Explicit launch values (YAML `launch:`). Each set field takes precedence over the
/// launcher's environment variables (runtime/launch/launch_env.h: torchrun, Open MPI,
/// PMI, MVAPICH, Slurm); unset fields (the defaults: -1, "" and 0) fall back to them.
/// rank and world_size are given together or not at all.
struct LaunchOptions {
  int rank = -1;              ///< global rank 0 .. world_size-1, or -1 (unset)
  int world_size = -1;        ///< number of processes >= 1, or -1 (unset)
  int local_rank = -1;        ///< rank on this node 0 .. local_world_size-1, or -1 (unset)
  int local_world_size = -1;  ///< processes on this node 1 .. world_size, or -1 (unset)
  std::string master_addr;    ///< TCPStore host of the torch backend, or "" (unset)
  int master_port = 0;        ///< TCPStore port of the torch backend 1..65535, or 0 (unset)
};

/// The environment (runtime/gfn/env/registry.h): name "hypergrid" (torchgfn
/// gfn.gym.HyperGrid: states in {0..height-1}^ndim, actions "increment dimension i"
/// (i < ndim) and "exit" (index ndim)), "discrete_ebm" or "bit_sequence"; each reads
/// its own fields below.
struct EnvOptions {
  std::string name = "hypergrid";
  int ndim = 2;
  int height = 8;
  /// HyperGrid reward (runtime/gfn/env/hypergrid.h documents each): "original" (R0, R1, R2),
  /// "cosine" (R0, R1), "deceptive" (R0, R1, R2), "sparse", "bitwise_xor" and
  /// "multiplicative_coprime" (R0 + torchgfn's default tiers).
  HyperGridReward reward = HyperGridReward::kOriginal;
  double R0 = 0.1;
  double R1 = 0.5;
  double R2 = 2.0;
  PreprocessorKind preprocessor = PreprocessorKind::kKHot;  ///< "khot" | "onehot" | "identity"
  // name "discrete_ebm" (runtime/gfn/env/discrete_ebm.h): ndim above, and
  double alpha = 1.0;  ///< Ising interaction strength: log R(x) = alpha (sum_i (2 x_i - 1))^2
  // name "bit_sequence" (runtime/gfn/env/bit_sequence.h):
  int word_size = 4;             ///< k: bits appended per action
  int seq_size = 120;            ///< n: bits per sequence (multiple of word_size and of 8)
  int n_modes = 60;              ///< |M|: target sequences
  double beta = 1.0;             ///< log R(x) = -beta * min Hamming distance to M
  int mode_threshold = -1;       ///< bits; a mode is found within it (< 0: seq_size / 4)
  std::uint64_t modes_seed = 0;  ///< seed of the mode set M
};

struct ModelOptions {
  int hidden_dim = 256;
  int n_hidden = 2;         ///< hidden layers of the MLP
  bool tied = false;        ///< PF and PB share one trunk
  bool uniform_pb = false;  ///< fixed uniform backward policy instead of a learned PB
  /// NoisyNet exploration (runtime/gfn/noisy_linear.h): the last n Linear layers of PF
  /// (output head first, then hidden layers; never the input layer) are noisy; 0 = off.
  int n_noisy_layers = 0;
  double noisy_std_init = 0.1;  ///< sigma_0 of the factorised Gaussian noise (> 0)
  /// A state dict (torch.load format, torchgfn MLP names: runtime/output/torchgfn_export.h)
  /// the estimators start from instead of a fresh initialisation; "" = off.
  std::string init_from;
};

struct TrainOptions {
  /// "tb" | "zvar" | "db" | "modified_db" | "subtb" | "fm" (runtime/gfn/losses.h)
  LossKind loss = LossKind::kTB;
  /// SubTB weighting: "geometric_within" | "geometric" | "equal" | "equal_within" | "TB" |
  /// "DB" | "ModifiedDB" (torchgfn SubTBGFlowNet; runtime/gfn/loss_kind.h)
  SubTrajectoryWeighting subtb_weighting = SubTrajectoryWeighting::kGeometricWithin;
  double subtb_lambda = 0.9;  ///< SubTB lambda (> 0): sub-trajectories weighted lambda^(len-1)
  double fm_alpha = 1.0;      ///< FM weight of the terminating-state reward-matching term
  int batch_size = 128;       ///< global trajectories per iteration, split over trainers
  std::int64_t n_trajectories = 32000;  ///< total budget; n_iterations = ceil(n / batch_size)
  std::int64_t n_iterations = 0;        ///< if > 0, overrides the budget above
  double lr = 1e-3;                     ///< Adam learning rate of PF/PB
  double lr_logz = 0.1;                 ///< Adam learning rate of logZ
  double weight_decay = 0.0;            ///< decoupled (AdamW) weight decay of PF/PB; 0 = plain Adam
  int average_every = 5;                ///< iterations between model averages (agent group)
  TrainAverage average = TrainAverage::kModels;  ///< "models" | "gradients"
  double epsilon = 0.0;                          ///< epsilon-greedy exploration while sampling
  double temperature = 1.0;                      ///< PF logits are divided by this while sampling
  std::uint64_t seed = 1;                        ///< trainer rank r uses seed + r
  int num_threads = 1;                           ///< LibTorch intra-op threads per rank
};

/// Replay buffer kept by buffer-manager ranks.
struct BufferOptions {
  std::int64_t capacity = 10000;  ///< highest-reward items kept
  int remote_buffer_freq = 1;     ///< submit to the manager every N iterations
  /// "sync": send, then wait for the SCORE. "async": isend now and collect the SCORE of
  /// a submission when the next one is made (or at shutdown); the trainer does not wait
  /// for the manager between submissions.
  SubmitMode submit_mode = SubmitMode::kSync;
  // --- the protocol in depth (roles/; defaults keep the simplest behaviour) ---
  // "sync" | "async" above, or "fire_and_forget": isend, no SCORE is sent back.
  Payload payload = Payload::kFull;  ///< "full" (manager may store) | "scoring_only"
  bool store = true;                 ///< the manager keeps submitted items
  bool baseline_filter = false;      ///< trainers send only items >= the manager's baseline
  int baseline_refresh_after = 5;    ///< fully-filtered batches before sending anyway
  BaselineStrategy baseline = BaselineStrategy::kMin;  ///< "min" | "percentile" | "ema"
  double baseline_percentile = 10.0;                   ///< [0, 100], for "percentile"
  double baseline_ema_decay = 0.9;  ///< [0, 1), for "ema" (of incoming batch minima)
  /// coordinator: "min" | "mean" | "max" over managers
  BaselineAggregate baseline_aggregate = BaselineAggregate::kMin;
  bool baseline_sync = true;  ///< coordinator sends BASELINE_SYNC to every manager
  /// BASELINE_REPORT throttle, in DATA messages received by the manager: at most one
  /// report per this many submissions (>= 1), and only when the local baseline moved by
  /// more than baseline_tolerance (the final one before MANAGER_EXIT goes out on any change).
  int baseline_report_interval = 10;
  /// Log-reward change below which a baseline counts as unchanged (>= 0): managers'
  /// BASELINE_REPORTs and pushes to fire-and-forget trainers, the coordinator's BASELINE_SYNCs.
  double baseline_tolerance = 0.01;
  double score_w_retained = 1.0;  ///< ModesReplayBufferManager scoring weights
  double score_w_novelty = 1.0;
  double score_w_reward = 0.0;
  double score_w_mode_bonus = 10.0;
  double score_p_norm = 2.0;  ///< Minkowski p of the novelty distances
  /// Novelty method: "index" (nearest-neighbour index) | "brute_force" (the reference).
  NoveltyMethod score_novelty = NoveltyMethod::kIndex;
  std::int64_t score_cdist_max_bytes = std::int64_t{256} << 20;  ///< brute_force block cap, bytes
  double score_ema_decay = 0.9;                                  ///< [0, 1)
  double drain_timeout_s = 60.0;  ///< drain bound of pending sends/SCOREs before TRAINER_EXIT
  /// How a manager waits for the next message (transport::ReceiveWait, mpi backend):
  /// "spin" (spin 20 us, yield-spin up to 1 ms, then sleep; the trainers' way) answers
  /// sooner; "sleep" (spin 20 us, then sleep) takes less CPU but slows sync and async
  /// submitters down (gfn-bench-scaling: README, buffer.receive_wait).
  ReceiveWait receive_wait = ReceiveWait::kSpin;
  int population_stats_every = 0;       ///< iterations between GET_POPULATION_STATS (0 = never)
  double remote_sample_fraction = 0.0;  ///< [0, 1]: share of the local batch asked from the manager
  /// Sampler of the manager's table named in GET_SAMPLE: "prioritized" (∝ reward) | "uniform"
  /// (replaces the former bool remote_sample_prioritized).
  SamplerKind remote_sampler = SamplerKind::kPrioritized;
  double remote_sample_wait_s = 0.0;    ///< retry a refused request this long, then go fresh
  double samples_per_insert = 0.0;      ///< rate limiter (Reverb); 0 = no ratio
  std::int64_t min_size_to_sample = 1;  ///< rate limiter: items before sampling is allowed
  double rate_error_buffer = 1e9;       ///< rate limiter: allowed deviation (items)
};

/// Trainer-local replay buffer (a replay table, runtime/buffer/table.h local_table_options;
/// torchgfn ReplayBuffer / NormBasedDiversePrioritizedReplayBuffer in train_hypergrid).
struct ReplayOptions {
  ReplayKind kind = ReplayKind::kNone;  ///< "none" | "uniform" | "prioritized" | "diverse"
  std::int64_t capacity = 1000;         ///< trajectories kept
  double fraction = 1.0;    ///< [0, 1]: share of the batch drawn from the buffer once ready
  double cutoff = 0.0;      ///< diverse: min p-norm distance to the batch / buffer (< 0: no filter)
  double p_norm = 1.0;      ///< diverse: p of the Minkowski distance (> 0)
  std::int64_t warmup = 0;  ///< trajectories the buffer must hold before replay starts
};

/// YAML `spawn:` — the spawn policy of the agent groups (README "Spawn policies";
/// runtime/distributed/spawn/decision.h; torchgfn tutorials/examples/multinode/spawn_policy.py
/// AverageAllPolicy / AsyncSelectiveAveragingPolicy). The defaults keep plain averaging.
struct SpawnOptions {
  SpawnPolicy policy = SpawnPolicy::kAverageAll;  ///< "average_all" | "selective"
  /// selective: "sync" (every member waits at the decision point) | "async" (no barrier;
  /// replacers apply the donors' parameters at a later iteration boundary).
  SpawnMode mode = SpawnMode::kSync;
  /// selective: share (0, 1] of the agent group replaced at a decision: max(1, floor(n *
  /// ratio)) agents, at most n - 1 (one agent at least stays a donor).
  double replacement_ratio = 0.2;
  SpawnStrategy strategy = SpawnStrategy::kMean;  ///< "mean" | "weighted_mean" | ...
  /// [0, 1]: a replaced agent becomes momentum * its own weights + (1 - momentum) * the
  /// strategy's result (0: the result alone).
  double momentum = 0.0;
  /// Replace only when some agent's metric is below this (+inf, the default: always).
  double threshold = std::numeric_limits<double>::infinity();
  /// Iterations after a replacement during which no other replacement happens (>= 0).
  std::int64_t cooldown = 0;
  SpawnMetric metric = SpawnMetric::kScore;  ///< "score" | "neg_loss" | "modes_found"
  /// Per-agent exploration (runtime/distributed/spawn/strategy.h): each trainer draws its
  /// epsilon, temperature and noisy sigma_0 from normal distributions around
  /// train.epsilon, train.temperature and model.noisy_std_init with the standard
  /// deviations below (clamped; seeded by train.seed + rank), and draws again when it is
  /// replaced. Any spawn.policy.
  bool random_strategies = false;
  double epsilon_std = 0.05;         ///< >= 0; drawn epsilon clamped to [0, 1]
  double temperature_std = 0.5;      ///< >= 0; drawn temperature clamped to [0.05, 20]
  double noisy_std_init_std = 0.05;  ///< >= 0; drawn sigma_0 clamped to [1e-3, 10]
  /// donor_pull: when an agent is dying ("age" | "threshold" | "worst_ratio").
  SpawnReplacementMode replacement_mode = SpawnReplacementMode::kAge;
  /// donor_pull, age: each agent's maximum age (iterations) drawn uniformly from
  /// [min, max] (1 <= min <= max), at start and after each respawn.
  IntRange age_range{100, 400};
  /// donor_pull: donors pulled by a dying agent (>= 1; at most the group size - 1).
  std::int64_t num_donors = 2;
};

struct ValidationOptions {
  bool enabled = true;
  int interval = 50;  ///< iterations between validations (and at the end)
  /// Fresh samples for the sampled L1, and the window of terminating states visited
  /// during training for l1_visited (torchgfn's validation_samples; validation.h).
  std::int64_t n_samples = 200000;
  /// BitSequence Spearman(log p_theta, log R) (validation.h): test sequences per mode
  /// (BitSequence::make_test_set) and backward trajectories per sequence for the
  /// log p_theta estimate; 0 in either disables the metric.
  int test_per_mode = 10;
  int logp_samples = 10;
};

struct OutputOptions {
  std::string dir = "runs/latest";  ///< summary.json and metrics.csv go here
  int log_every = 10;               ///< iterations between progress lines
  /// At the end, trainer rank 0 runs tools/gfn-plot on `dir` (runtime/output/plots.h).
  bool plots = false;
  ProgressMode progress = ProgressMode::kAuto;  ///< trainer rank 0's progress display
  double progress_every_s = 10.0;               ///< seconds between progress lines (lines mode)
  /// At the end, trainer rank 0 writes the trained estimators as a torchgfn state dict
  /// (roles/trainer/model_export.h).
  bool export_model = false;
};

/// Checkpoints of a run (README "Checkpoint and resume").
struct CheckpointOptions {
  std::int64_t every = 0;  ///< iterations between checkpoints; 0 = off
  bool on_signal = true;   ///< SIGTERM / SIGINT / SIGUSR1 take a checkpoint before stopping
  int keep = 2;            ///< checkpoints kept (the latest N; >= 1)
};

struct ExperimentConfig {
  LayoutOptions layout;
  TransportConfig transport;
  LaunchOptions launch;
  EnvOptions env;
  ModelOptions model;
  TrainOptions train;
  BufferOptions buffer;
  ReplayOptions replay;
  ValidationOptions validation;
  SpawnOptions spawn;
  OutputOptions output;
  CheckpointOptions checkpoint;
  EngineOptions engine;     ///< numerical paths and process set-up (engine_options.h)
  std::string source_file;  ///< the YAML file it came from ("" for defaults)

  /// Iterations to run: train.n_iterations if > 0, else ceil(n_trajectories / batch_size).
  std::int64_t iterations() const {
    if (train.n_iterations > 0) return train.n_iterations;
    return (train.n_trajectories + train.batch_size - 1) / train.batch_size;
  }
};

}  // namespace gfn::config
