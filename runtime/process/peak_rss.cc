#include "runtime/process/peak_rss.h"

#include <sys/resource.h>

namespace gfn::runtime {

std::int64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

}  // namespace gfn::runtime
