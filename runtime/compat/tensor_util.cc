#include "runtime/compat/tensor_util.h"

#include <stdexcept>
#include <string>

#include "runtime/compat/process_group.h"

namespace gfn::compat {

transport::Group& member_group(transport::Group* group, const char* caller) {
  transport::Group& g = group_or_world(group, caller);
  if (!g.is_member()) {
    throw transport::TransportError(std::string(caller) +
                                    ": this rank is not a member of the group");
  }
  return g;
}

void check_cpu(const at::Tensor& t, const char* caller) {
  if (!t.defined()) throw std::invalid_argument(std::string(caller) + ": undefined tensor");
  if (!t.device().is_cpu()) {
    throw std::invalid_argument(std::string(caller) + ": tensor on " + t.device().str() +
                                ", only CPU tensors are supported");
  }
}

std::optional<transport::DType> transport_dtype(at::ScalarType type, bool complex_as_real) {
  switch (type) {
    case at::kByte:
      return transport::DType::kUInt8;
    case at::kInt:
      return transport::DType::kInt32;
    case at::kLong:
      return transport::DType::kInt64;
    case at::kFloat:
      return transport::DType::kFloat32;
    case at::kDouble:
      return transport::DType::kFloat64;
    case at::kComplexFloat:
      if (complex_as_real) return transport::DType::kFloat32;
      return std::nullopt;
    case at::kComplexDouble:
      if (complex_as_real) return transport::DType::kFloat64;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

transport::DType reduce_dtype(const at::Tensor& t, const char* caller) {
  if (const auto dtype = transport_dtype(t.scalar_type(), /*complex_as_real=*/false)) return *dtype;
  throw std::invalid_argument(std::string(caller) + ": dtype " + c10::toString(t.scalar_type()) +
                              " cannot be reduced (uint8, int32, int64, float32, float64)");
}

at::Tensor all_gather_flat(transport::Group& group, const at::Tensor& t) {
  const at::Tensor in = t.contiguous();
  at::Tensor out = at::empty({group.size() * in.numel()}, in.options());
  if (in.nbytes() > 0) {
    group.all_gather(in.data_ptr(), in.nbytes(), transport::DType::kUInt8, out.data_ptr());
  }
  return out;
}

}  // namespace gfn::compat
