#include "runtime/gfn/fast/gather_rows.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <stdexcept>
#include <string>

#include "runtime/gfn/fast/row_split.h"

namespace gfn::core {
namespace {

// Fewest gradient values (N * C) worth a second thread: ~30 us of additions.
constexpr std::int64_t kMinValuesToSplit = 32768;

// grad_values[r] += grad[i] for every i with rows[i] = r in [range.begin, range.end), in
// increasing i (index_add_'s order). grad: [N, C] contiguous, grad_values: [M, C].
void add_rows(const float* grad, const std::int64_t* rows, std::int64_t n, std::int64_t c,
              RowRange range, float* grad_values) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = rows[i];
    if (r < range.begin || r >= range.end) continue;
    float* to = grad_values + r * c;
    const float* from = grad + i * c;
    for (std::int64_t j = 0; j < c; ++j) to[j] += from[j];
  }
}

struct GatherRows : public torch::autograd::Function<GatherRows> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& values,
                            const at::Tensor& rows, std::int64_t threads) {
    ctx->save_for_backward({rows});
    ctx->saved_data["shape"] = values.sizes().vec();
    ctx->saved_data["threads"] = threads;
    return values.index_select(0, rows);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor rows = ctx->get_saved_variables()[0].contiguous();
    const std::vector<std::int64_t> shape = ctx->saved_data["shape"].toIntVector();
    const at::Tensor grad = grads[0].contiguous();
    at::Tensor out = at::zeros(shape, grad.options());
    const std::int64_t m = shape[0], n = rows.size(0);
    const std::int64_t c = m == 0 ? 0 : out.numel() / m;
    const int parts =
        n * c >= kMinValuesToSplit ? static_cast<int>(ctx->saved_data["threads"].toInt()) : 1;
    const float* g = grad.data_ptr<float>();
    const std::int64_t* r = rows.data_ptr<std::int64_t>();
    float* o = out.data_ptr<float>();
    run_row_parts(row_ranges(m, parts, 1),
                  [&](std::size_t, RowRange range) { add_rows(g, r, n, c, range, o); });
    return {out, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor gather_rows(const at::Tensor& values, const at::Tensor& rows, int threads) {
  if (threads < 1) {
    throw std::invalid_argument("gather_rows: threads must be >= 1, got " +
                                std::to_string(threads));
  }
  if (values.scalar_type() != at::kFloat || values.dim() < 1 || values.dim() > 2 ||
      !values.device().is_cpu()) {
    return values.index_select(0, rows);  // not this fast path's case: ATen's own backward
  }
  return GatherRows::apply(values, rows, static_cast<std::int64_t>(threads));
}

}  // namespace gfn::core
