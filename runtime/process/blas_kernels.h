#pragma once
// Picks OpenBLAS's kernel set when the library would guess wrong. Debian 12's
// OpenBLAS 0.3.21 does not recognise recent Intel CPU models and falls back to its
// generic Prescott (SSE3) kernels (an OpenBLAS bug fixed in 0.3.25): measured
// here, 4-D HyperGrid batch 128 takes 38 ms/iteration with them and 16-18 ms with
// OPENBLAS_CORETYPE=SkylakeX. OpenBLAS reads OPENBLAS_CORETYPE when it is loaded,
// before main(), so the only way to set it from inside the program is to re-exec: the one
// environment variable the runtime still sets, from the config's engine.blas_kernels.

#include <string>

namespace gfn::runtime {

/// The OpenBLAS core type for a CPU with the given /proc/cpuinfo "flags" (space
/// separated): "SkylakeX" if avx512f, avx512bw, avx512vl, avx512dq and avx512cd are
/// all present, else "Haswell" if avx2 and fma are, else "" (let OpenBLAS decide).
/// Pure, thread-safe.
std::string choose_openblas_coretype(const std::string& cpu_flags);

/// Call in main() once the config is read, before MPI or LibTorch start (reading the YAML
/// touches neither). If `auto_select` (engine.blas_kernels auto), OPENBLAS_CORETYPE is
/// unset (a user's own choice wins) and choose_openblas_coretype() of this CPU is not
/// empty: sets OPENBLAS_CORETYPE and re-executes /proc/self/exe with the same arguments
/// (same PID, so launchers are unaffected; the new process reads the same config and
/// returns here at once). Returns normally when nothing is to be done or the re-exec
/// fails (a warning on stderr). Not thread-safe.
void select_blas_kernels(bool auto_select, int argc, char** argv);

}  // namespace gfn::runtime
