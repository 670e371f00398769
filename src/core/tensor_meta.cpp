#include "fakeexport/core/tensor_meta.h"

#include <algorithm>
#include <numeric>

#include "fakeexport/core/error.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {

int64_t checked_mul(int64_t a, int64_t b, std::string_view what) {
  int64_t r;
  FE_CHECK(!__builtin_mul_overflow(a, b, &r), ShapeError, what, ": int64 overflow computing ", a, " * ", b);
  return r;
}

namespace {
// Facts provable without a guard (PyTorch's definitely_true / size-oblivious checks): a symbolic
// size never equals 0 or 1 here, since dynamic dims are 0/1-specialized and ranged [2, oo).
bool known_eq(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() == b.hint();
  return a.same_as(b) || statically_known_true(sym_eq(a, b));
}
// a * b without reporting it to a tracer: layout checks are not user arithmetic (PyTorch computes
// them in C++, and records its own contiguity check only where export traces it, see
// Tracer::on_contiguous).
SymInt untraced_mul(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() * b.hint();
  sym::ShapeEnv* env = (a.is_symbolic() ? a : b).node()->env;
  return env->make(a.expr() * b.expr(), a.hint() * b.hint());
}
}  // namespace

SymInt TensorMeta::numel() const {
  int64_t n = 1;
  bool symbolic = false;
  for (const SymInt& s : sizes) {
    n = checked_mul(n, s.hint(), "numel");
    symbolic |= s.is_symbolic();
  }
  if (!symbolic) return n;
  SymInt r = 1;
  for (const SymInt& s : sizes) r = r * s;
  return r;
}

// From the hints: storage size is a memory estimate, never a reason to specialize a shape.
int64_t TensorMeta::storage_nbytes() const {
  for (const SymInt& s : sizes)
    if (s.hint() == 0) return 0;
  int64_t len = 1 + storage_offset.hint();
  for (size_t i = 0; i < sizes.size(); ++i)
    len += checked_mul(sizes[i].hint() - 1, strides[i].hint(), "storage size");
  return checked_mul(len, itemsize(dtype), "storage bytes");
}

bool TensorMeta::is_contiguous() const {
  for (const SymInt& s : sizes)
    if (known_eq(s, 0)) return true;  // empty tensors are contiguous whatever their strides
  SymInt expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (known_eq(sizes[i], 1)) continue;
    if (!known_eq(strides[i], expected)) return false;
    expected = untraced_mul(expected, sizes[i]);
  }
  return true;
}

bool TensorMeta::is_channels_last_contiguous() const {
  if (sizes.size() != 4) return false;
  for (const SymInt& s : sizes)
    if (known_eq(s, 0)) return true;
  SymInt expected = 1;
  for (int d : {1, 3, 2, 0}) {
    if (known_eq(sizes[d], 1)) continue;
    if (!known_eq(strides[d], expected)) return false;
    expected = untraced_mul(expected, sizes[d]);
  }
  return true;
}

bool TensorMeta::is_non_overlapping_and_dense() const {
  if (is_contiguous()) return true;
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a].hint() < 2) return false;
    if (sizes[b].hint() < 2) return true;
    return strides[a].hint() < strides[b].hint();
  });
  SymInt expected = 1;
  for (size_t d : perm) {
    if (known_eq(sizes[d], 1)) continue;
    if (!known_eq(strides[d], expected)) return false;
    expected = untraced_mul(expected, sizes[d]);
  }
  return true;
}

bool operator==(const TensorMeta& a, const TensorMeta& b) {
  auto same = [](IntSpan x, IntSpan y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!x[i].same_as(y[i])) return false;
    return true;
  };
  return same(a.sizes, b.sizes) && same(a.strides, b.strides) && a.storage_offset.same_as(b.storage_offset) &&
         a.dtype == b.dtype && a.device == b.device && a.layout == b.layout && a.requires_grad == b.requires_grad;
}

std::string TensorMeta::annotation() const {
  std::string s(dtype_short_name(dtype));
  s += '[';
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += sizes[i].str();
  }
  return s + ']';
}

DimVector contiguous_strides(IntSpan sizes) {
  DimVector st(sizes.size(), SymInt(1));
  int64_t acc = 1;
  size_t i = sizes.size();
  for (; i-- > 0;) {
    if (sizes[i].is_symbolic()) break;
    st[i] = acc;
    acc = checked_mul(acc, std::max<int64_t>(sizes[i].hint(), 1), "contiguous strides");
  }
  if (i == static_cast<size_t>(-1)) return st;
  // Symbolic tail: stride[i] = prod(max(size[j], 1)) for j > i; symbolic sizes are >= 2.
  // PyTorch multiplies by sym_max(size, 1): a plain size symbol is >= 2 so Max folds away, while
  // `s1 - 1` stays `Max(1, s1 - 1)`.
  SymInt sacc = acc;
  for (++i; i-- > 0;) {
    st[i] = sacc;
    const SymInt& s = sizes[i];
    // Over data (u0, CeilToInt(...)) sympy has no positivity to fold Max with, whatever the
    // runtime assertions say: Max(1, CeilToInt(...)) stays.
    sacc = sacc * (!s.is_symbolic()                                             ? SymInt(std::max<int64_t>(s.hint(), 1))
                   : !sym::has_unbacked(s) && statically_known_true(sym_ge(s, 1)) ? s
                                                                                 : sym_max(s, 1));
  }
  return st;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  FE_CHECK(dim >= -n && dim < n, IndexError, op, ": Dimension out of range (expected to be in range of [", -n,
           ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

TensorMeta make_contiguous(IntSpan sizes, DType dtype, Device device, bool requires_grad) {
  TensorMeta m;
  m.sizes = DimVector(sizes);
  m.strides = contiguous_strides(sizes);
  m.dtype = dtype;
  m.device = device;
  m.requires_grad = requires_grad;
  return m;
}

}  // namespace fe
