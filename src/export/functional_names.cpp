// See functional_names.h. take_storage_nbytes_names mirrors ATen's computeStorageNbytes
// (EmptyTensor.cpp):
//   size = 1; for each dim: if (size_i == 0) return 0; size += stride_i * (size_i - 1);
//   return itemsize * (offset + size);
// on values that are ints or SymInts: an operation on two ints is C++ arithmetic (no node).
#include "export/functional_names.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "export/contiguity_trace.h"
#include "export/refs_trace.h"
#include "fakeexport/analysis/kernels.h"

namespace fe::detail {
namespace {

/// Symbolic to the trace: a SymInt whose value is not known without a guard.
bool symbolic(const SymInt& v) { return v.is_symbolic() && !v.maybe_int().has_value(); }

/// Takes the name of each node a check records; nothing else is traced, but for `read`: the
/// graph value of each size or stride a node reads, read first (a `sym_size` node where the size
/// is an intermediate's not read yet: triu's output size from its mask's `arange`).
struct NameTaker final : sym::SymTracer {
  Graph& g;
  const StorageRead* read = nullptr;
  explicit NameTaker(Graph& graph, const StorageRead* sizes_read = nullptr) : g(graph), read(sizes_read) {}
  void on_binary(const SymInt&) override {}
  void on_compare(Rel, const SymInt&, const SymInt&) override {}
  void on_dropped(std::string_view base, std::span<const SymInt> operands) override {
    if (read && *read)
      for (const SymInt& s : operands)
        if (symbolic(s)) (void)(*read)(s);
    (void)g.unique_name(base);
  }
  void on_contiguous(const void*, std::span<const SymInt>, std::span<const SymInt>) override {}
  void on_numel_read(const void*, const SymInt&) override {}
};

/// Argument i's metadata when it is a defined tensor; null otherwise.
const TensorMeta* defined_meta(std::span<const IValue> args, size_t i) {
  const Tensor* t = i < args.size() ? std::get_if<Tensor>(&args[i]) : nullptr;
  return t && t->defined() ? &t->meta() : nullptr;
}

/// Records the nodes an in-place op's meta takes on the meta copies; self has a symbolic size.
using InplaceRecorder = void (*)(NameTaker&, const TensorMeta& self, std::span<const IValue> args);

/// A number argument as a double: a float, or an int (a symbolic int is none of the values the
/// references compare it with).
std::optional<double> number_arg(std::span<const IValue> args, size_t i) {
  if (i >= args.size()) return std::nullopt;
  if (const double* d = std::get_if<double>(&args[i])) return *d;
  if (const SymInt* s = std::get_if<SymInt>(&args[i])) return static_cast<double>(s->maybe_int().value_or(0));
  return std::nullopt;
}

/// clamp_'s meta is torch._refs.clamp_ on the meta copy; clamp_min_'s and clamp_max_'s the same
/// with one bound. A float bound of an integral self promotes (convert_element_type first): not
/// modelled.
template <bool Lo, bool Hi>
void record_clamp_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  if (args.size() < 1 + Lo + Hi) return;
  const auto bound = [&](bool has, size_t i) { return has && !std::holds_alternative<None>(args[i]); };
  const auto is_float = [&](bool has, size_t i) { return has && std::holds_alternative<double>(args[i]); };
  if (!is_floating(self.dtype) && (is_float(Lo, 1) || is_float(Hi, Lo ? 2 : 1))) return;
  (void)record_refs_clamp_(names, self, bound(Lo, 1), bound(Hi, Lo ? 2 : 1));
}

/// Self-only metas: torch._decomp's inplace_op over a reference (leaky_relu_, hardtanh_, silu_'s
/// meta), a reference's in-place wrapper (elu_, the unary ops: one prim each, sigmoid_'s four).
template <bool (*Record)(sym::SymTracer&, const TensorMeta&)>
void record_self(NameTaker& names, const TensorMeta& self, std::span<const IValue>) {
  (void)Record(names, self);
}
template <bool Sigmoid>
void record_unary_(NameTaker& names, const TensorMeta& self, std::span<const IValue>) {
  (void)record_refs_unary_(names, self, Sigmoid);
}

void record_pow_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  const TensorMeta* exponent = defined_meta(args, 1);
  const std::optional<double> number = number_arg(args, 1);
  if (exponent || number) (void)record_refs_pow_(names, self, exponent, number.value_or(0));
}

void record_floor_divide_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  if (const TensorMeta* other = defined_meta(args, 1)) (void)record_refs_floor_divide_(names, self, *other);
}

