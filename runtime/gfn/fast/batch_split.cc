#include "runtime/gfn/fast/batch_split.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <c10/core/thread_pool.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/make_evaluator.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {

struct BatchSplit::Replica {
  std::unique_ptr<Environment> env;
  std::unique_ptr<Preprocessor> preprocessor;
  std::unique_ptr<Loss> loss;
  std::shared_ptr<GFlowNetModel> model;
  std::unique_ptr<Evaluator> evaluator;
  SplitPartRefs refs() const { return {model.get(), evaluator.get(), loss.get()}; }
};

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct PartOutcome {
  Trajectories trajs;
  at::Tensor loss;  ///< weighted, detached
  double sample_s = 0, loss_s = 0, backward_s = 0;
  bool reused_logprobs = false;
  std::exception_ptr error;
};

// One part: sample n trajectories, its loss weighted by n / total, backward into its model.
void run_part(const SplitPartRefs& p, std::int64_t n, std::int64_t total,
              const SamplerOptions& options, at::Generator generator, double reward_exponent,
              PartOutcome& out) {
  try {
    auto t = Clock::now();
    Trajectories trajs = p.evaluator->sample(n, options, generator);
    out.sample_s = seconds_since(t);
    t = Clock::now();
    Trajectories target = trajs;
    if (reward_exponent != 1.0) target.log_rewards = trajs.log_rewards * reward_exponent;
    const at::Tensor loss = p.evaluator->loss(*p.loss, target, p.model->log_z()).loss *
                            (static_cast<double>(n) / static_cast<double>(total));
    out.loss_s = seconds_since(t);
    t = Clock::now();
    loss.backward();
    out.backward_s = seconds_since(t);
    out.loss = loss.detach();
    out.reused_logprobs = trajs.has_saved_outputs();
    trajs.clear_saved_outputs();
    out.trajs = std::move(trajs);
  } catch (...) {
    out.error = std::current_exception();
  }
}

// The iteration's part generators: part k seeded with the k-th draw of `generator`.
std::vector<at::Generator> part_generators(at::Generator& generator, int parts) {
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(parts));
  {
    auto* gen = at::check_generator<at::CPUGeneratorImpl>(generator);
    std::lock_guard<std::mutex> lock(generator.mutex());
    for (auto& s : seeds) s = gen->random64();
  }
  std::vector<at::Generator> out;
  out.reserve(seeds.size());
  for (const auto s : seeds) out.push_back(at::detail::createCPUGenerator(s));
  return out;
}

void copy_parameters(GFlowNetModel& from, GFlowNetModel& to) {
  at::NoGradGuard no_grad;
  const auto src = from.parameters();
  const auto dst = to.parameters();
  for (std::size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
}

void clear_gradients(GFlowNetModel& model) {
  for (auto& p : model.parameters()) p.mutable_grad().reset();
}

// master's gradients += replica's (in place: FlatAdamW's gradients are views of its buffer).
void add_gradients(GFlowNetModel& replica, GFlowNetModel& master) {
  at::NoGradGuard no_grad;
  const auto src = replica.parameters();
  auto dst = master.parameters();
  for (std::size_t i = 0; i < src.size(); ++i) {
    const at::Tensor& g = src[i].grad();
    if (!g.defined()) continue;
    if (dst[i].grad().defined()) {
      dst[i].mutable_grad().add_(g);
    } else {
      dst[i].mutable_grad() = g.clone();
    }
  }
}

// First row of each step of a part in the sampler's layout: offsets[t] .. offsets[t + 1]
// are the rows of the trajectories longer than t (suffix counts of the lengths).
std::vector<std::int64_t> step_offsets(const Trajectories& part) {
  const at::Tensor lengths = part.lengths.contiguous();
  const std::int64_t* len = lengths.data_ptr<std::int64_t>();
  std::vector<std::int64_t> longer;  // longer[t] = #(length > t)
  for (std::int64_t i = 0; i < lengths.numel(); ++i) {
    if (len[i] < 1) throw std::invalid_argument("concat_sampled_parts: a length below 1");
    if (static_cast<std::size_t>(len[i]) > longer.size()) longer.resize(len[i], 0);
    ++longer[static_cast<std::size_t>(len[i] - 1)];
  }
  for (std::size_t t = longer.size(); t-- > 1;) longer[t - 1] += longer[t];
  std::vector<std::int64_t> offsets(1, 0);
  for (const std::int64_t c : longer) offsets.push_back(offsets.back() + c);
  if (offsets.back() != part.n_transitions()) {
    throw std::invalid_argument("concat_sampled_parts: the lengths of a part do not sum to its " +
                                std::to_string(part.n_transitions()) + " rows");
  }
  return offsets;
}

// Copies rows [begin, end) of src (contiguous int64, `width` per row) to dst at row `at`.
void copy_rows(const at::Tensor& src, std::int64_t begin, std::int64_t end, std::int64_t width,
               at::Tensor& dst, std::int64_t at) {
  if (end > begin) {
    std::memcpy(dst.data_ptr<std::int64_t>() + at * width,
                src.data_ptr<std::int64_t>() + begin * width,
                sizeof(std::int64_t) * static_cast<std::size_t>((end - begin) * width));
  }
}

}  // namespace

