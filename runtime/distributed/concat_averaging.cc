#include "runtime/distributed/concat_averaging.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include "runtime/distributed/buffer_averaging.h"
#include "transport/transport.h"

namespace gfn::dist {

using transport::DType;
using transport::TransportError;

void average_by_concatenation(const std::vector<at::Tensor>& tensors, transport::Group& group) {
  if (tensors.empty()) return;
  c10::AutoGradMode no_grad(false);
  const at::ScalarType type =
      tensors.front().defined() ? tensors.front().scalar_type() : at::ScalarType::Undefined;
  if (type != at::kFloat && type != at::kDouble) {
    throw TransportError("average_by_concatenation: tensors must be float32 or float64");
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (!t.defined() || !t.device().is_cpu() || t.scalar_type() != type) {
      throw TransportError(fmt::format(
          "average_by_concatenation: tensor {} is not a defined CPU tensor of the first's dtype",
          i));
    }
  }
  std::vector<at::Tensor> flat_parts;
  flat_parts.reserve(tensors.size());
  for (const auto& t : tensors) flat_parts.push_back(t.reshape({-1}));
  at::Tensor flat = at::cat(flat_parts).contiguous();
  average_buffer(flat.data_ptr(), static_cast<std::size_t>(flat.numel()),
                 type == at::kFloat ? DType::kFloat32 : DType::kFloat64, group);
  std::int64_t offset = 0;
  for (const auto& t : tensors) {
    const std::int64_t n = t.numel();
    t.copy_(flat.narrow(0, offset, n).view(t.sizes()));
    offset += n;
  }
}

}  // namespace gfn::dist
