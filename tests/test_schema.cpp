// Schema layer: our registry's schemas print exactly as str(torch.ops.aten.X.Y._schema);
// parse_schema round-trips PyTorch schema strings; defaults, aliasing, positional_count.
// Schema texts below were printed by PyTorch 2.14.1 (tools/oracle).
#include <gtest/gtest.h>

#include "test_util.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"
#include "fakeexport/ops/schema.h"

namespace {
using fe_test::what_of;


// Every registered op's schema text is compared with PyTorch's by the conformance harness
// (tests/conformance/conformance.cpp, "schemas" of tests/fixtures/ops/*.json), which also
// requires every registered op to appear in the fixtures.

TEST(SchemaRegistry, LookupByPacketNameAndUnknownOp) {
  EXPECT_EQ(&fe::registry().get("aten::linear"), &fe::registry().get("aten::linear.default"));
  EXPECT_EQ(fe::registry().get("aten::add.Tensor").node_name, "add");
  EXPECT_EQ(fe::registry().find("aten::add"), nullptr);  // add has no default overload
  EXPECT_THROW(fe::registry().get("aten::nonexistent"), fe::UnknownOpError);
  EXPECT_NE(what_of([] { fe::registry().get("aten::nonexistent"); }).find("aten::nonexistent"), std::string::npos);
  EXPECT_THROW(fe::op("aten::linear.Tensor"), fe::UnknownOpError);
}

// str(torch.ops.<op>._schema) of PyTorch 2.14.1 for ops outside our registry.
const char* const kRoundTrip[] = {
    "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
    "aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
    "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
    "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
    "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
    "aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)",
    "aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
    "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
    "aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate=\"none\") -> Tensor",
    "aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
};

TEST(SchemaParse, RoundTripsPyTorchSchemas) {
  for (const char* text : kRoundTrip) {
    fe::FunctionSchema s;
    ASSERT_NO_THROW(s = fe::parse_schema(text)) << text;
    EXPECT_EQ(s.str(), text);
  }
}

// PyTorch schemas with rarer constructs: an untyped Storage argument, a dtype default written as
// c10::ScalarType's number, a float default written "0.". Each parses and prints back as written.
const char* const kRare[] = {
    "aten::set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset, SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)",
    "aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)",
};

TEST(SchemaParse, RareConstructsRoundTrip) {
  for (const char* text : kRare) EXPECT_EQ(fe::parse_schema(text).str(), text);
  const fe::FunctionSchema randint = fe::parse_schema(kRare[1]);
  EXPECT_EQ(std::get<fe::DType>(*randint.arguments[3].default_value), fe::DType::Int64);  // c10's 4 is Long
  EXPECT_EQ(randint.arguments[3].type.base, fe::ArgBase::ScalarType);
  EXPECT_EQ(fe::parse_schema(kRare[0]).arguments[1].type.base, fe::ArgBase::Storage);
  EXPECT_DOUBLE_EQ(std::get<double>(*fe::parse_schema(kRare[2]).arguments[1].default_value), 0.0);
  EXPECT_THROW(fe::parse_schema("aten::f(ScalarType dtype=99) -> Tensor"), fe::ValueError);
}

TEST(SchemaParse, StructureOfArguments) {
  fe::FunctionSchema s = fe::parse_schema(kRoundTrip[3]);  // add_.Tensor
  EXPECT_EQ(s.ns, "aten");
  EXPECT_EQ(s.name, "add_");
  EXPECT_EQ(s.overload, "Tensor");
  EXPECT_EQ(s.qualified_name(), "aten::add_.Tensor");
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[0].type.alias_set, 'a');
  EXPECT_TRUE(s.arguments[0].type.is_write);
  EXPECT_FALSE(s.arguments[1].type.is_write);
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type.base, fe::ArgBase::Scalar);
  ASSERT_TRUE(s.arguments[2].default_value);
  EXPECT_EQ(std::get<fe::SymInt>(*s.arguments[2].default_value), fe::SymInt(1));
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_TRUE(s.returns[0].type.is_write);
  EXPECT_EQ(s.arg_index("other"), 1);
  EXPECT_EQ(s.arg_index("nope"), -1);

  fe::FunctionSchema idx = fe::parse_schema(kRoundTrip[4]);  // index.Tensor: Tensor?[]
  EXPECT_TRUE(idx.arguments[1].type.is_list);
  EXPECT_TRUE(idx.arguments[1].type.elem_optional);
  EXPECT_FALSE(idx.arguments[1].type.optional);

  fe::FunctionSchema sort = fe::parse_schema(kRoundTrip[2]);
  EXPECT_EQ(sort.overload, "default");
  EXPECT_EQ(sort.qualified_name(), "aten::sort.default");
  ASSERT_EQ(sort.returns.size(), 2u);
  EXPECT_EQ(sort.returns[0].name, "values");
  EXPECT_EQ(sort.returns[1].name, "indices");
  EXPECT_EQ(std::get<fe::SymInt>(*sort.arguments[1].default_value), fe::SymInt(-1));
  EXPECT_EQ(std::get<bool>(*sort.arguments[2].default_value), false);

  fe::FunctionSchema ln = fe::parse_schema(kRoundTrip[0]);
  EXPECT_EQ(ln.returns.size(), 3u);
  EXPECT_TRUE(ln.arguments[2].type.optional);
  EXPECT_FALSE(ln.arguments[2].default_value);  // Tensor? without default: required
}

