#pragma once
// Fast path (runtime/gfn/fast/): the rows of the hand-written MLP forward and backward
// (mlp_forward.h, mlp_backward.h) split over T threads (engine.split_rows with train.num_threads T
// > 1; docs/performance.md "Splitting the rows over threads").
//
// Why: an MLP's rows are independent until the parameter gradients sum over them, so T
// contiguous row ranges run the same GEMM chain, each on its own thread with a one-thread
// BLAS, and only the weight and bias gradients are added at the end. The sampler's
// per-step GEMMs (a few hundred rows at HyperGrid 8-D batch 1024) are too small for the BLAS's
// own threads to split well (a thread wake-up per GEMM), and splitting the batch by
// trajectories (batch_split.h) evaluates the states the halves share twice; splitting the
// distinct rows does neither.
//
// The threads are OpenMP's (libgomp, LibTorch's intra-op pool): one parallel region per
// call, range 0 on the calling thread. How long an idle thread spins before it sleeps is
// libgomp's GOMP_SPINCOUNT, set at start-up (runtime/process/blas_kernels.h).

#include <cstdint>
#include <functional>
#include <vector>

namespace gfn::core {

/// Rows [begin, end) of one part.
struct RowRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
};

/// Fewest rows a part gets: below 2 x this many rows, a call runs on one thread. At 8-D
/// batch 1024 (MLP 256 x 3), iterations 10-70, SkylakeX kernels, with the sampler's
/// probabilities and steps split too (docs/performance.md "Splitting the rows over threads"):
/// 2 threads against 1, three interleaved rounds each, 1.56-1.60x with 32, 1.62-1.64x with 16,
/// 1.62-1.65x with 8; a 16-row part's layer chain takes ~20 us, the hand-over to a spinning
/// thread a few.
inline constexpr std::int64_t kMinRowsPerPart = 16;

/// The contiguous ranges splitting rows >= 0 into min(parts, rows / min_rows) parts (at least
/// one), in order, the first rows % parts of them one row longer. Pure; thread-safe.
/// Throws std::invalid_argument for parts < 1, rows < 0 or min_rows < 1.
std::vector<RowRange> row_ranges(std::int64_t rows, int parts,
                                 std::int64_t min_rows = kMinRowsPerPart);

/// Runs f(k, ranges[k]) for every k: k = 0 on the calling thread, the others on OpenMP
/// threads, all at once (one parallel region of ranges.size() threads; one range: no
/// region). Every call runs under at::NoGradGuard (OpenMP threads start in grad mode).
/// f must only write what its range owns. Blocking: returns when every call returned; then
/// rethrows the first exception thrown, if any. Not reentrant from inside f.
void run_row_parts(const std::vector<RowRange>& ranges,
                   const std::function<void(std::size_t, RowRange)>& f);

}  // namespace gfn::core
