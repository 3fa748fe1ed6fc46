#include "tools/gfn-bench-train/gemm_probe.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "tools/common/harness/timing.h"

namespace gfn::bench {
namespace {

// A random float32 [rows x cols] operand, as a transposed view of [cols x rows] if asked.
at::Tensor operand(std::int64_t rows, std::int64_t cols, bool transposed) {
  return transposed ? at::randn({cols, rows}).t() : at::randn({rows, cols});
}

// A 2-D tensor that is a transposed view of a contiguous one (column-major).
bool is_transposed(const at::Tensor& t) {
  return t.dim() == 2 && t.size(0) > 1 && t.stride(0) == 1 && t.stride(1) == t.size(0);
}

// The record_gemm_calls state (RecordFunction start callbacks are plain function pointers).
using CallKey = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, bool, bool>;
thread_local std::map<CallKey, std::int64_t>* recorded = nullptr;
thread_local std::vector<CallKey>* recorded_order = nullptr;

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  if (recorded == nullptr) return nullptr;
  const std::string name = fn.name();
  // addmm (nn::Linear), addmm_ (in-place accumulation, e.g. a tied trunk's input
  // gradient in runtime/gfn/fast/mlp_backward.cc's RecordedMlp), mm (autograd's matrix-product
  // backward).
  const bool in_place = name == "aten::addmm_";
  const bool addmm = in_place || name == "aten::addmm";
  if (!addmm && name != "aten::mm") return nullptr;
  const auto inputs = fn.inputs();
  const std::size_t a_index = addmm ? 1 : 0;  // addmm(self, mat1, mat2, beta, alpha)
  if (inputs.size() < a_index + 2 || !inputs[a_index].isTensor() ||
      !inputs[a_index + 1].isTensor()) {
    return nullptr;
  }
  const at::Tensor& a = inputs[a_index].toTensor();
  const at::Tensor& b = inputs[a_index + 1].toTensor();
  if (a.dim() != 2 || b.dim() != 2 || a.scalar_type() != at::kFloat) return nullptr;
  const std::string op = in_place ? "addmm_" : addmm ? "addmm" : "mm";
  const CallKey key{op, a.size(0), a.size(1), b.size(1), is_transposed(a), is_transposed(b)};
  if ((*recorded)[key]++ == 0) recorded_order->push_back(key);
  return nullptr;
}

}  // namespace

GemmProbe probe_gemm(std::int64_t rows, std::int64_t in, std::int64_t out, int n_blocks,
                     double min_block_s) {
  if (rows < 1 || in < 1 || out < 1 || n_blocks < 1 || !(min_block_s > 0)) {
    throw std::invalid_argument(
        "probe_gemm: dimensions and n_blocks must be >= 1, min_block_s > 0");
  }
  at::NoGradGuard no_grad;
  const at::Tensor x = at::randn({rows, in});
  const at::Tensor w = at::randn({out, in});
  const at::Tensor b = at::randn({out});
  at::Tensor y = at::addmm(b, x, w.t());  // warm-up (also maps the BLAS library)
  GemmProbe p;
  p.rows = rows;
  p.in = in;
  p.out = out;
  p.seconds_per_gemm =
      harness::seconds_per_call([&] { at::addmm_out(y, b, x, w.t()); }, n_blocks, min_block_s);
  p.gflops = 2.0 * static_cast<double>(rows * in * out) / p.seconds_per_gemm / 1e9;
  return p;
}

SameShapesProbe probe_gemm_calls(const std::vector<GemmCall>& calls, int n_blocks,
                                 double min_block_s) {
  if (calls.empty() || n_blocks < 1 || !(min_block_s > 0)) {
    throw std::invalid_argument("probe_gemm_calls: need calls, n_blocks >= 1 and min_block_s > 0");
  }
  at::NoGradGuard no_grad;
  SameShapesProbe p;
  for (const GemmCall& c : calls) {
    if (c.m < 1 || c.k < 1 || c.n < 1 || !(c.count > 0) ||
        (c.op != "addmm" && c.op != "addmm_" && c.op != "mm")) {
      throw std::invalid_argument("probe_gemm_calls: bad call " + c.shape_label());
    }
    const at::Tensor a = operand(c.m, c.k, c.a_transposed);
    const at::Tensor b = operand(c.k, c.n, c.b_transposed);
    const at::Tensor bias = at::randn({c.n});
    at::Tensor acc = at::zeros({c.m, c.n});
    auto run = [&] {
      if (c.op == "addmm_") {
        acc.addmm_(a, b);
      } else {
        at::Tensor y = c.op == "addmm" ? at::addmm(bias, a, b) : at::mm(a, b);
        (void)y;
      }
    };
    run();  // warm-up
    TimedGemmCall t{c, harness::seconds_per_call(run, n_blocks, min_block_s), 0};
    t.gflops = c.flops() / t.seconds / 1e9;
    p.flops += c.count * c.flops();
    p.seconds += c.count * t.seconds;
    p.calls.push_back(t);
  }
  p.gflops = p.flops / p.seconds / 1e9;
  return p;
}

std::vector<GemmCall> record_gemm_calls(const std::function<void()>& body, int iterations) {
  if (iterations < 1) throw std::invalid_argument("record_gemm_calls: iterations must be >= 1");
  std::map<CallKey, std::int64_t> counts;
  std::vector<CallKey> order;
  recorded = &counts;
  recorded_order = &order;
  const at::CallbackHandle handle =
      at::addThreadLocalCallback(at::RecordFunctionCallback(&on_op_start).needsInputs(true));
  struct Cleanup {
    at::CallbackHandle h;
    ~Cleanup() {
      at::removeCallback(h);
      recorded = nullptr;
      recorded_order = nullptr;
    }
  } cleanup{handle};
  for (int i = 0; i < iterations; ++i) body();

  std::vector<GemmCall> calls;
  for (const CallKey& key : order) {
    const auto& [op, m, k, n, a_t, b_t] = key;
    // A product whose first operand is a transposed view, dy^T [out x r] x x [r x in]
    // (inner dimension = the row count), is a weight gradient: autograd's mm, or the
    // hand-written backward's addmm_ into the flat gradient buffer
    // (runtime/gfn/fast/mlp_backward.cc RecordedMlp). Any other addmm_ accumulates (e.g. a tied
    // trunk's input gradient).
    const std::string what = op == "addmm"    ? "forward"
                             : a_t            ? "grad-weight"
                             : op == "addmm_" ? "accumulate"
                                              : "grad-input";
    calls.push_back(
        GemmCall{op, what, m, k, n, a_t, b_t, static_cast<double>(counts[key]) / iterations});
  }
  return calls;
}

}  // namespace gfn::bench
