#pragma once
// The Environment interface of the GFlowNet core: a discrete DAG of states with a
// forward and a backward action space, a reward on terminating states, a
// preprocessor turning states into network inputs, and optionally the enumeration
// of its states (exact validation) and a definition of modes. It follows torchgfn's
// DiscreteEnv (src/gfn/env.py) conventions:
//
//  * States are int64 tensors [B, state_dim()] (CPU). s0 = initial_states(1).
//  * Forward actions are int64 in [0, n_actions()); the LAST one, exit_action() =
//    n_actions() - 1, ends the trajectory in the current state, which is then its
//    terminating state x. "x can terminate" iff forward_masks(x)[exit] is true
//    (can_terminate()). Exit is not a transition between states: step() refuses it.
//  * Backward actions are int64 in [0, n_actions() - 1) (no exit): backward action a
//    undoes forward action a, i.e. backward_step(step(s, a), a) == s, and
//    backward_masks(s')[a] is true iff s' has a parent s with step(s, a) == s'.
//  * Rewards: log_reward(x) float32 [B] of terminating states (log R, natural log).
//
// Speed contract (the trainer is throughput-bound): every member works on a whole
// batch, so the sampler and the losses make ONE virtual call per batched operation
// (per sampling step: forward_masks, step_unchecked, unique), never per state. The one
// exception is optional: row_dynamics() (row_dynamics.h) gives the fused sampler the
// per-row mask, step and key as plain scalar code, because at a few hundred rows a step's
// ~25 batched ATen calls cost more than a loop over the rows (docs/performance.md "Fused
// sampler").
// Costs the trainer expects: forward_masks, backward_masks, step_unchecked,
// backward_step_unchecked and unique are called once per step of every sampled batch and
// should be O(B * state_dim) tensor operations (no loop over rows); log_reward once per
// batch of terminating states (a reward model's cost is the module's); check_states on
// every validated call (keep it O(B * state_dim) too); the enumeration members once, at
// validation set-up (their results are cached by the caller, all_states() etc. return
// references to tensors built once, in the constructor or lazily).
//
// Enumeration (optional, for exact validation): an enumerable environment lists all
// its states in a topological order of the DAG (every parent before its children),
// state_indices() maps a state to its position in that order, and the terminating
// states have their own order (terminating_states(), terminating_state_indices(),
// true_distribution() = R(x)/Z in that order, log_partition() = log Z). The base class
// builds the DAG's edge list from these (state_graph()) once, on first use.
//
// Modes (optional): n_modes() > 0 when the environment defines modes; is_mode() flags
// terminating states that count as (or hit) a mode, mode_hits() lists the ids of the
// modes a batch hits (HyperGrid: the state index of the mode; BitSequence: the index
// of the target sequence in its mode set).
//
// Capabilities (optional, virtual with a default, so callers never cast to a concrete
// environment and a wrapper forwards them): row_dynamics() for the fused sampler, test_set()
// for the Spearman metric of validation.h. describe() names the environment and its options
// (the export's sidecar, roles/trainer/model_export.h); by default from the options its
// factory recorded, so built-in and plugin environments need not implement it.
//
// Implementing one: built in, runtime/gfn/env/registry.h (docs/environments.md "Adding an
// environment"); as a plugin outside this tree, runtime/gfn/env/plugin.h ("Plugins").
// docs/environments.md "The interface" tabulates what each member must guarantee. Thread-safety:
// implementations must be immutable after construction; every const member function may then be
// called concurrently (state_graph() builds its cache under std::call_once).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config/option_map.h"
#include "runtime/gfn/preprocessor_kind.h"

