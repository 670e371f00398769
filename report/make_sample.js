#!/usr/bin/env node
// Writes a synthetic `fakeexport report` data file for testing the viewer (report.html).
//   node make_sample.js [--small | --empty] [--clean] [OUT.json]
// default: a Llama-3.1-405B-shaped decoder (126 layers, ~9,000 nodes) split over 8 H200s, with a few
//          lint problems so every verdict table has rows (--clean drops them);
// --small: a one-layer decoder on a cpu with no spec: no times, no timeline, no hotspots, no roofline;
// --empty: three nodes, no devices, no modules besides the root: the sparsest data the page must take.
'use strict';
const fs = require('fs');
const path = require('path');

const argv = process.argv.slice(2);
const mode = argv.includes('--small') ? 'small' : argv.includes('--empty') ? 'empty' : 'big';
const clean = argv.includes('--clean');
const out = argv.find((a) => !a.startsWith('--')) || path.join(__dirname, 'sample.json');

// ---- tables -------------------------------------------------------------------------------------
const strings = [];
const stringIndex = new Map();
function S(s) {
  if (s == null) return -1;
  let i = stringIndex.get(s);
  if (i === undefined) { i = strings.length; strings.push(s); stringIndex.set(s, i); }
  return i;
}
const modules = { path: [], type: [], parent: [] };
const moduleIndex = new Map();
function M(p, type) {
  if (moduleIndex.has(p)) return moduleIndex.get(p);
  // parent: the nearest existing ancestor (containers such as model.layers are not modules here,
  // as in nn_module_stack, so layers.N hangs off model)
  let parent = -1;
  for (let q = p; parent < 0 && p !== '';) {
    const cut = q.lastIndexOf('.');
    q = cut < 0 ? '' : q.slice(0, cut);
    if (moduleIndex.has(q)) parent = moduleIndex.get(q);
  }
  const i = modules.path.length;
  modules.path.push(p); modules.type.push(type); modules.parent.push(parent);
  moduleIndex.set(p, i);
  return i;
}

const cols = ['name', 'op', 'kind', 'mod', 'dev', 'meta', 'src', 'flops', 'bytes', 'time', 'bound', 'transfer', 'args'];
const nodes = Object.fromEntries(cols.map((c) => [c, []]));
const outBytes = []; // bytes a node allocates (0 for views, in-place ops and placeholders)
const isView = [];
const phCategory = []; // 'param' | 'buffer' | 'input' | 'kv' for placeholders
const phBytes = [];
const nameCount = new Map();
function uniqueName(base) {
  const n = nameCount.get(base) || 0;
  nameCount.set(base, n + 1);
  return n ? `${base}_${n}` : base;
}

const ITEM = { bf16: 2, f32: 4, i64: 8, bool: 1 };
const meta = (dt, shape) => `${dt}[${shape.join(', ')}]`;
const numel = (shape) => shape.reduce((a, b) => a * b, 1);

let devices = [];
const EFF = { matmul: 0.72, attention: 0.55 }; // fraction of peak a kernel reaches (synthetic)
function cost(flops, bytes, kind, dev) {
  const d = devices[dev];
  if (!d || !d.peak_flops || (!flops && !bytes)) return [0, 0];
  const tc = flops / (d.peak_flops * (EFF[kind] || 0.5));
  const tm = bytes / (d.bandwidth * 0.85);
  return [Number(Math.max(tc, tm).toPrecision(4)), tc > tm ? 1 : 2];
}

function placeholder(name, mod, dev, dt, shape, category) {
  const i = nodes.name.length;
  nodes.name.push(uniqueName(name)); nodes.op.push(-1); nodes.kind.push(S('placeholder'));
  nodes.mod.push(mod); nodes.dev.push(dev); nodes.meta.push(meta(dt, shape)); nodes.src.push(-1);
  nodes.flops.push(0); nodes.bytes.push(0); nodes.time.push(0); nodes.bound.push(0);
  nodes.transfer.push(0); nodes.args.push([]);
  outBytes.push(0); isView.push(false); phCategory.push(category); phBytes.push(numel(shape) * ITEM[dt]);
  return { i, dt, shape, bytes: numel(shape) * ITEM[dt] };
}

