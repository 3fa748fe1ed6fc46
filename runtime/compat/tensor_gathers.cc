#include "runtime/compat/tensor_gathers.h"

#include <ATen/ATen.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/compat/object_bytes.h"
#include "runtime/compat/tensor_collectives.h"
#include "runtime/compat/tensor_util.h"
#include "transport/gather.h"

namespace gfn::compat {
namespace {

// Byte form of one rank's rows for gather_distributed_data.
struct Rows {
  std::int32_t dtype = 0;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;

  template <class A>
  void serialize(A& ar) {
    ar(dtype, shape, data);
  }
};

std::string shape_string(at::IntArrayRef s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

at::Tensor gather_into_tensor(const at::Tensor& tensor, const std::vector<std::int64_t>& size,
                              transport::Group* group) {
  transport::Group& g = member_group(group, "gather_into_tensor");
  check_cpu(tensor, "gather_into_tensor");
  std::int64_t wanted = 1;
  for (const auto d : size) wanted *= d;
  if (wanted != g.size() * tensor.numel()) {
    throw std::invalid_argument("gather_into_tensor: output size " + shape_string(size) + " has " +
                                std::to_string(wanted) + " elements, " + std::to_string(g.size()) +
                                " ranks x " + std::to_string(tensor.numel()) + " elements need " +
                                std::to_string(g.size() * tensor.numel()));
  }
  return all_gather_flat(g, tensor).view(size);
}

at::Tensor gather_into_tensor(const at::Tensor& tensor, transport::Group* group) {
  transport::Group& g = member_group(group, "gather_into_tensor");
  check_cpu(tensor, "gather_into_tensor");
  std::vector<std::int64_t> size{g.size()};
  for (const auto d : tensor.sizes()) size.push_back(d);
  return all_gather_flat(g, tensor).view(size);
}

at::Tensor all_reduce_tensors(at::Tensor tensor, transport::ReduceOp op, transport::Group* group) {
  member_group(group, "all_reduce_tensors");
  all_reduce(tensor, op, group);
  return tensor;
}

at::Tensor all_reduce_tensors(const std::vector<at::Tensor>& tensors, transport::ReduceOp op,
                              transport::Group* group) {
  member_group(group, "all_reduce_tensors");
  if (tensors.empty()) throw std::invalid_argument("all_reduce_tensors: empty list of tensors");
  std::vector<at::Tensor> rows;
  for (const auto& t : tensors) {
    check_cpu(t, "all_reduce_tensors");
    rows.push_back(t.dim() == 0 ? t.reshape({1}) : t);
  }
  at::Tensor cat;
  try {
    cat = at::cat(rows, 0);
  } catch (const c10::Error& e) {
    throw std::invalid_argument(std::string("all_reduce_tensors: cannot concatenate the list: ") +
                                e.what_without_backtrace());
  }
  all_reduce(cat, op, group);
  return cat;
}

at::Tensor gather_distributed_data(const at::Tensor& local, transport::Group* group) {
  transport::Group& g = member_group(group, "gather_distributed_data");
  check_cpu(local, "gather_distributed_data");
  if (local.dim() == 0) {
    throw std::invalid_argument("gather_distributed_data: a 0-dim tensor has no rows");
  }
  Rows mine;
  mine.dtype = static_cast<std::int32_t>(local.scalar_type());
  mine.shape.assign(local.sizes().begin(), local.sizes().end());
  const at::Tensor c = local.contiguous();
  mine.data.resize(c.nbytes());
  if (c.nbytes() > 0) std::memcpy(mine.data.data(), c.data_ptr(), c.nbytes());
  auto all = transport::gather_bytes(g, to_bytes(mine), 0);
  if (g.rank() != 0) return at::Tensor();

  std::vector<at::Tensor> parts;
  for (std::size_t r = 0; r < all.size(); ++r) {
    Rows rows = from_bytes<Rows>(all[r], "gather_distributed_data");
    const bool same_rest =
        rows.shape.size() == mine.shape.size() &&
        std::equal(rows.shape.begin() + 1, rows.shape.end(), mine.shape.begin() + 1);
    if (rows.dtype != mine.dtype || !same_rest) {
      throw std::invalid_argument(
          "gather_distributed_data: group rank " + std::to_string(r) + " sent " +
          c10::toString(static_cast<at::ScalarType>(rows.dtype)) + " " + shape_string(rows.shape) +
          ", group rank 0 has " + c10::toString(local.scalar_type()) + " " +
          shape_string(mine.shape) + " (dtype and trailing dims must match)");
    }
    at::Tensor t =
        at::empty(rows.shape, local.options().memory_format(at::MemoryFormat::Contiguous));
    if (t.nbytes() != rows.data.size()) {
      throw std::runtime_error("gather_distributed_data: group rank " + std::to_string(r) +
                               " sent " + std::to_string(rows.data.size()) + " bytes for shape " +
                               shape_string(rows.shape));
    }
    if (!rows.data.empty()) std::memcpy(t.data_ptr(), rows.data.data(), rows.data.size());
    parts.push_back(t);
  }
  return at::cat(parts, 0);
}

}  // namespace gfn::compat
