#include "ops/cpu_util.h"

namespace fe::ops::cpu {

double number_of(const IValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<SymInt>(&v)) return static_cast<double>(i->expect_int());
  if (auto* d = std::get_if<double>(&v)) return *d;
  throw InternalError("reference kernel: expected a number argument");
}

Operand make_operand(const IValue& v, IntSpan out_sizes) {
  Operand op;
  const Tensor* t = std::get_if<Tensor>(&v);
  if (!t) {
    op.number = number_of(v);
    op.strides = DimVector(out_sizes.size(), SymInt(0));
    return op;
  }
  const TensorMeta& m = t->meta();
  op.base = static_cast<const std::byte*>(t->data_ptr()) - m.storage_offset.expect_int() * itemsize(m.dtype);
  op.dtype = m.dtype;
  op.offset = m.storage_offset.expect_int();
  op.strides = DimVector(out_sizes.size(), SymInt(0));
  const size_t lead = out_sizes.size() - m.sizes.size();
  for (size_t d = 0; d < m.sizes.size(); ++d)
    if (m.sizes[d].expect_int() != 1) op.strides[lead + d] = m.strides[d];
  return op;
}

}  // namespace fe::ops::cpu
