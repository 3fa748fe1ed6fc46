// env_dump: loads an environment plugin through the plugin loader, as gfn-train does, and
// prints everything an exact comparison needs as one JSON object (tests/examples/compare_env.py
// compares it with torchgfn's definitions):
//   env_dump --plugin LIB.so --name ENV [--option key=value]...
// Keys: name, n_actions, state_dim, every_state_terminates, s0; n_states, all_states,
// state_indices (of all_states), forward_masks and backward_masks (of all_states, 0/1),
// children and parents ([state position, action, state] for every allowed non-exit action and
// every allowed backward action); n_terminating_states, terminating_states,
// terminating_state_indices (of terminating_states), rewards (R of terminating_states),
// true_distribution, log_partition; state_graph_edges (the runtime's DAG, built with its
// topological-order check); pf_distribution, the terminating distribution exact validation
// computes (core::terminating_distribution) for PF(a | s) proportional to a + 1 over the allowed
// actions. Exit code 0, 1 with a message on stderr for any error.
#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/validation.h"

namespace {

using nlohmann::json;

/// Rows of an int64 or bool [R, C] tensor as lists of integers.
json rows(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kLong).contiguous();
  json out = json::array();
  for (std::int64_t r = 0; r < c.size(0); ++r) {
    json row = json::array();
    for (std::int64_t j = 0; j < c.size(1); ++j) row.push_back(c[r][j].item<std::int64_t>());
    out.push_back(std::move(row));
  }
  return out;
}

json values(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kDouble).contiguous().view({-1});
  return json(std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel()));
}

json integers(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kLong).contiguous().view({-1});
  return json(std::vector<std::int64_t>(c.data_ptr<std::int64_t>(),
                                        c.data_ptr<std::int64_t>() + c.numel()));
}

/// [position, action, row of step(state, action)] for every allowed (state, action) of `masks`
/// (bool [S, A]), through the batched, validating step or backward_step.
json transitions(const gfn::core::Environment& env, const at::Tensor& states,
                 const at::Tensor& masks, bool forward) {
  const at::Tensor pairs = at::nonzero(masks);
  const at::Tensor pos = pairs.select(1, 0).contiguous();
  const at::Tensor act = pairs.select(1, 1).contiguous();
  const at::Tensor from = states.index_select(0, pos);
  const at::Tensor to = forward ? env.step(from, act) : env.backward_step(from, act);
  const json to_rows = rows(to);
  json out = json::array();
  for (std::int64_t k = 0; k < pos.size(0); ++k) {
    out.push_back({pos[k].item<std::int64_t>(), act[k].item<std::int64_t>(), to_rows[k]});
  }
  return out;
}

json dump(const gfn::core::Environment& env) {
  json j;
  j["name"] = env.name();
  j["n_actions"] = env.n_actions();
  j["state_dim"] = env.state_dim();
  j["every_state_terminates"] = env.every_state_terminates();
  j["s0"] = rows(env.initial_states(1))[0];
  j["n_states"] = env.n_states();
  const at::Tensor& all = env.all_states();
  j["all_states"] = rows(all);
  j["state_indices"] = integers(env.state_indices(all));
  const at::Tensor fm = env.forward_masks(all), bm = env.backward_masks(all);
  j["forward_masks"] = rows(fm);
  j["backward_masks"] = rows(bm);
  j["children"] = transitions(env, all, fm.narrow(1, 0, env.exit_action()), true);
  j["parents"] = transitions(env, all, bm, false);
  j["n_terminating_states"] = env.n_terminating_states();
  const at::Tensor& term = env.terminating_states();
  j["terminating_states"] = rows(term);
  j["terminating_state_indices"] = integers(env.terminating_state_indices(term));
  j["rewards"] = values(env.reward(term));
  j["true_distribution"] = values(env.true_distribution());
  j["log_partition"] = env.log_partition();
  j["state_graph_edges"] = env.state_graph().edge_child.size();
  const at::Tensor graded = fm.to(at::kDouble) * at::arange(1, env.n_actions() + 1, at::kDouble);
  j["pf_distribution"] =
      values(gfn::core::terminating_distribution(env, graded / graded.sum(1, true)));
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  gfn::core::EnvOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--plugin") {
      options.plugin = value;
    } else if (flag == "--name") {
      options.name = value;
    } else if (flag == "--option" && value.find('=') != std::string::npos) {
      options.options[value.substr(0, value.find('='))] = value.substr(value.find('=') + 1);
    } else {
      std::fprintf(stderr, "env_dump: unknown argument %s\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 != 1 || options.plugin.empty()) {
    std::fprintf(stderr, "usage: env_dump --plugin LIB.so --name ENV [--option key=value]...\n");
    return 2;
  }
  try {
    const auto env = gfn::core::make_environment(options);
    std::cout << dump(*env).dump() << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "env_dump: %s\n", e.what());
    return 1;
  }
  return 0;
}
