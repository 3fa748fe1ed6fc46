// The fields of every built-in environment's options (the env: keys each one reads).
#include <utility>

#include "runtime/config/fields.h"
#include "runtime/gfn/env/bit_sequence_options.h"
#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/discrete_ebm_options.h"
#include "runtime/gfn/env/hypergrid_options.h"
#include "runtime/gfn/env/non_autoregressive_bit_sequence_options.h"
#include "runtime/gfn/env/walk_options.h"

namespace gfn::core {

const config::Fields<HyperGridOptions>& hypergrid_fields() {
  using H = HyperGridOptions;
  static const auto fields =
      config::Fields<H>()
          .add("ndim", &H::ndim, "Dimensions of the grid.", config::at_least(1))
          .add("height", &H::height, "Coordinates take the values 0 .. height - 1.",
               config::at_least(2))
          .add("reward", &H::reward,
               "original (R0, R1, R2), cosine (R0, R1), deceptive (R0, R1, R2), sparse, "
               "bitwise_xor and multiplicative_coprime (R0 and torchgfn's default tiers); "
               "runtime/gfn/env/hypergrid.h documents each.",
               config::AsInvalid{})
          .add("R0", &H::R0, "Reward term R0 (the floor of every reward).", config::non_negative())
          .add("R1", &H::R1, "Reward term R1.", config::non_negative())
          .add("R2", &H::R2, "Reward term R2.", config::non_negative());
  return fields;
}

const config::Fields<DiscreteEbmOptions>& discrete_ebm_fields() {
  using D = DiscreteEbmOptions;
  static const auto fields =
      config::Fields<D>()
          .add("ndim", &D::ndim,
               "Binary variables of the Ising model (energy ising_lattice: L * L for an L x L "
               "lattice).",
               config::at_least(1))
          .add("alpha", &D::alpha,
               "Interaction strength: log R(x) = -alpha E(x) = alpha x^T J x, x = 2 s - 1 in "
               "{-1, 1}^ndim (finite).")
          .add("energy", &D::energy,
               "The interaction matrix J: ones (J = coupling * ones, so log R = alpha coupling "
               "(sum_i x_i)^2; torchgfn's default) or ising_lattice (J = coupling * the "
               "adjacency of the L x L square lattice with periodic boundaries, ndim = L * L; "
               "torchgfn's train_ising.py); runtime/gfn/env/discrete_ebm.h documents both.",
               config::AsInvalid{})
          .add("coupling", &D::coupling,
               "The scale of J (torchgfn's Ising coupling J, 0.44 in train_ising.py; finite).");
  return fields;
}

const config::Fields<BitSequenceOptions>& bit_sequence_fields() {
  using B = BitSequenceOptions;
  static const auto fields =
      config::Fields<B>()
          .add("word_size", &B::word_size, "Bits appended per action (k, 1..16).",
               config::at_least(1), {"bits"})
          .add("seq_size", &B::seq_size, "Bits per sequence (n, a multiple of word_size and of 8).",
               config::at_least(1), {"bits"})
          .add("n_modes", &B::n_modes, "Target sequences (|M|).", config::at_least(1))
          .add("beta", &B::beta, "log R(x) = -beta * the Hamming distance to the nearest mode.")
          .add("mode_threshold", &B::mode_threshold,
               "A mode counts as found within this Hamming distance (< 0: seq_size / 4).",
               config::at_least(-1), {"bits"})
          .add("modes_seed", &B::modes_seed, "Seed of the mode set M.");
  return fields;
}

const config::Fields<NonAutoregressiveBitSequenceOptions>&
non_autoregressive_bit_sequence_fields() {
  using N = NonAutoregressiveBitSequenceOptions;
  static const auto fields =
      config::Fields<N>()
          .add("word_size", &N::word_size,
               "Bits per word, one word placed per action (k, 1..16; "
               "default 1).",
               config::at_least(1), {"bits"})
          .add("seq_size", &N::seq_size,
               "Bits per sequence (n, a multiple of word_size, below 8 or a multiple of 8; "
               "default 4).",
               config::at_least(1), {"bits"})
          .add("n_modes", &N::n_modes, "Target sequences (|M|; default 2).", config::at_least(1))
          .add("reward_exponent", &N::reward_exponent,
               "log R(x) = -reward_exponent * the Hamming distance to the nearest mode / "
               "seq_size (torchgfn's reward_exponent).")
          .add("mode_threshold", &N::mode_threshold,
               "A mode counts as found within this Hamming distance (< 0: seq_size / 4; default "
               "0, the mode itself).",
               config::at_least(-1), {"bits"})
          .add("modes_seed", &N::modes_seed, "Seed of the mode set M (torchgfn's seed).");
  return fields;
}

const config::Fields<WalkOptions>& walk_fields() {
  using W = WalkOptions;
  static const auto fields = config::Fields<W>().add(
      "height", &W::height, "Length of the walk: states 0 .. height - 1.", config::at_least(2));
  return fields;
}

namespace {

/// The keys Box and the polar Box share (the environment's and the concentration range).
template <class B>
config::Fields<B> box_common_fields(config::Fields<B>&& fields, const char* n_components_help) {
  return std::move(fields)
      .add("delta", &B::delta,
           "The step size: Box's smallest increment of every coordinate after the first step "
           "(the first step from s0 reaches the whole box); box_polar's step length. In (0, 1].",
           config::in_half_open_unit_interval())
      .add("epsilon", &B::epsilon,
           "The tolerance of the validity checks (torchgfn's Box epsilon; 1e-10 in its "
           "box benchmarks).",
           config::non_negative())
      .add("R0", &B::R0,
           "Reward everywhere: R(x) = R0 + R1 [every |x_i - 0.5| > 0.25] + R2 [every 0.3 "
           "< |x_i - 0.5| < 0.4] (runtime/gfn/env/box.h); > 0.",
           config::positive_finite())
      .add("R1", &B::R1, "Reward added in the corners (every |x_i - 0.5| > 0.25).",
           config::non_negative())
      .add("R2", &B::R2, "Reward added in the corners' rings (every 0.3 < |x_i - 0.5| < 0.4).",
           config::non_negative())
      .add("n_components", &B::n_components, n_components_help, config::at_least(1))
      .add("min_concentration", &B::min_concentration,
           "The smallest concentration (alpha, beta) of the policies' Beta components.",
           config::positive_finite())
      .add("max_concentration", &B::max_concentration,
           "The largest concentration of the policies' Beta components (>= "
           "env.min_concentration).",
           config::positive_finite());
}

}  // namespace

const config::Fields<BoxEnvOptions>& box_fields() {
  using B = BoxEnvOptions;
  static const auto fields = box_common_fields<B>(
      config::Fields<B>().add("ndim", &B::ndim, "Dimensions d of the state space [0, 1]^d.",
                              config::at_least(1)),
      "Beta mixture components per coordinate of the forward and backward "
      "policies (runtime/gfn/env/box_policies.h).");
  return fields;
}

const config::Fields<BoxPolarEnvOptions>& box_polar_fields() {
  using B = BoxPolarEnvOptions;
  static const auto fields =
      box_common_fields<B>(config::Fields<B>(),
                           "K: Beta mixture components of the step's angle, forward and backward "
                           "(runtime/gfn/env/box_polar_policies.h).")
          .add("n_components_s0", &B::n_components_s0,
               "K0: Beta mixture components of the forward policy's first step (radius and "
               "angle) from s0; state-independent learned outputs (torchgfn's PFs0).",
               config::at_least(1));
  return fields;
}

}  // namespace gfn::core
