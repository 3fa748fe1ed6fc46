// The env: keys of env.name line (line_options.h).
#include "runtime/gfn/env/line_options.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "runtime/config/fields.h"

namespace gfn::core {
namespace {

// A rule for a list key: it parses, has at least one entry when `required`, and every entry
// is > 0 when `positive`.
auto number_list(const char* key, bool required, bool positive) {
  const std::string text = std::string(required ? "a non-empty" : "a") +
                           " comma-separated list of " + (positive ? "positive " : "") + "numbers";
  return config::make_rule(text, [=](const std::string& v) -> std::string {
    try {
      const std::vector<double> xs = parse_number_list(v, key);
      if (required && xs.empty()) return "must list at least one number";
      for (double x : xs) {
        if (positive && !(x > 0)) return "must list numbers > 0";
      }
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  });
}

}  // namespace

std::vector<double> parse_number_list(const std::string& text, const char* key) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos && out.empty() && in.eof()) break;  // "" or "  "
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    const bool rest_blank = used > 0 && item.find_first_not_of(" \t", used) == std::string::npos;
    if (!rest_blank || !std::isfinite(x)) {
      throw std::invalid_argument(std::string("env.") + key + ": '" + item +
                                  "' is not a finite number (a comma-separated list, e.g. "
                                  "\"2, 5\")");
    }
    out.push_back(x);
  }
  const auto last = text.find_last_not_of(" \t");
  if (last != std::string::npos && text[last] == ',') {
    throw std::invalid_argument(std::string("env.") + key + ": '" + text +
                                "' ends with a comma (a comma-separated list, e.g. \"2, 5\")");
  }
  return out;
}

const config::Fields<LineEnvOptions>& line_fields() {
  using L = LineEnvOptions;
  static const auto fields =
      config::Fields<L>()
          .add("mus", &L::mus,
               "the means of the reward's Gaussian components, a comma-separated list "
               "(R(x) = sum_k w_k N(x; mu_k, sigma_k^2); runtime/gfn/env/line.h).",
               number_list("mus", true, false))
          .add("sigmas", &L::sigmas, "their standard deviations, as many as env.mus.",
               number_list("sigmas", true, true))
          .add("weights", &L::weights,
               "their weights w_k, as many as env.mus; empty: 1 each (torchgfn's "
               "unweighted sum, log Z = log K).",
               number_list("weights", false, true))
          .add("init_value", &L::init_value,
               "x of s0 (torchgfn's init_value); inside the range of env.n_sd.", config::not_nan())
          .add("n_sd", &L::n_sd,
               "the range [min mu - n_sd max sigma, max mu + n_sd max sigma] that holds "
               "s0 and the validation grid.",
               config::positive_finite())
          .add("n_steps", &L::n_steps,
               "Gaussian steps per trajectory; the exit follows the last one "
               "(torchgfn's n_steps_per_trajectory).",
               config::at_least(1))
          .add("policy_std_min", &L::policy_std_min,
               "the smallest scale of the policies' Normal, min + (max - min) "
               "sigmoid(raw) (runtime/gfn/env/line_policies.h).",
               config::positive_finite())
          .add("policy_std_max", &L::policy_std_max,
               "the largest scale of the policies' Normal (> env.policy_std_min).",
               config::positive_finite());
  return fields;
}

}  // namespace gfn::core
