// A small GPT-2-style decoder (token + position embedding, one pre-LN block with causal attention
// and a GELU MLP, final LayerNorm, lm_head), mirroring class GPT of
// tools/oracle/scripts/export_gpt2_dynamic.py statement for statement. Shared by
// tests/test_export_gpt2_dynamic.cpp and bench/bench_export.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace gpt2_mini {
using namespace fe;

constexpr int64_t V = 64, P = 32, C = 16, NH = 2;

class Block : public nn::Module {
 public:
  Block()
      : ln_1(register_module("ln_1", std::make_shared<nn::LayerNorm>(C))),
        c_attn(register_module("c_attn", std::make_shared<nn::Linear>(C, 3 * C))),
        c_proj(register_module("c_proj", std::make_shared<nn::Linear>(C, C))),
        ln_2(register_module("ln_2", std::make_shared<nn::LayerNorm>(C))),
        c_fc(register_module("c_fc", std::make_shared<nn::Linear>(C, 4 * C))),
        mlp_proj(register_module("mlp_proj", std::make_shared<nn::Linear>(4 * C, C))) {}
  std::string type_name() const override { return "__main__.Block"; }
  Tensor operator()(const Tensor& x_in) {
    nn::ModuleCallScope scope(*this);
    Tensor x = x_in;
    SymInt B = x.size(0), T = x.size(1);
    auto qkv = (*c_attn)((*ln_1)(x)).split(C, 2);
    Tensor q = qkv[0].view({B, T, NH, C / NH}).transpose(1, 2);
    Tensor k = qkv[1].view({B, T, NH, C / NH}).transpose(1, 2);
    Tensor v = qkv[2].view({B, T, NH, C / NH}).transpose(1, 2);
    Tensor y = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    y = y.transpose(1, 2).contiguous().view({B, T, C});
    x = x + (*c_proj)(y);
    x = x + (*mlp_proj)(gelu((*c_fc)((*ln_2)(x)), "tanh"));
    return x;
  }
  std::shared_ptr<nn::LayerNorm> ln_1;
  std::shared_ptr<nn::Linear> c_attn, c_proj;
  std::shared_ptr<nn::LayerNorm> ln_2;
  std::shared_ptr<nn::Linear> c_fc, mlp_proj;
};

class GPT : public nn::Module {
 public:
  GPT()
      : wte(register_module("wte", std::make_shared<nn::Embedding>(V, C))),
        wpe(register_module("wpe", std::make_shared<nn::Embedding>(P, C))),
        h(register_module("h", std::make_shared<Block>())),
        ln_f(register_module("ln_f", std::make_shared<nn::LayerNorm>(C))),
        lm_head(register_module("lm_head", std::make_shared<nn::Linear>(C, V, false))) {}
  std::string type_name() const override { return "__main__.GPT"; }
  std::vector<std::string> forward_arg_names() const override { return {"idx"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor& idx = in[0];
    SymInt T = idx.size(1);
    Tensor pos = arange(0, T, {.dtype = DType::Int64, .device = idx.device()});
    Tensor te = (*wte)(idx), pe = (*wpe)(pos); Tensor x = te + pe;  // NOLINT: one line, Python's order
    x = (*h)(x);
    return {(*lm_head)((*ln_f)(x))};
  }
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<Block> h;
  std::shared_ptr<nn::LayerNorm> ln_f;
  std::shared_ptr<nn::Linear> lm_head;
};

/// Dim("batch") and Dim("seq_len", min=2, max=1024) on idx, as in the oracle script.
inline DynamicShapes dynamic_dims() { return {{"idx", {Dim("batch"), Dim("seq_len", 2, 1024)}}}; }

}  // namespace gpt2_mini
