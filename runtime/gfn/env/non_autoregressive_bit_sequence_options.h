#pragma once
// The NonAutoregressiveBitSequence environment's options (non_autoregressive_bit_sequence.h;
// keys env.word_size, env.seq_size, env.n_modes, env.reward_exponent, env.mode_threshold,
// env.modes_seed of docs/configuration.md). The defaults are those of torchgfn's
// NonAutoregressiveBitSequence constructor (word_size 1, seq_size 4, n_modes 2,
// reward_exponent 2, seed 0). Plain value type, no LibTorch.

#include <cstdint>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct NonAutoregressiveBitSequenceOptions {
  int word_size = 1;             ///< k: bits per word (a word is placed per action)
  int seq_size = 4;              ///< n: bits per sequence (< 8, or a multiple of 8)
  int n_modes = 2;               ///< |M|: target sequences
  double reward_exponent = 2.0;  ///< log R(x) = -reward_exponent * d(x) / seq_size
  int mode_threshold = 0;        ///< bits; a mode is found within it (< 0: seq_size / 4)
  std::uint64_t modes_seed = 0;  ///< seed of the mode set M (torchgfn's `seed`)
};

const config::Fields<NonAutoregressiveBitSequenceOptions>& non_autoregressive_bit_sequence_fields();

}  // namespace gfn::core
