#pragma once
// The env: keys of env.name line (line.h, line_policies.h): torchgfn's Line and the Gaussian
// policies of its tutorials/examples/train_line.py, with that script's defaults (modes at 2
// and 5 of scale 0.5, s0 = 0, 4.5 standard deviations, 5 steps, policy scales in [0.1, 1]).
// The mixture's parameters are comma-separated lists ("2, 5"); weights "" is torchgfn's
// unweighted sum (every weight 1). Plain value types, no LibTorch.

#include <string>
#include <vector>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct LineEnvOptions {
  std::string mus = "2, 5";         ///< the components' means
  std::string sigmas = "0.5, 0.5";  ///< their standard deviations (> 0), as many
  std::string weights;              ///< their weights (> 0), as many; "" = 1 each
  double init_value = 0.0;          ///< x of s0, inside the range below
  double n_sd = 4.5;                ///< range [min mu - n_sd max sigma, max mu + n_sd max sigma]
  int n_steps = 5;                  ///< Gaussian steps per trajectory (then the forced exit)
  double policy_std_min = 0.1;      ///< smallest scale of the policies' Normal (> 0)
  double policy_std_max = 1.0;      ///< largest scale (> policy_std_min)
};

const config::Fields<LineEnvOptions>& line_fields();

/// The numbers of a comma-separated list ("2, 5" -> {2, 5}; "" -> {}). Throws
/// std::invalid_argument naming env.<key> for an entry that is not a finite number.
std::vector<double> parse_number_list(const std::string& text, const char* key);

}  // namespace gfn::core
