// ThreadWorld (tests/roles/trainer/spawn/thread_group.h).
#include "tests/roles/trainer/spawn/thread_group.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

namespace gfn::roles::spawn_test {

struct ThreadWorld::State {
  int n = 0;
  std::vector<int> global_ranks;
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  std::int64_t generation = 0;
  std::int64_t collectives = 0;
  std::vector<const void*> inputs;

  /// Every member waits here until all have arrived (a cyclic barrier).
  void wait_all(const char* what) {
    std::unique_lock<std::mutex> lock(mutex);
    const auto gen = generation;
    if (++arrived == n) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    if (!changed.wait_for(lock, std::chrono::seconds(30), [&] { return generation != gen; })) {
      throw transport::TimeoutError(std::string("thread group: ") + what +
                                    " not joined by every member within 30 s");
    }
  }

  /// The collective's frame: publish `in`, wait for all, `compute` (reading every member's
  /// input), wait for all again (nobody changes its input while others read it), `apply`.
  template <class Compute, class Apply>
  void collective(int rank, const void* in, const char* what, Compute compute, Apply apply) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      inputs[static_cast<std::size_t>(rank)] = in;
    }
    wait_all(what);
    compute(inputs);
    wait_all(what);
    apply();
    if (rank == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      ++collectives;
    }
  }
};

namespace {

template <class T>
void reduce_into(const std::vector<const void*>& inputs, std::size_t count, transport::ReduceOp op,
                 std::vector<std::uint8_t>& out) {
  out.resize(count * sizeof(T));
  T* o = reinterpret_cast<T*>(out.data());
  const auto n = static_cast<T>(inputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    T acc = static_cast<const T*>(inputs[0])[i];
    for (std::size_t r = 1; r < inputs.size(); ++r) {
      const T v = static_cast<const T*>(inputs[r])[i];
      if (op == transport::ReduceOp::kMax)
        acc = v > acc ? v : acc;
      else if (op == transport::ReduceOp::kMin)
        acc = v < acc ? v : acc;
      else
        acc = acc + v;
    }
    o[i] = op == transport::ReduceOp::kAvg ? static_cast<T>(acc / n) : acc;
  }
}

class Member final : public transport::Group {
 public:
  Member(ThreadWorld::State& state, int rank) : state_(state), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return state_.n; }
  const std::vector<int>& global_ranks() const override { return state_.global_ranks; }

  void barrier() override {
    state_.collective(
        rank_, nullptr, "barrier", [](const auto&) {}, [] {});
  }
  void broadcast(void* data, std::size_t count, transport::DType dtype, int root) override {
    const std::size_t bytes = count * transport::dtype_size(dtype);
    std::vector<std::uint8_t> copy(bytes);
    state_.collective(
        rank_, data, "broadcast",
        [&](const std::vector<const void*>& in) {
          std::memcpy(copy.data(), in[static_cast<std::size_t>(root)], bytes);
        },
        [&] { std::memcpy(data, copy.data(), bytes); });
  }
  void all_reduce(void* data, std::size_t count, transport::DType dtype,
                  transport::ReduceOp op) override {
    std::vector<std::uint8_t> out;
    state_.collective(
        rank_, data, "all_reduce",
        [&](const std::vector<const void*>& in) {
          switch (dtype) {
            case transport::DType::kUInt8:
              return reduce_into<std::uint8_t>(in, count, op, out);
            case transport::DType::kInt32:
              return reduce_into<std::int32_t>(in, count, op, out);
            case transport::DType::kInt64:
              return reduce_into<std::int64_t>(in, count, op, out);
            case transport::DType::kFloat32:
              return reduce_into<float>(in, count, op, out);
            case transport::DType::kFloat64:
              return reduce_into<double>(in, count, op, out);
          }
        },
        [&] { std::memcpy(data, out.data(), out.size()); });
  }
  void all_gather(const void* in, std::size_t count, transport::DType dtype, void* out) override {
    const std::size_t bytes = count * transport::dtype_size(dtype);
    std::vector<std::uint8_t> all(bytes * static_cast<std::size_t>(state_.n));
    state_.collective(
        rank_, in, "all_gather",
        [&](const std::vector<const void*>& inputs) {
          for (std::size_t r = 0; r < inputs.size(); ++r) {
            std::memcpy(all.data() + r * bytes, inputs[r], bytes);
          }
        },
        [&] { std::memcpy(out, all.data(), all.size()); });
  }

 private:
  ThreadWorld::State& state_;
  int rank_;
};

}  // namespace

ThreadWorld::ThreadWorld(int size, std::vector<int> global_ranks)
    : state_(std::make_shared<State>()) {
  state_->n = size;
  state_->inputs.assign(static_cast<std::size_t>(size), nullptr);
  if (global_ranks.empty()) {
    global_ranks.resize(static_cast<std::size_t>(size));
    std::iota(global_ranks.begin(), global_ranks.end(), 0);
  }
  state_->global_ranks = std::move(global_ranks);
  for (int r = 0; r < size; ++r) members_.push_back(std::make_unique<Member>(*state_, r));
}

ThreadWorld::~ThreadWorld() = default;

int ThreadWorld::size() const { return state_->n; }

transport::Group& ThreadWorld::member(int rank) {
  return *members_.at(static_cast<std::size_t>(rank));
}

void ThreadWorld::run(const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size()));
  std::vector<std::thread> threads;
  for (int r = 0; r < size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(r);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::int64_t ThreadWorld::collectives() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->collectives;
}

}  // namespace gfn::roles::spawn_test
