#include "runtime/gfn/env/box_polar.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace gfn::core {

BoxPolar::BoxPolar(const BoxOptions& options) : BoxBase(options) {
  if (options.dim != 2) {
    throw std::invalid_argument("env.dim must be 2 for the polar box, got " +
                                std::to_string(options.dim));
  }
}

at::Tensor BoxPolar::forward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  const double eps = epsilon();
  const at::Tensor length = increments.norm(2, 1);
  const at::Tensor non_negative = increments.ge(-eps).all(1);
  const at::Tensor from_s0 = non_negative & length.le(delta() + eps);
  const at::Tensor other = non_negative & (length - delta()).abs().le(kLengthTolerance) &
                           (states + increments).le(1.0 + eps).all(1);
  return at::where(is_initial(states), from_s0, other);
}

at::Tensor BoxPolar::backward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  const double eps = epsilon();
  const at::Tensor parents = states - increments;
  const at::Tensor to_source = parents.abs().le(eps).all(1);
  const at::Tensor undo = increments.ge(-eps).all(1) & parents.ge(-eps).all(1) &
                          (increments.norm(2, 1) - delta()).abs().le(kLengthTolerance);
  const at::Tensor near_source = states.norm(2, 1).le(delta());
  return is_initial(states).logical_not() & at::where(near_source, to_source, undo);
}

std::string BoxPolar::forward_rule() const {
  std::ostringstream out;
  out << "increments >= 0; from s0 of length <= delta = " << delta()
      << "; elsewhere of length delta (within " << kLengthTolerance
      << ") and state + increment <= 1, up to epsilon = " << epsilon();
  return out.str();
}

std::string BoxPolar::backward_rule() const {
  std::ostringstream out;
  out << "not from s0; from a state of length <= delta = " << delta()
      << " back to source (increment = state); elsewhere increments >= 0 of length delta "
         "(within "
      << kLengthTolerance << ") with state - increment >= 0, up to epsilon = " << epsilon();
  return out.str();
}

}  // namespace gfn::core
