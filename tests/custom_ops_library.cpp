// A custom-op library as a user writes one (loaded with `--load-library` or fe::library::load):
// the ops of tools/oracle/scripts/gen_custom_ops.py, which defines them with torch.library.custom_op
// and register_fake, in C++. Static initializers define them when the library is loaded.
#include <algorithm>
#include <cstring>

#include "fakeexport/core/error.h"
#include "fakeexport/library.h"

namespace {

// my_custom_library::custom_op (seed 004): relu; its fake implementation is empty_like(x).
void custom_op_meta(const fe::MetaArgs& a, fe::MetaOut& out) { out.push(fe::library::empty_like(a.tensor(0))); }

void custom_op_cpu(const fe::OpDef&, std::span<const fe::IValue> args, std::span<fe::Tensor> outs) {
  const fe::Tensor x = std::get<fe::Tensor>(args[0]).contiguous();
  FE_CHECK(x.dtype() == fe::DType::Float32, fe::DTypeError, "my_custom_library::custom_op: float32 only, got ",
           fe::dtype_name(x.dtype()));
  const fe::Tensor& y = outs[0];  // empty_like(contiguous x): contiguous
  const float* in = x.data<float>();
  float* o = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = std::max(in[i], 0.0f);
}

// mylib::stack_rows(x, times): x's rows repeated `times` times (torch.cat([x] * times, 0)). The
// output's first dim is times * x.size(0): symbolic when the batch is.
void stack_rows_meta(const fe::MetaArgs& a, fe::MetaOut& out) {
  const fe::TensorMeta& x = a.tensor(0);
  const fe::SymInt times = a.sym_int(1);
  FE_CHECK(x.dim() >= 1, fe::ShapeError, "mylib::stack_rows: x must have a row dim, got a 0-d tensor");
  fe::DimVector sizes(x.sizes.begin(), x.sizes.end());
  sizes[0] = sizes[0] * times;
  out.push(fe::make_contiguous(sizes, x.dtype, x.device));
}

void stack_rows_cpu(const fe::OpDef&, std::span<const fe::IValue> args, std::span<fe::Tensor> outs) {
  const fe::Tensor x = std::get<fe::Tensor>(args[0]).contiguous();
  const size_t block = static_cast<size_t>(x.numel()) * fe::itemsize(x.dtype());
  const int64_t times = outs[0].size(0).expect_int() / std::max<int64_t>(x.size(0).expect_int(), 1);
  auto* o = static_cast<std::byte*>(outs[0].data_ptr());
  for (int64_t t = 0; t < times && block; ++t) std::memcpy(o + t * block, x.data_ptr(), block);
}

// mylib::add_one_(x, alpha): x += alpha in place; returns nothing (its fake returns None).
void add_one_meta(const fe::MetaArgs&, fe::MetaOut&) {}

void add_one_cpu(const fe::OpDef&, std::span<const fe::IValue> args, std::span<fe::Tensor>) {
  const fe::Tensor& x = std::get<fe::Tensor>(args[0]);
  FE_CHECK(x.dtype() == fe::DType::Float32 && x.meta().is_contiguous(), fe::DTypeError,
           "mylib::add_one_: contiguous float32 only");
  const auto alpha = static_cast<float>(std::get<double>(args[1]));
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] += alpha;
}

// mylib::scale_out(x, out): out = 2 * x (an out= argument it mutates), returns x.sum(0).
void scale_out_meta(const fe::MetaArgs& a, fe::MetaOut& out) {
  const fe::TensorMeta& x = a.tensor(0);
  FE_CHECK(x.dim() >= 1, fe::ShapeError, "mylib::scale_out: x must have a dim to sum, got a 0-d tensor");
  out.push(fe::make_contiguous(fe::IntSpan(x.sizes).subspan(1), x.dtype, x.device));
}

void scale_out_cpu(const fe::OpDef&, std::span<const fe::IValue> args, std::span<fe::Tensor> outs) {
  const fe::Tensor x = std::get<fe::Tensor>(args[0]).contiguous();
  const fe::Tensor& dst = std::get<fe::Tensor>(args[1]);
  FE_CHECK(x.dtype() == fe::DType::Float32 && dst.meta().is_contiguous() && dst.numel() == x.numel(), fe::DTypeError,
           "mylib::scale_out: contiguous float32 tensors of one size only");
  const int64_t rows = x.size(0).expect_int(), cols = x.numel() / std::max<int64_t>(rows, 1);
  const float* in = x.data<float>();
  float* o = dst.data<float>();
  float* sum = outs[0].data<float>();
  for (int64_t c = 0; c < cols; ++c) sum[c] = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      o[r * cols + c] = 2 * in[r * cols + c];
      sum[c] += in[r * cols + c];
    }
}

const bool defined = [] {
  fe::library::define("mylib::add_one_(Tensor(a0!) x, float alpha) -> ()", add_one_meta, add_one_cpu);
  fe::library::define("mylib::scale_out(Tensor x, Tensor(a1!) out) -> Tensor", scale_out_meta, scale_out_cpu);
  fe::library::define("my_custom_library::custom_op(Tensor input) -> Tensor", custom_op_meta, custom_op_cpu);
  fe::library::define("mylib::stack_rows(Tensor x, SymInt times) -> Tensor", stack_rows_meta, stack_rows_cpu);
  return true;
}();

}  // namespace
