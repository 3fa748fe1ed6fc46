#pragma once
// DiscreteEBM: sampling {0,1}^ndim from an Ising energy-based model (Zhang et al. 2022,
// "Generative Flow Networks for Discrete Probabilistic Modeling", arXiv:2202.01361),
// following torchgfn's gfn.gym.DiscreteEBM (src/gfn/gym/discrete_ebm.py) and
// tutorials/examples/train_discreteebm.py. Registered as "discrete_ebm".
//
// States: int64 [B, ndim] with entries in {-1, 0, 1}; -1 means "not set yet", s0 is all
// -1. Forward actions (2 ndim + 1): action i < ndim sets entry i (a -1) to 0, action
// ndim + i sets entry i to 1, the last action (2 ndim) is exit, allowed only in complete
// states (no -1 left): every trajectory has exactly ndim + 1 actions and the 2^ndim
// complete states are the terminating states. Backward action i (< ndim) resets an
// entry i holding 0 to -1, ndim + i one holding 1 (backward action a undoes forward a).
//
// Reward (torchgfn DiscreteEBM.log_reward and IsingModel): with x = 2 s - 1 in {-1, 1}^ndim,
// the energy is E(x) = -x^T J x and log R(x) = -alpha * E(x) = alpha * x^T J x (float32;
// env.alpha, default 1). J = coupling * A (env.coupling, default 1), A by env.energy:
//  * ones (the default; torchgfn's default IsingModel(ones(ndim, ndim))): A = ones, so
//    log R(x) = alpha * coupling * (sum_i x_i)^2.
//  * ising_lattice (torchgfn's tutorials/examples/train_ising.py make_J, also its benchmark's
//    tb_ising_* scenarios): ndim = L * L sites of an L x L square lattice with periodic
//    boundaries, site k at row k / L and column k % L; A_km = 1 if k and m are nearest
//    neighbours on the torus (same row and column offset +-1 mod L, or same column and row
//    offset +-1 mod L), else 0. A is a 0/1 matrix, so neighbours that coincide count once:
//    L >= 3 gives every site 4 neighbours and x^T A x = 2 * sum over the 2 L^2 bonds of
//    x_k x_m; L = 2 gives 2 (the +1 and -1 neighbours are the same site); L = 1 gives
//    A = [[1]] (the site is its own neighbour, as make_J sets J[0][0]), a constant reward.
//    Note that x^T J x counts each bond twice: torchgfn's "J = 0.44" is a nearest-
//    neighbour coupling of 0.88 per bond in the usual -sum_<km> J x_k x_m convention.
// x^T A x is computed exactly in int64 and then scaled: log R = float(x^T A x) *
// float(alpha * coupling), so coupling 1 gives today's ones reward bit for bit.
// Modes: the terminating states of maximal reward. Found by enumeration when ndim <=
// kMaxTerminatingDim; beyond, when alpha * coupling > 0, they are all-0 and all-1 (A >= 0
// and its graph is connected, so x^T A x is largest exactly when all x_i are equal), else
// the environment defines none.
//
// Enumeration: all 3^ndim states in base-3 index order of s + 1 (torchgfn
// get_states_indices; a topological order, since an action turns a digit 0 into 1 or
// 2) when 3^ndim <= kMaxEnumerableStates (ndim <= 12); terminating states in base-2
// index order of s (torchgfn get_terminating_states_indices); true distribution,
// log Z and modes when 2^ndim <= 2^22.
//
// Preprocessors: "identity" (the entries as float32, torchgfn's default), "khot"
// (one-hot of each entry over {-1, 0, 1}: [B, 3 ndim]) and "onehot" (of the state
// index, [B, 3^ndim], needs enumerable()).
// Thread-safety: immutable after construction; all members are const.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/discrete_ebm_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/row_dynamics.h"

namespace gfn::core {

class DiscreteEBM final : public Environment {
 public:
  /// 3^12: the largest state space enumerated for exact validation.
  static constexpr std::int64_t kMaxEnumerableStates = 531441;
  /// Largest ndim whose 2^ndim terminating states are enumerated (log Z, modes).
  static constexpr std::int64_t kMaxTerminatingDim = 22;

  /// Reads env.ndim (>= 1), env.alpha and env.coupling (finite) and env.energy (ising_lattice:
  /// ndim a perfect square L * L). Throws std::invalid_argument naming the field otherwise.
  /// Cost: O(2^ndim * ndim) for ndim <= kMaxTerminatingDim (log Z, modes), O(3^ndim * ndim)
  /// for ndim <= 12 (the enumeration), else O(ndim).
  explicit DiscreteEBM(const DiscreteEbmOptions& options);

