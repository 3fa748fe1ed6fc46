#pragma once
// What the two bit-sequence environments share (bit_sequence.h, the append-only task of the
// Trajectory Balance paper; non_autoregressive_bit_sequence.h, torchgfn's
// NonAutoregressiveBitSequence): the mode set, the bits of a sequence of words, the Hamming
// distances to the modes and the test set of the Spearman metric. Sequences are int64 rows of
// L = n / k words of k bits, each word's bits most significant first (torchgfn's
// _integers_to_binary); bits are int64 in {0, 1}. Pure functions; CPU tensors; no state.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace gfn::core {

/// The TB paper's mode set, as torchgfn builds it (gfn.gym.BitSequence.make_modes_set and
/// NonAutoregressiveBitSequence._make_modes): with the 8-bit blocks H = {00000000, 11111111,
/// 11110000, 00001111, 00111100}, a candidate concatenates seq_size / 8 blocks whose indices are
/// one at::randint(0, 5, {seq_size / 8}) draw; candidates already drawn are rejected until
/// n_modes distinct ones exist. The generator is a CPU generator seeded with `seed`, drawn as
/// torch.manual_seed(seed) followed by torch.randint draws the same way, so the set equals
/// torchgfn's for the same seed. Returns int64 [n_modes, seq_size]. Needs seq_size % 8 == 0;
/// throws std::invalid_argument naming env.n_modes when n_modes > 5^(seq_size / 8).
at::Tensor block_modes(std::int64_t seq_size, std::int64_t n_modes, std::uint64_t seed);

/// Bits of complete sequences: words int64 [B, L] in [0, 2^word_size) -> int64 [B, L *
/// word_size]. No validation.
at::Tensor words_to_bits(const at::Tensor& words, std::int64_t word_size);

/// The inverse: bits int64 [B, L * word_size] in {0, 1} -> words int64 [B, L]. No validation.
at::Tensor bits_to_words(const at::Tensor& bits, std::int64_t word_size);

/// Hamming distances of bit rows int64 [B, n] to every mode int64 [M, n]: int64 [B, M].
at::Tensor hamming_to_modes(const at::Tensor& bits, const at::Tensor& modes);

/// The bits of the Spearman test set, built as torchgfn's BitSequence.create_test_set: for each
/// mode in order, `per_mode` copies, each with f bits flipped, f drawn uniformly from
/// {0, .., n - 1} and the f positions without replacement, from a CPU generator seeded with
/// `seed` (the draws differ from torchgfn's: other generator calls). int64 [M * per_mode, n],
/// mode-major; duplicates possible. per_mode >= 1 (the caller checks). Cost O(M per_mode n).
at::Tensor flipped_modes(const at::Tensor& modes, std::int64_t per_mode, std::uint64_t seed);

}  // namespace gfn::core
