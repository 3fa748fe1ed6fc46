#include "runtime/distributed/buffer_averaging.h"

#include <fmt/format.h>

namespace gfn::dist {

using transport::DType;
using transport::TransportError;

namespace {

template <class T>
void divide(void* data, std::size_t count, int members) {
  T* values = static_cast<T*>(data);
  const T divisor = static_cast<T>(members);
  for (std::size_t i = 0; i < count; ++i) values[i] /= divisor;
}

}  // namespace

void average_buffer(void* data, std::size_t count, DType dtype, transport::Group& group) {
  if (!group.is_member()) {
    throw TransportError(fmt::format(
        "average_buffer: this rank is not a member of the group of {} ranks; only members may "
        "average",
        group.size()));
  }
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    throw TransportError("average_buffer: the buffer must be float32 or float64");
  }
  group.all_reduce(data, count, dtype, transport::ReduceOp::kSum);
  if (dtype == DType::kFloat32) {
    divide<float>(data, count, group.size());
  } else {
    divide<double>(data, count, group.size());
  }
}

}  // namespace gfn::dist
