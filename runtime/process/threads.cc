#include "runtime/process/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <omp.h>

#include <stdexcept>
#include <string>

namespace gfn::runtime {
namespace {

void check(const ThreadCounts& counts) {
  if (counts.intra_op < 1 || counts.blas < 1) {
    throw std::invalid_argument("thread counts must be >= 1, got intra-op " +
                                std::to_string(counts.intra_op) + ", BLAS " +
                                std::to_string(counts.blas));
  }
}

// OpenBLAS keeps its own thread pool; LibTorch's setting does not reach it. Looked up at run
// time: the BLAS LibTorch loaded (libblas.so.3) may be another one.
void set_blas_threads(int n) {
  using SetFn = void (*)(int);
  if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(n);
}

}  // namespace

void set_thread_counts(const ThreadCounts& counts) {
  check(counts);
  if (at::get_num_threads() != counts.intra_op) at::set_num_threads(counts.intra_op);
  set_blas_threads(counts.blas);
}

void switch_thread_counts(const ThreadCounts& counts) {
  check(counts);
  if (at::get_num_threads() != counts.intra_op) omp_set_num_threads(counts.intra_op);
  set_blas_threads(counts.blas);
}

ThreadCounts current_thread_counts() {
  using GetFn = int (*)();
  const auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return {at::get_num_threads(), get ? get() : 0};
}

}  // namespace gfn::runtime
