#include "runtime/output/density_csv.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/output/run_output.h"

namespace gfn::output {

void write_density_csv(const std::string& path, const at::Tensor& points,
                       const at::Tensor& p_learned, const at::Tensor& p_target,
                       const at::Tensor& p_true) {
  const bool ok =
      points.defined() && points.dim() == 2 && (points.size(1) == 1 || points.size(1) == 2);
  const std::int64_t g = ok ? points.size(0) : -1;
  for (const at::Tensor* t : {&p_learned, &p_target, &p_true}) {
    if (!ok || !t->defined() || t->dim() != 1 || t->size(0) != g) {
      throw std::invalid_argument(
          "density.csv: need points [G, 1 or 2] and three densities [G], in " + path);
    }
  }
  const std::int64_t k = points.size(1);
  std::vector<std::string> header;
  for (std::int64_t j = 0; j < k; ++j) header.push_back("x" + std::to_string(j));
  header.insert(header.end(), {"p_learned", "p_target", "p_true"});
  const at::Tensor x = points.to(at::kDouble).contiguous();
  const at::Tensor p = at::stack({p_learned, p_target, p_true}, 1).to(at::kDouble).contiguous();
  const double* px = x.data_ptr<double>();
  const double* pp = p.data_ptr<double>();
  CsvWriter csv(path, header);
  std::vector<std::string> row(header.size());
  for (std::int64_t i = 0; i < g; ++i) {
    for (std::int64_t j = 0; j < k; ++j) row[j] = fmt::format("{:.6g}", px[i * k + j]);
    for (std::int64_t j = 0; j < 3; ++j) row[k + j] = fmt::format("{:.9g}", pp[i * 3 + j]);
    csv.append(row);
  }
}

}  // namespace gfn::output
