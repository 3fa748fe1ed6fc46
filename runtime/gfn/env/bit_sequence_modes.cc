#include "runtime/gfn/env/bit_sequence_modes.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::core {
namespace {

// The paper's (and torchgfn's) building blocks of the modes: 5 words of 8 bits.
constexpr std::int64_t kBlockBits = 8;
constexpr std::int64_t kBlocks[5][kBlockBits] = {{0, 0, 0, 0, 0, 0, 0, 0},
                                                 {1, 1, 1, 1, 1, 1, 1, 1},
                                                 {1, 1, 1, 1, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 1, 1, 1, 1},
                                                 {0, 0, 1, 1, 1, 1, 0, 0}};

// k - 1 .. 0: the shift of each bit of a word, most significant first.
at::Tensor bit_shifts(std::int64_t word_size) {
  return at::arange(word_size - 1, -1, -1, at::kLong);
}

}  // namespace

at::Tensor block_modes(std::int64_t seq_size, std::int64_t n_modes, std::uint64_t seed) {
  const std::int64_t m = seq_size / kBlockBits;
  // 5^m > n_modes? (compare in double to avoid overflow for long sequences)
  if (static_cast<double>(n_modes) > std::pow(5.0, static_cast<double>(m))) {
    throw std::invalid_argument("env.n_modes: " + std::to_string(n_modes) +
                                " distinct modes do not exist with " + std::to_string(m) +
                                " blocks of 8 bits (at most 5^" + std::to_string(m) + ")");
  }
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const at::Tensor blocks =
      at::from_blob(const_cast<std::int64_t*>(&kBlocks[0][0]), {5, kBlockBits}, at::kLong).clone();
  std::set<std::vector<std::int64_t>> seen;
  std::vector<at::Tensor> rows;
  while (static_cast<std::int64_t>(rows.size()) < n_modes) {
    const at::Tensor pick = at::randint(0, 5, {m}, gen, at::kLong).contiguous();
    std::vector<std::int64_t> key(pick.data_ptr<std::int64_t>(), pick.data_ptr<std::int64_t>() + m);
    if (!seen.insert(key).second) continue;
    rows.push_back(blocks.index_select(0, pick).reshape({-1}));
  }
  return at::stack(rows);
}

at::Tensor words_to_bits(const at::Tensor& words, std::int64_t word_size) {
  return words.unsqueeze(2)
      .bitwise_right_shift(bit_shifts(word_size))
      .bitwise_and(1)
      .reshape({words.size(0), words.size(1) * word_size});
}

at::Tensor bits_to_words(const at::Tensor& bits, std::int64_t word_size) {
  return bits.view({bits.size(0), -1, word_size}).bitwise_left_shift(bit_shifts(word_size)).sum(2);
}

at::Tensor hamming_to_modes(const at::Tensor& bits, const at::Tensor& modes) {
  return bits.unsqueeze(1).ne(modes.unsqueeze(0)).sum(2);
}

at::Tensor flipped_modes(const at::Tensor& modes, std::int64_t per_mode, std::uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const std::int64_t m = modes.size(0), n = modes.size(1);
  at::Tensor bits = modes.repeat_interleave(per_mode, 0).contiguous();  // [m * per_mode, n]
  const at::Tensor flips = at::randint(0, n, {m * per_mode}, gen, at::kLong).contiguous();
  for (std::int64_t i = 0; i < m * per_mode; ++i) {
    const std::int64_t f = flips.data_ptr<std::int64_t>()[i];
    const at::Tensor where = at::randperm(n, gen, at::kLong).narrow(0, 0, f);
    at::Tensor row = bits.select(0, i);
    row.index_put_({where}, 1 - row.index_select(0, where));
  }
  return bits;
}

}  // namespace gfn::core
