// compare_checkpoints A B: exit 0 if two trainer checkpoint files (rank_<r>.pt,
// roles/trainer/trainer_checkpoint.h) hold bit-identical learner state — model parameters,
// optimizer moments and step, the sampling / validation / default generators, the counters,
// modes, the queued remote items, the local replay buffer and the spawn policy's state — else print
// what differs and exit 1 (2 for unreadable files). Used by the checkpoint / resume e2e tests
// (tests/tools/run_checkpoint_e2e.sh).
#include <torch/serialize/archive.h>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using torch::serialize::InputArchive;

int differences = 0;

void compare_tensor(InputArchive& a, InputArchive& b, const std::string& key,
                    const std::string& where) {
  at::Tensor ta, tb;
  const bool ha = a.try_read(key, ta), hb = b.try_read(key, tb);
  if (ha != hb || (ha && !torch::equal(ta, tb))) {
    std::printf("differs: %s/%s\n", where.c_str(), key.c_str());
    ++differences;
  }
}

void compare_value(InputArchive& a, InputArchive& b, const std::string& key,
                   const std::string& where) {
  c10::IValue va, vb;
  const bool ha = a.try_read(key, va), hb = b.try_read(key, vb);
  if (ha != hb || (ha && !(va == vb))) {
    std::printf("differs: %s/%s\n", where.c_str(), key.c_str());
    ++differences;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: compare_checkpoints RANK_FILE_A RANK_FILE_B\n");
    return 2;
  }
  try {
    InputArchive fa, fb, la, lb, ma, mb, oa, ob;
    fa.load_from(argv[1]);
    fb.load_from(argv[2]);
    fa.read("learner", la);
    fb.read("learner", lb);
    la.read("model", ma);
    lb.read("model", mb);
    compare_value(ma, mb, "names", "model");
    c10::IValue names;
    ma.read("names", names);
    std::int64_t n = 0;
    for (char c : names.toStringRef()) n += c == '\n';
    for (std::int64_t i = 0; i < n; ++i) compare_tensor(ma, mb, "t" + std::to_string(i), "model");
    la.read("optimizer", oa);
    lb.read("optimizer", ob);
    compare_value(oa, ob, "step", "optimizer");
    for (int g = 0; g < 2; ++g) {
      compare_tensor(oa, ob, "exp_avg" + std::to_string(g), "optimizer");
      compare_tensor(oa, ob, "exp_avg_sq" + std::to_string(g), "optimizer");
    }
    for (const char* key :
         {"sample_generator", "validation_generator", "default_generator", "modes_found",
          "queued_states", "queued_lengths", "queued_actions", "replay_table"}) {
      compare_tensor(la, lb, key, "learner");
    }
    for (const char* key :
         {"iterations", "remote_trained", "remote_trajs_trained", "replayed_trained"}) {
      compare_value(la, lb, key, "learner");
    }
    for (const char* key : {"iteration", "trajectories", "last_loss"}) {
      compare_value(fa, fb, key, "trainer");
    }
    for (const char* key : {"visited", "first_modes", "first_iterations", "spawn"}) {
      compare_tensor(fa, fb, key, "trainer");
    }
    compare_value(fa, fb, "visited_total", "trainer");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_checkpoints: %s\n", e.what());
    return 2;
  }
  if (differences == 0) std::printf("identical: %s and %s\n", argv[1], argv[2]);
  return differences == 0 ? 0 : 1;
}
