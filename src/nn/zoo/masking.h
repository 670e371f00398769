// transformers.masking_utils (5.12) as torch.export records it for the sdpa attention: mask
// functions over broadcast index tensors, combined with and_masks, materialized by sdpa_mask.
// Shared by every family; under export the causal mask is never skipped (is_tracing).
#pragma once
#include <functional>
#include <string_view>
#include <vector>

#include "fakeexport/core/tensor.h"

namespace fe::zoo::masks {

/// The index tensors a mask function sees: batch [B,1,1,1], head [1,1,1,1], q [1,1,Q,1], kv [1,1,1,K].
struct Indices {
  Tensor batch, head, q, kv;
};
using MaskFunction = std::function<Tensor(const Indices&)>;

/// A `:` of Python indexing at `dim` (x[None, :]): no op unless the size may exceed the slice's end
/// (applySlice skips a slice when statically_known_true(length <= INT64_MAX), which fails for a
/// size without upper bound), then slice(x, dim, 0, INT64_MAX).
Tensor full_slice(const Tensor& x, int64_t dim);
/// Python's `x[items]` over full slices, None and small integers, one character each
/// (`x[:, :, None, :, :]` is "::N::", `x[:, 0]` ":0"): each `:` as full_slice, None as unsqueeze,
/// an integer as select after its bounds check; an alias when nothing changed.
Tensor getitem(const Tensor& x, std::string_view items);
/// sdpa_attention_forward's `query.shape[2] > 1` (is_causal), a comparison export records.
void is_causal_probe(const Tensor& query);
/// x[:, ..., :stop] (`:` before `dim`) as Python indexing records it: slices that are no-ops
/// skipped, and an alias when all are (position_ids[:, :1] of one token).
Tensor leading_slice(const Tensor& x, int64_t dim, int64_t stop);

/// kv <= q.
MaskFunction causal();
/// q >= 0: every position (bidirectional_mask_function, index-based).
MaskFunction bidirectional();
/// kv > q - window (an overlay for a causal mask).
MaskFunction sliding_window_overlay(int64_t window);
/// packed[batch, q] == packed[batch, kv].
MaskFunction packed_sequence(const Tensor& packed);
/// padding_mask[batch, kv].
MaskFunction padding(const Tensor& padding_mask);
/// q.new_ones((), dtype=bool) & f1(...).to(device) & f2(...).to(device) ...
MaskFunction and_masks(std::vector<MaskFunction> fs);

/// find_packed_sequence_indices: (diff(position_ids, prepend=first - 1) != 1).cumsum(-1).
Tensor find_packed_sequence_indices(const Tensor& position_ids);

/// sdpa_mask: the function applied to the broadcast aranges (offsets added), expanded to
/// [batch, 1, q_length, kv_length]. `use_vmap` (a custom or/and mask function): vmapped over the
/// four aranges instead (nn/zoo/vmap.h), as export records it; outside a trace the broadcast
/// computes the same values.
/// `q_offset`: a tensor added to the query positions (a cache's length), else 0.
/// `allow_is_causal_skip`: _ignore_causal_mask_sdpa is asked (compares the padding mask's length).
Tensor sdpa_mask(const SymInt& batch, const SymInt& q_length, const SymInt& kv_length, const MaskFunction& fn,
                 const Tensor& padding_mask, Device device, bool use_vmap = false, const Tensor& q_offset = Tensor(),
                 bool allow_is_causal_skip = false);

/// create_causal_mask without a cache: the 2D attention_mask (may be undefined) as a padding mask,
/// or, without one, the packed-sequence mask from position_ids; `overlay`: an extra mask function
/// (create_sliding_window_causal_mask passes the sliding-window overlay).
Tensor create_causal_mask(const Tensor& inputs_embeds, const Tensor& attention_mask, const Tensor& position_ids,
                          const MaskFunction& overlay = nullptr);

/// create_causal_mask with a static cache (a decode step): the queries start at `past_seen` (the
/// cache's cumulative length, moved to the embeddings' device), the keys are the whole cache
/// (get_mask_sizes: max_cache_len, offset 0); no packed-sequence detection with a cache. `and_fn`:
/// and_mask_function (causal & and_fn, vmapped, as create_causal_mask_and).
Tensor create_causal_mask_cached(const Tensor& inputs_embeds, const Tensor& past_seen, int64_t max_cache_len,
                                 const MaskFunction& overlay = nullptr, const MaskFunction& and_fn = nullptr);

/// create_causal_mask(..., and_mask_function=f) without a cache: causal & f, vmapped (transformers
/// cannot tell a custom function is index-based); no packed-sequence detection (position_ids unread).
Tensor create_causal_mask_and(const Tensor& inputs_embeds, const Tensor& attention_mask, const MaskFunction& and_fn);

/// create_bidirectional_mask (encoders): the bidirectional function, and the 2D attention_mask (may be
/// undefined) as a padding mask; never skipped under export. With `encoder_hidden_states` (a
/// decoder's cross-attention) the keys are those states' positions.
Tensor create_bidirectional_mask(const Tensor& inputs_embeds, const Tensor& attention_mask,
                                 const Tensor& encoder_hidden_states = Tensor());

}  // namespace fe::zoo::masks
