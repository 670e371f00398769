// A GPT-2-style decoder exported with Dim("batch") and Dim("seq_len", min=2, max=1024): both dims stay
// symbolic end to end, compared with PyTorch 2.14's print of the same program
// (tests/fixtures/dynamic/gpt2_block.txt from tools/oracle/scripts/export_gpt2_dynamic.py; the module
// below mirrors it statement for statement).
#include <gtest/gtest.h>

#include <regex>

#include "test_util.h"

#include "fakeexport/fakeexport.h"

namespace {
using fe_test::blank_file_lines;
using fe_test::lines_of;
using fe_test::read_file;
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

DynamicShapes gpt_dims() { return {{"idx", {Dim("batch"), Dim("seq_len", 2, 1024)}}}; }

/// Numbers of `sym_size_int_N` depend on how many sym nodes make_fx created (and folded away) on the
/// way, which follows Python object identity inside PyTorch: compared modulo that numbering.
std::string renumber_sym_sizes(const std::string& s) {
  std::string out;
  std::map<std::string, std::string> names;
  std::regex re("sym_size_int(_[0-9]+)?");
  auto begin = std::sregex_iterator(s.begin(), s.end(), re);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += s.substr(last, static_cast<size_t>(it->position()) - last);
    auto [p, fresh] = names.emplace(it->str(), "sym_size_int_#" + std::to_string(names.size()));
    out += p->second;
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + s.substr(last);
}

void expect_same(const std::string& ours_text, const std::string& fixture) {
  auto ours = lines_of(renumber_sym_sizes(blank_file_lines(ours_text)));
  auto want = lines_of(renumber_sym_sizes(blank_file_lines(read_file(std::string(FE_FIXTURES_DIR) + fixture))));
  ASSERT_EQ(ours.size(), want.size()) << ours_text;
  for (size_t n = 0; n < ours.size(); ++n) EXPECT_EQ(ours[n], want[n]) << fixture << " line " << n + 1;
}

TEST(ExportGpt2Dynamic, StaticPrintsLikePyTorch) {
  FakeTensorMode mode;
  GPT m;
  ExportedProgram ep = export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})});
  expect_same(to_string(ep, {.read_source = false}), "/dynamic/gpt2_block_static.txt");
}

TEST(ExportGpt2Dynamic, BatchAndSeqStaySymbolic) {
  FakeTensorMode mode;
  GPT m;
  ExportedProgram ep = export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})}, {.dynamic_shapes = gpt_dims()});
  expect_same(to_string(ep, {.read_source = false}), "/dynamic/gpt2_block.txt");
  // No silent specialization: no symbol was replaced by a constant.
  for (const auto& [sym, value] : ep.shape_env->replacements()) EXPECT_FALSE(value.is_constant()) << sym;
  const TensorMeta& out = ep.graph.output_node()->inputs()[0]->val[0];
  EXPECT_EQ(out.annotation(), "f32[s95, s75, 64]");
}

}  // namespace
