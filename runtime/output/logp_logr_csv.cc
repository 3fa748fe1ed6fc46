#include "runtime/output/logp_logr_csv.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <stdexcept>

#include "runtime/output/run_output.h"

namespace gfn::output {

void write_logp_logr_csv(const std::string& path, const at::Tensor& log_p,
                         const at::Tensor& log_r) {
  if (!log_p.defined() || !log_r.defined() || log_p.dim() != 1 || log_r.dim() != 1 ||
      log_p.size(0) != log_r.size(0)) {
    throw std::invalid_argument("logp_logr.csv: log_p and log_r must be two [n] tensors");
  }
  const auto p = log_p.to(at::kDouble).contiguous();
  const auto r = log_r.to(at::kDouble).contiguous();
  CsvWriter csv(path, {"log_p", "log_r"});
  const auto* pp = p.data_ptr<double>();
  const auto* rp = r.data_ptr<double>();
  for (std::int64_t i = 0; i < p.size(0); ++i) {
    csv.append({fmt::format("{:.9g}", pp[i]), fmt::format("{:.9g}", rp[i])});
  }
}

}  // namespace gfn::output
