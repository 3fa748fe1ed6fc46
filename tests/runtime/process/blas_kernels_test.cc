#include "runtime/process/blas_kernels.h"

#include <gtest/gtest.h>

namespace gfn::runtime {
namespace {

TEST(BlasKernels, Avx512CpusGetSkylakeX) {
  EXPECT_EQ(
      choose_openblas_coretype(" fpu sse2 fma avx2 avx512f avx512dq avx512cd avx512bw avx512vl"),
      "SkylakeX");
}

TEST(BlasKernels, PartialAvx512FallsBackToHaswell) {
  // Knights-Landing-like: avx512f without bw/vl must not get SkylakeX kernels.
  EXPECT_EQ(choose_openblas_coretype("fma avx2 avx512f avx512cd"), "Haswell");
}

TEST(BlasKernels, OlderCpusAreLeftToOpenBlas) {
  EXPECT_EQ(choose_openblas_coretype("sse2 sse4_2 avx"), "");
  EXPECT_EQ(choose_openblas_coretype("avx2"), "");  // no fma
  EXPECT_EQ(choose_openblas_coretype(""), "");
}

}  // namespace
}  // namespace gfn::runtime