// o: {base, op, kind, mod, dev, args: [value], dt, shape, flops, src, view, transfer}
function op(o) {
  const i = nodes.name.length;
  const bytesOut = o.view ? 0 : numel(o.shape) * ITEM[o.dt];
  const bytesIn = o.view ? 0 : o.args.reduce((a, v) => a + (v ? v.bytes : 0), 0);
  const flops = o.flops || 0;
  const [t, b] = cost(flops, bytesIn + bytesOut, o.kind, o.dev);
  nodes.name.push(uniqueName(o.base)); nodes.op.push(S(o.op)); nodes.kind.push(S(o.kind));
  nodes.mod.push(o.mod); nodes.dev.push(o.dev); nodes.meta.push(meta(o.dt, o.shape));
  nodes.src.push(S(o.src || null)); nodes.flops.push(flops); nodes.bytes.push(bytesIn + bytesOut);
  nodes.time.push(t); nodes.bound.push(b); nodes.transfer.push(o.transfer || 0);
  nodes.args.push(o.args.filter(Boolean).map((v) => v.i));
  outBytes.push(bytesOut); isView.push(!!o.view); phCategory.push(null); phBytes.push(0);
  return { i, dt: o.dt, shape: o.shape, bytes: numel(o.shape) * ITEM[o.dt] };
}

const SRC = (line, code) => `File: /usr/lib/python3/site-packages/transformers/models/llama/modeling_llama.py:${line} in forward, code: ${code}`;

