#include "runtime/compat/model_parallel_ops.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/compat/group_tensor_ops.h"
#include "runtime/compat/model_parallel.h"
#include "runtime/compat/topology_errors.h"

namespace gfn::compat::model_parallel {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

std::int64_t normalize_dim(const at::Tensor& t, std::int64_t dim, const char* op) {
  const std::int64_t n = t.dim();
  if (n == 0 || dim < -n || dim >= n) {
    throw ModelParallelError(
        fmt::format("{}: dim {} is outside a tensor of {} dimensions", op, dim, n));
  }
  return dim < 0 ? dim + n : dim;
}

// CPU tensor of a supported dtype (checked whatever the group size, for consistent errors).
void check_tensor(const at::Tensor& t, bool allow_complex, const char* op) {
  if (!t.defined()) throw ModelParallelError(fmt::format("{}: the tensor is undefined", op));
  if (!t.device().is_cpu()) {
    throw ModelParallelError(fmt::format("{}: the tensor is on {}, only CPU tensors are supported",
                                         op, t.device().str()));
  }
  transport_dtype_of(t, op);
  if (t.is_complex() && !allow_complex) {
    throw ModelParallelError(fmt::format("{}: complex tensors are not supported", op));
  }
}

bool recording(const at::Tensor& t) { return c10::GradMode::is_enabled() && t.requires_grad(); }

// This member's slice along `dim` (no communication).
at::Tensor split_local(const at::Tensor& t, std::int64_t dim, transport::Group& group,
                       const char* op) {
  if (!group.is_member()) {
    throw ModelParallelError(fmt::format("{}: this rank is not a member of the group", op));
  }
  check_tensor(t, false, op);
  const std::int64_t d = normalize_dim(t, dim, op);
  const std::int64_t n = group.size();
  if (n == 1) return t;
  if (t.size(d) % n != 0) {
    throw ModelParallelError(fmt::format(
        "{}: size {} along dim {} is not divisible by the group size {}", op, t.size(d), dim, n));
  }
  const std::int64_t k = t.size(d) / n;
  return t.narrow(d, group.rank() * k, k).contiguous();
}

// The members' tensors concatenated along `dim`.
at::Tensor gather_all(const at::Tensor& t, std::int64_t dim, transport::Group& group,
                      const char* op) {
  check_tensor(t, false, op);
  const std::int64_t d = normalize_dim(t, dim, op);
  if (group.size() == 1 && group.is_member()) return t;
  const at::Tensor stacked = all_gather_stacked(t, group, op);
  return at::cat(stacked.unbind(0), d);
}

// In-place sum over the members.
void reduce_inplace(const at::Tensor& t, transport::Group& group, const char* op) {
  check_tensor(t, true, op);
  if (group.size() == 1 && group.is_member()) return;
  if (t.is_contiguous()) {
    all_reduce_tensor_inplace(t, group, transport::ReduceOp::kSum, op);
  } else {
    at::Tensor tmp = t.contiguous();
    all_reduce_tensor_inplace(tmp, group, transport::ReduceOp::kSum, op);
    t.copy_(tmp);
  }
}

transport::Group* group_of(AutogradContext* ctx) {
  return reinterpret_cast<transport::Group*>(ctx->saved_data["group"].toInt());
}

void save_group(AutogradContext* ctx, transport::Group& group) {
  ctx->saved_data["group"] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&group));
}

struct ScatterFunction : torch::autograd::Function<ScatterFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input, std::int64_t dim,
                            transport::Group* group) {
    save_group(ctx, *group);
    ctx->saved_data["dim"] = dim;
    return split_local(input, dim, *group, "model_parallel::scatter");
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {gather_all(grads[0].contiguous(), ctx->saved_data["dim"].toInt(), *group_of(ctx),
                       "model_parallel::scatter (backward)"),
            at::Tensor(), at::Tensor()};
  }
};

struct GatherFunction : torch::autograd::Function<GatherFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input, std::int64_t dim,
                            transport::Group* group) {
    save_group(ctx, *group);
    ctx->saved_data["dim"] = dim;
    return gather_all(input, dim, *group, "model_parallel::gather");
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {split_local(grads[0], ctx->saved_data["dim"].toInt(), *group_of(ctx),
                        "model_parallel::gather (backward)"),
            at::Tensor(), at::Tensor()};
  }
};

struct ReduceFunction : torch::autograd::Function<ReduceFunction> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& input, transport::Group* group) {
    at::Tensor out = input.clone(at::MemoryFormat::Contiguous);
    reduce_inplace(out, *group, "model_parallel::reduce");
    return out;
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0], at::Tensor()};
  }
};

struct CopyFunction : torch::autograd::Function<CopyFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input,
                            transport::Group* group) {
    save_group(ctx, *group);
    return input;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    at::Tensor g = grads[0].clone(at::MemoryFormat::Contiguous);
    reduce_inplace(g, *group_of(ctx), "model_parallel::copy (backward)");
    return {g, at::Tensor()};
  }
};

}  // namespace

at::Tensor scatter(const at::Tensor& tensor, std::int64_t dim, transport::Group& group) {
  if (recording(tensor)) return ScatterFunction::apply(tensor, dim, &group);
  return split_local(tensor, dim, group, "model_parallel::scatter");
}

at::Tensor gather(const at::Tensor& tensor, std::int64_t dim, transport::Group& group) {
  if (recording(tensor)) return GatherFunction::apply(tensor, dim, &group);
  return gather_all(tensor, dim, group, "model_parallel::gather");
}

at::Tensor reduce(const at::Tensor& tensor, transport::Group& group) {
  if (recording(tensor)) return ReduceFunction::apply(tensor, &group);
  reduce_inplace(tensor, group, "model_parallel::reduce");
  return tensor;
}

at::Tensor copy(const at::Tensor& tensor, transport::Group& group) {
  if (!group.is_member()) {
    throw ModelParallelError("model_parallel::copy: this rank is not a member of the group");
  }
  if (recording(tensor)) return CopyFunction::apply(tensor, &group);
  return tensor;
}

at::Tensor scatter(const at::Tensor& tensor, std::int64_t dim) {
  return scatter(tensor, dim, get_group());
}
at::Tensor gather(const at::Tensor& tensor, std::int64_t dim) {
  return gather(tensor, dim, get_group());
}
at::Tensor reduce(const at::Tensor& tensor) { return reduce(tensor, get_group()); }
at::Tensor copy(const at::Tensor& tensor) { return copy(tensor, get_group()); }

}  // namespace gfn::compat::model_parallel
