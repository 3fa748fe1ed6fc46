#pragma once
// Internal helpers of runtime/compat/ tensor collectives (not a public API).

#include <ATen/ATen.h>

#include <optional>

#include "transport/transport.h"

namespace gfn::compat {

/// `group` (this rank must be a member: else transport::TransportError), or WORLD
/// (NotInitializedError naming `caller` when init_dist was not called).
transport::Group& member_group(transport::Group* group, const char* caller);

/// std::invalid_argument unless `t` is defined and on the CPU.
void check_cpu(const at::Tensor& t, const char* caller);

/// The transport dtype of a real scalar type (uint8, int32, int64, float32, float64), or of
/// a complex type's real part when `complex_as_real` (complex64 -> float32, complex128 ->
/// float64: reduced as pairs of reals); nullopt for any other type. The one map of
/// runtime/compat/; callers throw their own error type.
std::optional<transport::DType> transport_dtype(at::ScalarType type, bool complex_as_real);

/// The transport dtype of `t` for reductions; std::invalid_argument for other dtypes.
transport::DType reduce_dtype(const at::Tensor& t, const char* caller);

/// All-gather of `t`'s bytes: returns a 1-D tensor of t's dtype with size * numel
/// elements, group rank r's elements at [r * numel, (r + 1) * numel).
at::Tensor all_gather_flat(transport::Group& group, const at::Tensor& t);

}  // namespace gfn::compat
