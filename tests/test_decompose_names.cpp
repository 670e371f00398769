// The names PyTorch's decomposition retrace takes for size arithmetic it records and drops
// (export/guards_fn_trace.h, export/functional_names.h), checked against the node names
// PyTorch 2.14.1 creates, dead ones included (tools/oracle/scripts/trace_dead_nodes.py
// decompose NAME, in creation order).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "export/contiguity_trace.h"
#include "export/functional_names.h"
#include "export/guards_fn_trace.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/sym/shape_env.h"

using namespace fe;

namespace {

/// The names `_guards_fn` of a corpus archive takes, each size read as a `sym_size_int` name.
std::vector<std::string> guard_names(const std::string& name) {
  serde::LoadedProgram lp = serde::load(std::string(FE_FIXTURES_DIR) + "/corpus/" + name + ".pt2");
  const ExportedProgram& ep = lp.ep;
  std::vector<detail::GuardInput> inputs;
  const std::vector<Node*> phs = ep.graph.placeholders();
  for (size_t i = 0; i < phs.size(); ++i)
    if (ep.signature.inputs[i].kind == InputKind::UserInput && phs[i]->val.size() == 1)
      inputs.push_back({ep.signature.inputs[i].name, &phs[i]->val[0]});
  Graph g;
  std::vector<Graph::NameTaken> journal;
  g.name_journal = &journal;
  detail::take_guards_fn_names(g, inputs, ep.range_constraints, ep.guards_code,
                               [&](const SymInt&) { (void)g.unique_name("sym_size_int"); });
  std::vector<std::string> names;
  for (const auto& t : journal) names.push_back(t.name);
  return names;
}

using Names = std::vector<std::string>;

// Range constraints (`<= 16000`, `>= 400`), then guards with `//`, `%`, unary minus and products.
TEST(DecomposeNames, GuardsFnOfWav2vec2) {
  EXPECT_EQ(guard_names("hf_wav2vec2_dyn"),
            (Names{"sym_size_int", "le", "sym_size_int_1", "ge", "le_1", "floordiv", "add", "mul", "ne", "floordiv_1",
                   "add_1", "mul_1", "mod", "ne_1", "floordiv_2", "add_2", "mul_2", "floordiv_3", "add_3", "mul_3",
                   "ge_1"}));
}

// A symbol's second source (`decoder_input_ids` batch == `input_features` batch) and int * size.
TEST(DecomposeNames, GuardsFnOfWhisper) {
  EXPECT_EQ(guard_names("hf_whisper_dyn"),
            (Names{"sym_size_int", "le", "sym_size_int_1", "eq", "sym_size_int_2", "le_1", "mul", "mul_1", "mod",
                   "eq_1", "mul_2", "mul_3", "mul_4", "floordiv", "mul_5", "eq_2", "eq_3"}));
}

// `a == 1 or a == b`: the first comparison is false on the hints, so the second one runs too.
TEST(DecomposeNames, GuardsFnShortCircuitsOnHints) {
  EXPECT_EQ(guard_names("ops_einsum_dynamic"),
            (Names{"sym_size_int", "le", "sym_size_int_1", "eq", "sym_size_int_2", "eq_1", "eq_2", "eq_3", "eq_4",
                   "eq_5"}));
}

// computeStorageNbytes as the proxy mode records it (embedding's output f32[s43, s53, 32] with
// strides [32*s53, 32, 1]; unsqueeze's i64[1, s53] whose stride*0 folds to an int; a bool tensor
// has no itemsize product).
TEST(DecomposeNames, StorageSizeArithmetic) {
  sym::ShapeEnv env;
  const SymInt b = env.create_symbol("L['x'].size()[0]", 3, {2, 64}, sym::DimKind::Dynamic);
  const SymInt s = env.create_symbol("L['x'].size()[1]", 5, {2, 64}, sym::DimKind::Dynamic);
  const auto names = [](const TensorMeta& m) {
    Graph g;
    std::vector<Graph::NameTaken> journal;
    g.name_journal = &journal;
    detail::take_storage_nbytes_names(g, m);
    std::vector<std::string> out;
    for (const auto& t : journal) out.push_back(t.name);
    return out;
  };
  const std::vector<SymInt> emb_sizes{b, s, 32}, row_sizes{1, s}, mask_sizes{b, 5}, static_sizes{4, 5};
  const TensorMeta emb = make_contiguous(emb_sizes, DType::Float32, kCPU);
  EXPECT_EQ(names(emb), (Names{"eq", "sub", "mul", "add", "eq_1", "sub_1", "mul_1", "add_1", "add_2", "add_3", "mul_2"}));
  const TensorMeta row = make_contiguous(row_sizes, DType::Int64, kCPU);
  EXPECT_EQ(names(row), (Names{"mul", "eq", "sub", "add", "add_1", "mul_1"}));
  const TensorMeta mask = make_contiguous(mask_sizes, DType::Bool, kCPU);
  EXPECT_EQ(names(mask), (Names{"eq", "sub", "mul", "add", "add_1", "add_2"}));
  EXPECT_TRUE(names(make_contiguous(static_sizes, DType::Float32, kCPU)).empty());
}

/// Takes names from `on_dropped` only (what FunctionalNames' NameTaker does in a retrace).
struct NameJournal final : sym::SymTracer {
  std::vector<std::string> names;
  void on_binary(const SymInt&) override {}
  void on_compare(Rel, const SymInt&, const SymInt&) override {}
  void on_dropped(std::string_view base, std::span<const SymInt>) override { names.emplace_back(base); }
  void on_contiguous(const void*, std::span<const SymInt>, std::span<const SymInt>) override {}
  void on_numel_read(const void*, const SymInt&) override {}
};

// torch._refs.empty_like of x: f32[s77, 5] (ops_factories_dynamic, PyTorch's trace of its
// decomposition): check_same_shape's eq/and_/and_, is_contiguous's sym_numel read and `lt`, then
// check_contiguous_sizes_strides over the symbolic dim (eq, sym_max, mul, mul). A static tensor
// records nothing; a 1-D one only the shape check.
TEST(DecomposeNames, EmptyLikeStridePermutation) {
  sym::ShapeEnv env;
  const SymInt s = env.create_symbol("L['x'].size()[0]", 3, {2, 64}, sym::DimKind::Dynamic);
  const auto names = [](std::vector<SymInt> sizes) {
    const TensorMeta m = make_contiguous(sizes, DType::Float32, kCPU);
    NameJournal j;
    detail::record_refs_output_perm(j, m.sizes, m.strides);
    return j.names;
  };
  EXPECT_EQ(names({s, 5}), (Names{"eq", "and_", "and_", "sym_numel_default", "lt", "eq", "sym_max", "mul", "mul"}));
  EXPECT_EQ(names({s}), (Names{"eq", "and_"}));
  EXPECT_TRUE(names({4, 5}).empty());
}

// check_inplace_broadcast(self.shape, mask.shape) in meta_masked_fill_ of x: f32[s17, 5] with a
// mask of the same shape (ops_elementwise_dynamic, PyTorch's trace): the first shape's symbolic
// dim compares with 1 (eq), is checked non-negative (lt), compared with 1 again and checked
// against itself; the second's only compares with the common size.
TEST(DecomposeNames, InplaceBroadcastCheck) {
  sym::ShapeEnv env;
  const SymInt s = env.create_symbol("L['x'].size()[0]", 3, {2, 64}, sym::DimKind::Dynamic);
  const std::vector<SymInt> self{s, 5}, mask{s, 5};
  NameJournal j;
  const std::span<const SymInt> same[] = {self, mask};
  detail::record_broadcast_shapes(j, same);
  EXPECT_EQ(j.names, (Names{"eq", "lt", "eq", "eq", "eq"}));
}

// _unsafe_view(mm, [b, s, 32]) (matmul folding a 3-D input into rows, as torch._decomp's matmul
// does) under C++ functionalization: c10's numel of the mm output, infer_size_dv, computeStride.
// The sequences are PyTorch 2.14.1's trace of `x @ w` with x f32[b, s, 64] and f32[b, h, s, 64]
// (names after the `view` the _unsafe_view decomposes to, dead ones included).
TEST(DecomposeNames, UnsafeViewShapeInference) {
  sym::ShapeEnv env;
  const SymInt b = env.create_symbol("L['x'].size()[0]", 2, {2, 64}, sym::DimKind::Dynamic);
  const SymInt h = env.create_symbol("L['x'].size()[1]", 3, {2, 64}, sym::DimKind::Dynamic);
  const SymInt s = env.create_symbol("L['x'].size()[2]", 5, {2, 64}, sym::DimKind::Dynamic);
  const auto names = [](std::vector<SymInt> rows_cols, std::vector<SymInt> shape) {
    const TensorMeta mm = make_contiguous(rows_cols, DType::Float32, kCPU);
    NameJournal j;
    detail::record_numel_product(j, mm.sizes);
    detail::record_unsafe_view_shape(j, mm.sizes, mm.strides, shape);
    return j.names;
  };
  EXPECT_EQ(names({b * s, 32}, {b, s, 32}),
            (Names{"mul", "eq", "gt", "eq", "gt", "mul", "mul", "eq", "mul", "eq", "ne", "mul", "lt", "lt", "mul", "lt",
                   "mul", "ne"}));
  EXPECT_EQ(names({b * h * s, 32}, {b, h, s, 32}),
            (Names{"mul", "eq", "gt", "eq", "gt", "mul", "eq", "gt", "mul", "mul", "eq", "mul", "eq", "ne", "mul", "lt",
                   "lt", "mul", "lt", "mul", "lt", "mul", "ne"}));
  // A static view records nothing.
  EXPECT_TRUE(names({12, 32}, {3, 4, 32}).empty());
}

}  // namespace
