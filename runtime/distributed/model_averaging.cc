#include "runtime/distributed/model_averaging.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/nn/module.h>

#include "runtime/distributed/buffer_averaging.h"
#include "runtime/distributed/concat_averaging.h"
#include "transport/transport.h"

namespace gfn::dist {

using transport::DType;
using transport::Group;
using transport::TransportError;

namespace {

void require_member(Group& group, const char* op) {
  if (!group.is_member()) {
    throw TransportError(fmt::format(
        "{}: this rank is not a member of the group of {} ranks; only members may average", op,
        group.size()));
  }
}

/// The buffer that `bucket` tiles: one tensor over the same storage when every tensor
/// is contiguous and starts where the previous one ends, else an undefined tensor.
at::Tensor shared_buffer(const std::vector<at::Tensor>& bucket) {
  const at::Tensor& first = bucket.front();
  const c10::StorageImpl* storage = first.storage().unsafeGetStorageImpl();
  std::int64_t end = first.storage_offset();
  for (const auto& t : bucket) {
    if (!t.is_contiguous() || t.storage().unsafeGetStorageImpl() != storage ||
        t.storage_offset() != end) {
      return {};
    }
    end += t.numel();
  }
  return first.detach().as_strided({end - first.storage_offset()}, {1});
}

/// One all-reduce for the tensors of one dtype: the fast path in place on the buffer they
/// tile (the flat optimizer's), else the reference path through a concatenated copy.
void average_bucket(const std::vector<at::Tensor>& bucket, DType dtype, Group& group) {
  if (bucket.empty()) return;
  if (at::Tensor shared = shared_buffer(bucket); shared.defined()) {
    average_buffer(shared.data_ptr(), static_cast<std::size_t>(shared.numel()), dtype, group);
    // An in-place write for autograd's version checks, as a Tensor::div_ would record.
    shared.unsafeGetTensorImpl()->bump_version();
    return;
  }
  average_by_concatenation(bucket, group);
}

}  // namespace

void average_tensors(const std::vector<at::Tensor>& tensors, Group& group) {
  require_member(group, "average_tensors");
  c10::AutoGradMode no_grad(false);
  std::vector<at::Tensor> f32;
  std::vector<at::Tensor> f64;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (!t.defined()) throw TransportError(fmt::format("average: tensor {} is undefined", i));
    if (!t.device().is_cpu()) {
      throw TransportError(fmt::format(
          "average: tensor {} is on {}, only CPU tensors are supported", i, t.device().str()));
    }
    if (t.scalar_type() == at::kFloat) {
      f32.push_back(t);
    } else if (t.scalar_type() == at::kDouble) {
      f64.push_back(t);
    } else {
      throw TransportError(
          fmt::format("average: tensor {} has dtype {}, expected float32 or float64", i,
                      c10::toString(t.scalar_type())));
    }
  }
  average_bucket(f32, DType::kFloat32, group);
  average_bucket(f64, DType::kFloat64, group);
}

void average_models(const std::vector<at::Tensor>& parameters, Group& group) {
  require_member(group, "average_models");
  average_tensors(parameters, group);
}

void average_gradients(const std::vector<at::Tensor>& parameters, Group& group) {
  require_member(group, "average_gradients");
  std::vector<at::Tensor> grads;
  grads.reserve(parameters.size());
  for (const auto& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  average_tensors(grads, group);
}

void average_models(torch::nn::Module& model, Group& group) {
  average_models(model.parameters(), group);
}

void broadcast_model(torch::nn::Module& model, Group& group, int root) {
  require_member(group, "broadcast_model");
  c10::AutoGradMode no_grad(false);
  for (const at::Tensor& p : model.parameters()) {
    const bool f32 = p.scalar_type() == at::kFloat;
    if ((!f32 && p.scalar_type() != at::kDouble) || !p.device().is_cpu()) {
      throw TransportError(fmt::format("broadcast_model: a parameter of dtype {} on {}",
                                       c10::toString(p.scalar_type()), p.device().str()));
    }
    at::Tensor buffer = p.detach().contiguous();
    group.broadcast(buffer.data_ptr(), static_cast<std::size_t>(buffer.numel()),
                    f32 ? DType::kFloat32 : DType::kFloat64, root);
    if (!buffer.is_same(p)) p.detach().copy_(buffer);
    p.unsafeGetTensorImpl()->bump_version();
  }
}

void average_gradients(torch::nn::Module& model, Group& group) {
  average_gradients(model.parameters(), group);
}

}  // namespace gfn::dist