// ---- the model ----------------------------------------------------------------------------------
function buildDecoder(cfg) {
  const { layers, hidden: H, heads, kvHeads, inter, vocab, seq: T, ndev, paramsAtRoot, kvCache } = cfg;
  const hd = H / heads;
  const devOfLayer = (L) => Math.min(ndev - 1, Math.floor((L * ndev) / layers));
  M('', 'LlamaForCausalLM');
  const mModel = M('model', 'LlamaModel');
  const mEmbed = M('model.embed_tokens', 'Embedding');
  const mRot = M('model.rotary_emb', 'LlamaRotaryEmbedding');
  const lm = [];
  for (let L = 0; L < layers; L++) {
    const p = `model.layers.${L}`;
    const m = { layer: M(p, 'LlamaDecoderLayer'), attn: M(`${p}.self_attn`, 'LlamaAttention') };
    for (const n of ['q_proj', 'k_proj', 'v_proj', 'o_proj']) m[n] = M(`${p}.self_attn.${n}`, 'Linear');
    m.mlp = M(`${p}.mlp`, 'LlamaMLP');
    for (const n of ['gate_proj', 'up_proj', 'down_proj']) m[n] = M(`${p}.mlp.${n}`, 'Linear');
    m.act = M(`${p}.mlp.act_fn`, 'SiLU');
    m.ln1 = M(`${p}.input_layernorm`, 'LlamaRMSNorm');
    m.ln2 = M(`${p}.post_attention_layernorm`, 'LlamaRMSNorm');
    lm.push(m);
  }
  const mNorm = M('model.norm', 'LlamaRMSNorm');
  const mHead = M('lm_head', 'Linear');
  const lastDev = devOfLayer(layers - 1);

  // Placeholders first, as torch.export orders them: parameters, buffers, user inputs.
  const pm = (m) => (paramsAtRoot ? 0 : m);
  const W = {};
  W.embed = placeholder('p_model_embed_tokens_weight', pm(mEmbed), 0, 'bf16', [vocab, H], 'param');
  const LW = [];
  for (let L = 0; L < layers; L++) {
    const d = devOfLayer(L); const m = lm[L]; const n = (s) => `p_model_layers_${L}_${s}_weight`;
    LW.push({
      q: placeholder(n('self_attn_q_proj'), pm(m.q_proj), d, 'bf16', [H, H], 'param'),
      k: placeholder(n('self_attn_k_proj'), pm(m.k_proj), d, 'bf16', [kvHeads * hd, H], 'param'),
      v: placeholder(n('self_attn_v_proj'), pm(m.v_proj), d, 'bf16', [kvHeads * hd, H], 'param'),
      o: placeholder(n('self_attn_o_proj'), pm(m.o_proj), d, 'bf16', [H, H], 'param'),
      gate: placeholder(n('mlp_gate_proj'), pm(m.gate_proj), d, 'bf16', [inter, H], 'param'),
      up: placeholder(n('mlp_up_proj'), pm(m.up_proj), d, 'bf16', [inter, H], 'param'),
      down: placeholder(n('mlp_down_proj'), pm(m.down_proj), d, 'bf16', [H, inter], 'param'),
      ln1: placeholder(n('input_layernorm'), pm(m.ln1), d, 'bf16', [H], 'param'),
      ln2: placeholder(n('post_attention_layernorm'), pm(m.ln2), d, 'bf16', [H], 'param'),
    });
  }
  W.norm = placeholder('p_model_norm_weight', pm(mNorm), lastDev, 'bf16', [H], 'param');
  W.head = placeholder('p_lm_head_weight', pm(mHead), lastDev, 'bf16', [vocab, H], 'param');
  W.invFreq = placeholder('b_model_rotary_emb_inv_freq', pm(mRot), 0, 'f32', [hd / 2], 'buffer');
  const cache = [];
  if (kvCache) {
    for (let L = 0; L < layers; L++) {
      const d = devOfLayer(L);
      cache.push({
        k: placeholder(`b_past_key_values_key_cache_${L}`, 0, d, 'bf16', [1, kvHeads, T, hd], 'kv'),
        v: placeholder(`b_past_key_values_value_cache_${L}`, 0, d, 'bf16', [1, kvHeads, T, hd], 'kv'),
      });
    }
  }
  const ids = placeholder('input_ids', 0, 0, 'i64', [1, T], 'input');
  const pos = placeholder('cache_position', 0, 0, 'i64', [T], 'input');

  const x3 = [1, T, H];
  let h = op({ base: 'embedding', op: 'aten.embedding.default', kind: 'memory', mod: mEmbed, dev: 0, args: [W.embed, ids], dt: 'bf16', shape: x3, src: 'File: /usr/lib/python3/site-packages/torch/nn/modules/sparse.py:190 in forward, code: return F.embedding(' });
  // rotary embedding and causal mask, computed once on device 0
  const r = (o) => op(Object.assign({ mod: mRot, dev: 0 }, o));
  const posf = op({ base: 'unsqueeze', op: 'aten.unsqueeze.default', kind: 'memory', mod: mModel, dev: 0, args: [pos], dt: 'i64', shape: [1, T], view: true, src: SRC(571, 'position_ids = cache_position.unsqueeze(0)') });
  const inv = r({ base: 'unsqueeze', op: 'aten.unsqueeze.default', kind: 'memory', args: [W.invFreq], dt: 'f32', shape: [1, hd / 2, 1], view: true, src: SRC(112, 'inv_freq_expanded = self.inv_freq[None, :, None].float()') });
  const invE = r({ base: 'expand', op: 'aten.expand.default', kind: 'memory', args: [inv], dt: 'f32', shape: [1, hd / 2, 1], view: true, src: SRC(112, 'inv_freq_expanded = ...expand(position_ids.shape[0], -1, 1)') });
  const posE = r({ base: '_to_copy', op: 'aten._to_copy.default', kind: 'elementwise', args: [posf], dt: 'f32', shape: [1, 1, T], src: SRC(113, 'position_ids_expanded = position_ids[:, None, :].float()') });
  const fr = r({ base: 'matmul', op: 'aten.matmul.default', kind: 'matmul', args: [invE, posE], dt: 'f32', shape: [1, hd / 2, T], flops: 2 * (hd / 2) * T, src: SRC(118, 'freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)') });
  const frT = r({ base: 'transpose', op: 'aten.transpose.int', kind: 'memory', args: [fr], dt: 'f32', shape: [1, T, hd / 2], view: true, src: SRC(118, 'freqs = (...).transpose(1, 2)') });
  const emb = r({ base: 'cat', op: 'aten.cat.default', kind: 'memory', args: [frT, frT], dt: 'f32', shape: [1, T, hd], src: SRC(119, 'emb = torch.cat((freqs, freqs), dim=-1)') });
  let cos = r({ base: 'cos', op: 'aten.cos.default', kind: 'elementwise', args: [emb], dt: 'bf16', shape: [1, T, hd], flops: T * hd, src: SRC(120, 'cos = emb.cos() * self.attention_scaling') });
  let sin = r({ base: 'sin', op: 'aten.sin.default', kind: 'elementwise', args: [emb], dt: 'bf16', shape: [1, T, hd], flops: T * hd, src: SRC(121, 'sin = emb.sin() * self.attention_scaling') });
  const ar = op({ base: 'arange', op: 'aten.arange.start', kind: 'none', mod: mModel, dev: 0, args: [], dt: 'i64', shape: [T], src: SRC(640, 'causal_mask = torch.arange(target_length, device=device)') });
  const mask0 = op({ base: 'gt', op: 'aten.gt.Tensor', kind: 'elementwise', mod: mModel, dev: 0, args: [ar, pos], dt: 'bool', shape: [T, T], flops: T * T, src: SRC(641, 'causal_mask *= torch.arange(...) > cache_position.reshape(-1, 1)') });
  let mask = op({ base: 'expand', op: 'aten.expand.default', kind: 'memory', mod: mModel, dev: 0, args: [mask0], dt: 'bool', shape: [1, 1, T, T], view: true, src: SRC(643, 'causal_mask = causal_mask[None, None, :, :].expand(input_tensor.shape[0], 1, -1, -1)') });

  let curDev = 0;
  const move = (v, mod, to, from) => op({ base: '_to_copy', op: 'aten._to_copy.default', kind: 'memory', mod, dev: to, args: [v], dt: v.dt, shape: v.shape, transfer: from + 1, src: 'File: /usr/lib/python3/site-packages/accelerate/hooks.py:165 in new_forward, code: args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)' });
  const rms = (x, w, mod, dev, line) => {
    const f = (o) => op(Object.assign({ mod, dev }, o));
    const n = numel(x.shape);
    const x32 = f({ base: '_to_copy', op: 'aten._to_copy.default', kind: 'elementwise', args: [x], dt: 'f32', shape: x.shape, src: SRC(line, 'hidden_states = hidden_states.to(torch.float32)') });
    const p2 = f({ base: 'pow', op: 'aten.pow.Tensor_Scalar', kind: 'elementwise', args: [x32], dt: 'f32', shape: x.shape, flops: n, src: SRC(line + 1, 'variance = hidden_states.pow(2).mean(-1, keepdim=True)') });
    const mean = f({ base: 'mean', op: 'aten.mean.dim', kind: 'reduction', args: [p2], dt: 'f32', shape: [1, T, 1], flops: n, src: SRC(line + 1, 'variance = hidden_states.pow(2).mean(-1, keepdim=True)') });
    const add = f({ base: 'add', op: 'aten.add.Tensor', kind: 'elementwise', args: [mean], dt: 'f32', shape: [1, T, 1], flops: T, src: SRC(line + 2, 'hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)') });
    const rs = f({ base: 'rsqrt', op: 'aten.rsqrt.default', kind: 'elementwise', args: [add], dt: 'f32', shape: [1, T, 1], flops: T, src: SRC(line + 2, 'hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)') });
    const mul = f({ base: 'mul', op: 'aten.mul.Tensor', kind: 'elementwise', args: [x32, rs], dt: 'f32', shape: x.shape, flops: n, src: SRC(line + 2, 'hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)') });
    const bf = f({ base: '_to_copy', op: 'aten._to_copy.default', kind: 'elementwise', args: [mul], dt: 'bf16', shape: x.shape, src: SRC(line + 3, 'return self.weight * hidden_states.to(input_dtype)') });
    return f({ base: 'mul', op: 'aten.mul.Tensor', kind: 'elementwise', args: [w, bf], dt: 'bf16', shape: x.shape, flops: n, src: SRC(line + 3, 'return self.weight * hidden_states.to(input_dtype)') });
  };
  const linear = (x, w, mod, dev, outF, code, line) => op({ base: 'linear', op: 'aten.linear.default', kind: 'matmul', mod, dev, args: [x, w], dt: 'bf16', shape: [1, T, outF], flops: 2 * T * w.shape[0] * w.shape[1], src: SRC(line, code) });

  for (let L = 0; L < layers; L++) {
    const d = devOfLayer(L); const m = lm[L]; const w = LW[L];
    if (d !== curDev) { // pipeline boundary: the hidden state, cos/sin and mask move to the next device
      h = move(h, m.layer, d, curDev); cos = move(cos, m.layer, d, curDev);
      sin = move(sin, m.layer, d, curDev); mask = move(mask, m.layer, d, curDev);
      curDev = d;
    }
    const a = (o) => op(Object.assign({ mod: m.attn, dev: d }, o));
    const x = rms(h, w.ln1, m.ln1, d, 72);
    const q = linear(x, w.q, m.q_proj, d, H, 'query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)', 277);
    const qv = a({ base: 'view', op: 'aten.view.default', kind: 'memory', args: [q], dt: 'bf16', shape: [1, T, heads, hd], view: true, src: SRC(277, 'query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const qt = a({ base: 'transpose', op: 'aten.transpose.int', kind: 'memory', args: [qv], dt: 'bf16', shape: [1, heads, T, hd], view: true, src: SRC(277, 'query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const k = linear(x, w.k, m.k_proj, d, kvHeads * hd, 'key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)', 278);
    const kv_ = a({ base: 'view', op: 'aten.view.default', kind: 'memory', args: [k], dt: 'bf16', shape: [1, T, kvHeads, hd], view: true, src: SRC(278, 'key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const kt = a({ base: 'transpose', op: 'aten.transpose.int', kind: 'memory', args: [kv_], dt: 'bf16', shape: [1, kvHeads, T, hd], view: true, src: SRC(278, 'key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const v = linear(x, w.v, m.v_proj, d, kvHeads * hd, 'value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)', 279);
    const vv = a({ base: 'view', op: 'aten.view.default', kind: 'memory', args: [v], dt: 'bf16', shape: [1, T, kvHeads, hd], view: true, src: SRC(279, 'value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const vt = a({ base: 'transpose', op: 'aten.transpose.int', kind: 'memory', args: [vv], dt: 'bf16', shape: [1, kvHeads, T, hd], view: true, src: SRC(279, 'value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)') });
    const cu = a({ base: 'unsqueeze', op: 'aten.unsqueeze.default', kind: 'memory', args: [cos], dt: 'bf16', shape: [1, 1, T, hd], view: true, src: SRC(160, 'cos = cos.unsqueeze(unsqueeze_dim)') });
    const su = a({ base: 'unsqueeze', op: 'aten.unsqueeze.default', kind: 'memory', args: [sin], dt: 'bf16', shape: [1, 1, T, hd], view: true, src: SRC(161, 'sin = sin.unsqueeze(unsqueeze_dim)') });
    const rope = (t, nh, line) => {
      const sh = [1, nh, T, hd]; const half = [1, nh, T, hd / 2]; const n = numel(sh);
      const m1 = a({ base: 'mul', op: 'aten.mul.Tensor', kind: 'elementwise', args: [t, cu], dt: 'bf16', shape: sh, flops: n, src: SRC(line, 'q_embed = (q * cos) + (rotate_half(q) * sin)') });
      const s1 = a({ base: 'slice', op: 'aten.slice.Tensor', kind: 'memory', args: [t], dt: 'bf16', shape: half, view: true, src: SRC(139, 'x1 = x[..., : x.shape[-1] // 2]') });
      const s2 = a({ base: 'slice', op: 'aten.slice.Tensor', kind: 'memory', args: [t], dt: 'bf16', shape: half, view: true, src: SRC(140, 'x2 = x[..., x.shape[-1] // 2 :]') });
      const ng = a({ base: 'neg', op: 'aten.neg.default', kind: 'elementwise', args: [s2], dt: 'bf16', shape: half, flops: n / 2, src: SRC(141, 'return torch.cat((-x2, x1), dim=-1)') });
      const ct = a({ base: 'cat', op: 'aten.cat.default', kind: 'memory', args: [ng, s1], dt: 'bf16', shape: sh, src: SRC(141, 'return torch.cat((-x2, x1), dim=-1)') });
      const m2 = a({ base: 'mul', op: 'aten.mul.Tensor', kind: 'elementwise', args: [ct, su], dt: 'bf16', shape: sh, flops: n, src: SRC(line, 'q_embed = (q * cos) + (rotate_half(q) * sin)') });
      return a({ base: 'add', op: 'aten.add.Tensor', kind: 'elementwise', args: [m1, m2], dt: 'bf16', shape: sh, flops: n, src: SRC(line, 'q_embed = (q * cos) + (rotate_half(q) * sin)') });
    };
    const qr = rope(qt, heads, 162);
    let kr = rope(kt, kvHeads, 163);
    let vr = vt;
    if (kvCache) {
      kr = a({ base: 'index_copy_', op: 'aten.index_copy_.default', kind: 'memory', args: [cache[L].k, kr, pos], dt: 'bf16', shape: [1, kvHeads, T, hd], view: true, src: 'File: /usr/lib/python3/site-packages/transformers/cache_utils.py:1231 in update, code: k_out.index_copy_(2, cache_position, key_states)' });
      vr = a({ base: 'index_copy_', op: 'aten.index_copy_.default', kind: 'memory', args: [cache[L].v, vt, pos], dt: 'bf16', shape: [1, kvHeads, T, hd], view: true, src: 'File: /usr/lib/python3/site-packages/transformers/cache_utils.py:1232 in update, code: v_out.index_copy_(2, cache_position, value_states)' });
    }
    const rep = (t) => {
      const u = a({ base: 'unsqueeze', op: 'aten.unsqueeze.default', kind: 'memory', args: [t], dt: 'bf16', shape: [1, kvHeads, 1, T, hd], view: true, src: SRC(85, 'hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)') });
      const e = a({ base: 'expand', op: 'aten.expand.default', kind: 'memory', args: [u], dt: 'bf16', shape: [1, kvHeads, heads / kvHeads, T, hd], view: true, src: SRC(85, 'hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)') });
      return a({ base: 'reshape', op: 'aten.reshape.default', kind: 'memory', args: [e], dt: 'bf16', shape: [1, heads, T, hd], src: SRC(86, 'return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)') });
    };
    const kk = rep(kr); const vvv = rep(vr);
    const ms = a({ base: 'slice', op: 'aten.slice.Tensor', kind: 'memory', args: [mask], dt: 'bool', shape: [1, 1, T, T], view: true, src: SRC(250, 'causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]') });
    const at = a({ base: 'scaled_dot_product_attention', op: 'aten.scaled_dot_product_attention.default', kind: 'attention', args: [qr, kk, vvv, ms], dt: 'bf16', shape: [1, heads, T, hd], flops: 2 * heads * T * T * hd, src: 'File: /usr/lib/python3/site-packages/transformers/integrations/sdpa_attention.py:54 in sdpa_attention_forward, code: attn_output = torch.nn.functional.scaled_dot_product_attention(' });
    const att = a({ base: 'transpose', op: 'aten.transpose.int', kind: 'memory', args: [at], dt: 'bf16', shape: [1, T, heads, hd], view: true, src: 'File: /usr/lib/python3/site-packages/transformers/integrations/sdpa_attention.py:64 in sdpa_attention_forward, code: attn_output = attn_output.transpose(1, 2).contiguous()' });
    const con = a({ base: 'clone', op: 'aten.clone.default', kind: 'memory', args: [att], dt: 'bf16', shape: [1, T, heads, hd], src: 'File: /usr/lib/python3/site-packages/transformers/integrations/sdpa_attention.py:64 in sdpa_attention_forward, code: attn_output = attn_output.transpose(1, 2).contiguous()' });
    const rs = a({ base: 'reshape', op: 'aten.reshape.default', kind: 'memory', args: [con], dt: 'bf16', shape: x3, view: true, src: SRC(306, 'attn_output = attn_output.reshape(*input_shape, -1).contiguous()') });
    const o = linear(rs, w.o, m.o_proj, d, H, 'attn_output = self.o_proj(attn_output)', 307);
    h = op({ base: 'add', op: 'aten.add.Tensor', kind: 'elementwise', mod: m.layer, dev: d, args: [h, o], dt: 'bf16', shape: x3, flops: numel(x3), src: SRC(352, 'hidden_states = residual + hidden_states') });
    const y = rms(h, w.ln2, m.ln2, d, 72);
    const g = linear(y, w.gate, m.gate_proj, d, inter, 'down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))', 190);
    const si = op({ base: 'silu', op: 'aten.silu.default', kind: 'elementwise', mod: m.act, dev: d, args: [g], dt: 'bf16', shape: [1, T, inter], flops: 4 * T * inter, src: 'File: /usr/lib/python3/site-packages/transformers/activations.py:69 in forward, code: return nn.functional.silu(input)' });
    const u = linear(y, w.up, m.up_proj, d, inter, 'down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))', 190);
    const mu = op({ base: 'mul', op: 'aten.mul.Tensor', kind: 'elementwise', mod: m.mlp, dev: d, args: [si, u], dt: 'bf16', shape: [1, T, inter], flops: T * inter, src: SRC(190, 'down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))') });
    const dn = linear(mu, w.down, m.down_proj, d, H, 'down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))', 190);
    h = op({ base: 'add', op: 'aten.add.Tensor', kind: 'elementwise', mod: m.layer, dev: d, args: [h, dn], dt: 'bf16', shape: x3, flops: numel(x3), src: SRC(358, 'hidden_states = residual + hidden_states') });
  }
  const hn = rms(h, W.norm, mNorm, lastDev, 72);
  const logits = linear(hn, W.head, mHead, lastDev, vocab, 'logits = self.lm_head(hidden_states[:, slice_indices, :])', 842);
  // the output node: no op, no device of its own
  const oi = nodes.name.length;
  nodes.name.push('output'); nodes.op.push(-1); nodes.kind.push(S('output')); nodes.mod.push(0);
  nodes.dev.push(-1); nodes.meta.push(''); nodes.src.push(-1); nodes.flops.push(0); nodes.bytes.push(0);
  nodes.time.push(0); nodes.bound.push(0); nodes.transfer.push(0); nodes.args.push([logits.i]);
  outBytes.push(0); isView.push(true); phCategory.push(null); phBytes.push(0);
  return oi;
}

// ---- liveness: per-device activation timeline (allocated at the node, freed after the last use) --
function memory(ndev) {
  const N = nodes.name.length;
  const base = new Int32Array(N);
  const last = new Int32Array(N).fill(-1);
  for (let i = 0; i < N; i++) {
    base[i] = i;
    if (isView[i] && nodes.args[i].length) base[i] = base[nodes.args[i][0]];
    for (const a of nodes.args[i]) last[base[a]] = Math.max(last[base[a]], i);
  }
  const delta = Array.from({ length: ndev }, () => new Float64Array(N + 1));
  for (let i = 0; i < N; i++) {
    const b = outBytes[i]; const d = nodes.dev[i];
    if (!b || d < 0) continue;
    delta[d][i] += b;
    delta[d][Math.max(last[i], i) + 1] -= b;
  }
  const timeline = []; const peaks = [];
  for (let d = 0; d < ndev; d++) {
    const steps = []; const bytes = []; let live = 0; let peak = 0; let peakStep = -1;
    for (let i = 0; i < N; i++) {
      if (!delta[d][i]) continue;
      live += delta[d][i];
      steps.push(i); bytes.push(live);
      if (live > peak) { peak = live; peakStep = i; }
    }
    timeline.push({ device: d, steps, bytes });
    // tensors live at the peak
    const liveAt = [];
    if (peakStep >= 0) {
      for (let i = 0; i <= peakStep; i++) {
        if (outBytes[i] && nodes.dev[i] === d && Math.max(last[i], i) + 1 > peakStep) liveAt.push(i);
      }
    }
    liveAt.sort((x, y) => outBytes[y] - outBytes[x]);
    peaks.push({ peak, peakStep, tensors: liveAt.slice(0, 8) });
  }
  return { timeline, peaks };
}

// ---- assemble ------------------------------------------------------------------------------------
function main() {
  const big = mode === 'big';
  const ndev = big ? 8 : mode === 'small' ? 1 : 0;
  const spec = { spec: 'H200-SXM-141GB', peak_flops: 9.895e14, bandwidth: 4.8e12, capacity: 141 * 2 ** 30 };
  devices = Array.from({ length: ndev }, (_, d) => (big
    ? { name: `cuda:${d}`, spec: spec.spec, peak_flops: spec.peak_flops, bandwidth: spec.bandwidth }
    : { name: 'cpu', spec: null, peak_flops: null, bandwidth: null }));

  let title;
  if (mode === 'empty') {
    M('', 'Relu');
    const x = placeholder('x', 0, -1, 'f32', [4, 8], 'input');
    op({ base: 'relu', op: 'aten.relu.default', kind: 'elementwise', mod: 0, dev: -1, args: [x], dt: 'f32', shape: [4, 8] });
    nodes.name.push('output'); nodes.op.push(-1); nodes.kind.push(S('output')); nodes.mod.push(0); nodes.dev.push(-1);
    nodes.meta.push(''); nodes.src.push(-1); nodes.flops.push(0); nodes.bytes.push(0); nodes.time.push(0);
    nodes.bound.push(0); nodes.transfer.push(0); nodes.args.push([1]); phBytes.push(0);
    title = 'relu (examples/relu.py), float32';
  } else if (big) {
    buildDecoder({ layers: 126, hidden: 16384, heads: 128, kvHeads: 8, inter: 53248, vocab: 128256, seq: 2048, ndev, kvCache: true });
    title = 'llama (configs/meta-llama-3.1-405b.json), bfloat16, batch 1 x seq 2048';
  } else {
    buildDecoder({ layers: 1, hidden: 256, heads: 4, kvHeads: 2, inter: 688, vocab: 1024, seq: 32, ndev, paramsAtRoot: true });
    title = 'llama (tiny, 1 layer), float32 on cpu, batch 1 x seq 32';
  }
  const N = nodes.name.length;
  const { timeline, peaks } = memory(ndev);

  const devOut = devices.map((dv, d) => {
    const sum = (cat) => {
      let s = 0;
      for (let i = 0; i < N; i++) if (phCategory[i] === cat && nodes.dev[i] === d) s += phBytes[i];
      return s;
    };
    let flops = 0; let bytes = 0; let time = 0;
    for (let i = 0; i < N; i++) if (nodes.dev[i] === d) { flops += nodes.flops[i]; bytes += nodes.bytes[i]; time += nodes.time[i]; }
    const p = { parameter_bytes: sum('param'), buffer_bytes: sum('buffer'), constant_bytes: 0, input_bytes: sum('input'), kv_cache_bytes: sum('kv') };
    const stat = p.parameter_bytes + p.buffer_bytes + p.constant_bytes + p.input_bytes + p.kv_cache_bytes;
    return Object.assign({ name: dv.name, spec: dv.spec, peak_flops: dv.peak_flops, bandwidth: dv.bandwidth }, p, {
      activation_peak_bytes: peaks[d].peak, peak_bytes: stat + peaks[d].peak, peak_step: peaks[d].peakStep,
      flops, bytes, time_s: dv.peak_flops ? Number(time.toPrecision(6)) : null,
      bound: dv.peak_flops ? (flops / bytes > dv.peak_flops / dv.bandwidth ? 'compute' : 'memory') : null,
    });
  });

  let transferBytes = 0;
  for (let i = 0; i < N; i++) if (nodes.transfer[i]) transferBytes += outBytes[i];
  const transferS = big ? Number((transferBytes / 450e9).toPrecision(4)) : 0;
  const byTime = [];
  for (let i = 0; i < N; i++) if (nodes.time[i] > 0) byTime.push(i);
  byTime.sort((a, b) => nodes.time[b] - nodes.time[a] || a - b);

  const nameOf = (i) => nodes.name[i];
  const siteNodes = [];
  if (big && !clean) {
    // 24 synthetic lint sites: each layer's mask slice on a device other than cuda:0 pins cuda:0
    for (let i = 0; i < N && siteNodes.length < 24; i++) if (nodes.name[i].startsWith('slice') && nodes.dev[i] > 0 && strings[nodes.src[i]].includes('causal_mask')) siteNodes.push(i);
  }
  const verdict = {
    exports: true,
    nodes: N,
    targets: devices.map((d) => d.name),
    device_sites: siteNodes.map((i) => ({
      node: nameOf(i), target: devices[nodes.dev[i]].name, device: 'cuda:0', kind: 'factory',
      source: SRC(640, "causal_mask = torch.full((sequence_length, target_length), min_dtype, device='cuda:0')"),
      module: modules.path[nodes.mod[i]], fix: 'create the tensor on the input\'s device: device=input_tensor.device',
    })),
    missing_kernels: big && !clean ? [{ node: nameOf(byTime.find((i) => strings[nodes.kind[i]] === 'attention' && nodes.dev[i] === 5)), target: 'cuda:5', backend: 'cuda', device: 'cuda:5', decomposes: true }] : [],
    fits: devOut.map((d) => ({ device: d.name, required: d.peak_bytes + (big ? 2 ** 30 : 0), capacity: big ? spec.capacity : null, fits: big ? d.peak_bytes + 2 ** 30 <= spec.capacity : null })),
  };
  const latency = big ? Number((devOut.reduce((a, d) => a + d.time_s, 0) + transferS).toPrecision(6)) : null;

  const data = {
    version: 1,
    title,
    generator: 'fakeexport report',
    verdict,
    devices: devOut,
    latency_s: latency,
    transfer_bytes: transferBytes,
    transfer_s: transferS,
    strings,
    modules,
    nodes,
    timeline: big ? timeline : [],
    hotspots: {
      time: byTime.slice(0, 30),
      memory: big ? devOut.map((_, d) => ({ device: d, tensors: peaks[d].tensors.map((i) => ({ node: i, bytes: outBytes[i], meta: nodes.meta[i], module: modules.path[nodes.mod[i]] })) })) : [],
    },
    assumptions: mode === 'empty' ? [] : big ? [
      'Inference under torch.no_grad(): no autograd graph, gradients or optimizer state.',
      'Times are a roofline estimate: max(FLOPs / (peak x efficiency), bytes / (bandwidth x 0.85)) per node; kernels run one at a time.',
      'Layers are split over the devices in order (pipeline); devices run one after another for a single batch, so latency is the sum of device times plus transfers.',
      'Transfers between devices go over NVLink4 at 450 GB/s one way.',
      'Capacities are nominal (141 GiB per H200); 1 GiB is reserved per device for the CUDA context.',
      'KV cache: a static cache of 2048 positions, bfloat16, on the device of each layer\'s k_proj/v_proj.',
    ] : ['The cpu has no hardware spec: no times, no roofline.'],
  };
  const text = JSON.stringify(data);
  fs.writeFileSync(out, text);
  console.log(`${out}: ${N} nodes, ${modules.path.length} modules, ${ndev} devices, ${(text.length / 1024).toFixed(0)} KiB`);
}

main();