namespace gfn::core {

class Preprocessor;
class RowDynamics;

/// The distinct rows of a batch of states and, for each row, its position among
/// them: states == unique.states.index_select(0, unique.inverse).
struct UniqueStates {
  at::Tensor states;   ///< int64 [U, state_dim]
  at::Tensor inverse;  ///< int64 [B], values in [0, U)
};

/// The DAG of an enumerable environment in compressed-sparse-row form, states in
/// the topological index order of Environment::all_states().
struct StateGraph {
  std::vector<std::int64_t> edge_begin;   ///< [S + 1]: edges of state s are [begin[s], begin[s+1])
  std::vector<std::int64_t> edge_child;   ///< [E]: index of the child state
  std::vector<std::int64_t> edge_action;  ///< [E]: forward action (never exit)
  std::vector<std::int64_t> terminal_index;  ///< [S]: terminating index, -1 if s cannot exit
};

/// What an environment is: its env.name and its options, each as the configuration writes
/// its value ("8", "0.001", "original"), defaults included.
struct EnvironmentDescription {
  std::string name;
  config::OptionMap options;
};

class Environment {
 public:
  virtual ~Environment() = default;

  // ---- description -----------------------------------------------------------------
  /// The registry name ("hypergrid", ...).
  virtual std::string name() const = 0;
  /// Width of a state row.
  virtual std::int64_t state_dim() const = 0;
  /// Forward actions, exit included (>= 2).
  virtual std::int64_t n_actions() const = 0;
  std::int64_t exit_action() const { return n_actions() - 1; }
  std::int64_t n_backward_actions() const { return n_actions() - 1; }
  /// True if exit is allowed in every state (needed by the modified DB loss, which
  /// uses R(s) and PF(exit | s) of intermediate states).
  virtual bool every_state_terminates() const = 0;
  /// Its name and options. Default: name() and the options its factory recorded with
  /// record_options() (make_environment, registry.h: a built-in environment's options struct
  /// through its registered fields, a plugin's env.options with its defaults); no options for
  /// an environment built otherwise. A wrapper (reward_model.h) describes what it wraps.
  virtual EnvironmentDescription describe() const;
  /// Sets the options describe() reports by default. Called by the factory that built this
  /// environment, once, before the environment is shared (not thread-safe).
  void record_options(config::OptionMap options) { options_ = std::move(options); }

  // ---- dynamics (batched) -------------------------------------------------------------
  /// n copies of s0: int64 [n, state_dim].
  virtual at::Tensor initial_states(std::int64_t n) const = 0;
  /// bool [B, n_actions]: allowed forward actions (exit in the last column).
  virtual at::Tensor forward_masks(const at::Tensor& states) const = 0;
  /// bool [B, n_actions - 1]: allowed backward actions (all false at s0).
  virtual at::Tensor backward_masks(const at::Tensor& states) const = 0;
  /// Children of states int64 [B, state_dim] under actions int64 [B]. The caller
  /// guarantees allowed, non-exit actions (no validation: the sampler's hot path).
  virtual at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const = 0;
  /// Parents under backward actions int64 [B]; the caller guarantees allowed actions.
  /// Must not fail (it may return any int64 rows) for disallowed actions.
  virtual at::Tensor backward_step_unchecked(const at::Tensor& states,
                                             const at::Tensor& actions) const = 0;
  /// log R(x) of terminating states, float32 [B]. Implementations validate with
  /// check_states(); the result for states that cannot terminate is unspecified.
  virtual at::Tensor log_reward(const at::Tensor& states) const = 0;
  /// R(x), float32 [B]; default exp(log_reward).
  virtual at::Tensor reward(const at::Tensor& states) const;

  /// Throws std::invalid_argument naming `who` unless states is int64 [B, state_dim]
  /// holding valid states. The default checks dtype and shape only.
  virtual void check_states(const at::Tensor& states, const char* who) const;

  /// step_unchecked after validation: throws std::invalid_argument for bad shapes or
  /// dtypes, an exit action, an out-of-range or a masked (disallowed) action.
  at::Tensor step(const at::Tensor& states, const at::Tensor& actions) const;
  /// backward_step_unchecked after the same validation against backward_masks().
  at::Tensor backward_step(const at::Tensor& states, const at::Tensor& actions) const;
  /// bool [B]: exit allowed (x is a terminating state), i.e. forward_masks[:, exit].
  at::Tensor can_terminate(const at::Tensor& states) const;
  /// bool [B]: the row equals s0.
  at::Tensor is_initial(const at::Tensor& states) const;