void record_triu_(NameTaker& names, const TensorMeta& self, std::span<const IValue>) {
  (void)record_refs_triu_(names, self);
}

void record_addcmul_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  const TensorMeta *t1 = defined_meta(args, 1), *t2 = defined_meta(args, 2);
  if (t1 && t2) (void)record_meta_addcmul_(names, self, *t1, *t2);
}

/// masked_fill_.Tensor's meta is torch._refs.masked_fill_ on the meta copies.
void record_masked_fill_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  const TensorMeta *mask = defined_meta(args, 1), *value = defined_meta(args, 2);
  if (mask && value) (void)record_refs_masked_fill_(names, self, *mask, *value);
}

/// copy_: `src.to(self)` of another dtype is torch._decomp's _to_copy, prims.convert_element_type,
/// whose meta keeps a dense input's strides (asking _is_non_overlapping_and_dense_or_false) and
/// allocates with empty_strided (check_size_nonnegative, computeStorageNbytes).
void record_copy_(NameTaker& names, const TensorMeta& self, std::span<const IValue> args) {
  const TensorMeta* src = defined_meta(args, 1);
  if (!src) return;
  const TensorMeta& from = *src;
  const auto convert = [&] {
    if (!record_refs_non_overlapping_and_dense(names, from.sizes, from.strides)) return;  // not modelled
    for (const SymInt& s : from.sizes)
      if (symbolic(s)) (void)names.g.unique_name("ge");
    TensorMeta converted = from;
    converted.dtype = self.dtype;
    converted.storage_offset = SymInt(0);
    take_storage_nbytes_names(names.g, converted);
  };
  (void)record_meta_copy_(names, self, from, from.dtype != self.dtype ? std::function<void()>(convert) : nullptr);
}

