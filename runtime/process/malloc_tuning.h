#pragma once
// glibc malloc settings for training processes. A training iteration allocates and
// frees the same large tensor buffers (activations, gradients: 0.1-4 MiB) every time.
// With glibc's defaults, blocks above the mmap threshold (128 KiB at start, adapted
// upwards as blocks are freed) are mmap'ed and munmap'ed per allocation, and the top of
// the heap is trimmed back to the OS above 128 KiB free; both turn every iteration into
// fresh page faults (perf: 14-16 % of the samples in the kernel's page-fault path,
// docs/performance.md "Trainer throughput"). Raising both thresholds keeps the buffers in the heap,
// where they are reused. This is what
//   GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...:glibc.malloc.trim_threshold=...
// does from the environment, as a library call so that no launcher has to set it.

#include <cstddef>

namespace gfn::runtime {

/// mmap threshold set by tune_malloc_for_training: glibc's maximum on 64-bit
/// (HEAP_MAX_SIZE / 2 = 32 MiB; mallopt refuses larger values). Bytes.
inline constexpr std::size_t kMallocMmapThreshold = std::size_t{32} << 20;
/// Free bytes at the top of the heap kept before trimming back to the OS. Bytes.
inline constexpr std::size_t kMallocTrimThreshold = std::size_t{512} << 20;

/// Call at the start of main(), before other threads exist (mallopt is not meant to
/// race with allocations). If `enabled` (engine.malloc_tune) and GLIBC_TUNABLES is not set
/// (the user's own malloc settings win): mallopt(M_MMAP_THRESHOLD,
/// kMallocMmapThreshold) and mallopt(M_TRIM_THRESHOLD, kMallocTrimThreshold). Returns
/// true if both calls succeeded, false if skipped or refused (then a warning on stderr).
/// Cost: up to kMallocTrimThreshold of freed memory may stay mapped in the process.
bool tune_malloc_for_training(bool enabled);

}  // namespace gfn::runtime