Trajectories concat_sampled_parts(const std::vector<Trajectories>& in) {
  if (in.empty()) throw std::invalid_argument("concat_sampled_parts: no parts");
  std::vector<Trajectories> parts;
  std::vector<std::vector<std::int64_t>> offsets;
  std::int64_t b = 0, n = 0, steps = 0;
  for (const Trajectories& p : in) {
    if (!p.states.defined() || !p.actions.defined() || !p.traj_index.defined() ||
        !p.pb_actions.defined() || !p.lengths.defined() || !p.terminating_states.defined() ||
        p.states.dim() != 2 || p.states.size(1) != in[0].states.size(1)) {
      throw std::invalid_argument(
          "concat_sampled_parts: every part needs recorded transitions of one state width");
    }
    const std::int64_t rows = p.states.size(0);
    if (p.actions.numel() != rows || p.traj_index.numel() != rows ||
        p.pb_actions.numel() != rows - p.n_trajectories || p.lengths.numel() != p.n_trajectories ||
        p.terminating_states.size(0) != p.n_trajectories) {
      throw std::invalid_argument(
          "concat_sampled_parts: a part's actions, traj_index, pb_actions, lengths or "
          "terminating states do not match its rows and trajectories");
    }
    Trajectories c = p;
    c.clear_saved_outputs();
    for (at::Tensor* t : {&c.states, &c.actions, &c.traj_index, &c.pb_actions}) {
      *t = t->contiguous();
    }
    offsets.push_back(step_offsets(c));
    steps = std::max<std::int64_t>(steps, static_cast<std::int64_t>(offsets.back().size()) - 1);
    b += c.n_trajectories;
    n += c.n_transitions();
    parts.push_back(std::move(c));
  }
  const std::int64_t d = in[0].states.size(1);
  Trajectories out;
  out.n_trajectories = b;
  out.states = at::empty({n, d}, at::kLong);
  out.actions = at::empty({n}, at::kLong);
  out.traj_index = at::empty({n}, at::kLong);
  out.pb_actions = at::empty({n - b}, at::kLong);
  std::int64_t row = 0, pb_row = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    std::int64_t first_id = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const Trajectories& p = parts[k];
      const std::vector<std::int64_t>& off = offsets[k];
      if (t + 1 < static_cast<std::int64_t>(off.size())) {
        const std::int64_t begin = off[t], end = off[t + 1];
        copy_rows(p.states, begin, end, d, out.states, row);
        copy_rows(p.actions, begin, end, 1, out.actions, row);
        const std::int64_t* id = p.traj_index.data_ptr<std::int64_t>();
        std::int64_t* out_id = out.traj_index.data_ptr<std::int64_t>();
        for (std::int64_t i = begin; i < end; ++i) out_id[row + i - begin] = id[i] + first_id;
        if (t > 0) {  // PB rows: transition rows after the part's first n_trajectories
          copy_rows(p.pb_actions, begin - p.n_trajectories, end - p.n_trajectories, 1,
                    out.pb_actions, pb_row);
          pb_row += end - begin;
        }
        row += end - begin;
      }
      first_id += p.n_trajectories;
    }
  }
  std::vector<at::Tensor> lengths, terminating, log_rewards;
  for (const Trajectories& p : parts) {
    lengths.push_back(p.lengths);
    terminating.push_back(p.terminating_states);
    log_rewards.push_back(p.log_rewards.to(at::kFloat));
  }
  out.lengths = at::cat(lengths);
  out.terminating_states = at::cat(terminating);
  out.log_rewards = at::cat(log_rewards);
  return out;
}

