#include "runtime/gfn/fast/batch_split.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <c10/core/thread_pool.h>

#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/make_evaluator.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/trajectory_ops.h"

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

}  // namespace

BatchSplit::BatchSplit(int parts, const EnvOptions& env, const ModelOptions& model,
                       const TrainOptions& train, const EngineOptions& engine, bool reusable) {
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
    r->evaluator = make_evaluator(*r->model, *r->preprocessor, *r->env, engine, reusable);
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
  it.batch = outcomes[0].trajs;
  it.loss = outcomes[0].loss;
  for (std::size_t k = 1; k < outcomes.size(); ++k) {
    it.batch = concat_trajectories(it.batch, outcomes[k].trajs);
    it.loss = it.loss + outcomes[k].loss;
  }
  it.reused_logprobs = outcomes[0].reused_logprobs;
  it.sample_s = outcomes[0].sample_s;
  it.loss_s = outcomes[0].loss_s;
  it.backward_s = outcomes[0].backward_s + seconds_since(t_wait);
  return it;
}

}  // namespace gfn::core