/// The recorder of an in-place op whose meta is traced on the meta copies; null for the others.
InplaceRecorder inplace_recorder(std::string_view op) {
  static const std::unordered_map<std::string_view, InplaceRecorder> table = {
      {"aten::clamp_.default", record_clamp_<true, true>},
      {"aten::clamp_min_.default", record_clamp_<true, false>},
      {"aten::clamp_max_.default", record_clamp_<false, true>},
      {"aten::leaky_relu_.default", record_self<record_refs_leaky_relu_>},
      {"aten::hardtanh_.default", record_self<record_refs_hardtanh_>},
      {"aten::elu_.default", record_self<record_refs_elu_>},
      {"aten::silu_.default", record_self<record_meta_silu_>},
      {"aten::exp_.default", record_unary_<false>},
      {"aten::log_.default", record_unary_<false>},
      {"aten::log1p_.default", record_unary_<false>},
      {"aten::sqrt_.default", record_unary_<false>},
      {"aten::rsqrt_.default", record_unary_<false>},
      {"aten::sin_.default", record_unary_<false>},
      {"aten::cos_.default", record_unary_<false>},
      {"aten::tanh_.default", record_unary_<false>},
      {"aten::erf_.default", record_unary_<false>},
      {"aten::reciprocal_.default", record_unary_<false>},
      {"aten::abs_.default", record_unary_<false>},
      {"aten::neg_.default", record_unary_<false>},
      {"aten::sigmoid_.default", record_unary_<true>},
      {"aten::pow_.Scalar", record_pow_},
      {"aten::pow_.Tensor", record_pow_},
      {"aten::floor_divide_.Tensor", record_floor_divide_},
      {"aten::triu_.default", record_triu_},
      {"aten::tril_.default", record_triu_},
      {"aten::addcmul_.default", record_addcmul_},
      {"aten::copy_.default", record_copy_},
      {"aten::masked_fill_.Tensor", record_masked_fill_}};
  const auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

bool ends_in_contiguous(const OpDef& op) {
  static const std::unordered_set<std::string_view> refs = {
      "aten::triu.default",       "aten::tril.default",      "aten::renorm.default",
      "aten::diag_embed.default", "aten::index_add.default", "aten::index_copy.default"};
  return refs.count(op.qualified) != 0;
}

/// Whether `out` is one of `inputs` itself (a no-op `to`): no new FunctionalTensor wraps it.
bool returns_input(std::span<const IValue> inputs, const Tensor& out) {
  for (const IValue& v : inputs)
    if (const Tensor* t = std::get_if<Tensor>(&v); t && t->defined() && t->impl() == out.impl()) return true;
  return false;
}

/// The (self, dim, index, source) arguments of index_add, index_copy and scatter: self and index
/// defined tensors, dim an int as given (not wrapped), source a defined tensor or null.
struct DimIndexArgs {
  const Tensor* self;
  int64_t dim;
  const Tensor* index;
  const Tensor* source;
};
std::optional<DimIndexArgs> dim_index_args(std::span<const IValue> args) {
  if (args.size() < 4) return std::nullopt;
  const Tensor* self = std::get_if<Tensor>(&args[0]);
  const SymInt* dim = std::get_if<SymInt>(&args[1]);
  const Tensor* index = std::get_if<Tensor>(&args[2]);
  const Tensor* source = std::get_if<Tensor>(&args[3]);
  if (!self || !dim || !index || !self->defined() || !index->defined() || !dim->maybe_int()) return std::nullopt;
  return DimIndexArgs{self, *dim->maybe_int(), index, source && source->defined() ? source : nullptr};
}

/// torch._decomp's _index_add: torch._check(tensor_size == index_size), an `eq` when symbolic.
/// Returns the source tensor (null when the arguments are not as expected).
const Tensor* index_add_check(Graph& g, std::span<const IValue> args) {
  const auto a = dim_index_args(args);
  if (!a || !a->source) return nullptr;
  const Tensor* index = a->index;
  const Tensor* source = a->source;
  int64_t d = a->dim;
  if (d < 0) d += std::max<int64_t>(source->dim(), 1);
  const SymInt index_size = index->dim() == 1 ? index->sizes()[0] : SymInt(1);
  const SymInt tensor_size = source->dim() > 0 && d >= 0 && d < source->dim() ? source->sizes()[d] : SymInt(1);
  if (symbolic(index_size) || symbolic(tensor_size)) (void)g.unique_name("eq");
  return source;
}

/// torch._decomp's _index_copy (index_copy_'s meta on the meta copies, index_copy's
/// decomposition): sym_eq of x's and the source's shapes without `dim` (an `eq` per symbolic pair,
/// an `and_` from the first SymBool on, reduced from True), then num_indices == source.size(dim).
void index_copy_checks(Graph& g, std::span<const IValue> args) {
  const auto a = dim_index_args(args);
  if (!a || !a->source || a->self->dim() == 0 || a->source->dim() != a->self->dim()) return;
  const Tensor *x = a->self, *index = a->index, *source = a->source;
  const int64_t d = a->dim < 0 ? a->dim + x->dim() : a->dim;
  bool acc_symbolic = false;
  for (int64_t i = 0; i < x->dim(); ++i) {
    if (i == d) continue;
    const bool eq = symbolic(x->sizes()[i]) || symbolic(source->sizes()[i]);
    if (eq) (void)g.unique_name("eq");
    if (eq || acc_symbolic) (void)g.unique_name("and_");
    acc_symbolic |= eq;
  }
  const bool index_symbolic = std::any_of(index->sizes().begin(), index->sizes().end(), symbolic);
  if (index_symbolic || symbolic(source->sizes()[d])) (void)g.unique_name("eq");
}

/// scatter_'s meta (meta_scatter_ on the meta copies): scatter_gather_dtype_check's
/// guard_or_true(index.numel() != 0) (c10's numel of the index copy, then `ne`),
/// scatter_shape_check's guard_or_false(index.numel() == 0) (`eq`), then
/// torch._check(index.size(d) <= self.size(d)) per d != dim and, with a src tensor,
/// `index.size(d) <= src.size(d)` per d: each a node when symbolic.
void scatter_checks(Graph& g, std::span<const IValue> args) {
  const auto a = dim_index_args(args);
  if (!a) return;
  const Tensor *self = a->self, *index = a->index, *src = a->source;
  NameTaker names{g};
  record_numel_product(names, index->meta().sizes);
  bool numel_symbolic = false;
  int64_t numel = 1;
  for (const SymInt& s : index->sizes()) {
    numel_symbolic |= symbolic(s);
    numel *= s.hint();
  }
  if (numel_symbolic) (void)g.unique_name("ne");
  if (numel_symbolic) (void)g.unique_name("eq");
  if (numel == 0) return;
  const int64_t dims = std::max<int64_t>(self->dim(), 1);
  const int64_t d_skip = a->dim < 0 ? a->dim + dims : a->dim;
  // ensure_nonempty_size: a 0-dim tensor's size is 1.
  const auto size = [](const Tensor& t, int64_t d) { return t.dim() == 0 ? SymInt(1) : t.sizes()[d]; };
  if (std::max<int64_t>(index->dim(), 1) != dims) return;  // PyTorch raises
  for (int64_t d = 0; d < dims; ++d)
    if (d != d_skip && (symbolic(size(*index, d)) || symbolic(size(*self, d)))) (void)g.unique_name("le");
  if (!src || std::max<int64_t>(src->dim(), 1) != dims) return;
  for (int64_t d = 0; d < dims; ++d)
    if (symbolic(size(*index, d)) || symbolic(size(*src, d))) (void)g.unique_name("le");
}

}  // namespace