TEST(SchemaParse, DefaultValues) {
  fe::FunctionSchema mp = fe::parse_schema(kRoundTrip[1]);  // max_pool2d
  using L = std::vector<fe::SymInt>;
  EXPECT_EQ(mp.arguments[1].type.list_size, 2);
  EXPECT_FALSE(mp.arguments[1].default_value);
  EXPECT_EQ(std::get<L>(*mp.arguments[2].default_value), L{});          // stride=[]
  EXPECT_EQ(std::get<L>(*mp.arguments[3].default_value), (L{0, 0}));    // padding=0 broadcasts
  EXPECT_EQ(std::get<L>(*mp.arguments[4].default_value), (L{1, 1}));    // dilation=1
  EXPECT_EQ(std::get<bool>(*mp.arguments[5].default_value), false);
  EXPECT_EQ(mp.arguments[3].default_text, "0");

  fe::FunctionSchema lr = fe::parse_schema(kRoundTrip[5]);  // leaky_relu: Scalar 0.01 is a float
  EXPECT_DOUBLE_EQ(std::get<double>(*lr.arguments[1].default_value), 0.01);
  fe::FunctionSchema lnorm = fe::parse_schema(kRoundTrip[17]);  // layer_norm
  EXPECT_DOUBLE_EQ(std::get<double>(*lnorm.arguments[4].default_value), 1e-05);
  EXPECT_TRUE(std::holds_alternative<fe::None>(*lnorm.arguments[2].default_value));
  EXPECT_EQ(std::get<bool>(*lnorm.arguments[5].default_value), true);
  fe::FunctionSchema sdpa = fe::parse_schema(kRoundTrip[16]);
  EXPECT_EQ(std::get<double>(*sdpa.arguments[4].default_value), 0.0);  // "0."
  const fe::Argument& approx = fe::op("aten::gelu").schema.arguments[1];
  EXPECT_EQ(std::get<std::string>(*approx.default_value), "none");
  EXPECT_EQ(approx.default_text, "\"none\"");
  fe::FunctionSchema hist = fe::parse_schema(kRoundTrip[27]);  // histc: Scalar min=0 is an int
  EXPECT_EQ(std::get<fe::SymInt>(*hist.arguments[2].default_value), fe::SymInt(0));
  const auto& to = fe::op("aten::to.dtype_layout").schema;
  EXPECT_EQ(std::get<bool>(*to.arguments[to.arg_index("copy")].default_value), false);
}

TEST(SchemaParse, MalformedThrowsValueError) {
  const char* bad[] = {
      "foo(Tensor self) -> Tensor",                 // no namespace
      "aten::foo(Tensor self)",                     // no returns
      "aten::foo Tensor self -> Tensor",            // no parentheses
      "aten::foo(Tensr self) -> Tensor",            // unknown type
      "aten::foo(Tensor) -> Tensor",                // argument without name
      "aten::foo(int x=abc) -> Tensor",             // bad int default
      "aten::foo(bool b=maybe) -> Tensor",          // bad bool default
      "aten::foo(int[2 x) -> Tensor",               // unclosed list
      "aten::foo(Tensor(a self) -> Tensor",         // unclosed alias
      "aten::foo(ScalarType t=float31) -> Tensor",  // bad dtype default
      "aten::foo(Tensor x) -> Tensorr",             // unknown return type
  };
  for (const char* text : bad) {
    EXPECT_THROW(fe::parse_schema(text), fe::ValueError) << text;
  }
  EXPECT_NE(what_of([] { fe::parse_schema("aten::foo(Tensr self) -> Tensor"); }).find("Tensr"), std::string::npos);
}

