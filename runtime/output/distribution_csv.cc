#include "runtime/output/distribution_csv.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "runtime/output/run_output.h"

namespace gfn::output {

void write_distribution_csv(const std::string& path, const at::Tensor& states,
                            const at::Tensor& p_learned, const at::Tensor& p_true) {
  if (states.dim() != 2 || p_learned.dim() != 1 || p_true.dim() != 1 ||
      p_learned.size(0) != states.size(0) || p_true.size(0) != states.size(0)) {
    throw std::invalid_argument(
        fmt::format("distribution.csv: states must be [T, d] and both distributions [T]; got "
                    "{}-D states, {}-D learned, {}-D true",
                    states.dim(), p_learned.dim(), p_true.dim()));
  }
  const auto s = states.to(at::kLong).contiguous();
  const auto learned = p_learned.to(at::kDouble).contiguous();
  const auto truth = p_true.to(at::kDouble).contiguous();
  const std::int64_t n = s.size(0), d = s.size(1);
  std::vector<std::string> columns;
  for (std::int64_t j = 0; j < d; ++j) columns.push_back(fmt::format("x{}", j));
  columns.emplace_back("p_learned");
  columns.emplace_back("p_true");
  CsvWriter csv(path, columns);
  const auto* sp = s.data_ptr<std::int64_t>();
  const auto* lp = learned.data_ptr<double>();
  const auto* tp = truth.data_ptr<double>();
  std::vector<std::string> row(columns.size());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < d; ++j) row[j] = std::to_string(sp[i * d + j]);
    row[d] = fmt::format("{:.9g}", lp[i]);
    row[d + 1] = fmt::format("{:.9g}", tp[i]);
    csv.append(row);
  }
}

}  // namespace gfn::output
