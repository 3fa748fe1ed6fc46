#include "runtime/compat/tensor_collectives.h"

#include <ATen/ATen.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/compat/process_group.h"
#include "runtime/compat/tensor_util.h"

namespace gfn::compat {

int get_rank(transport::Group& group) { return group.rank(); }
int get_world_size(transport::Group& group) { return group.size(); }

void broadcast(at::Tensor& tensor, int root, transport::Group* group) {
  transport::Group& g = member_group(group, "broadcast");
  check_cpu(tensor, "broadcast");
  if (root < 0 || root >= g.size()) {
    throw std::invalid_argument("broadcast: root " + std::to_string(root) +
                                " is not a group rank (0.." + std::to_string(g.size() - 1) + ")");
  }
  at::Tensor work = tensor.is_contiguous() ? tensor : tensor.contiguous();
  if (work.nbytes() > 0)
    g.broadcast(work.data_ptr(), work.nbytes(), transport::DType::kUInt8, root);
  if (!work.is_same(tensor)) tensor.copy_(work);
}

void all_reduce(at::Tensor& tensor, transport::ReduceOp op, transport::Group* group) {
  transport::Group& g = member_group(group, "all_reduce");
  check_cpu(tensor, "all_reduce");
  const transport::DType dtype = reduce_dtype(tensor, "all_reduce");
  if (op == transport::ReduceOp::kAvg && !tensor.is_floating_point()) {
    throw std::invalid_argument("all_reduce: kAvg needs a floating dtype, got " +
                                std::string(c10::toString(tensor.scalar_type())));
  }
  at::Tensor work = tensor.is_contiguous() ? tensor : tensor.contiguous();
  if (work.numel() > 0)
    g.all_reduce(work.data_ptr(), static_cast<std::size_t>(work.numel()), dtype, op);
  if (!work.is_same(tensor)) tensor.copy_(work);
}

void all_gather(std::vector<at::Tensor>& output_list, const at::Tensor& tensor,
                transport::Group* group) {
  transport::Group& g = member_group(group, "all_gather");
  check_cpu(tensor, "all_gather");
  if (output_list.size() != static_cast<std::size_t>(g.size())) {
    throw std::invalid_argument("all_gather: output_list has " +
                                std::to_string(output_list.size()) + " tensors for " +
                                std::to_string(g.size()) + " group members");
  }
  for (std::size_t i = 0; i < output_list.size(); ++i) {
    const at::Tensor& out = output_list[i];
    check_cpu(out, "all_gather (output_list)");
    if (out.scalar_type() != tensor.scalar_type() || out.numel() != tensor.numel()) {
      throw std::invalid_argument("all_gather: output_list[" + std::to_string(i) + "] is " +
                                  std::string(c10::toString(out.scalar_type())) + " with " +
                                  std::to_string(out.numel()) + " elements, the input is " +
                                  std::string(c10::toString(tensor.scalar_type())) + " with " +
                                  std::to_string(tensor.numel()));
    }
  }
  const at::Tensor flat = all_gather_flat(g, tensor);
  const auto n = tensor.numel();
  for (std::size_t i = 0; i < output_list.size(); ++i) {
    const auto r = static_cast<std::int64_t>(i);
    output_list[i].copy_(flat.narrow(0, r * n, n).view(output_list[i].sizes()));
  }
}

std::vector<at::Tensor> all_gather(const at::Tensor& tensor, transport::Group* group) {
  transport::Group& g = member_group(group, "all_gather");
  check_cpu(tensor, "all_gather");
  const at::Tensor flat = all_gather_flat(g, tensor);
  std::vector<at::Tensor> out;
  const auto n = tensor.numel();
  for (std::int64_t r = 0; r < g.size(); ++r) {
    out.push_back(flat.narrow(0, r * n, n).view(tensor.sizes()));
  }
  return out;
}

}  // namespace gfn::compat
