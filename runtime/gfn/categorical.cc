#include "runtime/gfn/categorical.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>

#include <cmath>
#include <mutex>
#include <stdexcept>

namespace gfn::core {

ExponentialDraws::ExponentialDraws(at::Generator& generator)
    : generator_(generator), use_aten_(at::hasMKL() || generator.device().type() != at::kCPU) {}

const float* ExponentialDraws::next(std::int64_t n) {
  if (use_aten_) {
    tensor_ = at::empty({n}, at::kFloat);
    tensor_.exponential_(1.0, generator_);
    return tensor_.data_ptr<float>();
  }
  buffer_.resize(static_cast<std::size_t>(n));
  auto* gen = at::check_generator<at::CPUGeneratorImpl>(generator_);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  at::exponential_distribution<double> exponential(1.0);
  for (auto& v : buffer_) v = static_cast<float>(exponential(gen));
  return buffer_.data();
}

const std::uint64_t* ExponentialDraws::next_words(std::int64_t n) {
  if (use_aten_) {
    throw std::logic_error("ExponentialDraws::next_words: the draws come from ATen's exponential_");
  }
  words_.resize(static_cast<std::size_t>(n));
  auto* gen = at::check_generator<at::CPUGeneratorImpl>(generator_);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  for (auto& w : words_) w = gen->random64();
  return words_.data();
}

float ExponentialDraws::draw(std::uint64_t word) {
  // exponential_distribution<double>(1.0) on a generator whose random64() is `word`.
  return static_cast<float>(at::transformation::exponential<double>(
      at::transformation::uniform_real<double>(word, 0.0, 1.0), 1.0));
}

void check_probability_rows(const float* p, std::int64_t m, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int64_t a = 0; a < k; ++a) {
      const float v = p[i * k + a];
      if (!(v >= 0) || std::isinf(v)) {
        throw std::invalid_argument(
            "sample_categorical: probability tensor contains either `inf`, `nan` or element < 0");
      }
      sum += v;
    }
    if (sum == 0) {
      throw std::invalid_argument(
          "sample_categorical: invalid multinomial distribution (sum of probabilities <= 0)");
    }
  }
}

at::Tensor sample_categorical(const at::Tensor& probs, at::Generator& generator) {
  if (probs.dim() != 2 || probs.scalar_type() != at::kFloat || !probs.device().is_cpu() ||
      probs.size(1) == 0) {
    return at::multinomial(probs, 1, /*replacement=*/false, generator).squeeze(1);
  }
  const at::Tensor p = probs.contiguous();
  const std::int64_t m = p.size(0), k = p.size(1);
  const float* pd = p.data_ptr<float>();
  check_probability_rows(pd, m, k);  // at::multinomial's checks, before any draw
  at::Tensor out = at::empty({m}, at::kLong);
  std::int64_t* o = out.data_ptr<std::int64_t>();
  ExponentialDraws draws(generator);
  const float* q = draws.next(m * k);
  for (std::int64_t i = 0; i < m; ++i) o[i] = race_winner(pd + i * k, q + i * k, k);
  return out;
}

}  // namespace gfn::core
