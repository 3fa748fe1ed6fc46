#include "runtime/gfn/env/line.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/line_options.h"

namespace gfn::core {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

at::Tensor to_tensor(const std::vector<double>& v) {
  return at::tensor(at::ArrayRef<double>(v), at::kDouble);
}

// Standard deviations either side of the modes that the quadrature of log Z covers.
constexpr double kQuadratureSd = 12.0;

}  // namespace

double quadrature_log_integral(const std::function<at::Tensor(const at::Tensor&)>& log_f,
                               double low, double high, std::int64_t n_intervals) {
  if (!(low < high) || n_intervals < 2 || n_intervals % 2 != 0) {
    throw std::invalid_argument(
        "quadrature_log_integral: need low < high and an even n_intervals >= 2");
  }
  const at::Tensor x = at::linspace(low, high, n_intervals + 1, at::kDouble);
  // Simpson's weights h/3 * [1, 4, 2, 4, ..., 2, 4, 1].
  at::Tensor w = at::full({n_intervals + 1}, 2.0, at::kDouble);
  w.slice(0, 1, n_intervals, 2).fill_(4.0);
  w[0].fill_(1.0);
  w[n_intervals].fill_(1.0);
  const double h = (high - low) / static_cast<double>(n_intervals);
  return (log_f(x) + (w * (h / 3.0)).log()).logsumexp(0).item<double>();
}

LineOptions line_options(const LineEnvOptions& env) {
  LineOptions o;
  o.mus = parse_number_list(env.mus, "mus");
  o.sigmas = parse_number_list(env.sigmas, "sigmas");
  o.weights = parse_number_list(env.weights, "weights");
  o.init_value = env.init_value;
  o.n_sd = env.n_sd;
  o.n_steps = env.n_steps;
  return o;
}

Line::Line(const LineOptions& options) : options_(options) {
  const std::size_t k = options.mus.size();
  require(k >= 1, "env.mus: Line needs at least one component");
  require(options.sigmas.size() == k, "env.sigmas: need as many standard deviations (got " +
                                          std::to_string(options.sigmas.size()) +
                                          ") as env.mus lists means (" + std::to_string(k) + ")");
  require(options.weights.empty() || options.weights.size() == k,
          "env.weights: need as many weights (got " + std::to_string(options.weights.size()) +
              ") as env.mus lists means (" + std::to_string(k) + "), or none");
  for (double m : options.mus) require(std::isfinite(m), "env.mus: the means must be finite");
  for (double s : options.sigmas) {
    require(s > 0 && std::isfinite(s), "env.sigmas: the standard deviations must be > 0");
  }
  for (double w : options.weights) {
    require(w > 0 && std::isfinite(w), "env.weights: the weights must be > 0");
  }
  if (options_.weights.empty()) options_.weights.assign(k, 1.0);
  require(options.n_steps >= 1, "env.n_steps: must be >= 1");
  require(options.n_sd > 0 && std::isfinite(options.n_sd), "env.n_sd: must be > 0");
  const double sd = max_of(options.sigmas);
  range_ = {min_of(options.mus) - options.n_sd * sd, max_of(options.mus) + options.n_sd * sd};
  std::ostringstream where;
  where << "env.init_value: must lie inside (" << range_.first << ", " << range_.second
        << ") (env.n_sd standard deviations around the means), got " << options.init_value;
  require(range_.first < options.init_value && options.init_value < range_.second, where.str());
  // Simpson on steps of at most min sigma / 50 (at least 20,000 intervals).
  const double low = min_of(options.mus) - kQuadratureSd * sd;
  const double high = max_of(options.mus) + kQuadratureSd * sd;
  const auto steps =
      static_cast<std::int64_t>(std::ceil((high - low) / (min_of(options.sigmas) / 50)));
  const std::int64_t n = std::max<std::int64_t>(20000, steps + steps % 2);
  log_z_ = quadrature_log_integral(
      [this](const at::Tensor& x) { return log_reward_of_positions(x); }, low, high, n);
}

at::Tensor Line::initial_states(std::int64_t n) const {
  at::Tensor s = at::zeros({n, 2}, at::kFloat);
  s.select(1, 0).fill_(options_.init_value);
  return s;
}

at::Tensor Line::is_initial(const at::Tensor& states) const { return states.select(1, 1).eq(0); }

at::Tensor Line::can_exit(const at::Tensor& states) const {
  return states.select(1, 1).eq(options_.n_steps);
}

at::Tensor Line::forward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  return states.select(1, 1).lt(options_.n_steps) & increments.select(1, 1).eq(1) &
         increments.select(1, 0).isfinite();
}

