// Property tests of the role planner (roles/planner/rank_layout.h) with RapidCheck:
// random requests (world size, buffers, agent groups, coordinator, placement, hostname
// lists with uneven, interleaved and random nodes, and bad values) either plan a layout
// that satisfies every invariant of the header, or are refused with a LayoutError whose
// message names the request — never another exception, never a crash.
// ctest runs each property with RC_PARAMS=max_success=10000 (tests/roles/planner/CMakeLists.txt).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "roles/planner/rank_layout.h"

namespace gfn::roles {
namespace {

/// Hostnames for `world` ranks on `nodes` nodes: blocks of uneven sizes, round-robin
/// (interleaved), or random.
std::vector<std::string> random_hostnames(int world, int nodes) {
  std::vector<std::string> out(world);
  const int shape = *rc::gen::inRange(0, 3);
  if (shape == 0) {  // uneven blocks: node k holds a random-length run of ranks
    int node = 0;
    for (int r = 0; r < world; ++r) {
      out[r] = "node" + std::to_string(node);
      if (node + 1 < nodes && *rc::gen::inRange(0, 3) == 0) ++node;
    }
  } else if (shape == 1) {  // interleaved: rank r on node r % nodes
    for (int r = 0; r < world; ++r) out[r] = "node" + std::to_string(r % nodes);
  } else {
    for (int r = 0; r < world; ++r) out[r] = "node" + std::to_string(*rc::gen::inRange(0, nodes));
  }
  return out;
}

LayoutRequest random_request() {
  LayoutRequest req;
  req.world_size =
      *rc::gen::weightedOneOf<int>({{1, rc::gen::inRange(-2, 1)}, {20, rc::gen::inRange(1, 65)}});
  req.coordinator = *rc::gen::arbitrary<bool>();
  const int room = std::max(req.world_size, 1);
  req.num_buffers = *rc::gen::weightedOneOf<int>({{1, rc::gen::inRange(-2, 0)},
                                                  {3, rc::gen::just(0)},
                                                  {12, rc::gen::inRange(0, room / 2 + 1)},
                                                  {3, rc::gen::inRange(0, room + 2)}});
  // Mostly a divisor of the trainer count so that many requests are feasible.
  const int trainers = req.world_size - std::max(req.num_buffers, 0) - (req.coordinator ? 1 : 0);
  std::vector<int> divisors;
  for (int d = 1; d <= trainers; ++d) {
    if (trainers % d == 0) divisors.push_back(d);
  }
  if (!divisors.empty() && *rc::gen::inRange(0, 8) != 0) {
    req.num_agent_groups = *rc::gen::elementOf(divisors);
  } else {
    req.num_agent_groups = *rc::gen::inRange(-1, 9);
  }
  // A misspelt placement cannot reach the planner: the config parser refuses it
  // (tests/runtime/config/enum_options_test.cc).
  req.placement = *rc::gen::weightedElement<roles::Placement>({{5, roles::Placement::kAuto},
                                                               {3, roles::Placement::kArithmetic},
                                                               {5, roles::Placement::kHostname}});
  const int hosts = *rc::gen::inRange(0, 10);  // 0-3: none given, 9: a wrong count
  if (hosts >= 4 && hosts <= 8) {
    req.hostnames = random_hostnames(room, *rc::gen::inRange(1, 9));
    if (req.world_size < 1) req.hostnames.clear();
  } else if (hosts == 9) {
    req.hostnames.assign(*rc::gen::inRange(1, room + 3), "node0");
    if (static_cast<int>(req.hostnames.size()) == req.world_size) req.hostnames.push_back("x");
  }
  return req;
}

/// A request the header says must be refused before any node is considered.
bool obviously_impossible(const LayoutRequest& r) {
  const int trainers = r.world_size - r.num_buffers - (r.coordinator ? 1 : 0);
  const bool bad_hosts =
      !r.hostnames.empty() && static_cast<int>(r.hostnames.size()) != r.world_size;
  return r.world_size < 1 || r.num_buffers < 0 || r.num_agent_groups < 1 || bad_hosts ||
         trainers <= 0 || r.num_buffers > trainers || trainers % r.num_agent_groups != 0 ||
         (r.placement == roles::Placement::kHostname && r.hostnames.empty());
}

/// Every invariant of a planned layout (roles/planner/rank_layout.h).
void check_invariants(const LayoutRequest& req, const RankLayout& layout) {
  const int world = req.world_size;
  const int coordinators = req.coordinator ? 1 : 0;
  RC_ASSERT(layout.world_size() == world);
  RC_ASSERT(layout.num_buffers() == req.num_buffers);
  RC_ASSERT(layout.num_trainers() == world - req.num_buffers - coordinators);

  // Every rank has exactly one role, and the role lists agree with role().
  std::vector<int> seen(world, 0);
  for (int t : layout.trainer_ranks()) {
    RC_ASSERT(t >= 0 && t < world);
    ++seen[t];
    RC_ASSERT(layout.role(t) == Role::kTrainer);
  }
  for (int m : layout.buffer_ranks()) {
    RC_ASSERT(m >= 0 && m < world);
    ++seen[m];
    RC_ASSERT(layout.role(m) == Role::kBufferManager);
  }
  // The coordinator is the top rank.
  if (req.coordinator) {
    RC_ASSERT(layout.coordinator_rank() == world - 1);
    RC_ASSERT(layout.role(world - 1) == Role::kCoordinator);
    ++seen[world - 1];
  } else {
    RC_ASSERT(layout.coordinator_rank() == -1);
  }
  for (int r = 0; r < world; ++r) RC_ASSERT(seen[r] == 1);

  // Every trainer has one manager, and every manager lists exactly its trainers.
  std::map<int, std::vector<int>> served;  // manager -> trainers naming it
  for (int t : layout.trainer_ranks()) {
    const int m = layout.assigned_buffer(t);
    if (req.num_buffers == 0) {
      RC_ASSERT(m == -1);
    } else {
      RC_ASSERT(m >= 0 && m < world);
      RC_ASSERT(layout.role(m) == Role::kBufferManager);
      served[m].push_back(t);
    }
    RC_ASSERT(layout.assigned_trainers(t).empty());
  }
  std::size_t smallest = static_cast<std::size_t>(world), largest = 0;
  for (int m : layout.buffer_ranks()) {
    const auto& mine = layout.assigned_trainers(m);
    RC_ASSERT(!mine.empty());
    RC_ASSERT(std::is_sorted(mine.begin(), mine.end()));
    auto expected = served[m];
    std::sort(expected.begin(), expected.end());
    RC_ASSERT(mine == expected);
    RC_ASSERT(layout.assigned_buffer(m) == -1);
    smallest = std::min(smallest, mine.size());
    largest = std::max(largest, mine.size());
    if (layout.placement() == roles::Placement::kHostname) {  // node-local managers
      for (int t : mine) RC_ASSERT(layout.hostname(t) == layout.hostname(m));
    } else {  // arithmetic: [t t t M], the manager right after its contiguous chunk
      RC_ASSERT(mine.back() == m - 1);
      RC_ASSERT(mine.back() - mine.front() + 1 == static_cast<int>(mine.size()));
    }
  }
  if (layout.placement() == roles::Placement::kArithmetic && req.num_buffers > 0) {
    RC_ASSERT(largest - smallest <= 1);  // ceil/floor chunks
  }
  if (req.coordinator) {
    RC_ASSERT(layout.assigned_buffer(world - 1) == -1);
    RC_ASSERT(layout.assigned_trainers(world - 1).empty());
    RC_ASSERT(layout.agent_group_id(world - 1) == 0);
  }

  // The placement used: hostname only when asked for (or "auto") with hostnames given.
  RC_ASSERT(layout.placement() == roles::Placement::kHostname ||
            layout.placement() == roles::Placement::kArithmetic);
  if (req.placement == roles::Placement::kHostname)
    RC_ASSERT(layout.placement() == roles::Placement::kHostname);
  if (req.placement == roles::Placement::kArithmetic || req.hostnames.empty()) {
    RC_ASSERT(layout.placement() == roles::Placement::kArithmetic);
  }
  if (req.placement == roles::Placement::kAuto && !req.hostnames.empty()) {
    std::set<std::string> nodes(req.hostnames.begin(), req.hostnames.end() - coordinators);
    const bool divisible = req.num_buffers % static_cast<int>(nodes.size()) == 0;
    RC_ASSERT(layout.placement() ==
              (divisible ? roles::Placement::kHostname : roles::Placement::kArithmetic));
  }

  // Agent groups partition the trainers into equal consecutive slices of trainer_ranks().
  RC_ASSERT(layout.num_agent_groups() == req.num_agent_groups);
  const std::size_t group_size = layout.trainer_ranks().size() / req.num_agent_groups;
  std::vector<int> concatenated;
  for (int g = 0; g < layout.num_agent_groups(); ++g) {
    const auto& group = layout.agent_groups()[g];
    RC_ASSERT(group.size() == group_size);
    for (int t : group) {
      RC_ASSERT(layout.agent_group_id(t) == g);
      RC_ASSERT(&layout.agent_group(t) == &group);
      concatenated.push_back(t);
    }
  }
  RC_ASSERT(concatenated == layout.trainer_ranks());
  for (int m : layout.buffer_ranks()) {
    RC_ASSERT(layout.agent_group_id(m) ==
              layout.agent_group_id(layout.assigned_trainers(m).front()));
  }

  // Out-of-world queries are refused with the planner's error; the summary has a row per rank.
  RC_ASSERT_THROWS_AS(layout.role(world), LayoutError);
  RC_ASSERT_THROWS_AS(layout.role(-1), LayoutError);
  const std::string summary = layout.summary();
  RC_ASSERT(static_cast<int>(std::count(summary.begin(), summary.end(), '\n')) == world + 2);
}

RC_GTEST_PROP(RankLayoutProperty, PlansEveryInvariantOrRefusesWithALayoutError, ()) {
  const LayoutRequest req = random_request();
  const bool impossible = obviously_impossible(req);
  RC_CLASSIFY(impossible, "refused up front");
  try {
    const RankLayout layout = plan_layout(req);
    RC_ASSERT(!impossible);
    RC_TAG(std::string(config::enum_name(layout.placement())));
    check_invariants(req, layout);
  } catch (const LayoutError& e) {
    const std::string what = e.what();
    RC_ASSERT(what.find("cannot plan rank layout") != std::string::npos);
    RC_ASSERT(what.find("world_size=" + std::to_string(req.world_size)) != std::string::npos);
    if (!impossible) {
      // Only hostname placement may refuse a request that passes the simple checks.
      RC_ASSERT(!req.hostnames.empty() && req.placement != roles::Placement::kArithmetic);
      RC_ASSERT(what.find("node") != std::string::npos);
    }
  }
}

// Requests built to be feasible under hostname placement: uneven or interleaved nodes,
// each with enough ranks for its managers. They must all be planned node-locally.
RC_GTEST_PROP(RankLayoutProperty, FeasibleHostnameRequestsArePlannedNodeLocally, ()) {
  const int nodes = *rc::gen::inRange(1, 7);
  const int per_node = *rc::gen::inRange(0, 4);
  std::vector<int> sizes(nodes);
  for (int& s : sizes) s = std::max(1, 2 * per_node) + *rc::gen::inRange(0, 6);
  const bool interleaved = *rc::gen::arbitrary<bool>();
  LayoutRequest req;
  // Deal ranks to nodes: in blocks, or round-robin among nodes that still have room.
  std::vector<int> left = sizes;
  int total = 0;
  for (int s : sizes) total += s;
  for (int r = 0, n = 0; r < total; ++r) {
    if (interleaved) {
      while (left[n] == 0) n = (n + 1) % nodes;
      req.hostnames.push_back("host-" + std::to_string(n));
      --left[n];
      n = (n + 1) % nodes;
    } else {
      while (left[n] == 0) ++n;
      req.hostnames.push_back("host-" + std::to_string(n));
      --left[n];
    }
  }
  req.coordinator = *rc::gen::arbitrary<bool>();
  if (req.coordinator) req.hostnames.push_back(*rc::gen::element<std::string>("host-0", "other"));
  req.world_size = static_cast<int>(req.hostnames.size());
  req.num_buffers = per_node * nodes;
  req.placement = *rc::gen::element(roles::Placement::kAuto, roles::Placement::kHostname);
  const int trainers = req.world_size - req.num_buffers - (req.coordinator ? 1 : 0);
  std::vector<int> divisors;
  for (int d = 1; d <= trainers; ++d) {
    if (trainers % d == 0) divisors.push_back(d);
  }
  req.num_agent_groups = *rc::gen::elementOf(divisors);
  const RankLayout layout = plan_layout(req);
  RC_ASSERT(layout.placement() == roles::Placement::kHostname);
  check_invariants(req, layout);
}

}  // namespace
}  // namespace gfn::roles
