#include "runtime/gfn/fast/row_split.h"

#include <ATen/core/grad_mode.h>
#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gfn::core {

std::vector<RowRange> row_ranges(std::int64_t rows, int parts, std::int64_t min_rows) {
  if (parts < 1 || rows < 0 || min_rows < 1) {
    throw std::invalid_argument("row_ranges: needs parts >= 1, rows >= 0, min_rows >= 1, got " +
                                std::to_string(parts) + ", " + std::to_string(rows) + ", " +
                                std::to_string(min_rows));
  }
  std::int64_t n = std::min<std::int64_t>(parts, rows / min_rows);
  if (n < 1) n = 1;
  std::vector<RowRange> out;
  std::int64_t begin = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t size = rows / n + (k < rows % n ? 1 : 0);
    out.push_back(RowRange{begin, begin + size});
    begin += size;
  }
  return out;
}

void run_row_parts(const std::vector<RowRange>& ranges,
                   const std::function<void(std::size_t, RowRange)>& f) {
  if (ranges.size() == 1) {
    at::NoGradGuard no_grad;
    f(0, ranges[0]);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  const int n = static_cast<int>(ranges.size());
#pragma omp parallel num_threads(n)
  {
    // libgomp may give fewer threads than asked (nested region, thread limit): each thread
    // takes every nth range from its own.
    const int threads = omp_get_num_threads();
    for (int k = omp_get_thread_num(); k < n; k += threads) {
      try {
        at::NoGradGuard no_grad;
        f(static_cast<std::size_t>(k), ranges[static_cast<std::size_t>(k)]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace gfn::core