TEST(SchemaParse, EmptyReturnsTextIsAValueError) {
  EXPECT_THROW(fe::parse_schema("aten::f(Tensor x) -> "), fe::ValueError);
  EXPECT_THROW(fe::parse_schema("aten::f(int[] x=) -> Tensor"), fe::ValueError);
  EXPECT_THROW(fe::parse_schema("aten::f(int[] x=[1) -> Tensor"), fe::ValueError);
}

TEST(SchemaPositional, UpToTheLastNonDefaultArgument) {
  // PyTorch's torch_dispatch packing (checked by exporting F.max_pool2d / F.layer_norm / sdpa in
  // PyTorch 2.14): every non-kwarg-only argument up to the last non-default one is positional.
  fe::Tensor x;
  const auto& lin = fe::op("aten::linear").schema;
  EXPECT_EQ(fe::positional_count(lin, std::vector<fe::IValue>{x, x, fe::None{}}), 2u);  // bias=None
  EXPECT_EQ(fe::positional_count(lin, std::vector<fe::IValue>{x, x, x}), 3u);
  const auto& add = fe::op("aten::add.Tensor").schema;
  EXPECT_EQ(fe::positional_count(add, std::vector<fe::IValue>{x, x, fe::SymInt(2)}), 2u);  // alpha kwarg-only
  const auto& gelu = fe::op("aten::gelu").schema;
  EXPECT_EQ(fe::positional_count(gelu, std::vector<fe::IValue>{x, std::string("tanh")}), 1u);
  const auto& to = fe::op("aten::to.dtype_layout").schema;
  EXPECT_EQ(fe::positional_count(to, std::vector<fe::IValue>{x, fe::DType::Float32, fe::Layout::Strided, fe::kCPU}),
            1u);
  const auto& tod = fe::op("aten::to.dtype").schema;
  EXPECT_EQ(fe::positional_count(tod, std::vector<fe::IValue>{x, fe::DType::Float16, false, false, fe::None{}}), 2u);
  EXPECT_EQ(fe::positional_count(tod, std::vector<fe::IValue>{x, fe::DType::Float16, true, false, fe::None{}}), 3u);

  using L = std::vector<fe::SymInt>;
  fe::FunctionSchema mp = fe::parse_schema(kRoundTrip[1]);
  // max_pool2d(x, [2, 2]) with stride=[] (default) -> positional stops at stride.
  EXPECT_EQ(fe::positional_count(mp, std::vector<fe::IValue>{x, L{2, 2}, L{}, L{0, 0}, L{1, 1}, false}), 2u);
  // F.max_pool2d(x, 2, 2, 0, 1, True) prints (x, [2, 2], [2, 2], [0, 0], [1, 1], True).
  EXPECT_EQ(fe::positional_count(mp, std::vector<fe::IValue>{x, L{2, 2}, L{2, 2}, L{0, 0}, L{1, 1}, true}), 6u);
  // F.max_pool2d(x, 2, 1) prints (x, [2, 2], [1, 1]).
  EXPECT_EQ(fe::positional_count(mp, std::vector<fe::IValue>{x, L{2, 2}, L{1, 1}, L{0, 0}, L{1, 1}, false}), 3u);
  EXPECT_EQ(fe::positional_count(mp, std::vector<fe::IValue>{x, L{2, 2}, L{2, 2}, L{1, 1}, L{2, 2}, true}), 6u);
  // Fewer args than parameters.
  EXPECT_EQ(fe::positional_count(mp, std::vector<fe::IValue>{x}), 1u);
}

TEST(SchemaConstantRepr, PythonSpelling) {
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::None{})), "None");
  EXPECT_EQ(fe::constant_repr(fe::Constant(true)), "True");
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::SymInt(-3))), "-3");
  EXPECT_EQ(fe::constant_repr(fe::Constant(1e-05)), "1e-05");
  EXPECT_EQ(fe::constant_repr(fe::Constant(std::string("tanh"))), "'tanh'");
  EXPECT_EQ(fe::constant_repr(fe::Constant(std::string("it's"))), "\"it's\"");  // repr("it's")
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::DType::BFloat16)), "torch.bfloat16");
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::Layout::Strided)), "torch.strided");
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::MemoryFormat::Preserve)), "torch.preserve_format");
  EXPECT_EQ(fe::constant_repr(fe::Constant(fe::Device::parse("cuda:0"))), "device(type='cuda', index=0)");
  EXPECT_EQ(fe::constant_repr(fe::Constant(std::vector<fe::SymInt>{2, 3})), "[2, 3]");
  EXPECT_EQ(fe::constant_repr(fe::Constant(std::vector<fe::SymInt>{})), "[]");
}

}  // namespace
