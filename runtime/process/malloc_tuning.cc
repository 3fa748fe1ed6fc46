#include "runtime/process/malloc_tuning.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gfn::runtime {

bool tune_malloc_for_training(bool enabled) {
  if (!enabled) return false;
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return false;
  // Setting either threshold also turns off glibc's dynamic mmap threshold.
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMallocMmapThreshold)) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, static_cast<int>(kMallocTrimThreshold)) == 1;
  if (!mmap_ok || !trim_ok) {
    std::fprintf(stderr, "warning: mallopt refused M_MMAP_THRESHOLD/M_TRIM_THRESHOLD (%s)\n",
                 mmap_ok ? "trim" : "mmap");
  }
  return mmap_ok && trim_ok;
}

}  // namespace gfn::runtime