BatchSplit::BatchSplit(int parts, const EnvOptions& env, const ModelOptions& model,
                       const TrainOptions& train, const EnginePlan& plan) {
  if (parts < 2) {
    throw std::invalid_argument("BatchSplit: parts must be >= 2, got " + std::to_string(parts));
  }
  for (int k = 1; k < parts; ++k) {
    auto r = std::make_unique<Replica>();
    r->env = make_environment(env);
    r->preprocessor = r->env->make_preprocessor(env.preprocessor);
    r->loss = make_loss(train, *r->env);
    r->model = std::make_shared<GFlowNetModel>(r->preprocessor->output_dim(), r->env->n_actions(),
                                               model, r->loss->needs_log_flow());
    r->evaluator = make_evaluator(plan, *r->model, *r->preprocessor, *r->env);
    replicas_.push_back(std::move(r));
  }
  // Persistent threads: a fresh std::thread per iteration (the first version) starts with
  // empty per-thread state (malloc caches, OpenMP and autograd state) and measured ~6 ms
  // slower per 8-D iteration. OpenMP's thread count is per thread: 1 in each worker.
  pool_ = std::make_unique<c10::ThreadPool>(parts - 1, -1, [] { at::set_num_threads(1); });
}

BatchSplit::~BatchSplit() = default;

SplitIteration BatchSplit::run(const SplitPartRefs& master, std::int64_t batch_size,
                               const SamplerOptions& options, at::Generator& generator,
                               double reward_exponent) {
  const int n_parts = parts();
  if (batch_size < n_parts) {
    throw std::invalid_argument("BatchSplit::run: batch_size " + std::to_string(batch_size) +
                                " < parts " + std::to_string(n_parts));
  }
  std::vector<at::Generator> gens = part_generators(generator, n_parts);
  std::vector<PartOutcome> outcomes(static_cast<std::size_t>(n_parts));
  const auto part_size = [&](int k) { return batch_size / n_parts + (k < batch_size % n_parts); };
  for (const auto& r : replicas_) {  // before any task starts: these may throw
    copy_parameters(*master.model, *r->model);
    clear_gradients(*r->model);
    r->evaluator->begin_iteration(options);  // the contract of evaluator.h; no-op when split
  }
  for (int k = 1; k < n_parts; ++k) {  // run_part catches everything: no task throws
    pool_->run([&, k] {
      const auto i = static_cast<std::size_t>(k);
      run_part(replicas_[i - 1]->refs(), part_size(k), batch_size, options, gens[i],
               reward_exponent, outcomes[i]);
    });
  }
  run_part(master, part_size(0), batch_size, options, gens[0], reward_exponent, outcomes[0]);
  const auto t_wait = Clock::now();
  pool_->waitWorkComplete();
  for (const auto& o : outcomes) {
    if (o.error) std::rethrow_exception(o.error);
  }
  for (const auto& r : replicas_) add_gradients(*r->model, *master.model);
  SplitIteration it;
  std::vector<Trajectories> batches;
  it.loss = outcomes[0].loss;
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    batches.push_back(std::move(outcomes[k].trajs));
    if (k > 0) it.loss = it.loss + outcomes[k].loss;
  }
  it.batch = concat_sampled_parts(batches);
  it.reused_logprobs = outcomes[0].reused_logprobs;
  it.sample_s = outcomes[0].sample_s;
  it.loss_s = outcomes[0].loss_s;
  it.backward_s = outcomes[0].backward_s + seconds_since(t_wait);
  return it;
}

}  // namespace gfn::core
