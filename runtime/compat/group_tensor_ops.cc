#include "runtime/compat/group_tensor_ops.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <map>

#include "runtime/compat/tensor_util.h"
#include "runtime/compat/topology_errors.h"

namespace gfn::compat {
namespace {

void require_member(const transport::Group& group, const char* op) {
  if (!group.is_member()) {
    throw ModelParallelError(fmt::format(
        "{}: this rank is not a member of the group of {} ranks; only members may call it", op,
        group.size()));
  }
}

void require_cpu(const at::Tensor& t, const char* op) {
  if (!t.defined()) throw ModelParallelError(fmt::format("{}: the tensor is undefined", op));
  if (!t.device().is_cpu()) {
    throw ModelParallelError(fmt::format("{}: the tensor is on {}, only CPU tensors are supported",
                                         op, t.device().str()));
  }
}

// Shape-and-dtype signature exchanged before a gather: ndim, dtype, up to kMaxDims sizes.
constexpr std::size_t kMaxDims = 8;
using Signature = std::array<std::int64_t, kMaxDims + 2>;

Signature signature_of(const at::Tensor& t, const char* op) {
  if (static_cast<std::size_t>(t.dim()) > kMaxDims) {
    throw ModelParallelError(
        fmt::format("{}: tensors of more than {} dimensions are not supported (got {})", op,
                    kMaxDims, t.dim()));
  }
  Signature s{};
  s[0] = t.dim();
  s[1] = static_cast<std::int64_t>(t.scalar_type());
  for (std::int64_t d = 0; d < t.dim(); ++d) s[static_cast<std::size_t>(d) + 2] = t.size(d);
  return s;
}

std::string describe(const Signature& s) {
  std::string shape = "[";
  for (std::int64_t d = 0; d < s[0]; ++d) {
    shape += (d ? ", " : "") + std::to_string(s[static_cast<std::size_t>(d) + 2]);
  }
  return shape + "] " + c10::toString(static_cast<at::ScalarType>(s[1]));
}

}  // namespace

transport::DType transport_dtype_of(const at::Tensor& tensor, const char* op) {
  if (const auto dtype = transport_dtype(tensor.scalar_type(), /*complex_as_real=*/true)) {
    return *dtype;
  }
  throw ModelParallelError(
      fmt::format("{}: dtype {} is not supported (uint8, int32, int64, float32, float64, "
                  "complex64, complex128)",
                  op, c10::toString(tensor.scalar_type())));
}

void all_reduce_tensor_inplace(const at::Tensor& tensor, transport::Group& group,
                               transport::ReduceOp op, const char* op_name) {
  require_member(group, op_name);
  require_cpu(tensor, op_name);
  const transport::DType dtype = transport_dtype_of(tensor, op_name);
  if (!tensor.is_contiguous()) {
    throw ModelParallelError(fmt::format("{}: the tensor must be contiguous", op_name));
  }
  if (tensor.is_complex() && op != transport::ReduceOp::kSum && op != transport::ReduceOp::kAvg) {
    throw ModelParallelError(
        fmt::format("{}: complex tensors support only the sum / average reductions", op_name));
  }
  if (tensor.numel() == 0) return;
  const std::size_t count =
      static_cast<std::size_t>(tensor.numel()) * (tensor.is_complex() ? 2u : 1u);
  group.all_reduce(tensor.data_ptr(), count, dtype, op);
}

at::Tensor all_gather_stacked(const at::Tensor& tensor, transport::Group& group,
                              const char* op_name) {
  require_member(group, op_name);
  require_cpu(tensor, op_name);
  const transport::DType dtype = transport_dtype_of(tensor, op_name);
  if (tensor.is_complex()) {
    throw ModelParallelError(fmt::format("{}: complex tensors cannot be gathered", op_name));
  }
  const Signature mine = signature_of(tensor, op_name);
  const auto n = static_cast<std::size_t>(group.size());
  std::vector<Signature> all(n);
  group.all_gather(mine.data(), mine.size(), transport::DType::kInt64, all.data());
  for (std::size_t r = 0; r < n; ++r) {
    if (all[r] != mine) {
      throw ModelParallelError(fmt::format(
          "{}: group rank {} passed a tensor of shape {} but group rank {} passed {}; every "
          "member must pass the same shape and dtype",
          op_name, r, describe(all[r]), group.rank(), describe(mine)));
    }
  }
  c10::AutoGradMode no_grad(false);
  const at::Tensor in = tensor.contiguous();
  std::vector<std::int64_t> out_shape{static_cast<std::int64_t>(n)};
  for (std::int64_t d = 0; d < in.dim(); ++d) out_shape.push_back(in.size(d));
  at::Tensor out = at::empty(out_shape, in.options());
  if (in.numel() > 0) {
    group.all_gather(in.data_ptr(), static_cast<std::size_t>(in.numel()), dtype, out.data_ptr());
  }
  return out;
}

void broadcast_tensors_inplace(const std::vector<at::Tensor>& tensors, transport::Group& group,
                               int root, const char* op_name) {
  require_member(group, op_name);
  if (root < 0 || root >= group.size()) {
    throw ModelParallelError(
        fmt::format("{}: root group rank {} is outside 0..{}", op_name, root, group.size() - 1));
  }
  c10::AutoGradMode no_grad(false);
  // One fused buffer per dtype, in the order the dtypes first appear.
  std::map<at::ScalarType, std::vector<at::Tensor>> buckets;
  for (const auto& t : tensors) {
    require_cpu(t, op_name);
    transport_dtype_of(t, op_name);
    buckets[t.scalar_type()].push_back(t);
  }
  for (auto& [type, bucket] : buckets) {
    std::vector<at::Tensor> parts;
    for (const auto& t : bucket) parts.push_back(t.reshape({-1}));
    at::Tensor flat = at::cat(parts).contiguous();
    if (flat.numel() == 0) continue;
    const std::size_t count =
        static_cast<std::size_t>(flat.numel()) * (flat.is_complex() ? 2u : 1u);
    group.broadcast(flat.data_ptr(), count, transport_dtype_of(flat, op_name), root);
    std::int64_t offset = 0;
    for (const auto& t : bucket) {
      t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace gfn::compat
