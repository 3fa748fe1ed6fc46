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

// What the start-up re-exec sets: the kernels (engine.blas_kernels auto) and, with several
// intra-op threads, OpenMP's passive wait policy, or a short spin when the GEMMs run on the
// OpenMP threads (bf16); a value the user set wins; nothing to set means no re-exec.
TEST(BlasKernels, LibraryEnvironment) {
  using Vars = std::vector<std::pair<std::string, std::string>>;
  const std::string avx512 = "avx512f avx512bw avx512vl avx512dq avx512cd";
  EXPECT_EQ(library_environment(avx512, true, 1, false, false, false),
            (Vars{{"OPENBLAS_CORETYPE", "SkylakeX"}}));
  EXPECT_EQ(library_environment(avx512, true, 2, false, false, false),
            (Vars{{"OPENBLAS_CORETYPE", "SkylakeX"}, {"OMP_WAIT_POLICY", "PASSIVE"}}));
  EXPECT_EQ(library_environment(avx512, false, 2, false, false, false),
            (Vars{{"OMP_WAIT_POLICY", "PASSIVE"}}));
  EXPECT_EQ(library_environment(avx512, false, 2, true, false, false),
            (Vars{{"GOMP_SPINCOUNT", "100000"}}));
  EXPECT_EQ(library_environment(avx512, true, 1, true, false, false),
            (Vars{{"OPENBLAS_CORETYPE", "SkylakeX"}}));  // one thread: nothing to wait for
  EXPECT_EQ(library_environment(avx512, true, 4, false, true, true), Vars{});  // the user's own
  EXPECT_EQ(library_environment(avx512, true, 4, true, true, true), Vars{});
  EXPECT_EQ(library_environment("sse2", true, 1, false, false, false), Vars{});
  EXPECT_EQ(library_environment("sse2", true, 2, false, false, true), Vars{});
}

}  // namespace
}  // namespace gfn::runtime
