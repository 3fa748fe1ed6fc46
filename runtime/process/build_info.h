#pragma once
// Facts about the running process that benchmarks and reports print.

#include <string>

namespace gfn::runtime {

/// Path of the BLAS shared library actually mapped into this process (e.g.
/// ".../openblas-pthread/libblas.so.3"), or "unknown" if none is mapped yet.
/// Reads /proc/self/maps; call it after LibTorch ran a matmul. Thread-safe.
std::string loaded_blas_library();

}  // namespace gfn::runtime