bool has_symbolic_size(const TensorMeta& m) { return std::any_of(m.sizes.begin(), m.sizes.end(), symbolic); }

void take_storage_nbytes_names(Graph& g, const TensorMeta& m, const StorageRead& read) {
  NameTaker names{g, read ? &read : nullptr};
  record_storage_nbytes(names, m.sizes, m.strides, m.storage_offset, itemsize(m.dtype));
}

void take_wrapped_input_names(Graph& g, const TensorMeta& m) {
  for (const SymInt& d : m.sizes)
    if (symbolic(d)) (void)g.unique_name("sym_size_int");
  take_storage_nbytes_names(g, m);
}

bool FunctionalNames::decomposes_here(const OpDef& op) const {
  constexpr std::string_view ns = "aten::";
  const std::string_view q = op.qualified;
  return q.starts_with(ns) &&
         analysis::kernel_for(q.substr(ns.size()), "CPU") == analysis::KernelKind::CompositeImplicit;
}

void FunctionalNames::before_decomposition(const OpDef& op, std::span<const IValue> args) {
  if (op.qualified == "aten::zeros.default" || op.qualified == "aten::ones.default") {
    if (const auto* shape = args.empty() ? nullptr : std::get_if<std::vector<SymInt>>(&args[0]))
      for (const SymInt& length : *shape)
        if (symbolic(length)) (void)graph_->unique_name("ge");
    return;
  }
  // torch._refs.empty_like with preserve_format: the permutation of self's dims by stride.
  if (op.qualified == "aten::empty_like.default" && args.size() >= 6) {
    const Tensor* self = std::get_if<Tensor>(&args[0]);
    const auto* format = std::get_if<MemoryFormat>(&args[5]);
    if (!self || !self->defined() || (format && *format != MemoryFormat::Preserve)) return;
    NameTaker names{*graph_};
    record_refs_output_perm(names, self->meta().sizes, self->meta().strides);
    return;
  }
  if (op.qualified == "aten::index_add.default") index_add_check(*graph_, args);
  if (op.qualified == "aten::index_copy.default") index_copy_checks(*graph_, args);
}

void FunctionalNames::wrapped(const OpDef& op, std::span<const IValue> args, std::span<const Tensor> outs) {
  if (op.qualified == "aten::_unsafe_view.default" && args.size() >= 2) {
    const Tensor* self = std::get_if<Tensor>(&args[0]);
    const auto* shape = std::get_if<std::vector<SymInt>>(&args[1]);
    if (self && shape && self->defined() && has_symbolic_size(self->meta())) {
      c10_numel(*self);
      NameTaker names{*graph_};
      record_unsafe_view_shape(names, self->meta().sizes, self->meta().strides, *shape);
    }
  }
  if (op.decomp && table_ && table_->count(&op) && ends_in_contiguous(op) && outs.size() == 1 && outs[0].defined() &&
      has_symbolic_size(outs[0].meta())) {
    NameTaker names{*graph_, &read_};
    record_contiguity_check(names, outs[0].meta().sizes, outs[0].meta().strides, strides_read_, true, read_);
  }
  if (&op == deferred_) return;  // an in-place op's functional form: its self is wrapped instead
  const Tensor* self = args.empty() ? nullptr : std::get_if<Tensor>(&args[0]);
  if (self && self->defined())
    for (size_t k = 0; k < outs.size(); ++k)
      if (outs[k].defined() && outs[k].impl()->view_base && !returns_input(args, outs[k]))
        made_views_[outs[k].impl()] = {outs[k], *self,
                                       ViewStep{&op, {args.begin(), args.end()}, outs.size() > 1 ? static_cast<int>(k) : -1}};
  for (const Tensor& out : outs)
    if (out.defined() && !returns_input(args, out)) take_storage_nbytes_names(*graph_, out.meta(), read_);
  // A view's result then gets its input's storage (return_and_correct_aliasing's
  // _functionalize_unsafe_set): C++ set_ checks `storage_offset >= 0`, a `ge` when symbolic.
  for (const Tensor& out : outs)
    if (out.defined() && out.impl()->view_base && !returns_input(args, out) && symbolic(out.meta().storage_offset))
      (void)graph_->unique_name("ge");
}

