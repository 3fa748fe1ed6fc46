#include "runtime/gfn/distributions/normal_fill.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/empty.h>

#include <cstring>
#include <mutex>

#include "runtime/gfn/distributions/normal_fill_kernels.h"

namespace gfn::distributions {
namespace {

bool cpu_has_avx2_fma() {
  __builtin_cpu_init();  // asked at run time; the features may not be read yet (exact_gelu.cc)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/// The loop against ATen's normal_ on generators of their own: sizes around the 16-value blocks
/// and the 624-word regeneration, three calls in a row each; the values and the next output.
bool loop_gives_atens_bits() {
  if (!cpu_has_avx2_fma()) return false;
  for (const std::int64_t n : {16, 17, 400, 625, 1250, 6401}) {
    at::Generator aten = at::make_generator<at::CPUGeneratorImpl>(n);
    at::mt19937 engine = at::check_generator<at::CPUGeneratorImpl>(aten)->engine();
    at::mt19937_data_pod state = engine.data();
    for (int call = 0; call < 3; ++call) {
      const at::Tensor expected = at::empty({n}, at::kFloat);
      expected.normal_(0.0, 1.0, aten);
      const at::Tensor drawn = at::empty({n}, at::kFloat);
      detail::normal_fill_avx2(state, drawn.data_ptr<float>(), n);
      if (std::memcmp(expected.data_ptr<float>(), drawn.data_ptr<float>(), n * sizeof(float))) {
        return false;
      }
    }
    engine.set_data(state);
    if (engine() != at::check_generator<at::CPUGeneratorImpl>(aten)->random()) return false;
  }
  return true;
}

}  // namespace

bool normal_fill_is_inline() {
  static const bool inline_loop = loop_gives_atens_bits();
  return inline_loop;
}

void normal_fill(const at::Tensor& t, at::Generator& generator) {
  if (!generator.defined() || t.scalar_type() != at::kFloat || !t.is_contiguous() ||
      !t.device().is_cpu() || t.numel() < 16 || t.requires_grad() || !normal_fill_is_inline()) {
    t.normal_(0.0, 1.0, generator);
    return;
  }
  auto* cpu = at::check_generator<at::CPUGeneratorImpl>(generator);
  std::lock_guard<std::mutex> lock(generator.mutex());
  at::mt19937 engine = cpu->engine();
  at::mt19937_data_pod state = engine.data();
  detail::normal_fill_avx2(state, t.data_ptr<float>(), t.numel());
  engine.set_data(state);
  cpu->set_engine(engine);
}

}  // namespace gfn::distributions
