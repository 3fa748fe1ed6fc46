// normal_fill (runtime/gfn/distributions/normal_fill.h) against ATen's normal_: the same bits
// and the same generator state, call after call, around the 16-value blocks and the 624-word
// regeneration of MT19937; ATen's op for what the loop does not take. Run twice by ctest: as is
// (ATen's AVX2 kernel: the loop must be used) and under ATEN_CPU_CAPABILITY=default (ATen's
// scalar kernel: the first call's check must refuse the loop, normal_fill still equals normal_).
#include "runtime/gfn/distributions/normal_fill.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <string>

#include "runtime/gfn/distributions/normal_fill_kernels.h"

namespace gfn::distributions {
namespace {

bool aten_uses_avx2() {
  return at::show_config().find("CPU capability usage: AVX2") != std::string::npos;
}

/// Draws `calls` times into tensors made by `make` with both functions from two generators of
/// one seed; expects the same values after each call and the same generator state at the end.
template <typename Make>
void expect_same_draws(std::uint64_t seed, int calls, Make make) {
  at::Generator reference = at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Generator ours = at::make_generator<at::CPUGeneratorImpl>(seed);
  for (int call = 0; call < calls; ++call) {
    const at::Tensor expected = make();
    expected.normal_(0.0, 1.0, reference);
    const at::Tensor drawn = make();
    normal_fill(drawn, ours);
    ASSERT_TRUE(at::equal(expected, drawn))
        << "seed " << seed << ", call " << call << ", " << drawn.sizes() << ": max |difference| "
        << (expected - drawn).abs().max().item<float>();
  }
  EXPECT_TRUE(at::equal(reference.get_state(), ours.get_state())) << "seed " << seed;
}

TEST(NormalFill, UsesItsLoopExactlyWhenAtenRunsItsAvx2Kernel) {
  EXPECT_EQ(normal_fill_is_inline(), aten_uses_avx2()) << at::show_config();
}

TEST(NormalFill, BitIdenticalToAtenNormalCallAfterCall) {
  for (const std::int64_t n : {16, 17, 31, 400, 623, 624, 625, 1248, 6400, 6401, 100003}) {
    for (const std::uint64_t seed : {0, 7, 12345}) {
      expect_same_draws(seed, 4, [n] { return at::empty({n}, at::kFloat); });
    }
  }
  expect_same_draws(3, 5, [] { return at::empty({200, 32}, at::kFloat); });  // ManyWell's noise
}

TEST(NormalFill, OtherTensorsTakeAtensOp) {
  expect_same_draws(1, 3, [] { return at::empty({15}, at::kFloat); });
  expect_same_draws(1, 3, [] { return at::empty({64}, at::kDouble); });
  expect_same_draws(1, 3, [] { return at::empty({32, 8}, at::kFloat).t(); });
  const at::Generator undefined;
  const at::Tensor t = at::zeros({64}, at::kFloat);
  at::Generator none = undefined;
  normal_fill(t, none);  // ATen's default generator
  EXPECT_GT(t.abs().sum().item<float>(), 0.0f);
}

TEST(NormalFill, TheLoopItselfGivesAtensBits) {
  if (!aten_uses_avx2()) {
    EXPECT_FALSE(normal_fill_is_inline());  // the check refused it: nothing more to compare
    return;
  }
  at::Generator reference = at::make_generator<at::CPUGeneratorImpl>(99);
  at::mt19937_data_pod state =
      at::check_generator<at::CPUGeneratorImpl>(reference)->engine().data();
  for (const std::int64_t n : {16, 33, 5000}) {
    const at::Tensor expected = at::empty({n}, at::kFloat).normal_(0.0, 1.0, reference);
    const at::Tensor drawn = at::empty({n}, at::kFloat);
    detail::normal_fill_avx2(state, drawn.data_ptr<float>(), n);
    ASSERT_TRUE(at::equal(expected, drawn)) << n;
  }
}

}  // namespace
}  // namespace gfn::distributions
