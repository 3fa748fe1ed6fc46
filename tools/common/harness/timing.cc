#include "tools/common/harness/timing.h"

#include <time.h>

#include <stdexcept>
#include <string>

namespace gfn::harness {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void check_repetitions(const Repetitions& reps, const char* what) {
  if (reps.warmup < 0 || reps.iterations < 1) {
    throw std::invalid_argument(std::string(what) + ": need warmup >= 0 and iterations >= 1, got " +
                                std::to_string(reps.warmup) + " and " +
                                std::to_string(reps.iterations));
  }
}

void check_blocks(int n_blocks, double min_block_s) {
  if (n_blocks < 1 || !(min_block_s > 0)) {
    throw std::invalid_argument("seconds_per_call: need n_blocks >= 1 and min_block_s > 0");
  }
}

}  // namespace gfn::harness