at::Tensor Line::backward_valid(const at::Tensor& states, const at::Tensor& increments) const {
  const at::Tensor x = states.select(1, 0);
  const at::Tensor t = states.select(1, 1);
  const at::Tensor a = increments.select(1, 0);
  const double init = options_.init_value;
  // From t = 1 the parent is s0: a = x - init_value up to float32 rounding.
  const at::Tensor tolerance = (x.abs() + (1.0 + std::abs(init))) * 1e-5;
  const at::Tensor to_source = (x - a - init).abs().le(tolerance);
  return t.ge(1) & increments.select(1, 1).eq(1) & a.isfinite() & (t.gt(1) | to_source);
}

std::string Line::forward_rule() const {
  return "from t < " + std::to_string(options_.n_steps) +
         " an increment (a, 1) with a finite; exit only at t = " + std::to_string(options_.n_steps);
}

std::string Line::backward_rule() const {
  return "from t >= 1 an increment (a, 1) with a finite, a = x - init_value from t = 1";
}

at::Tensor Line::step_unchecked(const at::Tensor& states, const at::Tensor& increments) const {
  return states + increments;
}

at::Tensor Line::backward_step_unchecked(const at::Tensor& states,
                                         const at::Tensor& increments) const {
  at::Tensor parents = states - increments;
  // The parent of t = 1 is s0 exactly (x - (x - init) may round away from init).
  parents.select(1, 0).masked_fill_(parents.select(1, 1).eq(0), options_.init_value);
  return parents;
}

void Line::check_states(const at::Tensor& states, const char* who) const {
  ContinuousEnvironment::check_states(states, who);
  if (states.numel() == 0) return;
  const at::Tensor t = states.select(1, 1);
  const at::Tensor bad = t.ne(t.round()) | t.lt(0) | t.gt(options_.n_steps);
  if (bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + " " +
                                row_string(states, row) + " is not a state of line (the step " +
                                "counter must be an integer in [0, " +
                                std::to_string(options_.n_steps) + "])");
  }
}

at::Tensor Line::log_reward_of_positions(const at::Tensor& x) const {
  const at::Tensor mu = to_tensor(options_.mus);
  const at::Tensor sigma = to_tensor(options_.sigmas);
  const at::Tensor log_w = to_tensor(options_.weights).log();
  const at::Tensor z = (x.unsqueeze(1) - mu) / sigma;  // [n, K]
  const at::Tensor log_n = -0.5 * z.square() - sigma.log() - 0.5 * std::log(2.0 * M_PI);
  return (log_n + log_w).logsumexp(1);
}

at::Tensor Line::log_reward(const at::Tensor& states) const {
  check_states(states, "line::log_reward");
  return log_reward_of_positions(states.select(1, 0).to(at::kDouble)).to(at::kFloat);
}

at::Tensor Line::log_density(const at::Tensor& states) const {
  check_states(states, "line::log_density");
  return (log_reward_of_positions(states.select(1, 0).to(at::kDouble)) - log_z_).to(at::kFloat);
}

at::Tensor Line::mode_hits(const at::Tensor& states) const {
  check_states(states, "line::mode_hits");
  const at::Tensor x = states.select(1, 0).to(at::kDouble).unsqueeze(1);
  const at::Tensor hit = (x - to_tensor(options_.mus)).abs().le(to_tensor(options_.sigmas));
  return at::nonzero(hit).select(1, 1).contiguous();  // row-major: in row order
}

at::Tensor Line::sample_target(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument("line::sample_target: n must be >= 0");
  const at::Tensor w = to_tensor(options_.weights);
  at::Tensor out = at::full({n, 2}, static_cast<double>(options_.n_steps), at::kFloat);
  if (n == 0) return out;
  const at::Tensor c = at::multinomial(w / w.sum(), n, /*replacement=*/true, generator);
  const at::Tensor eps = at::randn({n}, generator, at::kDouble);
  const at::Tensor x = to_tensor(options_.mus).index_select(0, c) +
                       to_tensor(options_.sigmas).index_select(0, c) * eps;
  out.select(1, 0).copy_(x);
  return out;
}

at::Tensor Line::target_coordinates(const at::Tensor& states) const {
  return states.narrow(1, 0, 1);
}

at::Tensor Line::target_states(const at::Tensor& coordinates) const {
  const at::Tensor x = coordinates.to(at::kFloat);
  return at::cat({x, at::full({x.size(0), 1}, static_cast<double>(options_.n_steps), at::kFloat)},
                 1);
}

}  // namespace gfn::core
