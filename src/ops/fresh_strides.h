// Object identity of the strides TensorIterator gives its outputs, which only a retrace observes.
#pragma once

namespace fe::ops {

/// While one is alive (run_decompositions' retrace), the symbolic strides TensorIterator computes
/// for an output (iter_output_strides) are SymNodes of their own, never an input's: PyTorch's
/// C++ computes them anew (and FakeTensor's cache hands back new ones), so the output's wrap
/// reads them from that output (`sym_stride(ge, 0)`), even where an input's stride has the same
/// value. Export's trace tracks no strides, so it keeps the cheaper shared objects.
class FreshIterStrides {
 public:
  FreshIterStrides();
  ~FreshIterStrides();
  FreshIterStrides(const FreshIterStrides&) = delete;
  FreshIterStrides& operator=(const FreshIterStrides&) = delete;
  static bool active();

 private:
  bool saved_;
};

}  // namespace fe::ops
