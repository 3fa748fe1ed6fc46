#pragma once
// Picks OpenBLAS's kernel set when the library would guess wrong. Debian 12's
// OpenBLAS 0.3.21 does not recognise recent Intel CPU models and falls back to its
// generic Prescott (SSE3) kernels (an OpenBLAS bug fixed in 0.3.25): measured
// here, 4-D HyperGrid batch 128 takes 38 ms/iteration with them and 16-18 ms with
// OPENBLAS_CORETYPE=SkylakeX. OpenBLAS reads OPENBLAS_CORETYPE when it is loaded,
// before main(), so the only way to set it from inside the program is to re-exec: the
// environment variables the runtime sets, from the config, are this one (engine.blas_kernels)
// and OMP_WAIT_POLICY or GOMP_SPINCOUNT (train.num_threads, engine.precision).
//
// OMP_WAIT_POLICY=PASSIVE with more than one intra-op thread: LibTorch's OpenMP threads
// (libgomp) otherwise spin for a while after each parallel region, on the cores OpenBLAS's
// own threads need for the next GEMM. Measured (2026-11-26, this 2-vCPU VM, HyperGrid 8-D
// batch 1024, train.num_threads 2): 162-180 ms per iteration with libgomp's default policy,
// 2.5x slower than one thread (65 ms); 52 ms with PASSIVE. libgomp reads the variable when it
// is loaded, so it is set before the same re-exec.
//
// GOMP_SPINCOUNT=100000 instead when the GEMMs run on the OpenMP threads themselves
// (engine.precision bf16: oneDNN, fast/bf16_gemm.h; engine.split_rows: the row ranges of
// fast/row_split.h with a one-thread OpenBLAS; core::gemms_on_openmp_threads): there no
// OpenBLAS thread waits for the core, and a thread that sleeps after each GEMM costs ~60 us
// to wake for the next one.
// Measured (2026-11-26, same setting, bf16): 53-64 ms per iteration with PASSIVE, 34-35 ms
// spinning 10,000 rounds (libgomp's own default spins 300,000: fine for bf16, but then the
// float32 GEMMs of other paths, on OpenBLAS's own threads, compete with the spinning threads;
// those paths now get OMP_WAIT_POLICY=PASSIVE). 100,000 rounds since the sampler's per-step
// work joined the row ranges (2026-11-27, 8-D batch 1024, SkylakeX kernels, 2 threads against
// 1 in one process, three rounds each): split rows 1.60-1.62x with 10,000, 1.62-1.65x with
// 100,000, 1.63-1.64x with 1,000,000; bf16 1.59-1.60x and 1.61x.

#include <string>
#include <utility>
#include <vector>

namespace gfn::runtime {

/// The OpenBLAS core type for a CPU with the given /proc/cpuinfo "flags" (space
/// separated): "SkylakeX" if avx512f, avx512bw, avx512vl, avx512dq and avx512cd are
/// all present, else "Haswell" if avx2 and fma are, else "" (let OpenBLAS decide).
/// Pure, thread-safe.
std::string choose_openblas_coretype(const std::string& cpu_flags);

/// The variables to set for the libraries, given this CPU's flags, engine.blas_kernels auto
/// (`auto_select`), train.num_threads and whether each is already set (a user's own value
/// wins): OPENBLAS_CORETYPE = choose_openblas_coretype() if auto_select and it is not empty;
/// if intra_op_threads > 1 and neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set
/// (wait_policy_set), GOMP_SPINCOUNT = kOpenMpGemmSpinCount when the GEMMs run on OpenMP
/// threads (openmp_gemms: core::gemms_on_openmp_threads), else OMP_WAIT_POLICY = PASSIVE.
/// Pure, thread-safe.
std::vector<std::pair<std::string, std::string>> library_environment(
    const std::string& cpu_flags, bool auto_select, int intra_op_threads, bool openmp_gemms,
    bool coretype_set, bool wait_policy_set);

/// libgomp's spin rounds before an idle thread sleeps, with openmp_gemms (see above).
inline constexpr const char* kOpenMpGemmSpinCount = "100000";

/// Call in main() once the config is read, before MPI or LibTorch start (reading the YAML
/// touches neither). Sets library_environment() of this CPU and process and, if it set
/// anything, re-executes /proc/self/exe with the same arguments (same PID, so launchers are
/// unaffected; the new process reads the same config, finds the variables set and returns
/// here at once). Returns normally when nothing is to be done or the re-exec fails (a
/// warning on stderr). Not thread-safe.
void set_library_environment(bool auto_select, int intra_op_threads, bool openmp_gemms, int argc,
                             char** argv);

}  // namespace gfn::runtime
