#pragma once
// The process-wide thread counts of a trainer's engine: LibTorch's intra-op threads (its
// OpenMP pool, libgomp) and OpenBLAS's own pool, which LibTorch's setting does not reach.
// The engine plan (runtime/gfn/engine_plan.h) decides the counts from train.num_threads
// and the engine options; the program applies them (roles/trainer, gfn-bench-train), so no
// library below sets process-wide state on its own. Which counts, and why
// (docs/performance.md "Two threads", "Splitting the rows over threads"):
//   rows split over T threads (engine.split_rows, saved-outputs evaluator): intra-op T, BLAS 1;
//   split rows asked for but another evaluator:                            intra-op 1, BLAS T;
//   batch split into T parts (engine.split_batch; one thread each part):    intra-op 1, BLAS 1;
//   else:                                                                  intra-op T, BLAS T.
//
// Thread-safety: call from the main thread, outside any parallel region.

namespace gfn::runtime {

/// Threads of the two pools, each >= 1.
struct ThreadCounts {
  int intra_op = 1;  ///< LibTorch's intra-op (OpenMP) threads
  int blas = 1;      ///< OpenBLAS's threads (ignored when the loaded BLAS is not OpenBLAS)
  bool operator==(const ThreadCounts& o) const { return intra_op == o.intra_op && blas == o.blas; }
};

/// Sets both pools: at::set_num_threads(intra_op) when LibTorch's count differs, and
/// openblas_set_num_threads(blas) when the process has loaded OpenBLAS (found with dlsym).
/// Throws std::invalid_argument for a count < 1. Cost: milliseconds when the intra-op count
/// changes (LibTorch rebuilds caffe2's pthreadpool), else microseconds.
void set_thread_counts(const ThreadCounts& counts);

/// The same for switching between counts already set once by set_thread_counts, e.g. before
/// each iteration of two Learners of different train.num_threads in one process
/// (gfn-bench-train --versus): the intra-op count is OpenMP's alone (omp_set_num_threads,
/// which at::get_num_threads reads in LibTorch's OpenMP build); at::set_num_threads would
/// also rebuild caffe2's pthreadpool, whose fresh worker spins for milliseconds on another
/// core (8-D batch-1024 iterations: 45 ms instead of 26). Throws std::invalid_argument for a
/// count < 1. Cost: microseconds.
void switch_thread_counts(const ThreadCounts& counts);

/// The counts in effect: LibTorch's intra-op count and OpenBLAS's (openblas_get_num_threads;
/// 0 when OpenBLAS is not loaded). For tests and reports.
ThreadCounts current_thread_counts();

}  // namespace gfn::runtime