void FunctionalNames::composite(const OpDef& op, std::span<const IValue> args) {
  const Tensor* self = args.empty() ? nullptr : std::get_if<Tensor>(&args[0]);
  if (!self || !self->defined() || !has_symbolic_size(self->meta())) return;
  const auto format = [&](size_t i) {
    const auto* f = args.size() > i ? std::get_if<MemoryFormat>(&args[i]) : nullptr;
    return f ? *f : MemoryFormat::Contiguous;
  };
  const auto defined = [&](size_t i) {
    const auto* t = args.size() > i ? std::get_if<Tensor>(&args[i]) : nullptr;
    return t && t->defined();
  };
  const std::string_view q = op.qualified;
  // reshape_symint's fast path; Tensor::contiguous(); linear with a bias, unless 2-D (addmm).
  const bool asks = q == "aten::reshape.default" ||
                    (q == "aten::contiguous.default" && format(1) == MemoryFormat::Contiguous) ||
                    (q == "aten::linear.default" && defined(2) && self->dim() != 2);
  if (asks) c10_contiguity(*self);
  // max_pool1d's C++ checks its input's sizes are nonzero (size(1) and size(2) of a 3-D input,
  // size(0) and size(1) of a 2-D one: a `ne` each when symbolic), then asks its numel.
  if (q == "aten::max_pool1d.default" && (self->dim() == 2 || self->dim() == 3)) {
    for (int64_t d = self->dim() - 2; d < self->dim(); ++d)
      if (symbolic(self->meta().sizes[static_cast<size_t>(d)])) (void)graph_->unique_name("ne");
    c10_numel(*self);
  }
}

void FunctionalNames::contiguity_asked(const Tensor& t) {
  if (t.defined() && has_symbolic_size(t.meta())) c10_contiguity(t);
}

void FunctionalNames::refs_contiguity_asked(const Tensor& r) {
  if (!r.defined() || !has_symbolic_size(r.meta())) return;
  NameTaker names{*graph_};
  record_contiguity_check(names, r.meta().sizes, r.meta().strides, strides_read_, true, read_);
}

void FunctionalNames::refs_numel_compared(const Tensor& t) {
  if (!t.defined() || !has_symbolic_size(t.meta())) return;
  if (numel_known_.insert(t.impl()).second) {
    held_.push_back(t);
    (void)graph_->unique_name("sym_numel_default");
  }
  (void)graph_->unique_name("eq");
}

void FunctionalNames::broadcast_shapes(std::span<const std::span<const SymInt>> shapes) {
  NameTaker names{*graph_};
  record_broadcast_shapes(names, shapes);
}

void FunctionalNames::view_shape_computed(const Tensor& self, std::span<const SymInt> shape) {
  if (!self.defined() || !has_symbolic_size(self.meta())) return;
  // A FakeTensor's numel is read (a sym_numel node) where infer_size first compares it.
  const bool fake = fake_numel();
  const bool numel_read = fake && numel_known_.insert(self.impl()).second;
  if (fake) held_.push_back(self);
  else c10_numel(self);
  NameTaker names{*graph_};
  record_unsafe_view_shape(names, self.meta().sizes, self.meta().strides, shape, numel_read);
}

bool FunctionalNames::fake_numel() const { return in_cpp_functionalization() || beneath_functional_level(); }

void FunctionalNames::numel_compared(const Tensor& t) {
  if (!t.defined() || !has_symbolic_size(t.meta())) return;
  c10_numel(t);
  (void)graph_->unique_name("eq");
}

void FunctionalNames::c10_numel(const Tensor& t) {
  if (!numel_known_.insert(t.impl()).second) return;
  held_.push_back(t);
  NameTaker names{*graph_};
  record_numel_product(names, t.meta().sizes);
}

void FunctionalNames::c10_contiguity(const Tensor& t) {
  if (!contiguity_known_.insert(t.impl()).second) return;
  held_.push_back(t);
  // Under C++ functionalization (or beneath the level) the numel is the FakeTensor's own, read as
  // a sym_numel node.
  const bool numel_read = fake_numel() && numel_known_.insert(t.impl()).second;
  c10_numel(t);
  NameTaker names{*graph_};
  record_contiguity_check(names, t.meta().sizes, t.meta().strides, strides_read_, numel_read, read_);
}

