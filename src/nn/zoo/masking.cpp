// See masking.h. Each function is written in the order transformers evaluates its Python, so the
// recorded ops (and their names) are the ones torch.export records.
#include "nn/zoo/masking.h"

#include <array>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/sym/shape_env.h"
#include "nn/zoo/vmap.h"

namespace fe::zoo::masks {

namespace {

/// statically_known_true(n <= stop): a constant compared, a symbol by its range's upper bound.
bool known_at_most(const SymInt& n, int64_t stop) {
  if (!n.is_symbolic()) return n.expect_int() <= stop;
  const sym::SymNode& s = *n.node();
  if (!s.env) return false;
  const int64_t hi = s.env->bound(s.env->replace(s.expr)).hi;
  return hi != sym::kPosInf && hi <= stop;
}

/// The tracer to report size arithmetic on `v` to: set while user code runs under a trace and `v`
/// is not yet known to be a constant (PyTorch does int arithmetic then, recording nothing).
sym::SymTracer* tracer_for(const SymInt& v) {
  return v.is_symbolic() && !v.maybe_int() ? v.node()->env->user_tracer() : nullptr;
}

/// applySlice's `length <= stop` on a symbolic length: a node torch.export records and drops.
void slice_check(const SymInt& length, int64_t stop) {
  if (sym::SymTracer* t = tracer_for(length)) {
    const SymInt operands[2] = {length, stop};
    t->on_aten_check("le", operands);
  }
}

}  // namespace

Tensor full_slice(const Tensor& x, int64_t dim) {
  slice_check(x.size(dim), INT64_MAX);
  return known_at_most(x.size(dim), INT64_MAX) ? x : x.slice(dim, 0);
}

Tensor leading_slice(const Tensor& x, int64_t dim, int64_t stop) {
  Tensor r = x;
  for (int64_t d = 0; d < dim; ++d) r = full_slice(r, d);
  slice_check(x.size(dim), stop);
  if (!known_at_most(x.size(dim), stop)) return r.slice(dim, 0, stop);
  // Every slice a no-op: THPVariable_getitem returns an alias, never the tensor itself.
  return r.is_same(x) ? alias(x) : r;
}

Tensor getitem(const Tensor& x, std::string_view items) {
  Tensor r = x;
  int64_t dim = 0;
  for (char c : items) {
    if (c == 'N') {
      r = r.unsqueeze(dim++);
    } else if (c == ':') {
      r = full_slice(r, dim++);
    } else {
      // An integer index (one digit): applySelect's bounds check `index in [-size, size)` as
      // recorded on a symbolic size: size > -index - 1, size > index, and their conjunction.
      FE_INTERNAL_ASSERT(c >= '0' && c <= '9', "getitem: item '", c, "' is not ':', 'N' or a digit");
      const int64_t index = c - '0';
      const SymInt size = r.size(dim);
      if (sym::SymTracer* t = tracer_for(size)) {
        const SymInt lo[2] = {size, -index - 1}, hi[2] = {size, index};
        t->on_aten_check("gt", lo);
        t->on_aten_check("gt", hi);
        t->on_aten_check("and_", {});
      }
      r = r.select(dim, index);
    }
  }
  return r.is_same(x) ? alias(x) : r;
}

void is_causal_probe(const Tensor& query) {
  const SymInt q_len = query.size(2);
  if (sym::SymTracer* t = tracer_for(q_len)) {
    const SymInt operands[2] = {q_len, 1};
    t->on_dropped("gt", operands);
  }
}

MaskFunction causal() {
  return [](const Indices& i) { return i.kv <= i.q; };
}

MaskFunction sliding_window_overlay(int64_t window) {
  return [window](const Indices& i) { return i.kv > (i.q - window); };
}

MaskFunction packed_sequence(const Tensor& packed) {
  return [packed](const Indices& i) {
    Tensor a = packed.index({i.batch, i.q});
    Tensor b = packed.index({i.batch, i.kv});
    return eq(a, b);
  };
}

MaskFunction padding(const Tensor& padding_mask) {
  return [padding_mask](const Indices& i) { return padding_mask.index({i.batch, i.kv}); };
}

MaskFunction and_masks(std::vector<MaskFunction> fs) {
  return [fs = std::move(fs)](const Indices& i) {
    Tensor result = i.q.new_ones({}, DType::Bool);
    for (const MaskFunction& f : fs) {
      Tensor m = f(i).to(result.device());
      result = result & m;
    }
    return result;
  };
}

Tensor find_packed_sequence_indices(const Tensor& position_ids) {
  // position_ids[:, :1] - 1, then diff with it prepended, != 1, cumsum.
  Tensor first = leading_slice(position_ids, 1, 1) - 1;
  Tensor d = diff(position_ids, 1, -1, first);
  return (d != 1).cumsum(-1);
}

Tensor sdpa_mask(const SymInt& batch, const SymInt& q_length, const SymInt& kv_length, const MaskFunction& fn,
                 const Tensor& padding_mask, Device device, bool use_vmap, const Tensor& q_offset,
                 bool allow_is_causal_skip) {
  if (sym::SymTracer* t = padding_mask.defined() ? tracer_for(kv_length) : nullptr) {
    // prepare_padding_mask: `kv_length + kv_offset - attention_mask.shape[-1] > 0` (an expression
    // that is 0, still traced); _ignore_causal_mask_sdpa: `padding_mask.shape[-1] > kv_length`.
    const SymInt operands[2] = {kv_length, padding_mask.size(-1)};
    t->on_dropped("add", std::span(operands, 1));
    t->on_dropped("sub", std::span(operands + 1, 1));
    t->on_dropped("gt", {});
    if (allow_is_causal_skip) t->on_dropped("gt", operands);
    t->on_inputs_unified();
  }
  MaskFunction f = padding_mask.defined() ? and_masks({fn, padding(padding_mask)}) : fn;
  const TensorOptions on{.device = device};
  Tensor batch_arange = arange(Scalar(batch), on);
  Tensor head_arange = arange(Scalar(int64_t{1}), on);
  Tensor q_arange = q_offset.defined() ? arange(Scalar(q_length), on) + q_offset : arange(Scalar(q_length), on) + 0;
  Tensor kv_arange = arange(Scalar(kv_length), on) + 0;
  if (use_vmap && active_trace_sink()) {
    // _vmap_expansion_sdpa: vmap over kv (innermost), q, head, batch (outermost, level 1).
    std::array<vmap::Level, 4> l;
    const std::array<const Tensor*, 4> aranges{&batch_arange, &head_arange, &q_arange, &kv_arange};
    for (size_t i = 0; i < 4; ++i) l[i] = vmap::enter(*aranges[i], static_cast<int64_t>(i) + 1);
    Tensor mask = f({l[0].logical, l[1].logical, l[2].logical, l[3].logical});
    for (size_t i = 4; i-- > 0;) mask = vmap::leave(mask, l[i]);
    return mask;
  }
  // _non_vmap_expansion_sdpa: [:, None, None, None], [None, :, None, None], ... (subscripts: a
  // strict export drops those the mask function does not read).
  Indices idx;
  {
    SubscriptScope subscript;
    idx.batch = full_slice(batch_arange, 0).unsqueeze(1).unsqueeze(2).unsqueeze(3);
    idx.head = full_slice(head_arange.unsqueeze(0), 1).unsqueeze(2).unsqueeze(3);
    idx.q = full_slice(q_arange.unsqueeze(0).unsqueeze(1), 2).unsqueeze(3);
    idx.kv = full_slice(kv_arange.unsqueeze(0).unsqueeze(1).unsqueeze(2), 3);
  }
  Tensor mask = f(idx);
  return mask.expand({batch, -1, q_length, kv_length});
}

MaskFunction bidirectional() {
  return [](const Indices& i) { return ge(i.q, 0); };
}

Tensor create_bidirectional_mask(const Tensor& inputs_embeds, const Tensor& attention_mask_in,
                                 const Tensor& encoder_hidden_states) {
  const Device device = inputs_embeds.device();
  Tensor attention_mask = attention_mask_in;
  if (attention_mask.defined() && attention_mask.dim() == 2) attention_mask = attention_mask.to(device, DType::Bool);
  const SymInt q_length = inputs_embeds.size(1);
  const SymInt kv_length = attention_mask.defined()           ? attention_mask.size(-1)
                           : encoder_hidden_states.defined() ? encoder_hidden_states.size(1)
                                                             : q_length;
  return sdpa_mask(inputs_embeds.size(0), q_length, kv_length, bidirectional(), attention_mask, device);
}

Tensor create_causal_mask(const Tensor& inputs_embeds, const Tensor& attention_mask_in, const Tensor& position_ids_in,
                          const MaskFunction& overlay) {
  const Device device = inputs_embeds.device();
  Tensor attention_mask = attention_mask_in;
  if (attention_mask.defined() && attention_mask.dim() == 2) attention_mask = attention_mask.to(device, DType::Bool);
  const SymInt q_length = inputs_embeds.size(1);
  const SymInt kv_length = attention_mask.defined() ? attention_mask.size(-1) : q_length;
  const SymInt batch = inputs_embeds.size(0);
  // Packed sequences are looked for only without a 2D mask (and without a cache).
  Tensor packed;
  if (position_ids_in.defined() && !attention_mask.defined()) {
    Tensor position_ids = position_ids_in;
    if (batch != position_ids.size(0)) position_ids = position_ids.expand({batch, -1});
    packed = find_packed_sequence_indices(position_ids);
  }
  MaskFunction fn = overlay ? and_masks({overlay, causal()}) : causal();
  if (packed.defined()) fn = and_masks({fn, packed_sequence(packed)});
  return sdpa_mask(batch, q_length, kv_length, fn, attention_mask, device, false, Tensor(),
                   /*allow_is_causal_skip=*/!packed.defined());
}

Tensor create_causal_mask_cached(const Tensor& inputs_embeds, const Tensor& past_seen, int64_t max_cache_len,
                                 const MaskFunction& overlay, const MaskFunction& and_fn) {
  const Device device = inputs_embeds.device();
  // _preprocess_mask_arguments: q_offset = past_key_values.get_seq_length().to(inputs_embeds.device)
  const Tensor q_offset = past_seen.to(device);
  MaskFunction fn = overlay ? and_masks({overlay, causal()}) : causal();
  if (and_fn) fn = and_masks({fn, and_fn});
  return sdpa_mask(inputs_embeds.size(0), inputs_embeds.size(1), SymInt(max_cache_len), fn, Tensor(), device,
                   /*use_vmap=*/static_cast<bool>(and_fn), q_offset);
}

Tensor create_causal_mask_and(const Tensor& inputs_embeds, const Tensor& attention_mask_in, const MaskFunction& and_fn) {
  const Device device = inputs_embeds.device();
  Tensor attention_mask = attention_mask_in;
  if (attention_mask.defined() && attention_mask.dim() == 2) attention_mask = attention_mask.to(device, DType::Bool);
  const SymInt q_length = inputs_embeds.size(1);
  const SymInt kv_length = attention_mask.defined() ? attention_mask.size(-1) : q_length;
  return sdpa_mask(inputs_embeds.size(0), q_length, kv_length, and_masks({causal(), and_fn}), attention_mask, device,
                   /*use_vmap=*/true);
}

}  // namespace fe::zoo::masks