  std::int64_t ndim() const { return ndim_; }
  double alpha() const { return alpha_; }
  EbmEnergy energy() const { return energy_; }
  double coupling() const { return coupling_; }
  /// L of the ising_lattice energy (ndim = L * L); 0 for ones.
  std::int64_t lattice_side() const { return side_; }
  /// J = coupling * A, float64 [ndim, ndim] (symmetric), built on each call: O(ndim^2).
  at::Tensor interaction_matrix() const;

  std::string name() const override { return "discrete_ebm"; }
  std::int64_t state_dim() const override { return ndim_; }
  std::int64_t n_actions() const override { return 2 * ndim_ + 1; }
  bool every_state_terminates() const override { return false; }

  at::Tensor initial_states(std::int64_t n) const override;
  /// bool [B, 2 ndim + 1]: [s == -1, s == -1, all(s != -1)].
  at::Tensor forward_masks(const at::Tensor& states) const override;
  /// bool [B, 2 ndim]: [s == 0, s == 1].
  at::Tensor backward_masks(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const override;
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& actions) const override;
  /// alpha * x^T J x with x = 2 s - 1 (above), float32 [B]; throws std::invalid_argument for
  /// invalid or incomplete states. Cost O(B * ndim) (ones) or O(B * 4 ndim) (ising_lattice).
  at::Tensor log_reward(const at::Tensor& states) const override;
  /// Shape, dtype and entries in {-1, 0, 1}.
  void check_states(const at::Tensor& states, const char* who) const override;

  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const override;
  /// Per-row masks and steps with the base-3 index as the key (ndim <= 39; Environment::unique
  /// then sorts by it), else nullptr.
  const RowDynamics* row_dynamics() const override { return pow3_.defined() ? &rows_ : nullptr; }

  bool enumerable() const override { return all_states_.defined(); }
  std::int64_t n_states() const override;
  const at::Tensor& all_states() const override;
  /// sum_j (s_j + 1) 3^(ndim-1-j), int64 [B] (needs ndim <= 39).
  at::Tensor state_indices(const at::Tensor& states) const override;
  std::int64_t n_terminating_states() const override;
  const at::Tensor& terminating_states() const override;
  /// sum_j s_j 2^(ndim-1-j), int64 [B].
  at::Tensor terminating_state_indices(const at::Tensor& states) const override;
  const at::Tensor& true_distribution() const override;
  double log_partition() const override;

  /// Number of maximal-reward states (above; 0 when they are not known).
  std::int64_t n_modes() const override { return n_modes_; }
  /// Complete states whose log reward is the maximum (all false without modes).
  at::Tensor is_mode(const at::Tensor& states) const override;
  /// Ids of the modes among `states`: their terminating indices (ndim <= 62), else the
  /// value of their entries (0: all-0, 1: all-1).
  at::Tensor mode_hits(const at::Tensor& states) const override;

 private:
  /// One row's dynamics: action i < ndim sets s_i = 0, ndim + i sets s_i = 1 (both allowed
  /// while s_i = -1), exit once no entry is -1; key = the base-3 index.
  class Rows final : public RowDynamics {
   public:
    explicit Rows(std::vector<std::int64_t> pow3) : pow3_(std::move(pow3)) {}
    void forward_mask(const std::int64_t* state, bool* mask) const override;
    void step(std::int64_t* state, std::int64_t action) const override;
    std::int64_t key(const std::int64_t* state) const override;

   private:
    std::vector<std::int64_t> pow3_;  ///< 3^(ndim-1-j)
  };
  /// x^T A x of x = 2 s - 1 for complete states s (unchecked), int64 [B].
  at::Tensor quadratic_form(const at::Tensor& states) const;

  std::int64_t ndim_;
  double alpha_;
  EbmEnergy energy_;
  double coupling_;
  std::int64_t side_ = 0;  ///< ising_lattice: L; 0 for ones
  /// ising_lattice: the (k, m) with A_km = 1, int64 [P] each (P = 4 ndim for L >= 3).
  at::Tensor bond_from_, bond_to_;
  at::Tensor pow3_;                ///< int64 [ndim]: 3^(ndim-1-j) (undefined for ndim > 39)
  Rows rows_{{}};                  ///< row_dynamics() (ndim <= 39)
  at::Tensor pow2_;                ///< int64 [ndim]: 2^(ndim-1-j) (undefined for ndim > 62)
  at::Tensor all_states_;          ///< undefined unless enumerable
  at::Tensor terminating_states_;  ///< undefined unless ndim <= kMaxTerminatingDim
  at::Tensor true_dist_;
  double log_partition_ = 0.0;
  float max_log_reward_ = 0.f;
  std::int64_t n_modes_ = 0;
};

}  // namespace gfn::core