  // ---- network input ------------------------------------------------------------------
  /// The preprocessor of kind `kind` (env.preprocessor); throws std::invalid_argument
  /// naming env.preprocessor for a kind this environment does not support.
  virtual std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const = 0;

  /// Distinct rows of a batch (used to run the network once per distinct state).
  /// Default: with row_dynamics(), rows grouped by their key in increasing key order
  /// (group_rows, row_dynamics.h: one sort); else at::unique_dim over rows (sorted).
  virtual UniqueStates unique(const at::Tensor& states) const;

  /// The per-row forms of forward_masks, step_unchecked and unique (row_dynamics.h) for the
  /// fused sampler (engine.fused_sampler), or nullptr (the default): the sampler then makes its
  /// batched calls. The pointer lives as long as the environment.
  virtual const RowDynamics* row_dynamics() const { return nullptr; }

  // ---- validation extras (optional) ----------------------------------------------------
  /// A test set of terminating states for the Spearman correlation of log p_theta(x) and
  /// log R(x) (validation.h, the TB paper's bit-sequence metric): int64 [n, state_dim],
  /// `per_mode` states per mode drawn from a generator seeded with `seed` (the same set for
  /// the same arguments), or nullopt (the default) for an environment without one, which
  /// then has no such metric. BitSequence: make_test_set. Throws std::invalid_argument for
  /// per_mode < 1 when it has one. Cost: the implementation's, once per validation.
  virtual std::optional<at::Tensor> test_set(std::int64_t per_mode, std::uint64_t seed) const {
    (void)per_mode;
    (void)seed;
    return std::nullopt;
  }

  // ---- enumeration (optional) ---------------------------------------------------------
  /// True if the members below work; they throw std::domain_error otherwise.
  virtual bool enumerable() const { return false; }
  /// Number of states S.
  virtual std::int64_t n_states() const;
  /// All states in a topological order, int64 [S, state_dim].
  virtual const at::Tensor& all_states() const;
  /// Position of each state in all_states(), int64 [B].
  virtual at::Tensor state_indices(const at::Tensor& states) const;
  /// Number of terminating states T.
  virtual std::int64_t n_terminating_states() const;
  /// All terminating states in terminating-index order, int64 [T, state_dim].
  virtual const at::Tensor& terminating_states() const;
  /// Position of each terminating state in terminating_states(), int64 [B].
  virtual at::Tensor terminating_state_indices(const at::Tensor& states) const;
  /// R(x)/Z over terminating states, float64 [T].
  virtual const at::Tensor& true_distribution() const;
  /// log Z = log sum_x R(x) (natural log).
  virtual double log_partition() const;
  /// The DAG's edges (built once from all_states, forward_masks and step_unchecked).
  const StateGraph& state_graph() const;

  // ---- modes (optional) -----------------------------------------------------------------
  /// Number of modes; 0 when the environment defines none.
  virtual std::int64_t n_modes() const { return 0; }
  /// bool [B]: the terminating state counts as (or is within the threshold of) a mode.
  /// Default: all false.
  virtual at::Tensor is_mode(const at::Tensor& states) const;
  /// R(mode) / Z: the probability an exact sampler of R gives each mode, when every mode has
  /// the same reward and Z is known (gfn-bench-discovery draws the exact sampler's curve,
  /// n_modes (1 - (1 - p)^N) after N trajectories, from it); nullopt otherwise (the default).
  virtual std::optional<double> mode_probability() const { return std::nullopt; }
  /// int64 [K]: ids of the modes hit by the batch (one per hit; duplicates possible).
  /// Default: none.
  virtual at::Tensor mode_hits(const at::Tensor& states) const;

 protected:
  /// Throws std::domain_error "<name>::<what>: not enumerable".
  [[noreturn]] void not_enumerable(const char* what) const;

 private:
  config::OptionMap options_;  ///< record_options()
  mutable std::once_flag graph_once_;
  mutable std::unique_ptr<StateGraph> graph_;
};

/// "[d0, d1]" for error messages.
std::string shape_string(const at::Tensor& t);

}  // namespace gfn::core
