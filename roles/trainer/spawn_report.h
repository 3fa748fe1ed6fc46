#pragma once
// Reports of the spawn policy and of mode discovery (docs/spawn.md "Spawn policies",
// "summary.json"):
//  - every trainer records when it first sampled each mode (ModeTimeline) and its own
//    spawn history (SpawnPolicy::events, roles/trainer/spawn/spawn_policy.h: its metric at
//    every decision point, the replacements it underwent, with donors and weights);
//  - at the end both are gathered to trainer-group rank 0 (gather_spawn_report, collective
//    over the trainer group), which writes the `spawn` object of summary.json and
//    modes_timeline.csv: modes found vs wall seconds and vs trajectories, per agent
//    (trainer rank) and in total (the union over the agents);
//  - the population's result (PopulationModes): the modes all agents found together and
//    each agent's own count, as summary.json's first keys and the job's last log line.
// Not thread-safe. Errors: the trainer group's collective errors.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/distributed/spawn/options.h"

namespace gfn::core {
class ModeTracker;
}
namespace gfn::transport {
class Group;
}

namespace gfn::roles {

struct SpawnEvent;

/// First discovery of one mode by one agent.
struct ModeFirst {
  std::int64_t mode = 0;       ///< ModeTracker id (HyperGrid: state index)
  std::int64_t iteration = 0;  ///< the iteration whose batch hit it first
  double wall_s = 0;           ///< seconds since the trainer loop started
};

/// Records the first iteration at which this agent sampled each mode.
class ModeTimeline {
 public:
  /// After an iteration: records the modes `tracker` holds that were not seen before
  /// (O(modes found) when some are new, O(1) otherwise). A null tracker records nothing.
  void observe(const core::ModeTracker* tracker, std::int64_t iteration, double wall_s);
  const std::vector<ModeFirst>& firsts() const { return firsts_; }
  /// Checkpoints (roles/trainer/trainer_checkpoint.h): the discoveries recorded before the
  /// checkpoint (firsts() of the checkpointed run) replace the current ones.
  void restore(std::vector<ModeFirst> firsts);

 private:
  std::set<std::int64_t> seen_;
  std::vector<ModeFirst> firsts_;
};

/// What trainer-group rank 0 receives from every trainer.
struct AgentReport {
  int rank = -1;                  ///< global rank of the trainer (the agent)
  std::vector<ModeFirst> firsts;  ///< its first discoveries
  std::string spawn_json;         ///< its spawn history (JSON object)
};

/// This agent's spawn history as a JSON object: rank, times_replaced, metric
/// ([[iteration, value], ...]), replacements ([{iteration, donors, weights}, ...]),
/// strategy (exploration parameters), modes_found.
std::string agent_spawn_json(int rank, const std::vector<SpawnEvent>& events, int group_rank,
                             std::int64_t modes_found, const std::string& strategy_json);

/// Gathers every trainer's report on trainer-group rank 0 (others get an empty vector).
/// Collective over `trainers`.
std::vector<AgentReport> gather_agent_reports(transport::Group& trainers, const AgentReport& mine);

/// summary.json "spawn" (a JSON object as text): the spawn.* options (threshold null when
/// infinite), `replacements` (total over the agents) and `agents` (each agent's spawn
/// history, agent_spawn_json, in trainer order).
std::string spawn_summary_json(const dist::spawn::SpawnOptions& options,
                               const std::vector<AgentReport>& reports);

/// One agent's own count of modes found (its ModeTracker), for the population's result.
struct AgentModes {
  int rank = -1;  ///< global rank of the trainer (the agent)
  std::int64_t modes_found = 0;
};

/// The population's result: the distinct modes found by all agents together (the union of
/// their trackers), the environment's number of modes (0: it defines none) and each agent's
/// own count, in trainer order (one entry for a single trainer).
struct PopulationModes {
  std::int64_t modes_found = 0;
  std::int64_t n_modes = 0;
  std::vector<AgentModes> agents;
};

/// Gathers every trainer's own count of modes found (`mine`) to every trainer, in trainer
/// order. Collective over `trainers` (one all-gather of two int64 per trainer).
std::vector<AgentModes> gather_agent_modes(transport::Group& trainers, const AgentModes& mine);

/// The job's result in one line: "modes found 255/256 by the population (agents: 239, 241,
/// 236, 240)"; one agent: "modes found 4/4 by the population (a single agent)"; an
/// environment without modes: "no modes: the environment defines none".
std::string population_line(const PopulationModes& population);

/// summary.json "population" (a JSON object as text): modes_found, n_modes (null when the
/// environment defines none) and agents ([{rank, modes_found}, ...] in trainer order).
std::string population_json(const PopulationModes& population);

/// modes_timeline.csv: header `agent,modes_found,iteration,trajectories,wall_s`, one row
/// per first discovery of each agent (agent = its rank), then the `total` rows (the union:
/// a mode counts at its earliest discovery by any agent, ordered by iteration, then wall
/// time). trajectories = round(iteration * trajectories_per_iteration): the trajectories
/// all trainers sampled forward up to that iteration (the run's summary.json
/// trajectories_sampled over its iterations; train.batch_size without replay or remote items).
std::string modes_timeline_csv(const std::vector<AgentReport>& reports,
                               double trajectories_per_iteration);

}  // namespace gfn::roles