void FunctionalNames::mutation(const OpDef& op, std::span<const IValue> args) {
  // C++ functionalization's to_meta of every tensor argument, a list's included.
  const auto to_meta = [&](const Tensor& t) {
    // A tensor of static sizes with a symbolic stride (`y[:1, :1]` of a dynamic y) has its
    // storage size computed too: a `mul` for that stride times 0.
    const auto any_symbolic = [](std::span<const SymInt> v) { return std::any_of(v.begin(), v.end(), symbolic); };
    if (!t.defined() || !(any_symbolic(t.meta().sizes) || any_symbolic(t.meta().strides))) return;
    // The meta copy's allocation: check_size_nonnegative's `>= 0` per symbolic size, its storage size.
    // A size or stride first met here (a view replayed by the sync before it, whose sizes a cache
    // hit made new SymNodes) is read where the check first uses it.
    for (const SymInt& s : t.meta().sizes)
      if (symbolic(s)) {
        (void)read_(s);
        (void)graph_->unique_name("ge");
      }
    // to_meta is empty_strided on meta: the copy's storage offset is 0, never read.
    TensorMeta copy = t.meta();
    copy.storage_offset = SymInt(0);
    take_storage_nbytes_names(*graph_, copy, read_);
  };
  for (const IValue& v : args) {
    if (const Tensor* t = std::get_if<Tensor>(&v)) to_meta(*t);
    if (const auto* list = std::get_if<std::vector<Tensor>>(&v))
      for (const Tensor& t : *list) to_meta(t);
  }
  // index_add_'s meta is torch._decomp's _index_add on the meta copies: its check, then
  // `tensor * alpha` by torch._refs.mul when alpha != 1.
  if (op.qualified == "aten::index_add_.default") {
    const Tensor* source = index_add_check(*graph_, args);
    const IValue* alpha = args.size() >= 5 ? &args[4] : nullptr;
    const bool one = !alpha || std::holds_alternative<None>(*alpha) ||
                     (std::holds_alternative<double>(*alpha) && std::get<double>(*alpha) == 1.0) ||
                     (std::holds_alternative<SymInt>(*alpha) && std::get<SymInt>(*alpha).maybe_int() == 1);
    if (!source || one || !has_symbolic_size(source->meta())) return;
    NameTaker names{*graph_};
    (void)record_refs_mul_number(names, source->meta());
    return;
  }
  // index_copy_'s meta is torch._decomp's index_copy_ on the meta copies.
  if (op.qualified == "aten::index_copy_.default") {
    index_copy_checks(*graph_, args);
    return;
  }
  if (op.qualified == "aten::scatter_.value" || op.qualified == "aten::scatter_.src") {
    scatter_checks(*graph_, args);
    return;
  }
  // The in-place ops whose meta is a reference (or torch._decomp's) run on the meta copies: one
  // recorder per op, called when self has a symbolic size.
  if (const InplaceRecorder record = inplace_recorder(op.qualified)) {
    const TensorMeta* self = defined_meta(args, 0);
    if (!self || !has_symbolic_size(*self)) return;
    NameTaker names{*graph_};
    record(names, *self, args);
    return;
  }
  // The in-place ops whose meta is Python's (meta_masked_fill_, meta_binop_inplace[_alpha],
  // meta_div_inplace): check_inplace_broadcast(self.shape, other.shape) when other is a tensor.
  static const std::unordered_set<std::string_view> broadcast_checked = {
      "aten::masked_fill_.Scalar", "aten::mul_.Tensor",  "aten::logical_and_.default", "aten::logical_or_.default",
      "aten::logical_xor_.default", "aten::div_.Tensor", "aten::add_.Tensor",         "aten::sub_.Tensor"};
  if (args.size() < 2 || !broadcast_checked.count(op.qualified)) return;
  const Tensor* self = std::get_if<Tensor>(&args[0]);
  const Tensor* other = std::get_if<Tensor>(&args[1]);
  if (!self || !self->defined() || (other && !other->defined())) return;
  // A number `other` reaches the Python meta as a 0-dim tensor (add_.Tensor(t, 3)).
  NameTaker names{*graph_};
  const std::span<const SymInt> shapes[] = {self->meta().sizes, other ? std::span<const SymInt>(other->meta().sizes)
                                                                      : std::span<const SymInt>()};
  record_broadcast_shapes(names, shapes);
}

}  // namespace fe::detail
