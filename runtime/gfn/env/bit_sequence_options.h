#pragma once
// The BitSequence environment's options (bit_sequence.h; keys env.word_size, env.seq_size,
// env.n_modes, env.beta, env.mode_threshold, env.modes_seed of docs/configuration.md).
// Plain value type, no LibTorch.

#include <cstdint>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct BitSequenceOptions {
  int word_size = 4;             ///< k: bits appended per action
  int seq_size = 120;            ///< n: bits per sequence (multiple of word_size and of 8)
  int n_modes = 60;              ///< |M|: target sequences
  double beta = 1.0;             ///< log R(x) = -beta * min Hamming distance to M
  int mode_threshold = -1;       ///< bits; a mode is found within it (< 0: seq_size / 4)
  std::uint64_t modes_seed = 0;  ///< seed of the mode set M
};

const config::Fields<BitSequenceOptions>& bit_sequence_fields();

}  // namespace gfn::core
